// A program for `bankcheck run`'s device printf: each executing thread's call prints on the
// program's standard output, CTA by CTA and lane by lane within a warp; the same launch
// again prints again (a kernel that prints is never skipped as a repeat); the host's own
// lines keep their places around the launches; printf returns the arguments it read.
#include <cstdio>

__global__ void hello(int n, float x, int* ret) {
  if (threadIdx.x % 32 < 2 && threadIdx.x < 64)
    ret[blockIdx.x * blockDim.x + threadIdx.x] =
        printf("cta %d thread %d: n=%d x=%.2f %s\n", blockIdx.x, threadIdx.x, n, x, "ok");
}

int main() {
  int* ret = nullptr;
  cudaMalloc(&ret, 3 * 96 * sizeof(int));
  std::printf("before\n");
  hello<<<3, 96>>>(7, 0.5f, ret);
  cudaDeviceSynchronize();
  std::printf("between\n");
  hello<<<1, 96>>>(8, 0.25f, ret);
  hello<<<1, 96>>>(8, 0.25f, ret);
  int back = 0;
  cudaMemcpy(&back, ret + 33, sizeof back, cudaMemcpyDeviceToHost);
  std::printf("printf returned %d\n", back);
  return 0;
}
