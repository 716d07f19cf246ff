// An attention forward pass in the FlashAttention-3 style: O = softmax(Q K^T / sqrt(d)) V for
// 4 heads of 256 positions and head dimension 64 (fp16 in, fp32 out). Per CTA, 64 query rows:
// warpgroup 0 produces (one thread loads Q once and K, V tiles of 64 positions through TMA into
// a two-stage mbarrier pipeline), warpgroup 1 consumes: S = Q K^T with m64n64k16 wgmma (both
// operands in shared memory, 128-byte swizzled, K-major), the online softmax in registers, and
// O += P V with P taken from the same registers as wgmma's A operand and V read MN-major (the
// transpose bit) from its row-major tile.
//
// Build: nvcc -gencode arch=compute_90a,code=[sm_90a,compute_90a] -lineinfo -O3
//        -o attention_fwd attention_fwd.cu
// Run: ./attention_fwd (checks O against a CPU reference; prints PASSED or FAILED).
#include <cmath>
#include <cstdio>
#include <vector>

#include "hopper.cuh"

namespace {

constexpr int HEADS = 4, SEQ = 256, D = 64, BQ = 64, BKV = 64, STAGES = 2;
constexpr uint32_t TILE = BKV * D * 2;  // 8 KiB: 64 rows of 128 bytes

struct alignas(1024) Shared {
  __half q[BQ * D];
  __half k[STAGES][BKV * D];
  __half v[STAGES][BKV * D];
  uint64_t q_full, kv_full[STAGES], kv_empty[STAGES];
};

// An MN-major (transposed) 128-byte swizzled B operand: rows of 64 elements (128 bytes) along
// N, 8-row groups along K `sbo` bytes apart.
__device__ __forceinline__ uint64_t desc_sw128_mn(uint32_t addr, uint32_t sbo) {
  return static_cast<uint64_t>((addr >> 4) & 0x3FFF) | (static_cast<uint64_t>(1) << 16) |
         (static_cast<uint64_t>((sbo >> 4) & 0x3FFF) << 32) | (static_cast<uint64_t>(1) << 62);
}

// 32 accumulators of an m64n64 product: S = Q K^T (4 steps of 16 along d) or, with A in
// registers, O += P V (4 steps of 16 positions).
#define ACC32                                                               \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define OUT32(d)                                                                                  \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31])

__device__ __forceinline__ void qk(float (&s)[32], uint32_t q, uint32_t k) {
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const uint64_t da = hopper::desc_sw128(q + kk * 32, 1024);
    const uint64_t db = hopper::desc_sw128(k + kk * 32, 1024);
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " ACC32
                 ", %32, %33, 1, 1, 1, 0, 0;"
                 : OUT32(s)
                 : "l"(da), "l"(db)
                 : "memory");
  }
}

__device__ __forceinline__ void pv(float (&o)[32], const uint32_t (&p)[16], uint32_t v) {
#pragma unroll
  for (int kk = 0; kk < BKV / 16; ++kk) {
    const uint64_t db = desc_sw128_mn(v + kk * 16 * 128, 1024);
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " ACC32
                 ", {%32, %33, %34, %35}, %36, 1, 1, 1, 1;"
                 : OUT32(o)
                 : "r"(p[4 * kk]), "r"(p[4 * kk + 1]), "r"(p[4 * kk + 2]), "r"(p[4 * kk + 3]),
                   "l"(db)
                 : "memory");
  }
}

__device__ __forceinline__ uint32_t pack(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}

__global__ void __launch_bounds__(256, 1)
    attention_fwd(const __grid_constant__ CUtensorMap map_q,
                  const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, float* __restrict__ out) {
  extern __shared__ __align__(1024) unsigned char raw[];
  // The 128-byte swizzle repeats every 1024 bytes: the tiles start on such a boundary.
  Shared& s = *reinterpret_cast<Shared*>(raw + ((1024 - (hopper::smem(raw) & 1023)) & 1023));
  const int head = blockIdx.y, q0 = blockIdx.x * BQ;
  const int row0 = head * SEQ;  // the head's first row in the [HEADS * SEQ, D] tensors
  if (threadIdx.x == 0) {
    hopper::bar_init(hopper::smem(&s.q_full), 1);
    for (int i = 0; i < STAGES; ++i) {
      hopper::bar_init(hopper::smem(&s.kv_full[i]), 1);
      hopper::bar_init(hopper::smem(&s.kv_empty[i]), 1);
    }
    hopper::bar_init_fence();
  }
  __syncthreads();

  if (threadIdx.x < 128) {  // the producer
    if (threadIdx.x == 0) {
      hopper::bar_expect(hopper::smem(&s.q_full), TILE);
      hopper::tma_load_2d(hopper::smem(s.q), &map_q, 0, row0 + q0, hopper::smem(&s.q_full));
      for (int j = 0; j < SEQ / BKV; ++j) {
        const int st = j % STAGES;
        if (j >= STAGES) hopper::bar_wait(hopper::smem(&s.kv_empty[st]), ((j / STAGES) - 1) & 1);
        const uint32_t full = hopper::smem(&s.kv_full[st]);
        hopper::bar_expect(full, 2 * TILE);
        hopper::tma_load_2d(hopper::smem(s.k[st]), &map_k, 0, row0 + j * BKV, full);
        hopper::tma_load_2d(hopper::smem(s.v[st]), &map_v, 0, row0 + j * BKV, full);
      }
    }
    return;
  }
  // The consumer: thread t holds rows 16w + lane/4 and that + 8 (w its warp), columns
  // 8j + 2(lane%4) and + 1 of each n8 block j.
  const int t = threadIdx.x - 128, w = t / 32, lane = t % 32;
  const float scale = 1.44269504f / sqrtf(static_cast<float>(D));  // log2(e) / sqrt(d)
  float o[32], m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
#pragma unroll
  for (int i = 0; i < 32; ++i) o[i] = 0.f;
  hopper::bar_wait(hopper::smem(&s.q_full), 0);
  for (int j = 0; j < SEQ / BKV; ++j) {
    const int st = j % STAGES;
    hopper::bar_wait(hopper::smem(&s.kv_full[st]), (j / STAGES) & 1);
    float sc[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) sc[i] = 0.f;
    hopper::wgmma_fence();
    qk(sc, hopper::smem(s.q), hopper::smem(s.k[st]));
    hopper::wgmma_commit();
    hopper::wgmma_wait();
    // The online softmax, row by row (each row's 64 scores over the four lanes of a quad).
    float corr[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float mx = m[h];
#pragma unroll
      for (int b = 0; b < 8; ++b)
        mx = fmaxf(mx, fmaxf(sc[4 * b + 2 * h], sc[4 * b + 2 * h + 1]) * scale);
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      corr[h] = exp2f(m[h] - mx);
      m[h] = mx;
      float sum = 0.f;
#pragma unroll
      for (int b = 0; b < 8; ++b) {
        sc[4 * b + 2 * h] = exp2f(sc[4 * b + 2 * h] * scale - mx);
        sc[4 * b + 2 * h + 1] = exp2f(sc[4 * b + 2 * h + 1] * scale - mx);
        sum += sc[4 * b + 2 * h] + sc[4 * b + 2 * h + 1];
      }
      l[h] = l[h] * corr[h] + sum;
    }
#pragma unroll
    for (int b = 0; b < 8; ++b) {
      o[4 * b] *= corr[0], o[4 * b + 1] *= corr[0];
      o[4 * b + 2] *= corr[1], o[4 * b + 3] *= corr[1];
    }
    // P in fp16 as wgmma's A fragment: k step kk takes the n8 blocks 2kk and 2kk + 1.
    uint32_t p[16];
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      p[4 * kk] = pack(sc[8 * kk], sc[8 * kk + 1]);
      p[4 * kk + 1] = pack(sc[8 * kk + 2], sc[8 * kk + 3]);
      p[4 * kk + 2] = pack(sc[8 * kk + 4], sc[8 * kk + 5]);
      p[4 * kk + 3] = pack(sc[8 * kk + 6], sc[8 * kk + 7]);
    }
    hopper::wgmma_fence();
    pv(o, p, hopper::smem(s.v[st]));
    hopper::wgmma_commit();
    hopper::wgmma_wait();
    if (t == 0) hopper::bar_arrive(hopper::smem(&s.kv_empty[st]));
    __syncwarp();
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
  }
  const int row = row0 + q0 + w * 16 + lane / 4;
#pragma unroll
  for (int b = 0; b < 8; ++b) {
    const int col = b * 8 + 2 * (lane % 4);
    *reinterpret_cast<float2*>(&out[row * D + col]) =
        make_float2(o[4 * b] / l[0], o[4 * b + 1] / l[0]);
    *reinterpret_cast<float2*>(&out[(row + 8) * D + col]) =
        make_float2(o[4 * b + 2] / l[1], o[4 * b + 3] / l[1]);
  }
}

}  // namespace

int main() {
  const int n = HEADS * SEQ * D;
  std::vector<__half> q(n), k(n), v(n);
  std::vector<float> qf(n), kf(n), vf(n);
  unsigned seed = 2024;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>((seed >> 9) & 0xFF) / 128.f - 1.f;
  };
  for (int i = 0; i < n; ++i) {
    q[i] = __float2half(next()), qf[i] = __half2float(q[i]);
    k[i] = __float2half(next()), kf[i] = __half2float(k[i]);
    v[i] = __float2half(next()), vf[i] = __half2float(v[i]);
  }
  __half *dq, *dk, *dv;
  float* dout;
  cudaMalloc(&dq, n * sizeof(__half));
  cudaMalloc(&dk, n * sizeof(__half));
  cudaMalloc(&dv, n * sizeof(__half));
  cudaMalloc(&dout, n * sizeof(float));
  cudaMemcpy(dq, q.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(dk, k.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(dv, v.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, n * sizeof(float));
  alignas(64) CUtensorMap mq, mk, mv;
  if (!hopper::map_2d(&mq, dq, HEADS * SEQ, D, BQ, D) ||
      !hopper::map_2d(&mk, dk, HEADS * SEQ, D, BKV, D) ||
      !hopper::map_2d(&mv, dv, HEADS * SEQ, D, BKV, D)) {
    std::printf("FAILED: tensor maps\n");
    return 1;
  }
  const int smem_bytes = sizeof(Shared) + 1024;
  cudaFuncSetAttribute(attention_fwd, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  attention_fwd<<<dim3(SEQ / BQ, HEADS), 256, smem_bytes>>>(mq, mk, mv, dout);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("FAILED: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::vector<float> o(n);
  cudaMemcpy(o.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost);
  double worst = 0;
  std::vector<double> p(SEQ);
  for (int h = 0; h < HEADS; ++h)
    for (int i = 0; i < SEQ; ++i) {
      const float* qi = &qf[(h * SEQ + i) * D];
      double mx = -1e300, sum = 0;
      for (int j = 0; j < SEQ; ++j) {
        double dot = 0;
        for (int c = 0; c < D; ++c) dot += static_cast<double>(qi[c]) * kf[(h * SEQ + j) * D + c];
        p[j] = dot / std::sqrt(static_cast<double>(D));
        mx = std::fmax(mx, p[j]);
      }
      for (int j = 0; j < SEQ; ++j) sum += (p[j] = std::exp(p[j] - mx));
      for (int c = 0; c < D; ++c) {
        double ref = 0;
        for (int j = 0; j < SEQ; ++j) ref += p[j] * vf[(h * SEQ + j) * D + c];
        worst = std::fmax(worst, std::fabs(ref / sum - o[(h * SEQ + i) * D + c]));
      }
    }
  std::printf("attention_fwd %d heads x %d x %d: largest error %.3g\n", HEADS, SEQ, D, worst);
  std::printf(worst < 2e-2 ? "PASSED\n" : "FAILED\n");
  return worst < 2e-2 ? 0 : 1;
}
