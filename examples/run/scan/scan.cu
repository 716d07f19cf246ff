// scan.cu: exclusive prefix sum of n ints in managed memory, as a pipeline of three
// kernels launched with cudaLaunchKernelEx (the block scan's tile is dynamic shared
// memory given in the launch configuration):
//   block_scan<256, 4>         each block scans 1,024 items: a coalesced striped load into
//                              shared memory, then each thread takes 4 consecutive items
//                              (tile[tid * 4 + k]), scans its own, the warp scans the
//                              threads' totals with shuffles, warp totals go through
//                              shared memory; the block's total goes to block_sums;
//   scan_block_totals<1024>    one block scans the block totals (Hillis-Steele in a
//                              double-buffered shared array) into per-block offsets and
//                              leaves the grand total in a __device__ variable;
//   add_block_offsets<256, 4>  adds each block's offset (broadcast from shared memory).
// The host fills the input and reads the output in place (cudaMallocManaged) and reads
// the total with cudaMemcpyFromSymbol.
//
//   usage: scan [n] [iterations]
//   default: scan 100000 2   (per iteration: block_scan 98 x 256, scan_block_totals
//            1 x 1024, add_block_offsets 98 x 256: 6 launches)
//
// Every output and the total are compared exactly with the CPU's.
#include <cuda_runtime.h>

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

constexpr int kBlock = 256;
constexpr int kItems = 4;
constexpr int kTile = kBlock * kItems;
constexpr int kMaxBlocks = 1024;  // scan_block_totals scans at most this many totals
constexpr unsigned kFullMask = 0xffffffffu;

__device__ int d_total;  // the sum of all inputs, left by scan_block_totals

template <int BLOCK, int ITEMS>
__global__ void block_scan(const int* in, int* out, int* block_sums, int n) {
  extern __shared__ int smem[];  // BLOCK * ITEMS items, then BLOCK / 32 warp totals
  int* tile = smem;
  int* warp_totals = smem + BLOCK * ITEMS;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int base = blockIdx.x * BLOCK * ITEMS;

  for (int k = 0; k < ITEMS; k++) {
    int i = base + k * BLOCK + tid;
    tile[k * BLOCK + tid] = i < n ? in[i] : 0;
  }
  __syncthreads();

  // Thread tid owns items tid * ITEMS .. tid * ITEMS + ITEMS - 1.
  int items[ITEMS];
  int sum = 0;
  for (int k = 0; k < ITEMS; k++) {
    items[k] = tile[tid * ITEMS + k];
    sum += items[k];
  }

  int scan = sum;  // inclusive scan of the threads' sums within the warp
  for (int offset = 1; offset < 32; offset <<= 1) {
    int t = __shfl_up_sync(kFullMask, scan, offset);
    if (lane >= offset) scan += t;
  }
  if (lane == 31) warp_totals[warp] = scan;
  __syncthreads();

  if (warp == 0) {  // inclusive scan of the warp totals
    int w = lane < BLOCK / 32 ? warp_totals[lane] : 0;
    for (int offset = 1; offset < 32; offset <<= 1) {
      int t = __shfl_up_sync(kFullMask, w, offset);
      if (lane >= offset) w += t;
    }
    if (lane < BLOCK / 32) warp_totals[lane] = w;
  }
  __syncthreads();

  int running = scan - sum + (warp > 0 ? warp_totals[warp - 1] : 0);
  for (int k = 0; k < ITEMS; k++) {
    tile[tid * ITEMS + k] = running;
    running += items[k];
  }
  if (tid == BLOCK - 1) block_sums[blockIdx.x] = running;
  __syncthreads();

  for (int k = 0; k < ITEMS; k++) {
    int i = base + k * BLOCK + tid;
    if (i < n) out[i] = tile[k * BLOCK + tid];
  }
}

template <int BLOCK>
__global__ void scan_block_totals(const int* block_sums, int* block_offsets, int num_blocks) {
  __shared__ int temp[2][BLOCK];
  const int tid = threadIdx.x;
  int mine = tid < num_blocks ? block_sums[tid] : 0;
  int pout = 0, pin = 1;
  temp[pout][tid] = mine;
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset <<= 1) {
    pout = 1 - pout;
    pin = 1 - pout;
    int v = temp[pin][tid];
    if (tid >= offset) v += temp[pin][tid - offset];
    temp[pout][tid] = v;
    __syncthreads();
  }
  if (tid < num_blocks) block_offsets[tid] = temp[pout][tid] - mine;
  if (tid == BLOCK - 1) d_total = temp[pout][tid];
}

template <int BLOCK, int ITEMS>
__global__ void add_block_offsets(int* out, const int* block_offsets, int n) {
  __shared__ int offset;
  if (threadIdx.x == 0) offset = block_offsets[blockIdx.x];
  __syncthreads();
  const int base = blockIdx.x * BLOCK * ITEMS;
  for (int k = 0; k < ITEMS; k++) {
    int i = base + k * BLOCK + threadIdx.x;
    if (i < n) out[i] += offset;
  }
}

static cudaLaunchConfig_t launch_config(int blocks, int threads, size_t smem) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = smem;
  config.stream = 0;
  config.attrs = nullptr;
  config.numAttrs = 0;
  return config;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  int iterations = argc > 2 ? atoi(argv[2]) : 2;
  int blocks = (n + kTile - 1) / kTile;
  if (n < 1 || blocks > kMaxBlocks || iterations < 1) {
    fprintf(stderr, "usage: %s [n: 1..%d] [iterations]\n", argv[0], kMaxBlocks * kTile);
    return EXIT_FAILURE;
  }
  printf("exclusive scan of %d ints: %d blocks of %d x %d\n", n, blocks, kBlock, kItems);

  int *in, *out, *block_sums, *block_offsets;
  CUDA_CHECK(cudaMallocManaged(&in, n * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&out, n * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&block_sums, kMaxBlocks * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&block_offsets, kMaxBlocks * sizeof(int)));

  bool ok = true;
  unsigned seed = 17u;
  for (int it = 0; it < iterations && ok; it++) {
    for (int i = 0; i < n; i++) {
      seed = seed * 1664525u + 1013904223u;
      in[i] = (int)((seed >> 16) % 10);
    }

    cudaLaunchConfig_t scan_cfg =
        launch_config(blocks, kBlock, (kTile + kBlock / 32) * sizeof(int));
    CUDA_CHECK(cudaLaunchKernelEx(&scan_cfg, block_scan<kBlock, kItems>, in, out, block_sums, n));
    cudaLaunchConfig_t totals_cfg = launch_config(1, kMaxBlocks, 0);
    CUDA_CHECK(cudaLaunchKernelEx(&totals_cfg, scan_block_totals<kMaxBlocks>, block_sums,
                                  block_offsets, blocks));
    cudaLaunchConfig_t add_cfg = launch_config(blocks, kBlock, 0);
    CUDA_CHECK(cudaLaunchKernelEx(&add_cfg, add_block_offsets<kBlock, kItems>, out, block_offsets, n));
    CUDA_CHECK(cudaDeviceSynchronize());

    int total = 0;
    CUDA_CHECK(cudaMemcpyFromSymbol(&total, d_total, sizeof(int)));

    int running = 0, wrong = 0, first = -1;
    for (int i = 0; i < n; i++) {
      if (out[i] != running) {
        if (first < 0) first = i;
        wrong++;
      }
      running += in[i];
    }
    printf("iteration %d: total %d (cpu %d), %d of %d outputs differ", it, total, running, wrong, n);
    if (first >= 0) printf(", first at %d", first);
    printf("\n");
    ok = wrong == 0 && total == running;
  }

  CUDA_CHECK(cudaFree(in));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFree(block_sums));
  CUDA_CHECK(cudaFree(block_offsets));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
