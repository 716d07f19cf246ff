check tests/data/check/texture.ptx --grid 1 --block 32
