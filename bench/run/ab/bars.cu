#include <cuda_runtime.h>

#include <cstdio>
__global__ void bars(float* out, int n) {
  __shared__ float s[256];
  s[threadIdx.x] = threadIdx.x;
  for (int k = 0; k < n; ++k) {
    __syncthreads();
    if (threadIdx.x < 128) s[threadIdx.x] += s[threadIdx.x + 128];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
int main(int argc, char** argv) {
  const int ctas = 8192, reps = argc > 1 ? atoi(argv[1]) : 5;
  float* out;
  cudaMalloc(&out, ctas * 256 * 4);
  for (int r = 0; r < reps; ++r) bars<<<ctas, 256>>>(out, 8);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
