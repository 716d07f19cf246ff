check tests/data/check/unwritten.cu --format json
