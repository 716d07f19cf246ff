fix examples/transpose.cu --kernel transposeShared --blocks 2 --format json --top 1
