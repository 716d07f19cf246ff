check tests/data/check/argv_main.cu
