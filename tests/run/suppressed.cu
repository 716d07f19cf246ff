// A program for `bankcheck run`'s suppressions: conflicts.cu's transpose, its 32-way column
// write accepted in the source, so that a gate passes and the report lists it.
#include <cstdio>

__global__ void tile_transpose(float* out, const float* in, int n) {
  __shared__ float tile[32][32];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  // bankcheck: ignore-next-line[bank-conflict] the column write is the test's own
  tile[threadIdx.x][threadIdx.y] = in[y * n + x];
  __syncthreads();
  out[(blockIdx.x * 32 + threadIdx.y) * n + blockIdx.y * 32 + threadIdx.x] =
      tile[threadIdx.y][threadIdx.x];
}

int main() {
  const int n = 32;
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * n * sizeof(float)) || cudaMalloc(&out, n * n * sizeof(float))) return 1;
  tile_transpose<<<1, dim3(32, 32)>>>(out, in, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  std::printf("done\n");
  return 0;
}
