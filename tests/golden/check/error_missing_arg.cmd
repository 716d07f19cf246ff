check tests/data/check/missing_arg.cu
