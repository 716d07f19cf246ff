fix tests/data/fix_transpose.ptx --kernel transposeShared --grid 2,2 --block 32,32
