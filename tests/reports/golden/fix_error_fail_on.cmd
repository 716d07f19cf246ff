fix examples/transpose.cu --kernel transposeShared --blocks 2 --fail-on 'ways>=2'
