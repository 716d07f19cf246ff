occupancy --threads 2048 --regs 32
