// Separate compilation (-rdc=true, as CMake's CUDA_SEPARABLE_COMPILATION builds): a kernel
// that calls a device function another translation unit defines (rdc_lib.cu), and reads and
// counts in that unit's variables, which the host reads back by symbol; and a kernel that
// calls that unit's function through a pointer the host read from a __device__ variable and
// passed as an argument (NVIDIA's simpleSeparateCompilation). Prints "rdc: ok".
#include <cstdio>

extern __device__ float lib_factor;
extern __device__ int lib_calls;
__device__ float scale_of(float x, int i);
__device__ float twice(float x);

typedef float (*unary_t)(float);
__device__ unary_t twice_ptr = twice;

__global__ void through_pointer(float* v, unary_t f, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = f(v[i]);
}

__global__ void apply(float* out, const float* in, int n) {
  __shared__ float t[32][32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x % 32][threadIdx.x / 32] = i < n ? scale_of(in[i], i) : 0.0f;  // 32-way
  __syncthreads();
  if (i < n) out[i] = t[threadIdx.x % 32][threadIdx.x / 32] + lib_factor;
}

int main() {
  const int n = 1024;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  static float h[n];
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  apply<<<n / 256, 256>>>(out, in, n);
  const cudaError_t e = cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  int calls = 0;
  cudaMemcpyFromSymbol(&calls, lib_calls, sizeof calls);
  unary_t f = nullptr;
  cudaMemcpyFromSymbol(&f, twice_ptr, sizeof f);
  through_pointer<<<n / 256, 256>>>(out, f, n);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += h[i] != 2.0f * (static_cast<float>(i) * 3.0f + static_cast<float>(i % 4) + 3.0f);
  if (e != cudaSuccess || wrong || calls != n) {
    std::printf("rdc: %s, %d wrong, %d calls\n", cudaGetErrorName(e), wrong, calls);
    return 1;
  }
  std::printf("rdc: ok\n");
  return 0;
}
