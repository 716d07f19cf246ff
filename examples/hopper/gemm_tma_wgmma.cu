// A Hopper GEMM as hand-written kernels build it: C = A * B^T in fp16 with fp32 accumulation
// (A is M x K, B is N x K, both K contiguous; C is M x N fp32), 128 x 128 tiles, a K step of
// 64, a four-stage pipeline of mbarriers with transaction counts, and warp specialization:
// warpgroup 0 produces (one thread issues the TMA copies), warpgroups 1 and 2 consume (each a
// 64 x 128 half of the tile with m64n128k16 wgmma reading both operands from shared memory
// through 128-byte swizzled descriptors). The two CTAs of a cluster (along M) share B's tile:
// each loads one half of it and multicasts it to both, so a stage is free only when the
// consumers of both CTAs have released it.
//
// Build: nvcc -gencode arch=compute_90a,code=[sm_90a,compute_90a] -lineinfo -O3
//        -o gemm_tma_wgmma gemm_tma_wgmma.cu
// Run: ./gemm_tma_wgmma (checks C against a CPU product; prints PASSED or FAILED).
#include <cmath>
#include <cstdio>
#include <vector>

#include "hopper.cuh"

namespace {

constexpr int M = 256, N = 256, K = 512;
constexpr int BM = 128, BN = 128, BK = 64, STAGES = 4, CLUSTER = 2;
constexpr uint32_t A_TILE = BM * BK * 2, B_TILE = BN * BK * 2, B_HALF = B_TILE / CLUSTER;

struct alignas(1024) Shared {
  __half a[STAGES][BM * BK];  // 128 rows of 128 bytes a stage, 128-byte swizzled by the TMA
  __half b[STAGES][BN * BK];
  uint64_t full[STAGES];   // the stage's copies have landed (one arrival + the bytes)
  uint64_t empty[STAGES];  // the stage's consumers are done (2 warpgroups x 2 CTAs)
};

// Four m64n128k16 steps over one stage: 64 rows of A (this warpgroup's half) and all 128 rows
// of B, each step 16 elements (32 bytes) further along the swizzled rows.
__device__ __forceinline__ void mma_stage(float (&d)[64], uint32_t a, uint32_t b) {
#pragma unroll
  for (int kk = 0; kk < BK / 16; ++kk) {
    const uint64_t da = hopper::desc_sw128(a + kk * 32, 1024);
    const uint64_t db = hopper::desc_sw128(b + kk * 32, 1024);
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1, 0, 0;\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63])
        : "l"(da), "l"(db)
        : "memory");
  }
}

__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(384, 1)
    gemm_ws(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
            float* __restrict__ c) {
  extern __shared__ __align__(1024) unsigned char raw[];
  // The 128-byte swizzle repeats every 1024 bytes: the tiles start on such a boundary.
  Shared& s = *reinterpret_cast<Shared*>(raw + ((1024 - (hopper::smem(raw) & 1023)) & 1023));
  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
  const uint32_t rank = hopper::cta_rank();
  const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
  if (threadIdx.x == 0) {
    for (int i = 0; i < STAGES; ++i) {
      hopper::bar_init(hopper::smem(&s.full[i]), 1);
      hopper::bar_init(hopper::smem(&s.empty[i]), 2 * CLUSTER);
    }
    hopper::bar_init_fence();
  }
  hopper::cluster_sync();  // both CTAs' barriers exist before either copies into the other

  if (wg == 0) {  // the producer: one thread issues every copy
    if (t == 0) {
      for (int kt = 0; kt < K / BK; ++kt) {
        const int st = kt % STAGES;
        if (kt >= STAGES) hopper::bar_wait(hopper::smem(&s.empty[st]), ((kt / STAGES) - 1) & 1);
        const uint32_t full = hopper::smem(&s.full[st]);
        hopper::bar_expect(full, A_TILE + B_TILE);
        hopper::tma_load_2d(hopper::smem(s.a[st]), &map_a, kt * BK, m0, full);
        hopper::tma_load_2d_multicast(hopper::smem(s.b[st]) + rank * B_HALF, &map_b, kt * BK,
                                      n0 + rank * (BN / CLUSTER), full, (1u << CLUSTER) - 1);
      }
    }
  } else {  // a consumer: rows (wg - 1) * 64 .. + 64 of the tile
    float d[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.f;
    for (int kt = 0; kt < K / BK; ++kt) {
      const int st = kt % STAGES;
      hopper::bar_wait(hopper::smem(&s.full[st]), (kt / STAGES) & 1);
      hopper::wgmma_fence();
      mma_stage(d, hopper::smem(s.a[st]) + (wg - 1) * 64 * 128, hopper::smem(s.b[st]));
      hopper::wgmma_commit();
      hopper::wgmma_wait();
      if (t == 0) {  // the stage is free here and, for the half it multicast, in the other CTA
        hopper::bar_arrive(hopper::smem(&s.empty[st]));
        hopper::bar_arrive_cluster(hopper::mapa(hopper::smem(&s.empty[st]), rank ^ 1));
      }
      __syncwarp();
    }
    // The accumulator fragment: warp w holds rows 16w + lane/4 (+8), columns 8j + 2(lane%4).
    const int w = t / 32, lane = t % 32;
    const int row = m0 + (wg - 1) * 64 + w * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = n0 + j * 8 + 2 * (lane % 4);
      *reinterpret_cast<float2*>(&c[row * N + col]) = make_float2(d[4 * j], d[4 * j + 1]);
      *reinterpret_cast<float2*>(&c[(row + 8) * N + col]) = make_float2(d[4 * j + 2], d[4 * j + 3]);
    }
  }
  __syncwarp();
  hopper::cluster_sync();  // no CTA leaves while the other may still arrive on its barriers
}

}  // namespace

int main() {
  std::vector<__half> a(M * K), b(N * K);
  std::vector<float> af(M * K), bf(N * K);
  unsigned seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>((seed >> 9) & 0xFF) / 128.f - 1.f;
  };
  for (int i = 0; i < M * K; ++i) a[i] = __float2half(next()), af[i] = __half2float(a[i]);
  for (int i = 0; i < N * K; ++i) b[i] = __float2half(next()), bf[i] = __half2float(b[i]);
  __half *da = nullptr, *db = nullptr;
  float* dc = nullptr;
  cudaMalloc(&da, a.size() * sizeof(__half));
  cudaMalloc(&db, b.size() * sizeof(__half));
  cudaMalloc(&dc, sizeof(float) * M * N);
  cudaMemcpy(da, a.data(), a.size() * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemset(dc, 0, sizeof(float) * M * N);
  alignas(64) CUtensorMap map_a, map_b;
  if (!hopper::map_2d(&map_a, da, M, K, BM, BK) ||
      !hopper::map_2d(&map_b, db, N, K, BN / CLUSTER, BK)) {
    std::printf("FAILED: tensor maps\n");
    return 1;
  }
  const int smem_bytes = sizeof(Shared) + 1024;
  cudaFuncSetAttribute(gemm_ws, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  gemm_ws<<<dim3(M / BM, N / BN), 384, smem_bytes>>>(map_a, map_b, dc);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("FAILED: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::vector<float> c(M * N);
  cudaMemcpy(c.data(), dc, sizeof(float) * M * N, cudaMemcpyDeviceToHost);
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += static_cast<double>(af[i * K + k]) * bf[j * K + k];
      worst = std::fmax(worst, std::fabs(ref - c[i * N + j]));
    }
  std::printf("gemm_tma_wgmma %dx%dx%d: largest error %.3g\n", M, N, K, worst);
  std::printf(worst < 1e-2 ? "PASSED\n" : "FAILED\n");
  return worst < 1e-2 ? 0 : 1;
}
