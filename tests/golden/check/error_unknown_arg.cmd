check examples/stride.cu --kernel stride2 --arg s=2 --arg t=1
