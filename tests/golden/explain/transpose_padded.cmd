explain --decl 'float tile[32][33]' --expr 'tile[threadIdx.x][threadIdx.y]' --block 32,32
