check tests/data/check/nvcc_error.cu
