// Floating-point instruction semantics for emu_test: results are stored as bit patterns,
// out[k * n + i] for op k of element i, so the test can compare them bit for bit (correctly
// rounded operations) or with a tolerance (approximations).
#include <cuda_fp16.h>
#include <cstdint>

typedef unsigned int u32;
typedef unsigned long long u64;

// f32, correctly rounded: 45 results per element.
__global__ void f32_exact(u32* out, const float* a, const float* b, const float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    u32* o = out + i;
    int k = 0;
#define F(e) o[n * k++] = __float_as_uint(e)
    F(x + y);
    F(x - y);
    F(x * y);
    F(x / y);
    F(fmaf(x, y, z));
    F(__fmul_rn(x, y) + z);  // not contracted
    F(sqrtf(x));
    F(1.0f / x);
    F(__fadd_rz(x, y));
    F(__fadd_ru(x, y));
    F(__fadd_rd(x, y));
    F(__fsub_rz(x, y));
    F(__fmul_rz(x, y));
    F(__fmul_ru(x, y));
    F(__fmul_rd(x, y));
    F(__fdiv_rz(x, y));
    F(__fdiv_ru(x, y));
    F(__fdiv_rd(x, y));
    F(__fsqrt_rz(x));
    F(__fsqrt_ru(x));
    F(__fsqrt_rd(x));
    F(__fmaf_rz(x, y, z));
    F(__fmaf_ru(x, y, z));
    F(__fmaf_rd(x, y, z));
    F(__frcp_rz(x));
    F(__frcp_ru(x));
    F(fminf(x, y));
    F(fmaxf(x, y));
    F(fabsf(x));
    F(-x);
    F(copysignf(x, y));
    F(floorf(x));
    F(ceilf(x));
    F(truncf(x));
    F(rintf(x));
    F(roundf(x));
    F(__saturatef(x));
    F(fmodf(x, y));
    F(ldexpf(x, (int)(__float_as_uint(y) % 61) - 30));
    F(x * 0.1f + 3.0f);                  // immediates
    F(x * 0.5f);
    F(x < 0.0f ? y : z);                 // selp / branch on a float compare
    o[n * k++] = (x < y) | (x <= y) << 1 | (x == y) << 2 | (x != y) << 3 | (!(x < y)) << 4 |
                 (!(x >= y)) << 5 | (x > y) << 6 | isnan(x) << 7 | isinf(x) << 8 | isfinite(x) << 9 |
                 (signbit(x) != 0) << 10 | (!(x == y)) << 11;
    F(fdimf(x, y));
    F(__fmul_rn(x, x) - __fmul_rn(y, y));
#undef F
}

// f64, correctly rounded: 30 results per element.
__global__ void f64_exact(u64* out, const double* a, const double* b, const double* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i], z = c[i];
    u64* o = out + i;
    int k = 0;
#define D(e) o[n * k++] = (u64)__double_as_longlong(e)
    D(x + y);
    D(x - y);
    D(x * y);
    D(x / y);
    D(fma(x, y, z));
    D(__dmul_rn(x, y) + z);
    D(sqrt(x));
    D(1.0 / x);
    D(__dadd_rz(x, y));
    D(__dadd_ru(x, y));
    D(__dadd_rd(x, y));
    D(__dmul_rz(x, y));
    D(__dmul_ru(x, y));
    D(__ddiv_rz(x, y));
    D(__ddiv_rd(x, y));
    D(__dsqrt_ru(x));
    D(__fma_rz(x, y, z));
    D(__fma_rd(x, y, z));
    D(__drcp_rz(x));
    D(fmin(x, y));
    D(fmax(x, y));
    D(fabs(x));
    D(-x);
    D(floor(x));
    D(ceil(x));
    D(trunc(x));
    D(rint(x));
    D(fmod(x, y));
    D(x * 0.1 + 3.0);
    o[n * k++] = (x < y) | (x <= y) << 1 | (x == y) << 2 | (x != y) << 3 | (!(x < y)) << 4 |
                 (!(x >= y)) << 5 | (x > y) << 6 | isnan(x) << 7 | isinf(x) << 8;
#undef D
}

// Conversions. From f32 x, f64 d, int w, long long l, half bits h; results as 64-bit
// patterns: 60 per element.
__global__ void conversions(u64* out, const float* a, const double* b, const int* c, const long long* e,
                            const unsigned short* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i];
    double d = b[i];
    int w = c[i];
    long long l = e[i];
    u64* o = out + i;
    int k = 0;
#define I(v) o[n * k++] = (u64)(v)
#define F(v) o[n * k++] = __float_as_uint(v)
#define D(v) o[n * k++] = (u64)__double_as_longlong(v)
    // f32 -> integers
    I((u32)__float2int_rz(x));
    I((u32)__float2int_rn(x));
    I((u32)__float2int_rd(x));
    I((u32)__float2int_ru(x));
    I(__float2uint_rz(x));
    I(__float2uint_rn(x));
    I(__float2uint_rd(x));
    I(__float2uint_ru(x));
    I(__float2ll_rz(x));
    I(__float2ll_rn(x));
    I(__float2ll_rd(x));
    I(__float2ull_rz(x));
    I(__float2ull_ru(x));
    // f64 -> integers
    I((u32)__double2int_rz(d));
    I((u32)__double2int_rn(d));
    I((u32)__double2int_rd(d));
    I((u32)__double2int_ru(d));
    I(__double2uint_rz(d));
    I(__double2uint_rd(d));
    I(__double2ll_rz(d));
    I(__double2ll_rn(d));
    I(__double2ull_rz(d));
    I(__double2ull_ru(d));
    // floats <-> floats
    D((double)x);
    F((float)d);
    F(__double2float_rn(d));
    F(__double2float_rz(d));
    F(__double2float_rd(d));
    F(__double2float_ru(d));
    // integers -> floats
    F((float)w);
    F(__int2float_rn(w));
    F(__int2float_rz(w));
    F(__int2float_rd(w));
    F(__int2float_ru(w));
    F(__uint2float_rz((u32)w));
    F((float)(u32)w);
    D((double)w);
    D((double)(u32)w);
    F((float)l);
    F(__ll2float_rz(l));
    F(__ll2float_rd(l));
    F(__ll2float_ru(l));
    F(__ull2float_rn((u64)l));
    F(__ull2float_rz((u64)l));
    D((double)l);
    D(__ll2double_rz(l));
    D(__ll2double_ru(l));
    D(__ull2double_rn((u64)l));
    D(__ull2double_rd((u64)l));
    // saturation
    F(__saturatef(x));
    // half
    I(__half_as_ushort(__float2half(x)));
    I(__half_as_ushort(__float2half_rn(x)));
    I(__half_as_ushort(__float2half_rz(x)));
    I(__half_as_ushort(__float2half_rd(x)));
    I(__half_as_ushort(__float2half_ru(x)));
    I(__half_as_ushort(__double2half(d)));
    F(__half2float(__ushort_as_half(h[i])));
    I(__half_as_ushort(__float2half(__half2float(__ushort_as_half(h[i])))));
    // f32 rounding to integral values through cvt.rni/rzi/rmi/rpi.f32.f32
    F(nearbyintf(x));
    F(floorf(x) + ceilf(x));
#undef I
#undef F
#undef D
}

// Approximations (compared with a tolerance): 30 results per element, f32 patterns.
__global__ void approx(u32* out, const float* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    u32* o = out + i;
    int k = 0;
#define F(e) o[n * k++] = __float_as_uint(e)
    F(__expf(x));
    F(__sinf(x));
    F(__cosf(x));
    F(__logf(fabsf(x) + 1.0f));
    F(__log2f(fabsf(x) + 1.0f));
    F(exp2f(x));
    F(rsqrtf(fabsf(x) + 1.0f));
    F(__fdividef(x, y));
    F(sinf(x));
    F(cosf(x));
    F(expf(x));
    F(logf(fabsf(x) + 1.0f));
    F(tanhf(x));
    F(powf(fabsf(x) + 0.5f, y));
    F(atan2f(x, y));
    F(__frsqrt_rn(fabsf(x) + 1.0f));
    F(sqrtf(fabsf(x)) * rsqrtf(fabsf(y) + 2.0f));
    F(__powf(fabsf(x) + 0.5f, y));
    F(__tanf(x));
    F(erff(x));
    // The approximate instructions themselves.
    float r;
    double d;
    asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(y));
    F(r);
    asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(fabsf(x)));
    F(r);
    asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(fabsf(x) + 0.25f));
    F(r);
    asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    F(r);
    asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(fabsf(x) + 0.25f));
    F(r);
    asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(x * 0.3f));
    F(r);
    asm("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(x * 0.3f));
    F(r);
    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x * 0.3f));
    F(r);
    asm("rsqrt.approx.f64 %0, %1;" : "=d"(d) : "d"((double)fabsf(x) + 0.25));
    F((float)d);
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(d) : "d"((double)y));
    F((float)d);
#undef F
}
