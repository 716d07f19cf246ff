#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
// A guarded row add, `if (i < n) out[i] += 1`, over CTAS CTAs of 256 threads, REPS times:
// a launch's fixed cost (threads, CTA setup) and an `if (i < n)` run's own.
__global__ void guarded(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += 1;
}
int main(int argc, char** argv) {
  const int ctas = argc > 1 ? atoi(argv[1]) : 1024, reps = argc > 2 ? atoi(argv[2]) : 300;
  int* out;
  cudaMalloc(&out, ctas * 256 * 4);
  cudaMemset(out, 0, ctas * 256 * 4);
  for (int r = 0; r < reps; ++r) guarded<<<ctas, 256>>>(out, ctas * 256);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
