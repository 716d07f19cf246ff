check examples/transpose.cu --kernel nosuch
