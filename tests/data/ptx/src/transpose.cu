// Test input: tiled transpose with __launch_bounds__ and an inlined helper (.loc chains).
#include "helpers.cuh"
#define TILE 32
__global__ void __launch_bounds__(256, 2) transpose(float* out, const float* in, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) out[(y + j) * n + x] = twice(&tile[0][0], threadIdx.x + j) * 0.5f + 1.0f;
}
