// flash_fwd.cu: the forward pass of attention in the flash style, f32, one head, L = 512
// keys and queries, d = 64. A block owns 64 queries (Q in shared memory, 16 per warp: the
// warps split Q) and walks the keys 32 at a time: K and V tiles are copied to shared
// memory with cp.async and shared by the four warps. Lane j scores key j against the warp's
// 16 queries, the scores are turned into probabilities by an online softmax across the
// lanes, and each lane accumulates two of the 64 output columns from V.
//   flash_fwd_naive:  K tile stored 64 floats a row: lane j reading K[j][d] puts all 32
//                     lanes on one bank.
//   flash_fwd_padded: K rows padded to 65 floats (copied 4 bytes a lane): conflict-free.
// main() checks 64 rows of O against a double-precision softmax(QK^T / 8) V.
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

constexpr int D = 64, BQ = 64, BKV = 32, QPW = 16;

template <int BYTES>
__device__ __forceinline__ void cp_async(void* dst, const void* src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(src) : "memory");
}

template <int KPITCH>
__device__ void attention(const float* Q, const float* K, const float* V, float* O, int L) {
  __shared__ __align__(16) float Qs[BQ][D];
  __shared__ __align__(16) float Ks[BKV][KPITCH];
  __shared__ __align__(16) float Vs[BKV][D];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int q0 = blockIdx.x * BQ;
  for (int i = tid; i < BQ * D / 4; i += blockDim.x)
    cp_async<16>(&Qs[i / (D / 4)][(i % (D / 4)) * 4], Q + (size_t)q0 * D + i * 4);
  float m[QPW], l[QPW], o0[QPW], o1[QPW];
  for (int q = 0; q < QPW; ++q) m[q] = -INFINITY, l[q] = 0.f, o0[q] = o1[q] = 0.f;
  const float scale = rsqrtf((float)D);
  for (int k0 = 0; k0 < L; k0 += BKV) {
    __syncthreads();  // the previous tile is no longer read
    if (KPITCH == D) {
      for (int i = tid; i < BKV * D / 4; i += blockDim.x)
        cp_async<16>(&Ks[i / (D / 4)][(i % (D / 4)) * 4], K + (size_t)k0 * D + i * 4);
    } else {
      for (int i = tid; i < BKV * D; i += blockDim.x)
        cp_async<4>(&Ks[i / D][i % D], K + (size_t)k0 * D + i);
    }
    for (int i = tid; i < BKV * D / 4; i += blockDim.x)
      cp_async<16>(&Vs[i / (D / 4)][(i % (D / 4)) * 4], V + (size_t)k0 * D + i * 4);
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    __syncthreads();
    float s[QPW];
    for (int q = 0; q < QPW; ++q) s[q] = 0.f;
    for (int d = 0; d < D; ++d) {
      const float kv = Ks[lane][d];
      for (int q = 0; q < QPW; ++q) s[q] += Qs[warp * QPW + q][d] * kv;
    }
    for (int q = 0; q < QPW; ++q) {
      float x = s[q] * scale, mx = x;
      for (int off = 16; off; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
      const float mnew = fmaxf(m[q], mx), p = __expf(x - mnew), corr = __expf(m[q] - mnew);
      float sum = p;
      for (int off = 16; off; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
      l[q] = l[q] * corr + sum;
      m[q] = mnew;
      float a0 = o0[q] * corr, a1 = o1[q] * corr;
      for (int j = 0; j < BKV; ++j) {
        const float pj = __shfl_sync(0xffffffffu, p, j);
        a0 += pj * Vs[j][lane];
        a1 += pj * Vs[j][lane + 32];
      }
      o0[q] = a0;
      o1[q] = a1;
    }
  }
  for (int q = 0; q < QPW; ++q) {
    const size_t row = (size_t)(q0 + warp * QPW + q) * D;
    O[row + lane] = o0[q] / l[q];
    O[row + lane + 32] = o1[q] / l[q];
  }
}

__global__ void flash_fwd_naive(const float* Q, const float* K, const float* V, float* O, int L) {
  attention<D>(Q, K, V, O, L);
}
__global__ void flash_fwd_padded(const float* Q, const float* K, const float* V, float* O, int L) {
  attention<D + 1>(Q, K, V, O, L);
}

int main() {
  const int L = 512;
  const size_t n = (size_t)L * D;
  std::vector<float> Q(n), K(n), V(n), O(n);
  unsigned x = 7;
  auto rnd = [&] { x = x * 1664525u + 1013904223u; return ((int)((x >> 8) % 2001) - 1000) / 1000.0f; };
  for (size_t i = 0; i < n; ++i) Q[i] = rnd(), K[i] = rnd(), V[i] = rnd();
  float *dq, *dk, *dv, *dout;
  CUDA_OK(cudaMalloc(&dq, n * 4));
  CUDA_OK(cudaMalloc(&dk, n * 4));
  CUDA_OK(cudaMalloc(&dv, n * 4));
  CUDA_OK(cudaMalloc(&dout, n * 4));
  CUDA_OK(cudaMemcpy(dq, Q.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dk, K.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dv, V.data(), n * 4, cudaMemcpyHostToDevice));
  int bad = 0;
  for (int v = 0; v < 2; ++v) {
    CUDA_OK(cudaMemset(dout, 0, n * 4));
    if (v == 0) flash_fwd_naive<<<L / BQ, 128>>>(dq, dk, dv, dout, L);
    else flash_fwd_padded<<<L / BQ, 128>>>(dq, dk, dv, dout, L);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(O.data(), dout, n * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < L; i += 8) {
      std::vector<double> p(L);
      double mx = -1e30, sum = 0;
      for (int j = 0; j < L; ++j) {
        double s = 0;
        for (int d = 0; d < D; ++d) s += (double)Q[(size_t)i * D + d] * K[(size_t)j * D + d];
        p[j] = s / 8.0;
        mx = std::fmax(mx, p[j]);
      }
      for (int j = 0; j < L; ++j) sum += (p[j] = std::exp(p[j] - mx));
      for (int d = 0; d < D; ++d) {
        double o = 0;
        for (int j = 0; j < L; ++j) o += p[j] * V[(size_t)j * D + d];
        worst = std::fmax(worst, std::fabs(o / sum - O[(size_t)i * D + d]));
      }
    }
    const bool ok = worst < 1e-3;
    bad += !ok;
    std::printf("%s: %s (max error %.3g)\n", v ? "flash_fwd_padded" : "flash_fwd_naive", ok ? "OK" : "WRONG", worst);
  }
  return bad ? 1 : 0;
}
