check tests/data/check/host_launchers.cu -D 'TAG=a b' -- -std=c++17
