// A program for `bankcheck run`'s own tests: a kernel whose thread 5 reads 64 MB past its
// buffer, where the GPU faults too; the program reports the error it gets and exits 3.
#include <cstdio>

__global__ void sum_pairs(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + (i == 5 ? in[1 << 24] : 0.0f);
}

int main() {
  const int n = 64;
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  sum_pairs<<<1, 128>>>(out, in, n);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 3;
}
