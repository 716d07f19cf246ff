check examples/matmul.cu --blocks 2
