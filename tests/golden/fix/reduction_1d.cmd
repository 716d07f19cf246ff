fix examples/reduction.cu --kernel reduce_interleaved_strided --blocks 2 --top 2
