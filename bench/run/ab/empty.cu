#include <cuda_runtime.h>

#include <cstdio>
__global__ void empty_kernel(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
int main(int argc, char** argv) {
  const int n = 8 * 1024 * 768, reps = argc > 1 ? atoi(argv[1]) : 20;
  float* out;
  cudaMalloc(&out, n * 4);
  cudaMemset(out, 0, n * 4);
  for (int r = 0; r < reps; ++r) empty_kernel<<<n / 256, 256>>>(out, n);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
