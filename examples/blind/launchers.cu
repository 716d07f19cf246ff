// launchers.cu: kernels behind launcher functions, as a library has them; main() only
// parses its sizes and calls the launchers. Grids come from a helper (ceil_div) and the
// launchers' own parameters.
//   transpose_tile / transpose_tile_padded: a 32x32 tile through shared memory, read by
//                   column: 32-way without padding, conflict-free with one float of it.
//   reduce_interleaved: the classic tree reduction with interleaved addressing
//                   (s[2 * stride * tid]), 2- to 16-way.
// main() checks each result against the host's.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_OK(call)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));       \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (0)

namespace {
constexpr int TILE = 32, ROWS_PER_PASS = 8;

template <int PAD>
__device__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + PAD];
  const int x = blockIdx.x * TILE + threadIdx.x, y0 = blockIdx.y * TILE;
  for (int j = threadIdx.y; j < TILE; j += ROWS_PER_PASS)
    if (x < cols && y0 + j < rows) tile[j][threadIdx.x] = in[(size_t)(y0 + j) * cols + x];
  __syncthreads();
  const int ox = blockIdx.y * TILE + threadIdx.x, oy0 = blockIdx.x * TILE;
  for (int j = threadIdx.y; j < TILE; j += ROWS_PER_PASS)
    if (ox < rows && oy0 + j < cols) out[(size_t)(oy0 + j) * rows + ox] = tile[threadIdx.x][j];
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }
}  // namespace

__global__ void transpose_tile(const float* in, float* out, int rows, int cols) {
  transpose<0>(in, out, rows, cols);
}
__global__ void transpose_tile_padded(const float* in, float* out, int rows, int cols) {
  transpose<1>(in, out, rows, cols);
}
__global__ void reduce_interleaved(const float* in, float* out, int n) {
  extern __shared__ float s[];
  const int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int stride = 1; stride < blockDim.x; stride *= 2) {
    const int k = 2 * stride * tid;
    if (k < blockDim.x) s[k] += s[k + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

void launch_transpose(const float* in, float* out, int rows, int cols, bool padded, cudaStream_t st) {
  const dim3 block(TILE, ROWS_PER_PASS), grid(ceil_div(cols, TILE), ceil_div(rows, TILE));
  if (padded) transpose_tile_padded<<<grid, block, 0, st>>>(in, out, rows, cols);
  else transpose_tile<<<grid, block, 0, st>>>(in, out, rows, cols);
}
void launch_reduce(const float* in, float* partial, int n, int threads, cudaStream_t st) {
  reduce_interleaved<<<ceil_div(n, threads), threads, threads * sizeof(float), st>>>(in, partial, n);
}

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 1024, cols = argc > 2 ? std::atoi(argv[2]) : 1024;
  const size_t n = (size_t)rows * cols;
  std::vector<float> h(n), t(n);
  for (size_t i = 0; i < n; ++i) h[i] = (float)(i % 977) * 0.5f;
  float *din, *dout, *dpart;
  CUDA_OK(cudaMalloc(&din, n * 4));
  CUDA_OK(cudaMalloc(&dout, n * 4));
  CUDA_OK(cudaMalloc(&dpart, n * 4));
  CUDA_OK(cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice));
  int bad = 0;
  for (int padded = 0; padded < 2; ++padded) {
    launch_transpose(din, dout, rows, cols, padded, 0);
    CUDA_OK(cudaMemcpy(t.data(), dout, n * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int r = 0; r < rows && ok; ++r)
      for (int c = 0; c < cols && ok; ++c) ok = t[(size_t)c * rows + r] == h[(size_t)r * cols + c];
    bad += !ok;
    std::printf("%s: %s\n", padded ? "transpose_tile_padded" : "transpose_tile", ok ? "OK" : "WRONG");
  }
  const int threads = 256;
  launch_reduce(din, dpart, (int)n, threads, 0);
  std::vector<float> part(n / threads);
  CUDA_OK(cudaMemcpy(part.data(), dpart, part.size() * 4, cudaMemcpyDeviceToHost));
  double got = 0, want = 0;
  for (float v : part) got += v;
  for (float v : h) want += v;
  const bool rok = std::fabs(got - want) <= 1e-6 * want;
  bad += !rok;
  std::printf("reduce_interleaved: %s\n", rok ? "OK" : "WRONG");
  return bad ? 1 : 0;
}
