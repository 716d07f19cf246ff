occupancy --arch sm_90 --threads 128 --regs 32 --smem 16896
