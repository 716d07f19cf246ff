// Tensor-core instructions against CPU references (tests/emu_test.cpp, "EmuTensor"):
// ldmatrix/stmatrix data movement, mma.sync fragments and arithmetic, cp.async copies.
#include <cstdint>

// ldmatrix .x1/.x2/.x4 with and without .trans, and stmatrix .x4 (.trans) back: a warp's
// 4 8x8 matrices of 16-bit values, row r of matrix m at tile[m][perm(r)], the rows in an
// order that is not the lanes'. out[k * 32 + lane] holds the k-th register read.
__global__ void ldmatrix_ops(const uint16_t* in, uint32_t* out, uint16_t* back) {
  __shared__ __align__(16) uint16_t tile[4][8][8];
  __shared__ __align__(16) uint16_t st[2][4][8][8];
  const int lane = threadIdx.x;
  for (int i = lane; i < 256; i += 32) (&tile[0][0][0])[i] = in[i];
  __syncwarp();
  const int m = lane / 8, r = lane % 8;
  const uint32_t row = static_cast<uint32_t>(__cvta_generic_to_shared(&tile[m][(r * 5 + 3) % 8][0]));
  uint32_t a, b0, b1, c0, c1, c2, c3, t0, t1, t2, t3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(a) : "r"(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(b0), "=r"(b1)
               : "r"(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(c0), "=r"(c1), "=r"(c2), "=r"(c3)
               : "r"(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(t0), "=r"(t1), "=r"(t2), "=r"(t3)
               : "r"(row));
  const uint32_t v[11] = {a, b0, b1, c0, c1, c2, c3, t0, t1, t2, t3};
  for (int k = 0; k < 11; ++k) out[k * 32 + lane] = v[k];
  const uint32_t s0 = static_cast<uint32_t>(__cvta_generic_to_shared(&st[0][m][r][0]));
  const uint32_t s1 = static_cast<uint32_t>(__cvta_generic_to_shared(&st[1][m][r][0]));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(s0),
               "r"(c0), "r"(c1), "r"(c2), "r"(c3));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(s1),
               "r"(c0), "r"(c1), "r"(c2), "r"(c3));
  __syncwarp();
  for (int i = lane; i < 512; i += 32) back[i] = (&st[0][0][0][0])[i];
}

// One m16n8k16 mma of each input type, fragments read from row-major A (16x16), B given
// as Bt (8x16, n-major) and C (16x8 f32) by the ISA's layout: g = lane / 4, t = lane % 4.
template <bool Bf16>
__device__ void mma16816(const uint16_t* A, const uint16_t* Bt, const float* C, float* D) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  auto pack = [](const uint16_t* p) { return uint32_t(p[0]) | (uint32_t(p[1]) << 16); };
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = pack(&A[(g + 8 * (i & 1)) * 16 + 2 * t + 8 * (i >> 1)]);
  for (int i = 0; i < 2; ++i) b[i] = pack(&Bt[g * 16 + 2 * t + 8 * i]);
  float c[4], d[4];
  for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
  if (Bf16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}
__global__ void mma_f16_f32(const uint16_t* A, const uint16_t* Bt, const float* C, float* D) {
  mma16816<false>(A, Bt, C, D);
}
__global__ void mma_bf16_f32(const uint16_t* A, const uint16_t* Bt, const float* C, float* D) {
  mma16816<true>(A, Bt, C, D);
}

// m16n8k16 with f16 accumulators, and m16n8k8 f16 with f32: C and D as f16 16x8.
__global__ void mma_f16_f16(const uint16_t* A, const uint16_t* Bt, const uint16_t* C,
                            uint16_t* D, float* D8) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  auto pack = [](const uint16_t* p) { return uint32_t(p[0]) | (uint32_t(p[1]) << 16); };
  uint32_t a[4], b[2], c[2], d[2];
  for (int i = 0; i < 4; ++i) a[i] = pack(&A[(g + 8 * (i & 1)) * 16 + 2 * t + 8 * (i >> 1)]);
  for (int i = 0; i < 2; ++i) b[i] = pack(&Bt[g * 16 + 2 * t + 8 * i]);
  for (int i = 0; i < 2; ++i) c[i] = pack(&C[(g + 8 * i) * 8 + 2 * t]);
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
      "{%8,%9};"
      : "=r"(d[0]), "=r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
  for (int i = 0; i < 2; ++i) {
    D[(g + 8 * i) * 8 + 2 * t] = uint16_t(d[i]);
    D[(g + 8 * i) * 8 + 2 * t + 1] = uint16_t(d[i] >> 16);
  }
  // m16n8k8: the first 8 columns of A and the first 8 k of B, C = 0.
  uint32_t a8[2] = {pack(&A[g * 16 + 2 * t]), pack(&A[(g + 8) * 16 + 2 * t])};
  uint32_t b8 = pack(&Bt[g * 16 + 2 * t]);
  float e[4];
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
      "{%7,%7,%7,%7};"
      : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
      : "r"(a8[0]), "r"(a8[1]), "r"(b8), "f"(0.0f));
  for (int i = 0; i < 4; ++i) D8[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = e[i];
}

// tf32 m16n8k8 (A 16x8, Bt 8x8 as f32 patterns) and m16n8k4 (their first 4 columns).
__global__ void mma_tf32(const float* A, const float* Bt, float* D, float* D4) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = __float_as_uint(A[(g + 8 * (i & 1)) * 8 + t + 4 * (i >> 1)]);
  for (int i = 0; i < 2; ++i) b[i] = __float_as_uint(Bt[g * 8 + t + 4 * i]);
  float d[4];
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%10,%10,%10,%10};"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(0.0f));
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
  asm volatile(
      "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
      "{%7,%7,%7,%7};"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(0.0f));
  for (int i = 0; i < 4; ++i) D4[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}

// m16n8k32 s8 x u8 with s32: A 16x32 bytes, Bt 8x32 bytes, C 16x8 s32.
__global__ void mma_s8(const uint32_t* A, const uint32_t* Bt, const int* C, int* D) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = A[((g + 8 * (i & 1)) * 32 + 4 * t + 16 * (i >> 1)) / 4];
  for (int i = 0; i < 2; ++i) b[i] = Bt[(g * 32 + 4 * t + 16 * i) / 4];
  int c[4], d[4];
  for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11,%12,%13};"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]),
        "r"(c[2]), "r"(c[3]));
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}

// cp.async of 4, 8 and 16 bytes (.ca, and .cg for 16), with src-size: lane l copies
// src-size = l % (size + 1) bytes and zero-fills the rest. 64 threads; out gets the
// shared buffer after wait_all and a barrier.
__global__ void cp_async_ops(const uint8_t* src, uint8_t* out) {
  __shared__ __align__(16) uint8_t buf[4][64 * 16];
  const int tid = threadIdx.x;
  const uint32_t d0 = static_cast<uint32_t>(__cvta_generic_to_shared(&buf[0][tid * 4]));
  const uint32_t d1 = static_cast<uint32_t>(__cvta_generic_to_shared(&buf[1][tid * 8]));
  const uint32_t d2 = static_cast<uint32_t>(__cvta_generic_to_shared(&buf[2][tid * 16]));
  const uint32_t d3 = static_cast<uint32_t>(__cvta_generic_to_shared(&buf[3][tid * 16]));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d0), "l"(src + tid * 4));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(d1), "l"(src + 1024 + tid * 8),
               "r"(tid % 9));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d2), "l"(src + 2048 + tid * 16));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d3),
               "l"(src + 3072 + tid * 16), "r"(tid % 17));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 1;");
  asm volatile("cp.async.wait_all;");
  __syncthreads();
  const uint4* words = reinterpret_cast<const uint4*>(&buf[0][0]);
  for (int i = tid; i < 4 * 64; i += 64) reinterpret_cast<uint4*>(out)[i] = words[i];
}
