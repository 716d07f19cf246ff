fix examples/histogram.cu --blocks 8
