// A column read of a SIDE x SIDE tile: SIDE comes from inc/side.cuh (found through the
// build's -I inc) and TILE_BASE from the build's -DTILE_BASE=16 (compile_commands.json).
// bankcheck: kernel=tr grid=1 block=32,8 arg=out=zeros:4096
#include "side.cuh"
__global__ void tr(float* out) {
  __shared__ float tile[SIDE][SIDE];
  for (int j = threadIdx.y; j < SIDE; j += 8) tile[j][threadIdx.x] = j;
  __syncthreads();
  for (int j = threadIdx.y; j < SIDE; j += 8) out[j * SIDE + threadIdx.x] = tile[threadIdx.x][j];
}
