check examples/scan.cu --blocks 3
