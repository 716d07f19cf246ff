check examples/alignment.cu --kernel aos_float3 --format json
