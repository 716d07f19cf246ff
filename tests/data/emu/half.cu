// f16, bf16 and their packed pairs, tf32 and the 8-bit formats: arithmetic, min/max,
// comparisons and conversions, one output word per operation and thread. Inputs are raw
// bit patterns (random, with specials mixed in by the test).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

typedef unsigned short u16;
typedef unsigned int u32;

__device__ __forceinline__ __half H(u16 x) { return __ushort_as_half(x); }
__device__ __forceinline__ __nv_bfloat16 B(u16 x) { return __ushort_as_bfloat16(x); }
__device__ __forceinline__ u32 hb(__half x) { return __half_as_ushort(x); }
__device__ __forceinline__ u32 bb(__nv_bfloat16 x) { return __bfloat16_as_ushort(x); }

// Scalar f16 and bf16 arithmetic: 20 outputs per thread.
__global__ void half_arith(u32* out, const u16* a, const u16* b, const u16* c) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    u32* o = out + t * 20;
    const __half x = H(a[t]), y = H(b[t]), z = H(c[t]);
    o[0] = hb(__hadd(x, y));
    o[1] = hb(__hsub(x, y));
    o[2] = hb(__hmul(x, y));
    o[3] = hb(__hfma(x, y, z));
    o[4] = hb(__hadd_sat(x, y));
    o[5] = hb(__hfma_relu(x, y, z));
    o[6] = hb(__hmin(x, y));
    o[7] = hb(__hmax(x, y));
    o[8] = hb(__hmin_nan(x, y));
    o[9] = hb(__hneg(x));
    o[10] = hb(__habs(x));
    const __nv_bfloat16 p = B(a[t]), q = B(b[t]), r = B(c[t]);
    o[11] = bb(__hadd(p, q));
    o[12] = bb(__hsub(p, q));
    o[13] = bb(__hmul(p, q));
    o[14] = bb(__hfma(p, q, r));
    o[15] = bb(__hmax(p, q));
    o[16] = bb(__hmax_nan(p, q));
    o[17] = bb(__hneg(p));
    o[18] = (__hlt(x, y) ? 1u : 0u) | (__hgeu(x, y) ? 2u : 0u) | (__hne(p, q) ? 4u : 0u) |
            (__hequ(p, q) ? 8u : 0u) | (__hisnan(x) ? 16u : 0u);
    o[19] = bb(__hfma_relu(p, q, r));
}

// Packed pairs: f16x2 and bf16x2 arithmetic and comparisons, 8 outputs per thread.
__global__ void half2_arith(u32* out, const u32* a, const u32* b, const u32* c) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    u32* o = out + t * 8;
    const __half2 x = *reinterpret_cast<const __half2*>(a + t), y = *reinterpret_cast<const __half2*>(b + t),
                  z = *reinterpret_cast<const __half2*>(c + t);
    const __half2 s = __hadd2(x, y), m = __hfma2(x, y, z), mx = __hmax2(x, y);
    o[0] = *reinterpret_cast<const u32*>(&s);
    o[1] = *reinterpret_cast<const u32*>(&m);
    o[2] = *reinterpret_cast<const u32*>(&mx);
    const __half2 lt = __hlt2(x, y);  // set.lt.f16x2.f16x2: 1.0 or 0 per half
    o[3] = *reinterpret_cast<const u32*>(&lt);
    const __nv_bfloat162 p = *reinterpret_cast<const __nv_bfloat162*>(a + t),
                         q = *reinterpret_cast<const __nv_bfloat162*>(b + t),
                         r = *reinterpret_cast<const __nv_bfloat162*>(c + t);
    const __nv_bfloat162 ps = __hmul2(p, q), pm = __hfma2(p, q, r), pn = __hmin2(p, q);
    o[4] = *reinterpret_cast<const u32*>(&ps);
    o[5] = *reinterpret_cast<const u32*>(&pm);
    o[6] = *reinterpret_cast<const u32*>(&pn);
    o[7] = (__hbgt2(x, y) ? 1u : 0u) | (__hbeq2(p, q) ? 2u : 0u);  // both halves true
}

// Conversions: f32 and f64 to f16/bf16 in each rounding mode, back, and to integers;
// 24 outputs per thread. `f` holds f32 bit patterns, `d` f64 ones.
__global__ void half_convert(u32* out, const float* f, const double* d, const u16* h) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    u32* o = out + t * 24;
    const float x = f[t];
    o[0] = hb(__float2half_rn(x));
    o[1] = hb(__float2half_rz(x));
    o[2] = hb(__float2half_rd(x));
    o[3] = hb(__float2half_ru(x));
    o[4] = bb(__float2bfloat16_rn(x));
    o[5] = bb(__float2bfloat16_rz(x));
    o[6] = bb(__float2bfloat16_rd(x));
    o[7] = bb(__float2bfloat16_ru(x));
    o[8] = hb(__double2half(d[t]));
    o[9] = bb(__double2bfloat16(d[t]));
    o[10] = __float_as_uint(__bfloat162float(B(h[t])));
    o[11] = __float_as_uint(__half2float(H(h[t])));
    o[12] = (u32)__bfloat162int_rn(B(h[t]));
    o[13] = (u32)__bfloat162int_rz(B(h[t]));
    o[14] = (u32)__half2int_rd(H(h[t]));
    o[15] = (u32)__half2uint_ru(H(h[t]));
    o[16] = bb(__int2bfloat16_rn((int)f[t]));
    o[17] = hb(__int2half_rz((int)(x * 1000.0f)));
    const __nv_bfloat162 pk = __floats2bfloat162_rn(x, -x * 0.5f);
    o[18] = *reinterpret_cast<const u32*>(&pk);
    const __half2 hk = __floats2half2_rn(x * 3.0f, x);
    o[19] = *reinterpret_cast<const u32*>(&hk);
    o[20] = bb(__float2bfloat16(__half2float(H(h[t]))));  // f16 -> f32 -> bf16
    o[21] = hb(__float2half(__bfloat162float(B(h[t]))));
    u32 tf;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(tf) : "f"(x));
    o[22] = tf;
    o[23] = (u32)__half2short_rn(H(h[t])) & 0xffffu;
}

// The 8-bit formats: f32 pairs to e4m3x2/e5m2x2 (satfinite), back to f16x2; 4 outputs.
__global__ void fp8_convert(u32* out, const float* f) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    u32* o = out + t * 4;
    const float2 v = make_float2(f[2 * t], f[2 * t + 1]);
    const __nv_fp8x2_storage_t e4 = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
    const __nv_fp8x2_storage_t e5 = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E5M2);
    o[0] = e4;
    o[1] = e5;
    const __half2_raw h4 = __nv_cvt_fp8x2_to_halfraw2(e4, __NV_E4M3);
    const __half2_raw h5 = __nv_cvt_fp8x2_to_halfraw2(e5, __NV_E5M2);
    o[2] = (u32)h4.x | ((u32)h4.y << 16);
    o[3] = (u32)h5.x | ((u32)h5.y << 16);
}

// Approximate functions on halves: ex2.approx.f16, ex2.approx.ftz.bf16, tanh.approx.f16.
__global__ void half_approx(u32* out, const u16* a) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    u32* o = out + t * 3;
    o[0] = hb(hexp2(H(a[t])));
    o[1] = bb(hexp2(B(a[t])));
    u16 th;
    asm("tanh.approx.f16 %0, %1;" : "=h"(th) : "h"(a[t]));
    o[2] = th;
}
