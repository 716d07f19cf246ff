// A transpose through an unpadded TILE x TILE shared tile: the column read conflicts TILE ways.
#include "tiles.cuh"

__global__ void transpose(float* out, const float* in, int n) {
  __shared__ float tile[TILE][TILE];
  const int x = blockIdx.x * TILE + threadIdx.x;
  const int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  const int tx = blockIdx.y * TILE + threadIdx.x;
  const int ty = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) out[(ty + j) * n + tx] = tile[threadIdx.x][threadIdx.y + j];
}

void run_transpose() {
  constexpr int n = 256;
  float *in, *out;
  cudaMalloc(&in, n * n * sizeof(float));
  cudaMalloc(&out, n * n * sizeof(float));
  dim3 block(TILE, 8);
  dim3 grid(n / TILE, n / TILE);
  transpose<<<grid, block>>>(out, in, n);
  cudaFree(in);
  cudaFree(out);
}
