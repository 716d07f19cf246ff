fix tests/data/fix_shadow.cu --top 1
