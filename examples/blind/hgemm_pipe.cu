// hgemm_pipe.cu: a three-stage cp.async pipeline feeding mma.sync, C = A * B for f16 A (MxK,
// row-major) and B (KxN, row-major), f32 C, M = N = K = 512. A block computes a 64x64 tile
// with 4 warps of 32x32; K advances 32 at a time. A's fragments come from ldmatrix.x4, B's
// from ldmatrix.x4.trans (B is K-major in shared memory).
//   hgemm_pipe_xor: A's 64-byte rows and B's 128-byte rows with their 16-byte chunks XORed
//                   by the row, the layout CUTLASS-style kernels use.
//   hgemm_pipe_pad: the rows padded by 8 halves instead (80 and 144 bytes).
// main() checks 256 entries of C against a double-precision product.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_fp16.h>
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
constexpr int BM = 64, BN = 64, BK = 32, STAGES = 3, THREADS = 128;

__device__ __forceinline__ void cp16(void* dst, const void* src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_groups() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], const void* p) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
__device__ __forceinline__ void ldsm_x4_t(uint32_t (&r)[4], const void* p) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Half offsets of (row, col) in the A tile (BM x BK) and the B tile (BK x BN).
struct Xor {
  static constexpr int a_size = BM * BK, b_size = BK * BN;
  static __device__ int a(int r, int c) { return r * BK + ((((c >> 3) ^ (r >> 1)) & 3) << 3) + (c & 7); }
  static __device__ int b(int r, int c) { return r * BN + ((((c >> 3) ^ r) & 7) << 3) + (c & 7); }
};
struct Pad {
  static constexpr int a_size = BM * (BK + 8), b_size = BK * (BN + 8);
  static __device__ int a(int r, int c) { return r * (BK + 8) + c; }
  static __device__ int b(int r, int c) { return r * (BN + 8) + c; }
};

template <class L>
__device__ void gemm(const half* A, const half* B, float* C, int M, int N, int K) {
  __shared__ __align__(128) half As[STAGES][L::a_size];
  __shared__ __align__(128) half Bs[STAGES][L::b_size];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 1, wn = warp & 1;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  auto load = [&](int stage, int k0) {
    for (int c = tid; c < BM * BK / 8; c += THREADS) {  // A: 4 chunks a row
      const int r = c >> 2, col = (c & 3) << 3;
      cp16(&As[stage][L::a(r, col)], A + (size_t)(m0 + r) * K + k0 + col);
    }
    for (int c = tid; c < BK * BN / 8; c += THREADS) {  // B: 8 chunks a row
      const int r = c >> 3, col = (c & 7) << 3;
      cp16(&Bs[stage][L::b(r, col)], B + (size_t)(k0 + r) * N + n0 + col);
    }
    commit();
  };
  float acc[2][4][4] = {};
  const int tiles = K / BK;
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) load(s, s * BK);
    else commit();
  }
  for (int t = 0; t < tiles; ++t) {
    wait_groups<STAGES - 2>();
    __syncthreads();
    const int nt = t + STAGES - 1;
    if (nt < tiles) load(nt % STAGES, nt * BK);
    else commit();
    const int s = t % STAGES;
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t a[2][4], b[4][2];
      for (int mi = 0; mi < 2; ++mi)
        ldsm_x4(a[mi], &As[s][L::a(wm * 32 + mi * 16 + (lane & 15), kk + ((lane >> 4) << 3))]);
      for (int nj = 0; nj < 2; ++nj) {
        uint32_t r[4];
        ldsm_x4_t(r, &Bs[s][L::b(kk + (lane & 15), wn * 32 + nj * 16 + ((lane >> 4) << 3))]);
        b[2 * nj][0] = r[0];
        b[2 * nj][1] = r[1];
        b[2 * nj + 1][0] = r[2];
        b[2 * nj + 1][1] = r[3];
      }
      for (int mi = 0; mi < 2; ++mi)
        for (int ni = 0; ni < 4; ++ni) mma(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
  }
  for (int mi = 0; mi < 2; ++mi)
    for (int ni = 0; ni < 4; ++ni) {
      const int r = m0 + wm * 32 + mi * 16 + (lane >> 2), c = n0 + wn * 32 + ni * 8 + (lane & 3) * 2;
      *reinterpret_cast<float2*>(C + (size_t)r * N + c) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
      *reinterpret_cast<float2*>(C + (size_t)(r + 8) * N + c) = make_float2(acc[mi][ni][2], acc[mi][ni][3]);
    }
}
}  // namespace

__global__ void hgemm_pipe_xor(const half* A, const half* B, float* C, int M, int N, int K) {
  gemm<Xor>(A, B, C, M, N, K);
}
__global__ void hgemm_pipe_pad(const half* A, const half* B, float* C, int M, int N, int K) {
  gemm<Pad>(A, B, C, M, N, K);
}

static int div_ceil(int a, int b) { return (a + b - 1) / b; }

int main() {
  const int M = 512, N = 512, K = 512;
  std::vector<half> A((size_t)M * K), B((size_t)K * N);
  std::vector<float> Af(A.size()), Bf(B.size()), C((size_t)M * N);
  unsigned x = 12345;
  for (size_t i = 0; i < A.size(); ++i) { x = x * 1664525u + 1013904223u; Af[i] = ((int)((x >> 9) % 200) - 100) / 128.0f; A[i] = __float2half(Af[i]); }
  for (size_t i = 0; i < B.size(); ++i) { x = x * 1664525u + 1013904223u; Bf[i] = ((int)((x >> 9) % 200) - 100) / 128.0f; B[i] = __float2half(Bf[i]); }
  half *dA, *dB;
  float* dC;
  CUDA_OK(cudaMalloc(&dA, A.size() * sizeof(half)));
  CUDA_OK(cudaMalloc(&dB, B.size() * sizeof(half)));
  CUDA_OK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CUDA_OK(cudaMemcpy(dA, A.data(), A.size() * sizeof(half), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dB, B.data(), B.size() * sizeof(half), cudaMemcpyHostToDevice));
  dim3 grid(div_ceil(N, BN), div_ceil(M, BM)), block(THREADS);
  const char* names[2] = {"hgemm_pipe_xor", "hgemm_pipe_pad"};
  int bad = 0;
  for (int v = 0; v < 2; ++v) {
    CUDA_OK(cudaMemset(dC, 0, C.size() * sizeof(float)));
    if (v == 0) hgemm_pipe_xor<<<grid, block>>>(dA, dB, dC, M, N, K);
    else hgemm_pipe_pad<<<grid, block>>>(dA, dB, dC, M, N, K);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int s = 0; s < 256; ++s) {
      const int i = (s * 131) % M, j = (s * 197 + 7) % N;
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += (double)Af[(size_t)i * K + k] * Bf[(size_t)k * N + j];
      worst = std::fmax(worst, std::fabs(ref - C[(size_t)i * N + j]));
    }
    const bool ok = worst < 1e-2;
    bad += !ok;
    std::printf("%s: %s (max error %.3g)\n", names[v], ok ? "OK" : "WRONG", worst);
  }
  return bad ? 1 : 0;
}
