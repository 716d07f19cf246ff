explain --arch sm_13 --decl 'struct { float x, y; } shared[32]' --expr 'shared[tid]'
