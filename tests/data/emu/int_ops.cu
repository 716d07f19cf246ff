// Integer instruction semantics for emu_test: every kernel writes out[k * n + i] for op k
// of element i; the test computes the same on the CPU. Inline PTX is used where C++ has no
// defined way to reach an instruction form (shift counts >= width, bfe/bfi, prmt modes,
// cvt.sat between integer types).
#include <cstdint>

typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ u32 shl32(u32 a, u32 n) {
    u32 r;
    asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(n));
    return r;
}
__device__ __forceinline__ u32 shr32u(u32 a, u32 n) {
    u32 r;
    asm("shr.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(n));
    return r;
}
__device__ __forceinline__ int shr32s(int a, u32 n) {
    int r;
    asm("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(n));
    return r;
}
__device__ __forceinline__ u64 shl64(u64 a, u32 n) {
    u64 r;
    asm("shl.b64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"(n));
    return r;
}
__device__ __forceinline__ u64 shr64u(u64 a, u32 n) {
    u64 r;
    asm("shr.u64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"(n));
    return r;
}
__device__ __forceinline__ long long shr64s(long long a, u32 n) {
    long long r;
    asm("shr.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"(n));
    return r;
}
__device__ __forceinline__ u32 bfe_u32(u32 a, u32 pos, u32 len) {
    u32 r;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(pos), "r"(len));
    return r;
}
__device__ __forceinline__ int bfe_s32(int a, u32 pos, u32 len) {
    int r;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(pos), "r"(len));
    return r;
}
__device__ __forceinline__ u32 bfi_b32(u32 a, u32 b, u32 pos, u32 len) {
    u32 r;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(pos), "r"(len));
    return r;
}
__device__ __forceinline__ u64 bfe_u64(u64 a, u32 pos, u32 len) {
    u64 r;
    asm("bfe.u64 %0, %1, %2, %3;" : "=l"(r) : "l"(a), "r"(pos), "r"(len));
    return r;
}
__device__ __forceinline__ long long bfe_s64(long long a, u32 pos, u32 len) {
    long long r;
    asm("bfe.s64 %0, %1, %2, %3;" : "=l"(r) : "l"(a), "r"(pos), "r"(len));
    return r;
}
__device__ __forceinline__ u64 bfi_b64(u64 a, u64 b, u32 pos, u32 len) {
    u64 r;
    asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(r) : "l"(a), "l"(b), "r"(pos), "r"(len));
    return r;
}
__device__ __forceinline__ u32 prmt(u32 a, u32 b, u32 c) {
    u32 r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ __forceinline__ u32 bfind_u32(u32 a) {
    u32 r;
    asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(a));
    return r;
}
__device__ __forceinline__ u32 bfind_s32(int a) {
    u32 r;
    asm("bfind.s32 %0, %1;" : "=r"(r) : "r"(a));
    return r;
}
__device__ __forceinline__ int cvt_sat_s8_s32(int a) {
    int r;
    asm("{ .reg .s8 t; cvt.sat.s8.s32 t, %1; cvt.s32.s8 %0, t; }" : "=r"(r) : "r"(a));
    return r;
}
__device__ __forceinline__ u32 cvt_sat_u16_s32(int a) {
    u32 r;
    asm("{ .reg .u16 t; cvt.sat.u16.s32 t, %1; cvt.u32.u16 %0, t; }" : "=r"(r) : "r"(a));
    return r;
}
__device__ __forceinline__ int cvt_sat_s32_u32(u32 a) {
    int r;
    asm("cvt.sat.s32.u32 %0, %1;" : "=r"(r) : "r"(a));
    return r;
}
__device__ __forceinline__ int cvt_sat_s32_s64(long long a) {
    int r;
    asm("cvt.sat.s32.s64 %0, %1;" : "=r"(r) : "l"(a));
    return r;
}
__device__ __forceinline__ u32 cvt_sat_u32_s64(long long a) {
    u32 r;
    asm("cvt.sat.u32.s64 %0, %1;" : "=r"(r) : "l"(a));
    return r;
}
__device__ __forceinline__ int add_sat(int a, int b) {
    int r;
    asm("add.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ int sub_sat(int a, int b) {
    int r;
    asm("sub.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

// 32-bit: 56 results per element.
__global__ void int32_ops(u32* out, const u32* a, const u32* b, const u32* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u32 x = a[i], y = b[i], z = c[i];
    int sx = (int)x, sy = (int)y, sz = (int)z;
    u32* o = out + i;
    int k = 0;
    o[n * k++] = x + y;
    o[n * k++] = x - y;
    o[n * k++] = x * y;
    o[n * k++] = __umulhi(x, y);
    o[n * k++] = (u32)__mulhi(sx, sy);
    u64 wu = (u64)x * y;
    o[n * k++] = (u32)wu;
    o[n * k++] = (u32)(wu >> 32);
    long long ws = (long long)sx * sy;
    o[n * k++] = (u32)ws;
    o[n * k++] = (u32)((u64)ws >> 32);
    o[n * k++] = x * y + z;                       // mad.lo
    o[n * k++] = (u32)(sx * 7 - sz);              // mad with an immediate
    u32 dy = y == 0 ? 1 : y;
    o[n * k++] = x / dy;
    o[n * k++] = x % dy;
    int sdy = sy == 0 ? 1 : sy;
    if (sdy == -1 && sx == INT_MIN) sdy = 1;
    o[n * k++] = (u32)(sx / sdy);
    o[n * k++] = (u32)(sx % sdy);
    o[n * k++] = (u32)(sx / 7);                   // division by constants: mul.hi sequences
    o[n * k++] = (u32)(sx % -13);
    o[n * k++] = x / 10;
    o[n * k++] = min(x, y);
    o[n * k++] = max(x, y);
    o[n * k++] = (u32)min(sx, sy);
    o[n * k++] = (u32)max(sx, sy);
    o[n * k++] = (u32)abs(sx);
    o[n * k++] = (u32)(-sx);
    o[n * k++] = x << (y & 31);
    o[n * k++] = x >> (y & 31);
    o[n * k++] = (u32)(sx >> (y & 31));
    o[n * k++] = shl32(x, z % 70);                // counts >= 32 included
    o[n * k++] = shr32u(x, z % 70);
    o[n * k++] = (u32)shr32s(sx, z % 70);
    o[n * k++] = x & y;
    o[n * k++] = x | y;
    o[n * k++] = x ^ y;
    o[n * k++] = ~x;
    o[n * k++] = (x & ~y) | (z & y);              // lop3
    o[n * k++] = __popc(x);
    o[n * k++] = __clz(sx);
    o[n * k++] = __brev(x);
    o[n * k++] = __ffs(sx);
    o[n * k++] = __byte_perm(x, y, z & 0x7777);
    o[n * k++] = prmt(x, y, z);                   // with sign replication (bit 3 of a selector)
    o[n * k++] = bfe_u32(x, y & 0x3f, (y >> 8) & 0x3f);
    o[n * k++] = (u32)bfe_s32(sx, y & 0x3f, (y >> 8) & 0x3f);
    o[n * k++] = bfi_b32(x, z, y & 0x3f, (y >> 8) & 0x3f);
    o[n * k++] = bfind_u32(x);
    o[n * k++] = bfind_s32(sx);
    o[n * k++] = (u32)(sx < sy) | (u32)(x < y) << 1 | (u32)(sx <= sy) << 2 | (u32)(x >= y) << 3 |
                 (u32)(x == y) << 4 | (u32)(x != z) << 5 | (u32)(sx > sz) << 6 | (u32)(x > z) << 7;
    o[n * k++] = sx < sy ? x : z;                 // selp
    o[n * k++] = (u32)cvt_sat_s8_s32(sx);
    o[n * k++] = cvt_sat_u16_s32(sx);
    o[n * k++] = (u32)cvt_sat_s32_u32(x);
    o[n * k++] = (u32)add_sat(sx, sy);
    o[n * k++] = (u32)sub_sat(sx, sy);
    o[n * k++] = (x >> 3) + (x << 29);            // a rotate the compiler may turn into shf
    o[n * k++] = (u32)((sx >> 31) ^ sx);
    o[n * k++] = (u32)(unsigned short)(x * 3) * (u32)(unsigned short)(y >> 16);  // 16-bit products
}

// 64-bit: 40 results per element.
__global__ void int64_ops(u64* out, const u64* a, const u64* b, const u64* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u64 x = a[i], y = b[i], z = c[i];
    long long sx = (long long)x, sy = (long long)y, sz = (long long)z;
    u64* o = out + i;
    int k = 0;
    o[n * k++] = x + y;
    o[n * k++] = x - y;
    o[n * k++] = x * y;
    o[n * k++] = __umul64hi(x, y);
    o[n * k++] = (u64)__mul64hi(sx, sy);
    o[n * k++] = x * y + z;
    u64 dy = y == 0 ? 1 : y;
    o[n * k++] = x / dy;
    o[n * k++] = x % dy;
    long long sdy = sy == 0 ? 1 : sy;
    if (sdy == -1 && sx == LLONG_MIN) sdy = 1;
    o[n * k++] = (u64)(sx / sdy);
    o[n * k++] = (u64)(sx % sdy);
    o[n * k++] = (u64)(sx / 1000003);
    o[n * k++] = x % 1000003;
    o[n * k++] = min(x, y);
    o[n * k++] = max(x, y);
    o[n * k++] = (u64)min(sx, sy);
    o[n * k++] = (u64)max(sx, sy);
    o[n * k++] = (u64)llabs(sx);
    o[n * k++] = (u64)(-sx);
    o[n * k++] = x << (y & 63);
    o[n * k++] = x >> (y & 63);
    o[n * k++] = (u64)(sx >> (y & 63));
    o[n * k++] = shl64(x, (u32)(z % 140));
    o[n * k++] = shr64u(x, (u32)(z % 140));
    o[n * k++] = (u64)shr64s(sx, (u32)(z % 140));
    o[n * k++] = x & y;
    o[n * k++] = x | y;
    o[n * k++] = x ^ y;
    o[n * k++] = ~x;
    o[n * k++] = (u64)__popcll(x);
    o[n * k++] = (u64)__clzll(sx);
    o[n * k++] = __brevll(x);
    o[n * k++] = (u64)__ffsll(sx);
    o[n * k++] = bfe_u64(x, (u32)(y & 0x7f), (u32)((y >> 8) & 0x7f));
    o[n * k++] = (u64)bfe_s64(sx, (u32)(y & 0x7f), (u32)((y >> 8) & 0x7f));
    o[n * k++] = bfi_b64(x, z, (u32)(y & 0x7f), (u32)((y >> 8) & 0x7f));
    o[n * k++] = (u64)(sx < sy) | (u64)(x < y) << 1 | (u64)(sx <= sz) << 2 | (u64)(x >= z) << 3 |
                 (u64)(x == y) << 4 | (u64)(x != z) << 5;
    o[n * k++] = (u64)cvt_sat_s32_s64(sx);
    o[n * k++] = (u64)cvt_sat_u32_s64(sx);
    o[n * k++] = (x >> 13) | (x << 51);
    o[n * k++] = (u64)(u32)x * (u64)(u32)(y >> 32) + z;  // mad.wide.u32
}

// Conversions between integer types, and 8/16-bit loads and stores with sign extension.
// Per element: 24 ints to out32, one char, short, uchar, ushort store each.
__global__ void narrow_ops(int* out32, long long* out64, signed char* oc, short* os, unsigned char* ouc,
                           unsigned short* ous, const signed char* ic, const unsigned char* iuc,
                           const short* is, const unsigned short* ius, const int* iw, const long long* il,
                           int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* o = out32 + i;
    int k = 0;
    signed char c = ic[i];
    unsigned char uc = iuc[i];
    short s = is[i];
    unsigned short us = ius[i];
    int w = iw[i];
    long long l = il[i];
    o[n * k++] = c;
    o[n * k++] = uc;
    o[n * k++] = s;
    o[n * k++] = us;
    o[n * k++] = (signed char)w;
    o[n * k++] = (unsigned char)w;
    o[n * k++] = (short)w;
    o[n * k++] = (unsigned short)w;
    o[n * k++] = (int)l;
    o[n * k++] = (int)(l >> 32);
    o[n * k++] = c * s;
    o[n * k++] = uc * us;
    o[n * k++] = (signed char)(c + uc);
    o[n * k++] = (short)(s * 3 + us);
    o[n * k++] = (int)(unsigned)(unsigned char)c;
    o[n * k++] = (int)(signed char)uc;
    o[n * k++] = (short)us;
    o[n * k++] = (unsigned short)s;
    o[n * k++] = c < 0;
    o[n * k++] = s > us;
    o[n * k++] = (int)((long long)w * c);
    o[n * k++] = (int)((l * s) >> 20);
    o[n * k++] = min(c, (signed char)uc);
    o[n * k++] = max(s, (short)(w >> 16));
    long long* q = out64 + i;
    int j = 0;
    q[n * j++] = (long long)w;
    q[n * j++] = (long long)(unsigned)w;
    q[n * j++] = (long long)c;
    q[n * j++] = (long long)us;
    q[n * j++] = (long long)(unsigned long long)(unsigned short)s;
    q[n * j++] = (long long)(signed char)l;
    oc[i] = (signed char)(w * 5 + c);
    os[i] = (short)(w * 3 + s);
    ouc[i] = (unsigned char)(uc * 7 + 1);
    ous[i] = (unsigned short)(us * 5 - s);
}
