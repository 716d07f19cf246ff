check tests/data/check/runaway.cu --budget 100000
