check examples/wide.cu
