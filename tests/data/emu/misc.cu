// Odds and ends for emu_test: printf, __syncwarp, funnel shifts, 24-bit multiplies.
#include <cstdio>

typedef unsigned int u32;

// 8 results per thread.
__global__ void misc(u32* out, const u32* a, const u32* b, int n) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    u32 x = a[gid], y = b[gid];
    u32* o = out + gid;
    int k = 0;
    o[n * k++] = __funnelshift_l(x, y, y >> 8);
    o[n * k++] = __funnelshift_r(x, y, y >> 8);
    o[n * k++] = __funnelshift_lc(x, y, (y >> 8) & 63);
    o[n * k++] = __funnelshift_rc(x, y, (y >> 8) & 63);
    o[n * k++] = (u32)__mul24((int)x, (int)y);
    o[n * k++] = __umul24(x, y);
    // A warp reduction with __syncwarp between the steps (shared memory, no shuffles).
    __shared__ u32 s[256];
    int tid = threadIdx.x;
    s[tid] = x;
    __syncwarp();
    for (int off = 16; off > 0; off /= 2) {
        u32 t = (tid & 31) < off ? s[tid + off] : 0;
        __syncwarp();
        if ((tid & 31) < off) s[tid] += t;
        __syncwarp();
    }
    o[n * k++] = s[tid & ~31];
    int printed = printf("thread %d: %u\n", gid, x);
    o[n * k++] = printed >= 0 ? 1 : 0;
}

// PTX forms nvcc rarely emits on its own (inline asm): setp with a boolean combination and
// two destinations, set, slct, testp, vector mov pack/unpack, cnot, bfind.shiftamt,
// mad.hi, 16-bit arithmetic, copysign.f64, shfl with a predicate, vote.uni, isspacep/cvta
// on local memory. 23 results per thread.
__global__ void ptx_forms(u32* out, const u32* a, const u32* b, const float* f, int n) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    u32 x = a[gid], y = b[gid];
    float fx = f[gid], fy = f[(gid + 1) % n];
    u32* o = out + gid;
    int k = 0;
    u32 r0, r1;
    asm("{ .reg .pred c, p, q; setp.ne.u32 c, %3, 0; setp.lt.and.s32 p|q, %2, %3, c;"
        " selp.u32 %0, 1, 0, p; selp.u32 %1, 1, 0, q; }"
        : "=r"(r0), "=r"(r1) : "r"(x), "r"(y & 0xff00ff));
    o[n * k++] = r0;
    o[n * k++] = r1;
    asm("{ .reg .pred c, p; setp.gt.u32 c, %1, 2000000000; setp.ne.or.f32 p, %2, %3, c; selp.u32 %0, 1, 0, p; }"
        : "=r"(r0) : "r"(x), "f"(fx), "f"(fy));
    o[n * k++] = r0;
    asm("{ .reg .pred c, p, q; setp.eq.u32 c, %2, 7; setp.gtu.xor.f32 p|q, %3, %4, c;"
        " selp.u32 %0, 1, 0, p; selp.u32 %1, 1, 0, q; }"
        : "=r"(r0), "=r"(r1) : "r"(x & 15), "f"(fx), "f"(fy));
    o[n * k++] = r0 | r1 << 1;
    asm("{ .reg .pred p0, p1, p2, p3, p4, p5; testp.finite.f32 p0, %1; testp.infinite.f32 p1, %1;"
        " testp.number.f32 p2, %1; testp.notanumber.f32 p3, %1; testp.normal.f32 p4, %1;"
        " testp.subnormal.f32 p5, %1; .reg .u32 t; selp.u32 %0, 1, 0, p0;"
        " selp.u32 t, 2, 0, p1; or.b32 %0, %0, t; selp.u32 t, 4, 0, p2; or.b32 %0, %0, t;"
        " selp.u32 t, 8, 0, p3; or.b32 %0, %0, t; selp.u32 t, 16, 0, p4; or.b32 %0, %0, t;"
        " selp.u32 t, 32, 0, p5; or.b32 %0, %0, t; }"
        : "=r"(r0) : "f"(fx));
    o[n * k++] = r0;
    asm("set.lt.u32.s32 %0, %1, %2;" : "=r"(r0) : "r"(x), "r"(y));
    o[n * k++] = r0;
    float fr;
    asm("set.ge.f32.f32 %0, %1, %2;" : "=f"(fr) : "f"(fx), "f"(fy));
    o[n * k++] = __float_as_uint(fr);
    asm("slct.u32.s32 %0, %1, %2, %3;" : "=r"(r0) : "r"(x), "r"(y), "r"(x ^ y));
    o[n * k++] = r0;
    asm("slct.u32.f32 %0, %1, %2, %3;" : "=r"(r0) : "r"(x), "r"(y), "f"(fx));
    o[n * k++] = r0;
    unsigned long long w;
    asm("mov.b64 %0, {%1, %2};" : "=l"(w) : "r"(x), "r"(y));
    o[n * k++] = (u32)(w >> 40);
    asm("{ .reg .b16 h0, h1; mov.b32 {h0, h1}, %1; mov.b32 %0, {h1, h0}; }" : "=r"(r0) : "r"(x));
    o[n * k++] = r0;
    asm("{ .reg .b32 lo, hi; mov.b64 {lo, hi}, %1; sub.u32 %0, hi, lo; }" : "=r"(r0) : "l"(w * 3));
    o[n * k++] = r0;
    asm("cnot.b32 %0, %1;" : "=r"(r0) : "r"(x & 3));
    o[n * k++] = r0;
    asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r0) : "r"(x >> (y & 31)));
    o[n * k++] = r0;
    asm("mad.hi.s32 %0, %1, %2, %3;" : "=r"(r0) : "r"(x), "r"(y), "r"(x));
    o[n * k++] = r0;
    asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(r0) : "r"(x), "r"(y), "r"(y));
    o[n * k++] = r0;
    asm("{ .reg .s16 a, b, c; cvt.u16.u32 a, %1; cvt.u16.u32 b, %2; mul.hi.s16 c, a, b; abs.s16 a, a;"
        " min.s16 b, b, a; add.s16 c, c, b; cvt.s32.s16 %0, c; }"
        : "=r"(r0) : "r"(x), "r"(y));
    o[n * k++] = r0;
    asm("{ .reg .u16 a, b, c; cvt.u16.u32 a, %1; cvt.u16.u32 b, %2; or.b16 b, b, 1; div.u16 c, a, b;"
        " rem.u16 a, a, b; max.u16 c, c, a; mul.wide.u16 %0, c, b; }"
        : "=r"(r0) : "r"(x), "r"(y));
    o[n * k++] = r0;
    double dr;
    asm("copysign.f64 %0, %1, %2;" : "=d"(dr) : "d"((double)fx), "d"((double)fy));
    o[n * k++] = (u32)(__double_as_longlong(dr) >> 32);
    asm("{ .reg .pred p; .reg .u32 v; shfl.sync.up.b32 v|p, %1, 3, 0x800, -1; selp.u32 %0, v, 12345, p; }"
        : "=r"(r0) : "r"(x));
    o[n * k++] = r0;
    asm("{ .reg .pred c, p; setp.ne.u32 c, %1, 0; vote.sync.uni.pred p, c, -1; selp.u32 %0, 1, 0, p; }"
        : "=r"(r0) : "r"((x & 1) | (gid >= 32 && gid < 64)));
    o[n * k++] = r0;
    int local_arr[4];
    local_arr[x & 3] = 5;
    int* lp = &local_arr[x & 3];
    asm volatile("{ .reg .pred p, q; isspacep.local p, %1; isspacep.shared q, %1; selp.u32 %0, 1, 0, p;"
                 " @q add.u32 %0, %0, 2; }"
                 : "=r"(r0) : "l"(lp));
    o[n * k++] = r0 + (u32)*lp;
    unsigned long long l0, l1;
    asm volatile("cvta.to.local.u64 %0, %1;" : "=l"(l0) : "l"(lp));
    asm volatile("cvta.to.local.u64 %0, %1;" : "=l"(l1) : "l"(&local_arr[0]));
    o[n * k++] = (u32)(l0 - l1);
}
