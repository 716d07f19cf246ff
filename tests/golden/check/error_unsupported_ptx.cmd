check tests/data/check/unsupported.ptx --grid 1 --block 32
