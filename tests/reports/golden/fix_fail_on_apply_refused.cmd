fix examples/transpose.cu --kernel transposeShared --blocks 2 --apply-to /dev/null/x.cu --fail-on 'ways>1' -o /dev/null
