// A 1-D three-point stencil through shared memory with a halo: consecutive lanes, consecutive
// words, no bank conflict. Its target is C++14 (CUDA_STANDARD 14), the rest of the project
// C++17: it compiles only with its own entry's -std.
#if __cplusplus != 201402L
#error "stencil.cu is built as C++14 (its target's CUDA_STANDARD)"
#endif

constexpr int kHalo = 1;
constexpr int kBlock = 256;

__global__ void stencil(const float* in, float* out, int n) {
  __shared__ float s[kBlock + 2 * kHalo];
  const int i = blockIdx.x * kBlock + threadIdx.x;
  s[threadIdx.x + kHalo] = in[i];
  if (threadIdx.x == 0) s[0] = i > 0 ? in[i - 1] : 0.f;
  if (threadIdx.x == kBlock - 1) s[kBlock + 1] = i + 1 < n ? in[i + 1] : 0.f;
  __syncthreads();
  out[i] = s[threadIdx.x] + s[threadIdx.x + 1] + s[threadIdx.x + 2];
}

void run_stencil() {
  constexpr int n = 1 << 16;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  stencil<<<n / kBlock, kBlock>>>(in, out, n);
  cudaFree(in);
  cudaFree(out);
}
