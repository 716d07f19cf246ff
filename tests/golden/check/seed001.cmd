check examples/seed001.cu
