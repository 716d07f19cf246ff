// A column read of a TILE x TILE tile whose side lives in a header: fix sizes the rows only
// if it reads tile.cuh.
// bankcheck: kernel=tr grid=1 block=32,8 arg=out=zeros:4096
#include "tile.cuh"
__global__ void tr(float* out) {
  __shared__ float tile[TILE][TILE];
  for (int j = threadIdx.y; j < TILE; j += 8) tile[j][threadIdx.x] = j;
  __syncthreads();
  for (int j = threadIdx.y; j < TILE; j += 8) out[j * TILE + threadIdx.x] = tile[threadIdx.x][j];
}
