explain --decl 'float tile[32][32]' --expr 'tile[threadIdx.w][0]'
