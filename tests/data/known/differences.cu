// Kernels of tests/known_differences_test.cpp: one line of each known difference from
// Nsight Compute that a compiled kernel shows (docs/model.md, "Known differences").
#include <mma.h>

// bankcheck: kernel=masked_wide grid=2 block=64 arg=out=zeros:1024
__global__ void masked_wide(double* out) {
  __shared__ double s[64];
  const unsigned t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  if (t % 2 == 0) s[t] = 2.0 * s[t ^ 1];  // KNOWN: masked-wide-ideal
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[t];
}

// bankcheck: kernel=evict_first grid=2 block=128 arg=out=zeros:1024 arg=in=iota:1024
__global__ void evict_first(float* out, const float* in) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = __ldcs(in + i);  // KNOWN: evict-first-sectors load
  __stcs(out + i, v + 1.f);        // KNOWN: evict-first-sectors store
}

// bankcheck: kernel=float_atomics grid=2 block=128 arg=out=zeros:64
__global__ void float_atomics(float* out) {
  __shared__ float bins[8];
  if (threadIdx.x < 8) bins[threadIdx.x] = 0.f;
  __syncthreads();
  atomicAdd(&bins[threadIdx.x % 8], 1.f);  // KNOWN: shared-atomic-retries
  __syncthreads();
  if (threadIdx.x < 8) out[blockIdx.x * 8 + threadIdx.x] = bins[threadIdx.x];
}

// bankcheck: kernel=wmma_global grid=1 block=32 arg=out=zeros:1024 arg=a=zeros:512 arg=b=zeros:512
__global__ void wmma_global(float* out, const half* a, const half* b) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.f);
  wmma::load_matrix_sync(fa, a, 16);  // KNOWN: wmma-global-lines
  wmma::load_matrix_sync(fb, b, 16);  // KNOWN: wmma-global-lines b
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(out, fc, 16, wmma::mem_row_major);  // KNOWN: wmma-global-lines store
}
