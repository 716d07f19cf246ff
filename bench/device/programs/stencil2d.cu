// A 2D Jacobi heat stencil in the shape of public stencil samples: two kernels launched
// asynchronously each iteration (the stencil through a shared-memory tile with a halo, then
// the copy back with a per-block residual reduced in shared memory), 16x16 blocks on a 32x32
// grid, nothing synchronized until the results are read back with cudaMemcpy. It checks the
// field and the residuals against a CPU reference and prints PASSED.
//
//   stencil2d [ITERATIONS] [MODE]
// MODE: stream (default; a created stream, read back on the legacy default stream),
// null (everything on the legacy default stream), two (the stencil on one stream, the copy on
// another, ordered by events: two launches in flight on two streams).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                    \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                \
                   cudaGetErrorString(e_));                                         \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

constexpr int kTile = 16;
constexpr int kN = 32 * kTile;  // 512 x 512 points: a 32 x 32 grid of 16 x 16 blocks

// One Jacobi step: each block loads its tile and a one-point halo into shared memory, then
// every interior point becomes the mean of its four neighbours. The boundary stays fixed.
__global__ void jacobi_step(const float* __restrict__ u, float* __restrict__ v, int n) {
  __shared__ float tile[kTile + 2][kTile + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kTile + tx, y = blockIdx.y * kTile + ty;
  tile[ty + 1][tx + 1] = u[y * n + x];
  if (tx == 0) tile[ty + 1][0] = x > 0 ? u[y * n + x - 1] : 0.0f;
  if (tx == kTile - 1) tile[ty + 1][kTile + 1] = x < n - 1 ? u[y * n + x + 1] : 0.0f;
  if (ty == 0) tile[0][tx + 1] = y > 0 ? u[(y - 1) * n + x] : 0.0f;
  if (ty == kTile - 1) tile[kTile + 1][tx + 1] = y < n - 1 ? u[(y + 1) * n + x] : 0.0f;
  __syncthreads();
  float r = tile[ty + 1][tx + 1];
  if (x > 0 && y > 0 && x < n - 1 && y < n - 1)
    r = 0.25f * (tile[ty + 1][tx] + tile[ty + 1][tx + 2] + tile[ty][tx + 1] + tile[ty + 2][tx + 1]);
  v[y * n + x] = r;
}

// The new field copied back, and each block's largest change reduced in shared memory.
__global__ void copy_back(float* __restrict__ u, const float* __restrict__ v,
                          float* __restrict__ residual, int n) {
  __shared__ float change[kTile * kTile];
  const int tid = threadIdx.y * kTile + threadIdx.x;
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  const float next = v[y * n + x];
  change[tid] = fabsf(next - u[y * n + x]);
  u[y * n + x] = next;
  __syncthreads();
  for (int s = kTile * kTile / 2; s > 0; s >>= 1) {
    if (tid < s) change[tid] = fmaxf(change[tid], change[tid + s]);
    __syncthreads();
  }
  if (tid == 0) residual[blockIdx.y * gridDim.x + blockIdx.x] = change[0];
}

static void reference(std::vector<float>& u, std::vector<float>& residual, int iterations) {
  std::vector<float> v(u.size());
  const int blocks = kN / kTile;
  for (int it = 0; it < iterations; ++it) {
    for (int y = 0; y < kN; ++y)
      for (int x = 0; x < kN; ++x) {
        float r = u[y * kN + x];
        if (x > 0 && y > 0 && x < kN - 1 && y < kN - 1)
          r = 0.25f * (u[y * kN + x - 1] + u[y * kN + x + 1] + u[(y - 1) * kN + x] +
                       u[(y + 1) * kN + x]);
        v[y * kN + x] = r;
      }
    std::fill(residual.begin(), residual.end(), 0.0f);
    for (int y = 0; y < kN; ++y)
      for (int x = 0; x < kN; ++x) {
        float& m = residual[(y / kTile) * blocks + x / kTile];
        m = std::fmax(m, std::fabs(v[y * kN + x] - u[y * kN + x]));
      }
    u.swap(v);
  }
}

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 100;
  const char* mode = argc > 2 ? argv[2] : "stream";
  if (iterations < 1 || (std::strcmp(mode, "stream") && std::strcmp(mode, "null") &&
                         std::strcmp(mode, "two"))) {
    std::fprintf(stderr, "usage: %s [ITERATIONS >= 1] [stream|null|two]\n", argv[0]);
    return 2;
  }
  const size_t points = size_t(kN) * kN, bytes = points * sizeof(float);
  const int blocks = kN / kTile;
  std::vector<float> u(points, 0.0f);
  for (int x = 0; x < kN; ++x) u[x] = 100.0f;  // a hot edge
  for (int y = 0; y < kN; ++y) u[y * kN] = 50.0f * y / kN;

  float *du, *dv, *dres;
  CHECK(cudaMalloc(&du, bytes));
  CHECK(cudaMalloc(&dv, bytes));
  CHECK(cudaMalloc(&dres, blocks * blocks * sizeof(float)));
  CHECK(cudaMemcpy(du, u.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dv, 0, bytes));

  cudaStream_t s1 = nullptr, s2 = nullptr;
  cudaEvent_t stepped, copied;
  const bool own = std::strcmp(mode, "null") != 0, two = std::strcmp(mode, "two") == 0;
  if (own) CHECK(cudaStreamCreate(&s1));
  if (two) CHECK(cudaStreamCreate(&s2));
  CHECK(cudaEventCreateWithFlags(&stepped, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
  const dim3 grid(blocks, blocks), block(kTile, kTile);
  for (int it = 0; it < iterations; ++it) {
    jacobi_step<<<grid, block, 0, s1>>>(du, dv, kN);
    if (two) {
      CHECK(cudaEventRecord(stepped, s1));
      CHECK(cudaStreamWaitEvent(s2, stepped, 0));
      copy_back<<<grid, block, 0, s2>>>(du, dv, dres, kN);
      CHECK(cudaEventRecord(copied, s2));
      CHECK(cudaStreamWaitEvent(s1, copied, 0));
    } else {
      copy_back<<<grid, block, 0, s1>>>(du, dv, dres, kN);
    }
  }
  CHECK(cudaGetLastError());
  if (two) CHECK(cudaStreamSynchronize(s2));  // s2 is a blocking stream; the copy waits anyway
  std::vector<float> got(points), got_res(blocks * blocks);
  CHECK(cudaMemcpy(got.data(), du, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_res.data(), dres, got_res.size() * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<float> want_res(blocks * blocks);
  reference(u, want_res, iterations);
  int bad = 0;
  for (size_t i = 0; i < points; ++i)
    if (std::fabs(got[i] - u[i]) > 1e-3f * (1.0f + std::fabs(u[i])) && bad++ < 5)
      std::fprintf(stderr, "point %zu: %g, expected %g\n", i, got[i], u[i]);
  for (int i = 0; i < blocks * blocks; ++i)
    if (std::fabs(got_res[i] - want_res[i]) > 1e-3f * (1.0f + want_res[i]) && bad++ < 10)
      std::fprintf(stderr, "residual of block %d: %g, expected %g\n", i, got_res[i], want_res[i]);
  float most = 0;
  for (float r : got_res) most = std::fmax(most, r);
  std::printf("stencil2d %s: %d iterations of %dx%d, largest change in the last %g\n", mode,
              iterations, kN, kN, most);
  cudaFree(du);
  cudaFree(dv);
  cudaFree(dres);
  if (bad) {
    std::printf("FAILED (%d differences)\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
