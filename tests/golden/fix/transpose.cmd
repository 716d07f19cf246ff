fix examples/transpose.cu --kernel transposeShared --blocks 4
