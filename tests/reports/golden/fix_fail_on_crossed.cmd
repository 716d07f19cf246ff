fix examples/transpose.cu --kernel transposeShared --blocks 2 --fail-on 'ways>1' --fail-on 'excess>90%' -o /dev/null
