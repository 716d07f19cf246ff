occupancy --arch sm_120 --threads 256 --regs 64 --dynamic-smem 40K
