fix examples/scan.cu --kernel prescan --blocks 2 --top 1
