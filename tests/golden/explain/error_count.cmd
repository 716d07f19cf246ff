explain --addrs 0,4,8
