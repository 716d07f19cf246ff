check examples/reduction.cu --blocks 3
