// Compiles only with its target's own options: TILE and PAD from its compile definitions,
// tiles.cuh through the include directory it links, and a constexpr host function called in
// device code, which nvcc accepts only with --expt-relaxed-constexpr (a compile option given
// for CUDA only). With PAD = 1 neither the row stores nor the column walk of the tile has a bank
// conflict.
#include "tiles.cuh"

#ifndef PAD
#error "PAD comes from the relaxed target's compile definitions"
#endif
static_assert(TILE == 32, "TILE is the relaxed target's TILE=32");

constexpr int row_pitch() { return TILE + PAD; }

__global__ void column_sum(const float* in, float* out) {
  __shared__ float tile[TILE * row_pitch()];
  const int x = threadIdx.x;
  for (int y = threadIdx.y; y < TILE; y += blockDim.y)
    tile[y * row_pitch() + x] = in[(blockIdx.x * TILE + y) * TILE + x];
  __syncthreads();
  if (threadIdx.y == 0) {
    float sum = 0;
    for (int r = 0; r < TILE; ++r) sum += tile[x * row_pitch() + r];
    out[blockIdx.x * TILE + x] = sum;
  }
}

void run_column_sum() {
  float *in, *out;
  cudaMalloc(&in, 64 * TILE * TILE * sizeof(float));
  cudaMalloc(&out, 64 * TILE * sizeof(float));
  column_sum<<<64, dim3(TILE, 8)>>>(in, out);
  cudaFree(in);
  cudaFree(out);
}
