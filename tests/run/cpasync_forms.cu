// A program for `bankcheck run`'s own tests: tests/data/sass/cpasync_forms.cu's kernel (the
// three SASS forms of cp.async.cg, lines 14, 18 and 20 of that file) launched as `check`'s
// comment launches it, its copies checked; prints "done".
#include <cstdio>

#include "../data/sass/cpasync_forms.cu"

#define CHECK(call)                                               \
  do {                                                            \
    cudaError_t e = (call);                                       \
    if (e != cudaSuccess) {                                       \
      std::printf("%s failed: %s\n", #call, cudaGetErrorName(e)); \
      return 1;                                                   \
    }                                                             \
  } while (0)

int main() {
  const int n = 768;
  float host[n], back[n];
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, sizeof host));
  CHECK(cudaMalloc(&out, sizeof host));
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, sizeof host));
  cpasync_forms<<<2, 64>>>(out, in, 40, 16);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(back, out, sizeof back, cudaMemcpyDeviceToHost));
  // Each tile's first 64 floats come from lanes 0-15, which all read (16 < n = 40).
  for (int k = 0; k < 3; ++k)
    for (int t = 0; t < 64; ++t)
      if (back[256 * k + t] != host[256 * k + t]) {
        std::printf("tile %d float %d: %g, want %g\n", k, t, back[256 * k + t], host[256 * k + t]);
        return 1;
      }
  std::printf("done\n");
  return 0;
}
