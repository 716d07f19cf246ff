// A column read of a TILE x TILE tile whose side the command line gives (-D TILE=32); the
// file's own default (16) is not what nvcc compiles then.
// bankcheck: kernel=tr grid=1 block=32,8 arg=out=zeros:4096
#ifndef TILE
#define TILE 16
#endif
__global__ void tr(float* out) {
  __shared__ float tile[TILE][TILE];
  for (int j = threadIdx.y; j < TILE; j += 8) tile[j][threadIdx.x] = j;
  __syncthreads();
  for (int j = threadIdx.y; j < TILE; j += 8) out[j * TILE + threadIdx.x] = tile[threadIdx.x][j];
}
