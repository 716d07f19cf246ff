occupancy --threads 128 --regs -3
