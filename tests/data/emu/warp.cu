// Warp intrinsics for emu_test: shuffles (all modes, with width < 32), votes, match,
// activemask, under full and partial warps. out[k * n + tid] for result k of thread tid.
typedef unsigned int u32;

// 24 results per thread; a[] the values, b[] lane-dependent parameters.
__global__ void shuffles(u32* out, const u32* a, const u32* b, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    u32 v = a[tid], p = b[tid];
    u32* o = out + tid;
    int k = 0;
    const u32 full = 0xffffffffu;
    o[n * k++] = __shfl_sync(full, v, p & 31);
    o[n * k++] = __shfl_sync(full, v, 5);
    o[n * k++] = __shfl_up_sync(full, v, 1);
    o[n * k++] = __shfl_up_sync(full, v, 7);
    o[n * k++] = __shfl_down_sync(full, v, 1);
    o[n * k++] = __shfl_down_sync(full, v, 13);
    o[n * k++] = __shfl_xor_sync(full, v, 1);
    o[n * k++] = __shfl_xor_sync(full, v, 16);
    o[n * k++] = __shfl_xor_sync(full, v, p & 31);
    o[n * k++] = __shfl_sync(full, v, p & 31, 8);
    o[n * k++] = __shfl_sync(full, v, 3, 16);
    o[n * k++] = __shfl_up_sync(full, v, 3, 8);
    o[n * k++] = __shfl_down_sync(full, v, 3, 8);
    o[n * k++] = __shfl_xor_sync(full, v, 5, 4);
    o[n * k++] = __shfl_down_sync(full, v, 2, 4);
    o[n * k++] = __shfl_sync(full, v, (p & 63) - 16, 16);  // source lanes outside the segment
    o[n * k++] = (u32)__shfl_sync(full, (int)v, p & 31);
    float f = __uint_as_float(v & 0x3fffffffu);
    o[n * k++] = __float_as_uint(__shfl_down_sync(full, f, 4));
    double d = (double)v * 3.0;
    o[n * k++] = (u32)(__shfl_xor_sync(full, d, 2) / 3.0);
    long long l = ((long long)v << 32) | p;
    long long s = __shfl_up_sync(full, l, 2);
    o[n * k++] = (u32)(s >> 32);
    o[n * k++] = (u32)s;
    // A warp-wide sum by butterflies, and an inclusive scan by shfl.up.
    u32 sum = v;
    for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(full, sum, off);
    o[n * k++] = sum;
    u32 scan = v;
    for (int off = 1; off < 32; off *= 2) {
        u32 t = __shfl_up_sync(full, scan, off);
        if ((threadIdx.x & 31) >= off) scan += t;
    }
    o[n * k++] = scan;
    u32 seg = v;
    for (int off = 1; off < 8; off *= 2) seg += __shfl_xor_sync(full, seg, off, 8);
    o[n * k++] = seg;
}

// 12 results per thread. Votes over predicates of a[], some under divergence.
__global__ void votes(u32* out, const u32* a, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    u32 v = a[tid];
    u32* o = out + tid;
    int k = 0;
    const u32 full = 0xffffffffu;
    o[n * k++] = __ballot_sync(full, v & 1);
    o[n * k++] = __any_sync(full, v == 12345u);
    o[n * k++] = __all_sync(full, v != 77u);
    o[n * k++] = __popc(__ballot_sync(full, v % 3 == 0));
    o[n * k++] = __activemask();
    o[n * k++] = __match_any_sync(full, v % 5);
    int pred;
    o[n * k++] = __match_all_sync(full, v >> 30, &pred);
    o[n * k++] = pred;
    u32 r1 = 0, r2 = 0, r3 = 0;
    if (v % 4 != 0) {  // divergent: only these lanes vote
        u32 m = __activemask();
        r1 = m;
        r2 = __ballot_sync(m, v & 2);
        r3 = __popc(__ballot_sync(m, 1));
    }
    o[n * k++] = r1;
    o[n * k++] = r2;
    o[n * k++] = r3;
    u32 lanes_lt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lanes_lt));
    o[n * k++] = __popc(__ballot_sync(full, v & 1) & lanes_lt);  // rank among the voters
}

// The same in a partial warp: a block of 48 threads (its second warp has 16 lanes).
__global__ void votes_partial(u32* out, const u32* a) {
    int tid = threadIdx.x;
    u32 v = a[tid];
    u32 m = __activemask();
    out[tid] = m;
    out[48 + tid] = __ballot_sync(m, v & 1);
    out[96 + tid] = __shfl_down_sync(m, v, 1);
    out[144 + tid] = __all_sync(m, v != 5u);
}

// Lanes of one warp naming different member masks in the same instruction (cooperative
// groups' labeled partitions): each group of lanes (a[] % 3) reduces, votes and matches over
// its own lanes. 6 results per thread.
__global__ void votes_grouped(u32* out, const u32* a, const u32* b) {
  int t = threadIdx.x;
  u32 v = a[t];
  u32 m = __match_any_sync(0xffffffffu, v % 3);  // this lane's group
  out[t] = m;
  out[32 + t] = __reduce_max_sync(m, b[t]);
  out[64 + t] = __reduce_add_sync(m, b[t]);
  out[96 + t] = __ballot_sync(m, b[t] & 1);
  out[128 + t] = __all_sync(m, b[t] & 1);
  out[160 + t] = __match_any_sync(m, b[t] & 3);
}
