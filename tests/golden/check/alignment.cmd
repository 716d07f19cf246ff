check examples/alignment.cu
