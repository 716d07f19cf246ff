// histogram.cu: histograms of measured data through shared-memory atomics, the way the
// CUDA samples' histogram256 and image-processing codes write them. The input comes from
// main(): samples of a two-peaked distribution (most values fall in a few dozen bins, so
// many lanes of a warp add to the same or to neighbouring bins), copied with cudaMemcpy.
// How many shared atomics collide therefore depends on the data.
//   histogram_block<NBINS>     a block-private histogram of float samples (bin =
//                              x * NBINS), grid-stride, one partial histogram per block;
//                              NBINS = 64 and 256;
//   histogram256_per_warp      the samples quantised to bytes, read as 32-bit words (four
//                              bytes each), one 256-bin sub-histogram per warp;
//   merge_histogram<NBINS>     one block per bin adds that bin of every partial histogram
//                              (a strided global read) with a shared-memory tree.
//
//   usage: histogram [n] [partials]
//   default: histogram 262144 64   (histogram_block<64>, merge_histogram<64>,
//            histogram_block<256>, merge_histogram<256>, histogram256_per_warp,
//            merge_histogram<256>: 6 launches; 64 blocks of 256 or 192 threads, merges of
//            64 or 256 blocks of 256)
//
// Every bin is compared exactly with the CPU's count.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                               \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
              cudaGetErrorString(err_));                                               \
      exit(EXIT_FAILURE);                                                              \
    }                                                                                  \
  } while (0)

#define BLOCK_THREADS 256
#define WARP_COUNT 6
#define PER_WARP_THREADS (WARP_COUNT * 32)
#define MERGE_THREADS 256

template <int NBINS>
__host__ __device__ inline int bin_of(float x) {
  int b = (int)(x * NBINS);
  return b < 0 ? 0 : (b >= NBINS ? NBINS - 1 : b);
}

template <int NBINS>
__global__ void histogram_block(const float* data, int n, unsigned int* partial) {
  __shared__ unsigned int s_hist[NBINS];
  for (int i = threadIdx.x; i < NBINS; i += blockDim.x) s_hist[i] = 0;
  __syncthreads();

  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s_hist[bin_of<NBINS>(data[i])], 1u);
  __syncthreads();

  for (int i = threadIdx.x; i < NBINS; i += blockDim.x)
    partial[blockIdx.x * NBINS + i] = s_hist[i];
}

__device__ inline void addByte(unsigned int* s_WarpHist, unsigned int data) {
  atomicAdd(s_WarpHist + data, 1);
}

__device__ inline void addWord(unsigned int* s_WarpHist, unsigned int data) {
  addByte(s_WarpHist, (data >> 0) & 0xFFU);
  addByte(s_WarpHist, (data >> 8) & 0xFFU);
  addByte(s_WarpHist, (data >> 16) & 0xFFU);
  addByte(s_WarpHist, (data >> 24) & 0xFFU);
}

__global__ void histogram256_per_warp(const unsigned int* d_Data, int dataCount,
                                      unsigned int* d_PartialHistograms) {
  // One sub-histogram per warp: fewer lanes add to the same bin at once.
  __shared__ unsigned int s_Hist[WARP_COUNT * 256];
  unsigned int* s_WarpHist = s_Hist + (threadIdx.x / 32) * 256;

#pragma unroll
  for (int i = 0; i < (WARP_COUNT * 256) / PER_WARP_THREADS; i++)
    s_Hist[threadIdx.x + i * PER_WARP_THREADS] = 0;
  __syncthreads();

  for (int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount;
       pos += blockDim.x * gridDim.x) {
    unsigned int data = d_Data[pos];
    addWord(s_WarpHist, data);
  }
  __syncthreads();

  for (int bin = threadIdx.x; bin < 256; bin += PER_WARP_THREADS) {
    unsigned int sum = 0;
    for (int i = 0; i < WARP_COUNT; i++) sum += s_Hist[bin + i * 256];
    d_PartialHistograms[blockIdx.x * 256 + bin] = sum;
  }
}

template <int NBINS>
__global__ void merge_histogram(const unsigned int* partial, int count, unsigned int* hist) {
  __shared__ unsigned int data[MERGE_THREADS];
  unsigned int sum = 0;
  for (int i = threadIdx.x; i < count; i += MERGE_THREADS) sum += partial[blockIdx.x + i * NBINS];
  data[threadIdx.x] = sum;
  for (int stride = MERGE_THREADS / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) data[threadIdx.x] += data[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) hist[blockIdx.x] = data[0];
}

// ---------------------------------------------------------------------------------------
// Host

template <int NBINS>
static bool run_float_histogram(const float* d_data, const std::vector<float>& data,
                                int partials, unsigned int* d_partial, unsigned int* d_hist) {
  int n = (int)data.size();
  histogram_block<NBINS><<<partials, BLOCK_THREADS>>>(d_data, n, d_partial);
  CUDA_CHECK(cudaGetLastError());
  merge_histogram<NBINS><<<NBINS, MERGE_THREADS>>>(d_partial, partials, d_hist);
  CUDA_CHECK(cudaGetLastError());
  std::vector<unsigned int> got(NBINS);
  CUDA_CHECK(cudaMemcpy(got.data(), d_hist, NBINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));

  std::vector<unsigned int> want(NBINS, 0);
  for (float x : data) want[bin_of<NBINS>(x)]++;
  int wrong = 0, fullest = 0;
  for (int b = 0; b < NBINS; b++) {
    wrong += got[b] != want[b];
    if (want[b] > want[fullest]) fullest = b;
  }
  printf("%3d bins: %d differ; fullest bin %d holds %u of %d samples\n", NBINS, wrong, fullest,
         want[fullest], n);
  return wrong == 0;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 262144;
  int partials = argc > 2 ? atoi(argv[2]) : 64;
  if (n < 4 || n % 4 != 0 || partials < 1 || partials > 1024) {
    fprintf(stderr, "usage: %s [n: a multiple of 4] [partials: 1..1024]\n", argv[0]);
    return EXIT_FAILURE;
  }
  printf("%d samples, %d partial histograms\n", n, partials);

  // Two peaks: 70% around 0.30 (sd 0.018), 30% around 0.70 (sd 0.036), inside [0, 1).
  // Integer arithmetic and exact scalings only, so that every machine makes the same data.
  std::vector<float> data(n);
  unsigned state = 1234u;
  auto next16 = [&state]() {
    state = state * 1664525u + 1013904223u;
    return (int)(state >> 16);
  };
  for (int i = 0; i < n; i++) {
    bool first = next16() < 45875;                                      // 70%
    int d = next16() + next16() + next16() + next16() - 2 * 65535;     // about normal, sd 37,837
    float x = first ? 0.30f + (float)d * 0x1p-21f : 0.70f + (float)d * 0x1p-20f;
    data[i] = std::fmin(std::fmax(x, 0.0f), 0.99999994f);
  }
  // The same samples as bytes, four to a word.
  std::vector<unsigned char> bytes(n);
  for (int i = 0; i < n; i++) bytes[i] = (unsigned char)bin_of<256>(data[i]);

  float* d_data;
  unsigned int *d_words, *d_partial, *d_hist;
  CUDA_CHECK(cudaMalloc(&d_data, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_words, n));
  CUDA_CHECK(cudaMalloc(&d_partial, (size_t)partials * 256 * sizeof(unsigned int)));
  CUDA_CHECK(cudaMalloc(&d_hist, 256 * sizeof(unsigned int)));
  CUDA_CHECK(cudaMemcpy(d_data, data.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_words, bytes.data(), n, cudaMemcpyHostToDevice));

  bool ok = run_float_histogram<64>(d_data, data, partials, d_partial, d_hist);
  ok = run_float_histogram<256>(d_data, data, partials, d_partial, d_hist) && ok;

  histogram256_per_warp<<<partials, PER_WARP_THREADS>>>(d_words, n / 4, d_partial);
  CUDA_CHECK(cudaGetLastError());
  merge_histogram<256><<<256, MERGE_THREADS>>>(d_partial, partials, d_hist);
  CUDA_CHECK(cudaGetLastError());
  std::vector<unsigned int> got(256), want(256, 0);
  CUDA_CHECK(cudaMemcpy(got.data(), d_hist, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  for (unsigned char b : bytes) want[b]++;
  int wrong = 0;
  for (int b = 0; b < 256; b++) wrong += got[b] != want[b];
  printf("bytes, per-warp sub-histograms: %d of 256 bins differ\n", wrong);
  ok = ok && wrong == 0;

  CUDA_CHECK(cudaFree(d_data));
  CUDA_CHECK(cudaFree(d_words));
  CUDA_CHECK(cudaFree(d_partial));
  CUDA_CHECK(cudaFree(d_hist));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
