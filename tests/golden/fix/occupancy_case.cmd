fix examples/occupancy.cu --blocks 4
