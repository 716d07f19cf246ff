occupancy --arch sm_50 --threads 256 --regs 32 --smem 16384
