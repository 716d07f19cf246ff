// A shared-memory histogram: sizes from macros, buffers from cudaMallocManaged, a launch in
// main with a ceil-div grid. bankcheck reads the launch from main(); no flags needed.
#include <cstdio>

#define NUM_BINS 256
#define THREADS 256
#define N (1 << 16)

__global__ void histogram(const unsigned char* in, unsigned int* bins, int n) {
  __shared__ unsigned int local[NUM_BINS];
  for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

int main() {
  unsigned char* in;
  unsigned int* bins;
  cudaMallocManaged(&in, N);
  cudaMallocManaged(&bins, NUM_BINS * sizeof(unsigned int));
  for (int i = 0; i < N; ++i) in[i] = static_cast<unsigned char>(i * 7);
  const int blocks = (N + THREADS - 1) / THREADS;
  histogram<<<blocks, THREADS>>>(in, bins, N);
  cudaDeviceSynchronize();
  printf("%u\n", bins[0]);
  cudaFree(in);
  cudaFree(bins);
  return 0;
}
