fix examples/transpose.cu --kernel transposeShared --top 0
