// histogram.cu: a user's byte histogram through shared-memory atomics: each block counts
// into its own 256 bins in shared memory, then adds them to the global histogram. Each
// thread counts four consecutive bytes of the input. The input is random bytes whose
// values cluster (most fall in a few dozen bins), so how many atomics of a warp meet in one
// bank depends on the data. Its own command line and its own check against the CPU.
//
//   usage: histogram [--n COUNT] [--seed S] [--quiet]
//   default: histogram --n 65536 --seed 1   (COUNT a multiple of 4)
//
// Prints "histogram: PASSED" (or the first wrong bin) and exits 0 (or 1).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

#define NUM_BINS 256
#define THREADS 256

__global__ void histogram_shared(const unsigned char* data, int n, unsigned int* hist) {
  __shared__ unsigned int bins[NUM_BINS];
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n)
    for (int k = 0; k < 4; ++k) atomicAdd(&bins[data[i + k]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
    if (bins[b]) atomicAdd(&hist[b], bins[b]);
}

int main(int argc, char** argv) {
  long n = 65536;
  unsigned seed = 1;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc) {
      n = atol(argv[++i]);
    } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = (unsigned)atol(argv[++i]);
    } else if (!strcmp(argv[i], "--quiet")) {
      quiet = true;
    } else {
      fprintf(stderr, "usage: %s [--n COUNT] [--seed S] [--quiet]\n", argv[0]);
      return 2;
    }
  }
  if (n < 4 || n % 4 != 0 || n > (1L << 28)) {
    fprintf(stderr, "histogram: --n must be a positive multiple of 4 (got %ld)\n", n);
    return 2;
  }

  std::vector<unsigned char> h_data(n);
  unsigned s = seed;
  for (long i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    // Two clusters: around 64 and around 192, 24 values wide each.
    const unsigned r = s >> 8;
    h_data[i] = (unsigned char)((r & 1 ? 64 : 192) + (int)((r >> 1) % 24) - 12);
  }
  std::vector<unsigned> want(NUM_BINS, 0), got(NUM_BINS);
  for (long i = 0; i < n; ++i) ++want[h_data[i]];

  unsigned char* d_data;
  unsigned* d_hist;
  CHECK(cudaMalloc(&d_data, n));
  CHECK(cudaMalloc(&d_hist, NUM_BINS * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_data, h_data.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_hist, 0, NUM_BINS * sizeof(unsigned)));
  const int blocks = (int)((n / 4 + THREADS - 1) / THREADS);
  histogram_shared<<<blocks, THREADS>>>(d_data, (int)n, d_hist);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got.data(), d_hist, NUM_BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_data));
  CHECK(cudaFree(d_hist));

  for (int b = 0; b < NUM_BINS; ++b)
    if (got[b] != want[b]) {
      fprintf(stderr, "histogram: bin %d is %u, expected %u\n", b, got[b], want[b]);
      printf("histogram: FAILED\n");
      return 1;
    }
  if (!quiet) printf("histogram: %ld bytes in %d blocks of %d threads\n", n, blocks, THREADS);
  printf("histogram: PASSED\n");
  return 0;
}
