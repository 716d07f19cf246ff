check examples/transpose.cu --blocks 2
