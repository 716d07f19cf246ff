// A row read of a tile: no bank conflict, so fix --apply has nothing to write.
// bankcheck: kernel=rows grid=1 block=32,8 arg=out=zeros:4096
__global__ void rows(float* out) {
  __shared__ float tile[32][32];
  for (int j = threadIdx.y; j < 32; j += 8) tile[j][threadIdx.x] = j;
  __syncthreads();
  for (int j = threadIdx.y; j < 32; j += 8) out[j * 32 + threadIdx.x] = tile[j][threadIdx.x];
}
