check examples/occupancy.cu --blocks 2
