occupancy --arch sm_100a --threads 128 --regs 32 --smem 16896 --format json
