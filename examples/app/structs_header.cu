// An array of 3-float structs through a kernel defined in a header (its parameter names come
// from there), with an optional buffer passed as nullptr and a count written as a macro.
// The launch is in main, through cudaLaunchKernelEx with a config struct. No flags needed.
#include <cstdio>

#include "structs_kernel.cuh"

#define COUNT 4096
#define THREADS 128

int main() {
  Particle* particles;
  float* energy;
  cudaMallocManaged(&particles, COUNT * sizeof(Particle));
  cudaMalloc(&energy, COUNT * sizeof(float));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(COUNT / THREADS);
  config.blockDim = dim3(THREADS);
  config.dynamicSmemBytes = 0;
  cudaLaunchKernelEx(&config, advance, particles, energy, (float*)nullptr, COUNT);
  cudaDeviceSynchronize();
  return 0;
}
