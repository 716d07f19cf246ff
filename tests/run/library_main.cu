// Calls a kernel of its library (library_kernels.cu) and checks what it computed.
#include <cuda_runtime.h>

#include <cstdio>

extern "C" int library_transpose(const float* in, float* out);

int main() {
  float* in = nullptr;
  float* out = nullptr;
  if (cudaMallocManaged(&in, 1024 * sizeof(float)) != cudaSuccess ||
      cudaMallocManaged(&out, 1024 * sizeof(float)) != cudaSuccess) {
    std::printf("library: cudaMallocManaged failed\n");
    return 1;
  }
  for (int i = 0; i < 1024; ++i) in[i] = static_cast<float>(i);
  const int error = library_transpose(in, out);
  bool ok = error == 0;
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) ok = ok && out[y * 32 + x] == in[x * 32 + y];
  std::printf("library: %s (error %d)\n", ok ? "ok" : "wrong", error);
  return ok ? 0 : 1;
}
