fix tests/data/fix_dims_unknown.cu
