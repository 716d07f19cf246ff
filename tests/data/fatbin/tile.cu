// A program with one kernel for the fat binary tests (tests/fatbin_test.cpp): a transpose
// through a shared tile, whose column reads conflict.
#include <cstdio>

__global__ void tile_transpose(float* out, const float* in) {
  __shared__ float tile[32][32];
  const int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = in[y * 32 + x];
  __syncthreads();
  out[y * 32 + x] = tile[x][y];
}

int main() {
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, 32 * 32 * sizeof(float));
  cudaMalloc(&out, 32 * 32 * sizeof(float));
  tile_transpose<<<1, dim3(32, 32)>>>(out, in);
  std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
