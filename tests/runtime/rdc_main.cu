// The other half of the -rdc=true program: the device function and main. The runtime gets
// the device-linked image and the objects' own images when the module is registered.
#include "check.h"

__device__ int twice(int x) { return 2 * x; }

void launch_linked(int* p);

int main() {
  int* p = nullptr;
  EXPECT_OK(cudaMalloc(&p, 64 * sizeof(int)));
  launch_linked(p);
  EXPECT_OK(cudaGetLastError());
  EXPECT_OK(cudaFree(p));
  if (failures) return 1;
  std::printf("rdc: ok\n");
  return 0;
}
