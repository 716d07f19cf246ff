check tests/data/check/misaligned_vector.cu
