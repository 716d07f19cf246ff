occupancy --arch sm_61 --threads 128
