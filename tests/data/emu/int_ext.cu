// Extended-precision integer arithmetic (add.cc/addc, sub.cc/subc, mad.cc/madc chains),
// warpSize (PTX WARP_SZ) and the special registers read as constants, bmsk.
typedef unsigned int u32;
typedef unsigned long long u64;

// 128-bit sum, difference and the 64x64 -> 128 product of (a, b) pairs of u64, through
// 32-bit carry chains; 12 words per thread.
__global__ void carry_chains(u32* out, const u64* a, const u64* b) {
    const int t = threadIdx.x;
    const u64 x = a[t], y = b[t];
    const u32 x0 = (u32)x, x1 = (u32)(x >> 32), y0 = (u32)y, y1 = (u32)(y >> 32);
    u32 s0, s1, s2, d0, d1, d2;
    asm("add.cc.u32 %0, %3, %4;\n\taddc.cc.u32 %1, %5, %6;\n\taddc.u32 %2, 0, 0;"
        : "=r"(s0), "=r"(s1), "=r"(s2) : "r"(x0), "r"(y0), "r"(x1), "r"(y1));
    asm("sub.cc.u32 %0, %3, %4;\n\tsubc.cc.u32 %1, %5, %6;\n\tsubc.u32 %2, 0, 0;"
        : "=r"(d0), "=r"(d1), "=r"(d2) : "r"(x0), "r"(y0), "r"(x1), "r"(y1));
    // (x1:x0) * (y1:y0) = 128 bits p3:p2:p1:p0.
    u32 p0, p1, p2, p3;
    asm("{\n\t"
        "mul.lo.u32 %0, %4, %6;\n\t"
        "mul.hi.u32 %1, %4, %6;\n\t"
        "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
        "madc.hi.u32 %2, %5, %6, 0;\n\t"
        "mad.lo.cc.u32 %1, %4, %7, %1;\n\t"
        "madc.hi.cc.u32 %2, %4, %7, %2;\n\t"
        "addc.u32 %3, 0, 0;\n\t"
        "mad.lo.cc.u32 %2, %5, %7, %2;\n\t"
        "madc.hi.u32 %3, %5, %7, %3;\n\t"
        "}"
        : "=r"(p0), "=r"(p1), "=r"(p2), "=r"(p3) : "r"(x0), "r"(x1), "r"(y0), "r"(y1));
    u32* o = out + t * 12;
    o[0] = s0; o[1] = s1; o[2] = s2;
    o[3] = d0; o[4] = d1; o[5] = d2;
    o[6] = p0; o[7] = p1; o[8] = p2; o[9] = p3;
    u64 w;  // 64-bit chain: add.cc.u64 then addc.u64
    u64 hi;
    asm("add.cc.u64 %0, %2, %3;\n\taddc.u64 %1, 0, 0;" : "=l"(w), "=l"(hi) : "l"(x), "l"(y));
    o[10] = (u32)w ^ (u32)(w >> 32);
    o[11] = (u32)hi;
}

// warpSize and the special registers: 14 words per thread.
__global__ void specials(u32* out) {
    extern __shared__ u32 dyn[];
    const int t = threadIdx.x;
    u32* o = out + t * 14;
    u32 r;
    o[0] = warpSize;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(r)); o[1] = r;
    asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(r)); o[2] = r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); o[3] = r;
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(r)); o[4] = r;
    u64 g;
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(g)); o[5] = (u32)g;
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); o[6] = r;
    asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(r)); o[7] = r;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); o[8] = r;
    asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(r)); o[9] = r;
    asm volatile("mov.u32 %0, %%envreg0;" : "=r"(r)); o[10] = r;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(r));
    u32 r2;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(r2));
    o[11] = r2 - r;  // the clock advances
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); o[12] = r;
    dyn[t] = t;
    o[13] = dyn[t];
}

// dp4a and dp2a in every signedness form: 6 words per thread.
__global__ void dot_products(u32* out, const u32* a, const u32* b, const u32* c) {
    const int t = threadIdx.x;
    const u32 x = a[t], y = b[t], z = c[t];
    u32* o = out + t * 6;
    u32 r;
    asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[0] = r;
    asm("dp4a.s32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[1] = r;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[2] = r;
    asm("dp2a.lo.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[3] = r;
    asm("dp2a.hi.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[4] = r;
    asm("dp2a.hi.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[5] = r;
}

// bmsk (CUB's radix sort extracts its digits with it): clamp and wrap of each (a, b) pair.
__global__ void bit_masks(u32* out, const u32* a, const u32* b) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 c, w;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(c) : "r"(a[t]), "r"(b[t]));
    asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(w) : "r"(a[t]), "r"(b[t]));
    out[2 * t] = c;
    out[2 * t + 1] = w;
}
