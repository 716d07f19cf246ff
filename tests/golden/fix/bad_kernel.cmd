fix examples/transpose.cu --kernel nosuch
