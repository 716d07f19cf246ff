fix tests/data/fix_widened.cu
