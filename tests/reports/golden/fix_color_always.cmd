fix examples/transpose.cu --kernel transposeShared --blocks 2 --top 1 --color always
