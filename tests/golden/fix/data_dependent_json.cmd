fix tests/data/fix_data_dependent.cu --kernel scatter_keys --format json
