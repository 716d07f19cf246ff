// Device-side printf and a failed assert(): what the GPU's driver prints, on which stream,
// and when, against the host's own lines between the launches and the synchronization
// (bench/device/device_output.sh records it; tests/run replays it under the emulator).
#include <cassert>
#include <cstdio>
__global__ void k(int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  printf("kernel %d\n", i);
  assert(i < n);
}
__global__ void p() { printf("second kernel\n"); }
int main() {
  p<<<1, 1>>>();
  printf("host after first launch\n");
  k<<<2, 2>>>(3);
  printf("host after second launch\n");
  cudaError_t e = cudaDeviceSynchronize();
  printf("host after sync: %s\n", cudaGetErrorName(e));
  return 0;
}
