// transpose.cu: the classic matrix transpose study, on a rows x cols float matrix whose
// sides are not multiples of the 32x32 tile. Blocks of 32x8 threads move a 32x32 tile,
// each thread four elements 8 rows apart. Kernels are picked from a table and launched
// with cudaLaunchKernel (an argument array), alternating between two streams, each
// variant timed with its own pair of events.
//   copySharedMem             the bandwidth reference: a copy through a shared tile;
//   transposeNaive            reads rows, writes columns (strided, uncoalesced stores);
//   transposeCoalesced        through tile[32][32]: the transposed read tile[tx][ty + j]
//                             walks a column, all 32 lanes in one bank;
//   transposeNoBankConflicts  through tile[32][33]: the extra column spreads it.
//
//   usage: transpose [rows] [cols] [repetitions]
//   default: transpose 500 300 2   (each kernel twice, grid 10x16 of 32x8: 8 launches)
//
// Each output is compared exactly with the input (copy) or its transpose.
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

#define TILE_DIM 32
#define BLOCK_ROWS 8

// idata is rows x cols; odata is rows x cols for the copy, cols x rows for the transposes.
__global__ void copySharedMem(float* odata, const float* idata, int rows, int cols) {
  __shared__ float tile[TILE_DIM * TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows)
      tile[(threadIdx.y + j) * TILE_DIM + threadIdx.x] = idata[(y + j) * cols + x];
  __syncthreads();
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows)
      odata[(y + j) * cols + x] = tile[(threadIdx.y + j) * TILE_DIM + threadIdx.x];
}

__global__ void transposeNaive(float* odata, const float* idata, int rows, int cols) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows) odata[x * rows + (y + j)] = idata[(y + j) * cols + x];
}

__global__ void transposeCoalesced(float* odata, const float* idata, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;  // transpose block offset
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < rows && y + j < cols) odata[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transposeNoBankConflicts(float* odata, const float* idata, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < rows && y + j < cols) odata[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

typedef void (*transpose_kernel)(float*, const float*, int, int);

struct Variant {
  const char* name;
  transpose_kernel kernel;
  bool transposes;
};

int main(int argc, char** argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 500;
  int cols = argc > 2 ? atoi(argv[2]) : 300;
  int reps = argc > 3 ? atoi(argv[3]) : 2;
  if (rows < 1 || cols < 1 || reps < 1) {
    fprintf(stderr, "usage: %s [rows] [cols] [repetitions]\n", argv[0]);
    return EXIT_FAILURE;
  }
  const Variant variants[] = {
      {"copySharedMem", copySharedMem, false},
      {"transposeNaive", transposeNaive, true},
      {"transposeCoalesced", transposeCoalesced, true},
      {"transposeNoBankConflicts", transposeNoBankConflicts, true},
  };
  const int num_variants = sizeof(variants) / sizeof(variants[0]);

  dim3 dimGrid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM, 1);
  dim3 dimBlock(TILE_DIM, BLOCK_ROWS, 1);
  printf("Matrix size: %d x %d, tile %d x %d, block %d x %d, grid %d x %d, %d repetitions\n",
         rows, cols, TILE_DIM, TILE_DIM, TILE_DIM, BLOCK_ROWS, dimGrid.x, dimGrid.y, reps);

  size_t mem_size = (size_t)rows * cols * sizeof(float);
  std::vector<float> h_idata((size_t)rows * cols);
  for (size_t i = 0; i < h_idata.size(); i++) h_idata[i] = (float)i;

  float* d_idata;
  float* d_odata[num_variants];
  CUDA_CHECK(cudaMalloc(&d_idata, mem_size));
  for (int v = 0; v < num_variants; v++) CUDA_CHECK(cudaMalloc(&d_odata[v], mem_size));
  CUDA_CHECK(cudaMemcpy(d_idata, h_idata.data(), mem_size, cudaMemcpyHostToDevice));

  cudaStream_t streams[2];
  for (auto& s : streams) CUDA_CHECK(cudaStreamCreate(&s));
  cudaEvent_t start[num_variants], stop[num_variants];
  for (int v = 0; v < num_variants; v++) {
    CUDA_CHECK(cudaEventCreate(&start[v]));
    CUDA_CHECK(cudaEventCreate(&stop[v]));
  }

  for (int v = 0; v < num_variants; v++) {
    cudaStream_t s = streams[v % 2];
    CUDA_CHECK(cudaMemsetAsync(d_odata[v], 0, mem_size, s));
    void* args[] = {&d_odata[v], &d_idata, &rows, &cols};
    CUDA_CHECK(cudaEventRecord(start[v], s));
    for (int r = 0; r < reps; r++)
      CUDA_CHECK(cudaLaunchKernel((const void*)variants[v].kernel, dimGrid, dimBlock, args, 0, s));
    CUDA_CHECK(cudaEventRecord(stop[v], s));
  }
  for (auto& s : streams) CUDA_CHECK(cudaStreamSynchronize(s));

  bool ok = true;
  std::vector<float> h_odata((size_t)rows * cols);
  for (int v = 0; v < num_variants; v++) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start[v], stop[v]));
    CUDA_CHECK(cudaMemcpy(h_odata.data(), d_odata[v], mem_size, cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) {
        float want = h_idata[(size_t)r * cols + c];
        float got = variants[v].transposes ? h_odata[(size_t)c * rows + r]
                                           : h_odata[(size_t)r * cols + c];
        wrong += got != want;
      }
    printf("%25s: %8.2f GB/s, %zu wrong\n", variants[v].name,
           2.0 * mem_size * reps / (ms * 1e-3) / 1e9, wrong);
    ok = ok && wrong == 0;
  }

  for (int v = 0; v < num_variants; v++) {
    CUDA_CHECK(cudaEventDestroy(start[v]));
    CUDA_CHECK(cudaEventDestroy(stop[v]));
    CUDA_CHECK(cudaFree(d_odata[v]));
  }
  for (auto& s : streams) CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(d_idata));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
