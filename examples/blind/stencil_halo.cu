// stencil_halo.cu: one step of a 5-point diffusion stencil on a 512x512 grid, in the style
// of the application benchmarks it comes from: a block of 32x8 threads stages its rows and
// a halo row above and below in shared memory. The first row of the grid has no row above,
// and the kernel reads one anyway (J[idx - cols], before the start of J), then replaces it
// by the row itself: on the GPU the read lands in mapped memory and is harmless.
//   diffuse_rows: the tile stored 32 floats a row.
// main() checks the interior against the host's stencil.
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

#define TX 32
#define TY 8

__global__ void diffuse_rows(const float* J, float* out, int rows, int cols, float k) {
  __shared__ float tile[TY + 2][TX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r = blockIdx.y * TY + ty, c = blockIdx.x * TX + tx;
  const int idx = r * cols + c;
  tile[ty + 1][tx] = J[idx];
  if (ty == 0) tile[0][tx] = J[idx - cols];  // the row above; out of range on row 0
  if (ty == TY - 1) tile[TY + 1][tx] = r + 1 < rows ? J[idx + cols] : J[idx];
  __syncthreads();
  if (r == 0 && ty == 0) tile[0][tx] = tile[1][tx];  // no row above the grid: mirror
  __syncthreads();
  const float w = tx > 0 ? tile[ty + 1][tx - 1] : (c > 0 ? J[idx - 1] : tile[ty + 1][tx]);
  const float e = tx < TX - 1 ? tile[ty + 1][tx + 1] : (c + 1 < cols ? J[idx + 1] : tile[ty + 1][tx]);
  const float centre = tile[ty + 1][tx];
  out[idx] = centre + k * (tile[ty][tx] + tile[ty + 2][tx] + w + e - 4.f * centre);
}

int main() {
  const int rows = 512, cols = 512;
  const size_t n = (size_t)rows * cols;
  std::vector<float> J(n), out(n);
  for (size_t i = 0; i < n; ++i) J[i] = std::sin(0.001f * (float)i);
  float *scratch, *dJ, *dout;
  // The grid sits after a first allocation, as it does in the benchmarks this comes from.
  CUDA_OK(cudaMalloc(&scratch, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&dJ, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&dout, n * sizeof(float)));
  CUDA_OK(cudaMemcpy(dJ, J.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(TX, TY), grid(cols / TX, rows / TY);
  diffuse_rows<<<grid, block>>>(dJ, dout, rows, cols, 0.1f);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int r = 1; r + 1 < rows; ++r)
    for (int c = 1; c + 1 < cols; ++c) {
      const size_t i = (size_t)r * cols + c;
      const float want = J[i] + 0.1f * (J[i - cols] + J[i + cols] + J[i - 1] + J[i + 1] - 4.f * J[i]);
      worst = std::fmax(worst, std::fabs(want - out[i]));
    }
  const bool ok = worst < 1e-5;
  std::printf("diffuse_rows: %s (max error %.3g)\n", ok ? "OK" : "WRONG", worst);
  CUDA_OK(cudaFree(scratch));
  return ok ? 0 : 1;
}
