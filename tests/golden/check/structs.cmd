check examples/structs.cu
