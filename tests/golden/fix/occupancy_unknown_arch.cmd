occupancy --arch sm_35 --threads 128
