check tests/data/check/unwritten.cu
