fix tests/data/fix_template.cu
