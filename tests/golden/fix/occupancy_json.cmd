occupancy --arch sm_80 --threads 256 --regs 64 --smem 0 --format json
