check tests/data/check/out_of_bounds.cu
