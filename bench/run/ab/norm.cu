#include <cuda_runtime.h>

#include <cstdio>
__global__ void normalization_kernel(float* out, const float* inp, const float* mean,
                                     const float* rstd, const float* weight, const float* bias,
                                     int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * C) {
    int row = idx / C;
    int c = idx % C;
    float m = mean[row];
    float s = rstd[row];
    out[idx] = (s * (inp[idx] - m)) * weight[c] + bias[c];
  }
}
__global__ void add_kernel(float* out, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
int main(int argc, char** argv) {
  const int N = 8 * 1024, C = 768, reps = argc > 1 ? atoi(argv[1]) : 20;
  float *out, *inp, *mean, *rstd, *w, *b;
  cudaMalloc(&out, N * C * 4);
  cudaMalloc(&inp, N * C * 4);
  cudaMalloc(&mean, N * 4);
  cudaMalloc(&rstd, N * 4);
  cudaMalloc(&w, C * 4);
  cudaMalloc(&b, C * 4);
  cudaMemset(out, 0, N * C * 4);
  cudaMemset(inp, 0, N * C * 4);
  for (int r = 0; r < reps; ++r)
    normalization_kernel<<<N * C / 256, 256>>>(out, inp, mean, rstd, w, b, N, C);
  for (int r = 0; r < reps; ++r) add_kernel<<<N * C / 256, 256>>>(out, inp, out, N * C);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
