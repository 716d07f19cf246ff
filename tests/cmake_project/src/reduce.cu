// A block sum with interleaved addressing: thread t adds s[2 * stride * t], so the lanes of a
// warp fall in fewer banks as the stride grows. The block size is the build's REDUCE_BLOCK.
#include "tiles.cuh"

#ifndef REDUCE_BLOCK
#define REDUCE_BLOCK 128
#endif

__global__ void reduce(const float* in, float* out) {
  __shared__ float s[REDUCE_BLOCK];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned i = 2 * stride * t;
    if (i < blockDim.x) s[i] += s[i + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

void run_reduce() {
  constexpr int blocks = 64;
  float *in, *out;
  cudaMalloc(&in, blocks * REDUCE_BLOCK * sizeof(float));
  cudaMalloc(&out, blocks * sizeof(float));
  reduce<<<blocks, REDUCE_BLOCK>>>(in, out);
  cudaFree(in);
  cudaFree(out);
}
