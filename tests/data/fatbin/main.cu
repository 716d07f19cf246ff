// The first of two translation units of one program (with scale.cu): each has its own
// kernel, so the program's .nv_fatbin holds a container for each.
#include <cstdio>

void launch_scale(float* p, float s);

__global__ void fill(float* p) { p[threadIdx.x] = float(threadIdx.x); }

int main() {
  float* p = nullptr;
  cudaMalloc(&p, 64 * sizeof(float));
  fill<<<1, 64>>>(p);
  launch_scale(p, 2.0f);
  std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
