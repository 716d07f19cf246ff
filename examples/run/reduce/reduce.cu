// reduce.cu: SAXPY and a sum reduction with grid-stride loops whose grids are sized from
// the device, as performance-portable codes do: the SM count (cudaGetDeviceProperties and
// cudaDeviceGetAttribute) times the resident blocks per SM that the occupancy calculator
// gives (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
//   saxpy_gridstride      y = a x + y, 32 blocks of 256 per SM;
//   reduce_kernel<256>    each thread adds pairs i, i + 256 of a grid-stride loop, then a
//                         fully unrolled shared-memory tree (templated on the block size)
//                         and a last warp that reads, syncs and writes through volatile
//                         shared memory (__syncwarp between steps); one partial sum per
//                         block. A second launch of one block adds the partial sums.
//
//   usage: reduce [n] [iterations]
//   default: reduce 1000000 3   (per iteration: saxpy_gridstride with 32 x SMs blocks,
//            reduce_kernel<256> with SMs x resident blocks (132 x 8 = 1,056 on an H100),
//            reduce_kernel<256> with 1 block: 9 launches)
//
// y is compared with the CPU's (relative 1e-6), the sum with a double-precision sum
// (relative 1e-5).
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

#define REDUCE_THREADS 256
#define SAXPY_THREADS 256

__global__ void saxpy_gridstride(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

template <unsigned int blockSize>
__global__ void reduce_kernel(const float* g_idata, float* g_odata, unsigned int n) {
  __shared__ float sdata[blockSize];

  // Each thread adds pairs of elements a block apart, striding over the whole grid.
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  unsigned int gridSize = blockSize * 2 * gridDim.x;
  float mySum = 0.0f;
  while (i < n) {
    mySum += g_idata[i];
    if (i + blockSize < n) mySum += g_idata[i + blockSize];
    i += gridSize;
  }
  sdata[tid] = mySum;
  __syncthreads();

  if (blockSize >= 1024 && tid < 512) sdata[tid] = mySum = mySum + sdata[tid + 512];
  __syncthreads();
  if (blockSize >= 512 && tid < 256) sdata[tid] = mySum = mySum + sdata[tid + 256];
  __syncthreads();
  if (blockSize >= 256 && tid < 128) sdata[tid] = mySum = mySum + sdata[tid + 128];
  __syncthreads();
  if (blockSize >= 128 && tid < 64) sdata[tid] = mySum = mySum + sdata[tid + 64];
  __syncthreads();

  if (tid < 32) {
    // The last warp: every step reads, then writes, with the warp synchronised between.
    volatile float* vs = sdata;
    for (unsigned int offset = 32; offset > 0; offset >>= 1) {
      if (blockSize >= 2 * offset) mySum += vs[tid + offset];
      __syncwarp();
      vs[tid] = mySum;
      __syncwarp();
    }
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000000;
  int iterations = argc > 2 ? atoi(argv[2]) : 3;
  if (n < 1 || iterations < 1) {
    fprintf(stderr, "usage: %s [n] [iterations]\n", argv[0]);
    return EXIT_FAILURE;
  }

  int dev = 0;
  CUDA_CHECK(cudaSetDevice(dev));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  int numSMs = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, dev));
  if (numSMs != prop.multiProcessorCount) {
    fprintf(stderr, "SM counts disagree: %d and %d\n", numSMs, prop.multiProcessorCount);
    return EXIT_FAILURE;
  }
  int blocksPerSM = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocksPerSM, reduce_kernel<REDUCE_THREADS>, REDUCE_THREADS, 0));
  if (blocksPerSM < 1) {
    fprintf(stderr, "reduce_kernel cannot run: %d blocks per SM\n", blocksPerSM);
    return EXIT_FAILURE;
  }
  int reduceBlocks = numSMs * blocksPerSM;
  int saxpyBlocks = 32 * numSMs;
  printf("%s: %d SMs, %d blocks of %d per SM resident: reduce grid %d, saxpy grid %d, n = %d\n",
         prop.name, numSMs, blocksPerSM, REDUCE_THREADS, reduceBlocks, saxpyBlocks, n);

  std::vector<float> x(n), y(n);
  unsigned seed = 5u;
  for (int i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (float)(seed >> 8) / (float)(1u << 24);
    seed = seed * 1664525u + 1013904223u;
    y[i] = (float)(seed >> 8) / (float)(1u << 24);
  }

  float *d_x, *d_y, *d_partial, *d_sum;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_partial, reduceBlocks * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_sum, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const float a = 0.5f;
  bool ok = true;
  for (int it = 0; it < iterations && ok; it++) {
    saxpy_gridstride<<<saxpyBlocks, SAXPY_THREADS>>>(n, a, d_x, d_y);
    CUDA_CHECK(cudaGetLastError());
    reduce_kernel<REDUCE_THREADS><<<reduceBlocks, REDUCE_THREADS>>>(d_y, d_partial, n);
    CUDA_CHECK(cudaGetLastError());
    reduce_kernel<REDUCE_THREADS><<<1, REDUCE_THREADS>>>(d_partial, d_sum, reduceBlocks);
    CUDA_CHECK(cudaGetLastError());

    float gpu_sum = 0.0f;
    CUDA_CHECK(cudaMemcpy(&gpu_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<float> gpu_y(n);
    CUDA_CHECK(cudaMemcpy(gpu_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));

    // The CPU does the same step from the GPU's previous y (one step of rounding apart).
    double sum = 0.0, max_err = 0.0;
    for (int i = 0; i < n; i++) {
      float want = a * x[i] + y[i];
      double err = std::fabs((double)gpu_y[i] - want) / std::fabs((double)want);
      if (std::isnan(err)) err = INFINITY;
      if (err > max_err) max_err = err;
      y[i] = gpu_y[i];
      sum += gpu_y[i];
    }
    double rel = std::fabs(gpu_sum - sum) / sum;
    printf("iteration %d: sum %.6f (cpu %.6f, relative error %.2e), saxpy max relative error %.2e\n",
           it, gpu_sum, sum, rel, max_err);
    ok = max_err < 1e-6 && rel < 1e-5;
  }

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_partial));
  CUDA_CHECK(cudaFree(d_sum));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
