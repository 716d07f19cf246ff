check tests/data/check/missing_arg.cu --arg factor=@x
