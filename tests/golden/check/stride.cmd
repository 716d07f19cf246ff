check examples/stride.cu
