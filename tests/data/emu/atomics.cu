// Atomics for emu_test: many lanes on one address, in shared and in global memory. The
// order of the lanes is unspecified, so the test checks what any order gives: sums, final
// values, and returned old values that form a permutation (tickets).
typedef unsigned int u32;
typedef unsigned long long u64;

// Per block: shared results to blk[blockIdx.x * 16 + k]; per thread: returned old values to
// old[k * n + gid].
__global__ void shared_atomics(int* blk, u32* old, const int* a, const float* f, int n) {
    __shared__ int s_add, s_min, s_max, s_exch, s_cas, s_and, s_or, s_xor;
    __shared__ u32 s_umin, s_umax, s_inc, s_dec, s_ticket;
    __shared__ float s_fadd;
    __shared__ int s_hist[8];
    int tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
    if (tid == 0) {
        s_add = 0; s_min = 0x7fffffff; s_max = (int)0x80000000; s_exch = -1; s_cas = 0;
        s_and = -1; s_or = 0; s_xor = 0; s_umin = 0xffffffffu; s_umax = 0; s_inc = 0; s_dec = 0;
        s_ticket = 0; s_fadd = 0.0f;
    }
    if (tid < 8) s_hist[tid] = 0;
    __syncthreads();
    int v = a[gid];
    atomicAdd(&s_add, v);
    atomicMin(&s_min, v);
    atomicMax(&s_max, v);
    atomicMin(&s_umin, (u32)v);
    atomicMax(&s_umax, (u32)v);
    old[0 * n + gid] = (u32)atomicExch(&s_exch, gid);
    atomicAnd(&s_and, v | 0x10000);
    atomicOr(&s_or, v & 0xff00ff);
    atomicXor(&s_xor, v);
    old[1 * n + gid] = atomicInc(&s_inc, 9u);
    old[2 * n + gid] = atomicDec(&s_dec, 6u);
    old[3 * n + gid] = atomicAdd(&s_ticket, 1u);
    atomicAdd(&s_fadd, f[gid]);
    atomicAdd(&s_hist[(u32)v % 8], 1);
    // A lock-free increment by compare-and-swap.
    int cur = s_cas, seen;
    do {
        seen = cur;
        cur = atomicCAS(&s_cas, seen, seen + 1);
    } while (cur != seen);
    old[4 * n + gid] = (u32)seen;
    __syncthreads();
    if (tid == 0) {
        int* o = blk + blockIdx.x * 24;
        o[0] = s_add; o[1] = s_min; o[2] = s_max; o[3] = (int)s_umin; o[4] = (int)s_umax;
        o[5] = s_exch; o[6] = s_and; o[7] = s_or; o[8] = s_xor; o[9] = (int)s_inc; o[10] = (int)s_dec;
        o[11] = (int)s_ticket; o[12] = __float_as_int(s_fadd); o[13] = s_cas;
    }
    if (tid < 8) blk[blockIdx.x * 24 + 16 + tid] = s_hist[tid];
}

// The same on global memory, across the whole grid. g[] starts as the test wrote it.
__global__ void global_atomics(int* g, u64* g64, float* gf, double* gd, u32* old, const int* a, const float* f,
                               int n) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = a[gid];
    atomicAdd(&g[0], v);
    atomicMin(&g[1], v);
    atomicMax(&g[2], v);
    atomicMin((u32*)&g[3], (u32)v);
    atomicMax((u32*)&g[4], (u32)v);
    old[0 * n + gid] = (u32)atomicExch(&g[5], gid);
    atomicAnd(&g[6], v | 0x10000);
    atomicOr(&g[7], v & 0xff00ff);
    atomicXor(&g[8], v);
    old[1 * n + gid] = atomicInc((u32*)&g[9], 100u);
    old[2 * n + gid] = atomicDec((u32*)&g[10], 50u);
    old[3 * n + gid] = atomicAdd((u32*)&g[11], 1u);
    int cur = g[12], seen;
    do {
        seen = cur;
        cur = atomicCAS(&g[12], seen, seen + 3);
    } while (cur != seen);
    old[4 * n + gid] = (u32)seen;
    atomicAdd(&g[16 + ((u32)v % 16)], 1);
    atomicAdd(&g64[0], (u64)(u32)v * 4096u);
    atomicMax((long long*)&g64[1], (long long)v * 100000);
    atomicMin((long long*)&g64[2], (long long)v * 100000);
    u64 c64 = g64[3], s64;
    do {
        s64 = c64;
        c64 = atomicCAS(&g64[3], s64, s64 + 0x100000001ull);
    } while (c64 != s64);
    atomicAdd(&gf[0], f[gid]);
    atomicAdd(&gd[0], (double)f[gid] * 0.5);
}
