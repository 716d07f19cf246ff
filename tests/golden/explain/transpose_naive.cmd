explain --decl 'float tile[32][32]' --expr 'tile[threadIdx.x][threadIdx.y]' --block 32,32
