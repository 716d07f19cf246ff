// heat3d.cu: explicit heat diffusion on an nx x ny x nz box with insulated walls (a
// neighbour outside the box is the cell itself), a 7-point stencil per time step, with
// two buffers swapped between steps. A 3D grid of 8x8x4-thread blocks: each block stages
// a 6 x 10 x 10 tile with a one-cell halo in shared memory (a linear loop over the tile's
// cells, clamped at the walls) and reads its seven neighbours from it. A tile row is 10
// floats, so the four rows of a warp's 8x4 threads start at banks 0, 10, 20 and 30: the
// fourth row overlaps the first (2-way).
//
//   usage: heat3d [nx] [ny] [nz] [steps]
//   default: heat3d 40 36 20 4   (4 launches of heat_step, grid 5x5x5 of 8x8x4)
//
// The final temperatures are compared with a CPU simulation (relative 1e-5).
#include <cuda_runtime.h>

#include <algorithm>
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

#define BX 8
#define BY 8
#define BZ 4

__global__ void heat_step(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                          int nz, float alpha) {
  __shared__ float tile[BZ + 2][BY + 2][BX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  const int x0 = blockIdx.x * BX - 1, y0 = blockIdx.y * BY - 1, z0 = blockIdx.z * BZ - 1;

  const int tid = (tz * BY + ty) * BX + tx;
  constexpr int kTileCells = (BZ + 2) * (BY + 2) * (BX + 2);
  for (int i = tid; i < kTileCells; i += BX * BY * BZ) {
    const int lx = i % (BX + 2);
    const int ly = (i / (BX + 2)) % (BY + 2);
    const int lz = i / ((BX + 2) * (BY + 2));
    const int gx = min(max(x0 + lx, 0), nx - 1);
    const int gy = min(max(y0 + ly, 0), ny - 1);
    const int gz = min(max(z0 + lz, 0), nz - 1);
    tile[lz][ly][lx] = in[((size_t)gz * ny + gy) * nx + gx];
  }
  __syncthreads();

  const int x = blockIdx.x * BX + tx, y = blockIdx.y * BY + ty, z = blockIdx.z * BZ + tz;
  if (x < nx && y < ny && z < nz) {
    const float c = tile[tz + 1][ty + 1][tx + 1];
    const float lap = tile[tz + 1][ty + 1][tx] + tile[tz + 1][ty + 1][tx + 2] +
                      tile[tz + 1][ty][tx + 1] + tile[tz + 1][ty + 2][tx + 1] +
                      tile[tz][ty + 1][tx + 1] + tile[tz + 2][ty + 1][tx + 1] - 6.0f * c;
    out[((size_t)z * ny + y) * nx + x] = c + alpha * lap;
  }
}

static void heat_step_cpu(const std::vector<float>& in, std::vector<float>& out, int nx, int ny,
                          int nz, float alpha) {
  auto at = [&](int x, int y, int z) {
    x = std::min(std::max(x, 0), nx - 1);
    y = std::min(std::max(y, 0), ny - 1);
    z = std::min(std::max(z, 0), nz - 1);
    return in[((size_t)z * ny + y) * nx + x];
  };
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        float c = at(x, y, z);
        float lap = at(x - 1, y, z) + at(x + 1, y, z) + at(x, y - 1, z) + at(x, y + 1, z) +
                    at(x, y, z - 1) + at(x, y, z + 1) - 6.0f * c;
        out[((size_t)z * ny + y) * nx + x] = c + alpha * lap;
      }
}

int main(int argc, char** argv) {
  int nx = argc > 1 ? atoi(argv[1]) : 40;
  int ny = argc > 2 ? atoi(argv[2]) : 36;
  int nz = argc > 3 ? atoi(argv[3]) : 20;
  int steps = argc > 4 ? atoi(argv[4]) : 4;
  if (nx < 1 || ny < 1 || nz < 1 || steps < 1) {
    fprintf(stderr, "usage: %s [nx] [ny] [nz] [steps]\n", argv[0]);
    return EXIT_FAILURE;
  }
  const float alpha = 0.125f;  // stable below 1/6

  size_t cells = (size_t)nx * ny * nz;
  std::vector<float> h(cells);
  unsigned seed = 31u;
  for (size_t i = 0; i < cells; i++) {
    seed = seed * 1664525u + 1013904223u;
    h[i] = 20.0f + (float)(seed >> 16) / 65536.0f;
  }
  for (int z = nz / 3; z < nz / 2; z++)  // a hot block
    for (int y = ny / 4; y < ny / 2; y++)
      for (int x = nx / 4; x < nx / 2; x++) h[((size_t)z * ny + y) * nx + x] = 90.0f;

  float* d[2];
  CUDA_CHECK(cudaMalloc(&d[0], cells * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d[1], cells * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d[0], h.data(), cells * sizeof(float), cudaMemcpyHostToDevice));

  dim3 block(BX, BY, BZ);
  dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY, (nz + BZ - 1) / BZ);
  printf("%d x %d x %d cells, %d steps, grid %d x %d x %d of %d x %d x %d\n", nx, ny, nz, steps,
         grid.x, grid.y, grid.z, BX, BY, BZ);
  for (int s = 0; s < steps; s++) {
    heat_step<<<grid, block>>>(d[s % 2], d[(s + 1) % 2], nx, ny, nz, alpha);
    CUDA_CHECK(cudaGetLastError());
  }
  std::vector<float> got(cells);
  CUDA_CHECK(cudaMemcpy(got.data(), d[steps % 2], cells * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<float> next(cells);
  for (int s = 0; s < steps; s++) {
    heat_step_cpu(h, next, nx, ny, nz, alpha);
    h.swap(next);
  }
  double max_err = 0.0;
  for (size_t i = 0; i < cells; i++) {
    double err = std::fabs((double)got[i] - h[i]) / std::fabs((double)h[i]);
    if (std::isnan(err)) err = INFINITY;
    if (err > max_err) max_err = err;
  }
  printf("max relative error %.3g\n", max_err);

  CUDA_CHECK(cudaFree(d[0]));
  CUDA_CHECK(cudaFree(d[1]));
  bool ok = max_err < 1e-5;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
