check examples/stride.cu --kernel stride2 --grid 0
