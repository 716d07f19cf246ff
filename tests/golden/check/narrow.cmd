check examples/narrow.cu
