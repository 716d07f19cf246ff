check tests/data/check/partial_barrier.cu
