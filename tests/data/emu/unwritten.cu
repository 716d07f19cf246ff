// Shared memory read before any thread of the CTA wrote it (tests/emu_test.cpp, EmuUnwritten):
// kernels that write first and must not be reported, and kernels that read bytes never written.
#include <cuda_pipeline.h>

#include <cstdint>

// Every thread writes its word, then reads a neighbour's: nothing unwritten.
__global__ void writes_first(int* out, const int* in) {
  __shared__ int s[128];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % 128];  // MARK_NEIGHBOUR
}

// Only the first half writes; every thread reads its own word: the second half reads zeros.
__global__ void half_written(int* out, const int* in) {
  __shared__ int s[128];
  if (threadIdx.x < 64) s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];  // MARK_HALF
}

// A histogram whose bins are never zeroed: the atomics read bytes never written; the one
// that zeroes them first is clean.
__global__ void histogram(unsigned* out, const unsigned char* data, int zero_first) {
  __shared__ unsigned bins[256];
  if (zero_first) bins[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&bins[data[blockIdx.x * 256 + threadIdx.x]], 1u);  // MARK_ATOMIC
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = bins[threadIdx.x];  // MARK_BINS
}

// A byte store covers one byte of a word; the word load then reads three bytes never written.
__global__ void partial_word(int* out, const char* in) {
  __shared__ int s[32];
  reinterpret_cast<char*>(s)[threadIdx.x * 4] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];  // MARK_PARTIAL
}

// An unrolled loop puts several loads on one line: one report for the line.
__global__ void unrolled(float* out, const float* in) {
  __shared__ float s[4][64];
  s[0][threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  float sum = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) sum += s[i][threadIdx.x];  // MARK_UNROLLED
  out[threadIdx.x] = sum;
}

// Dynamic shared memory: the launch gives n floats; threads write the first n / 2 and read
// them back reversed (clean), then read one past the written half (unwritten).
__global__ void dynamic(float* out, const float* in, int n) {
  extern __shared__ float d[];
  for (int i = threadIdx.x; i < n / 2; i += blockDim.x) d[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n / 2; i += blockDim.x) out[i] = d[n / 2 - 1 - i];  // MARK_DYN_OK
  if (threadIdx.x == 0) out[n / 2] = d[n / 2];  // MARK_DYN_BAD
}

// cp.async writes its destination: the loads after the wait read written bytes.
__global__ void async_copied(uint32_t* out, const uint32_t* in) {
  __shared__ alignas(16) uint32_t s[128];
  __pipeline_memcpy_async(&s[threadIdx.x * 4], &in[threadIdx.x * 4], 16);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x * 5) % 128];  // MARK_ASYNC
}

// Written through a generic pointer, read as shared (and the other way round): clean.
__global__ void generic_written(int* out, const int* in, int* g) {
  __shared__ int s[64];
  int* p = (in[threadIdx.x] & 1) ? s : g;
  p[threadIdx.x] = threadIdx.x;
  s[threadIdx.x] = (in[threadIdx.x] & 1) ? s[threadIdx.x] : 7;
  __syncthreads();
  int* q = s;
  out[threadIdx.x] = q[(threadIdx.x + 3) % 64];  // MARK_GENERIC
}

// Only CTA 0 writes: the other CTAs read bytes their own threads never wrote (shared memory
// does not outlive a CTA).
__global__ void first_cta_writes(int* out, const int* in) {
  __shared__ int s[64];
  if (blockIdx.x == 0) s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];  // MARK_FIRST_CTA
}
