occupancy --arch sm_60 --threads 1024 --regs 32 --smem 0 --format json
