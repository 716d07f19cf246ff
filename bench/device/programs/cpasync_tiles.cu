// What an instrumented cp.async costs: a tile loader in the shape of an SGEMM's main loop
// (each CTA of 256 threads copies 64x16 floats of A and 16x64 of B per K-step with 4-byte
// cp.async through L1, the form cuBLAS's sm80 f32 GEMMs give their LDGSTS, double-buffered;
// then each thread sums a column of the tiles), timed over LAUNCHES launches with CUDA
// events. Prints the mean milliseconds a launch and a checksum, checked against the CPU.
//
//   cpasync_tiles [LAUNCHES]    (default 50)
#include <cuda_pipeline.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                           \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));    \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

constexpr int kN = 1024, kK = 1024, kTile = 64, kStep = 16;

__global__ void tiles(const float* a, const float* b, float* out) {
  __shared__ float sa[2][kTile * kStep], sb[2][kStep * kTile];
  const int t = threadIdx.x, row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  auto load = [&](int buf, int k0) {
    for (int i = t; i < kTile * kStep; i += blockDim.x) {
      const int r = i / kStep, c = i % kStep;  // A: 64 rows of 16
      __pipeline_memcpy_async(&sa[buf][i], &a[(row0 + r) * kK + k0 + c], 4);
      const int rb = i / kTile, cb = i % kTile;  // B: 16 rows of 64
      __pipeline_memcpy_async(&sb[buf][i], &b[(k0 + rb) * kN + col0 + cb], 4);
    }
    __pipeline_commit();
  };
  float acc = 0.f;
  load(0, 0);
  for (int k0 = 0, buf = 0; k0 < kK; k0 += kStep, buf ^= 1) {
    if (k0 + kStep < kK) load(buf ^ 1, k0 + kStep);
    __pipeline_wait_prior(k0 + kStep < kK ? 1 : 0);
    __syncthreads();
    const int r = t % kTile, c = t / kTile;
    for (int k = 0; k < kStep; ++k) acc += sa[buf][r * kStep + k] * sb[buf][k * kTile + c];
    __syncthreads();
  }
  out[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + t] = acc;
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 50;
  std::vector<float> ha(static_cast<size_t>(kN) * kK), hb(ha.size());
  for (size_t i = 0; i < ha.size(); ++i) {
    ha[i] = static_cast<float>(i % 7) * 0.125f;
    hb[i] = static_cast<float>(i % 5) * 0.25f;
  }
  const dim3 grid(kN / kTile, kN / kTile), block(256);
  const size_t outs = static_cast<size_t>(grid.x) * grid.y * block.x;
  float *a, *b, *out;
  CHECK(cudaMalloc(&a, ha.size() * sizeof(float)));
  CHECK(cudaMalloc(&b, hb.size() * sizeof(float)));
  CHECK(cudaMalloc(&out, outs * sizeof(float)));
  CHECK(cudaMemcpy(a, ha.data(), ha.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), hb.size() * sizeof(float), cudaMemcpyHostToDevice));
  tiles<<<grid, block>>>(a, b, out);
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventRecord(e0));
  for (int i = 0; i < launches; ++i) tiles<<<grid, block>>>(a, b, out);
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  std::vector<float> h(outs);
  CHECK(cudaMemcpy(h.data(), out, outs * sizeof(float), cudaMemcpyDeviceToHost));
  // Thread t of CTA (x, y): the dot product of row 64y + t % 64 of A (its columns 16j + t / 64..
  // summed over each K-step's k) with the tile's column: checked for a few threads.
  int bad = 0;
  for (int s = 0; s < 64; ++s) {
    const int x = s % grid.x, y = (s * 7) % grid.y, t = (s * 37) % 256;
    const int r = y * kTile + t % kTile, c = x * kTile + t / kTile;
    double want = 0;
    for (int k = 0; k < kK; ++k) want += static_cast<double>(ha[static_cast<size_t>(r) * kK + k]) *
                                          hb[static_cast<size_t>(k) * kN + c];
    const float got = h[(static_cast<size_t>(y) * grid.x + x) * block.x + t];
    bad += std::fabs(got - want) > 1e-3 * std::fabs(want) + 1e-3;
  }
  std::printf("tiles: %.4f ms a launch over %d launches; %s\n", ms / launches, launches,
              bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
