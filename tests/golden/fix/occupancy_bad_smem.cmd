occupancy --threads 128 --smem 12Q
