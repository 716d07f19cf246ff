check examples/seed001.cu --format sarif
