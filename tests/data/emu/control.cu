// Control flow, barriers and memories for emu_test. Lines marked SITE: are looked up by
// the test (their shared accesses' request counts are checked).
#include <cstdint>

typedef unsigned int u32;

// Divergence of several kinds; 6 results per thread.
__global__ void branches(int* out, const int* a, int n) {
    int tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
    int v = a[gid];
    int* o = out + gid;
    // if/else with different work per side
    int r = 0;
    if (v & 1) {
        for (int i = 0; i < (v & 7) + 3; ++i) r += (v * i) ^ (r >> 1);
    } else {
        r = v * 3;
        r = r / 7 + v % 5;
    }
    o[0 * n] = r;
    // nested
    int q;
    if (v > 0) {
        if (v % 3 == 0) q = v / 3;
        else if (v % 3 == 1) q = -v;
        else q = v * v;
    } else {
        q = v < -100 ? 1 : 2;
        if (v & 4) q += 10;
    }
    o[1 * n] = q;
    // a loop with a lane-dependent trip count, continue and break
    int acc = 0;
    for (int i = 0; i < (tid % 13) + 1; ++i) {
        if (i % 3 == 1) continue;
        if (acc > (v & 63) + 20) break;
        acc += i * 2 + 1;
    }
    o[2 * n] = acc;
    // switch
    int s;
    switch (v & 7) {
        case 0: s = 10; break;
        case 1: s = v; break;
        case 2:
        case 3: s = v * 2; break;
        case 5: s = -1; break;
        default: s = 7; break;
    }
    o[3 * n] = s;
    // a while loop whose exit depends on data (Collatz steps, capped)
    u32 c = (u32)(v & 0xffff) + 1;
    int steps = 0;
    while (c != 1 && steps < 200) {
        c = (c & 1) ? 3 * c + 1 : c / 2;
        ++steps;
    }
    o[4 * n] = steps;
    // an early exit from a nested loop
    int found = -1;
    for (int i = 0; i < 8 && found < 0; ++i)
        for (int j = 0; j < 8; ++j)
            if (((v >> (i + j)) & 7) == 5) {
                found = i * 8 + j;
                break;
            }
    o[5 * n] = found;
}

// Some lanes return before a barrier (n < blockDim.x); the rest must still get through it.
__global__ void early_return(int* out, const int* a, int n) {
    __shared__ int s[256];
    int tid = threadIdx.x;
    if (tid >= n) return;
    s[tid] = a[tid] * 2;
    __syncthreads();  // BARRIER: early_return
    out[tid] = s[(tid + 1) % n];
}

// Block-wide reduction (tree in shared memory) and Hillis-Steele inclusive scan, exact on
// integers; 512 threads per block.
__global__ void reduce_scan(int* sums, int* scans, float* fsums, const int* a) {
    __shared__ int s[512];
    __shared__ int buf[2][512];
    __shared__ float fs[512];
    int tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
    int v = a[gid];
    s[tid] = v;
    fs[tid] = (float)(v % 1000);
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
            fs[tid] += fs[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        sums[blockIdx.x] = s[0];
        fsums[blockIdx.x] = fs[0];
    }
    int in = 0;
    buf[0][tid] = v;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        int x = buf[in][tid];
        if (tid >= off) x += buf[in][tid - off];
        buf[1 - in][tid] = x;
        in = 1 - in;
        __syncthreads();
    }
    scans[gid] = buf[in][tid];
}

// Dynamic shared memory after a static array: reverse a block of n floats.
__global__ void dyn_smem(float* out, const float* in, int n) {
    extern __shared__ float dyn[];
    __shared__ int counter;
    int tid = threadIdx.x;
    if (tid == 0) counter = 0;
    for (int i = tid; i < n; i += blockDim.x) dyn[i] = in[blockIdx.x * n + i];
    __syncthreads();
    atomicAdd(&counter, 1);
    for (int i = tid; i < n; i += blockDim.x) out[blockIdx.x * n + i] = dyn[n - 1 - i];
    __syncthreads();
    if (tid == 0) out[gridDim.x * n + blockIdx.x] = (float)counter;
}

struct Pair {
    int key;
    float value;
};

// A per-thread array indexed by data: local memory.
__global__ void local_array(int* out, const int* a) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int arr[24];
    Pair pairs[6];
    int v = a[gid];
    for (int i = 0; i < 24; ++i) arr[i] = v * i + (i ^ v);
    for (int i = 0; i < 6; ++i) pairs[i] = Pair{v + i, (float)i * 0.5f};
    int j = (u32)v % 24;
    arr[(j + 5) % 24] += 1000;
    Pair p = pairs[(u32)v % 6];
    out[gid * 3 + 0] = arr[j];
    out[gid * 3 + 1] = arr[(j + 5) % 24];
    out[gid * 3 + 2] = p.key + (int)(p.value * 4.0f);
}

__device__ __forceinline__ void twice(float* p, int i) { p[i] = p[i] * 2.0f + 1.0f; }
__device__ __noinline__ float noinline_dummy(float x) { return x; }

// Generic pointers: to shared or global memory picked at run time, through an inlined
// function; __isShared on them; cvta.
__global__ void generic_pointers(float* out, float* g, const int* a) {
    __shared__ float s[128];
    int tid = threadIdx.x;
    s[tid] = (float)tid;
    g[blockIdx.x * 128 + tid] = (float)(tid * 10);
    __syncthreads();
    float* p = (a[tid] & 1) ? s : g + blockIdx.x * 128;
    twice(p, tid);
    __syncthreads();
    out[blockIdx.x * 384 + tid] = s[tid];
    out[blockIdx.x * 384 + 128 + tid] = g[blockIdx.x * 128 + tid];
    out[blockIdx.x * 384 + 256 + tid] = __isShared(p) ? 1.0f : (__isGlobal(p) ? 2.0f : 3.0f);
    u32 sa = (u32)__cvta_generic_to_shared(&s[tid]);
    out[gridDim.x * 384 + blockIdx.x * 128 + tid] = (float)sa - (float)(u32)__cvta_generic_to_shared(&s[0]);
}

// __ldg / __restrict__ loads and vector accesses.
__global__ void vectors(float4* out4, int4* outi4, float2* out2, float* out, const float* __restrict__ in,
                        const float4* __restrict__ in4, const int4* i4, const float2* in2) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float x = __ldg(&in[gid]);
    float4 v = in4[gid];
    int4 w = i4[gid];
    float2 h = __ldg(&in2[gid]);
    out4[gid] = make_float4(v.w + x, v.z, v.y, v.x);
    outi4[gid] = make_int4(w.x + w.y, w.y - w.z, w.z ^ w.w, w.w);
    out2[gid] = make_float2(h.y, h.x * x);
    out[gid] = in[gid] + __ldg(&in4[gid].y);
}

// 3-D grids and blocks: every thread writes its coordinates.
__global__ void dims(int* out) {
    int bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int nt = blockDim.x * blockDim.y * blockDim.z;
    int* o = out + (bid * nt + tid) * 12;
    o[0] = threadIdx.x; o[1] = threadIdx.y; o[2] = threadIdx.z;
    o[3] = blockIdx.x; o[4] = blockIdx.y; o[5] = blockIdx.z;
    o[6] = blockDim.x; o[7] = blockDim.y; o[8] = blockDim.z;
    o[9] = gridDim.x; o[10] = gridDim.y; o[11] = gridDim.z;
}

__global__ void clocks(long long* out) {
    long long t0 = clock64();
    int c0 = clock();
    __nanosleep(100);
    int c1 = clock();
    long long t1 = clock64();
    out[threadIdx.x * 2] = t1 - t0;
    out[threadIdx.x * 2 + 1] = (long long)(c1 - c0);
}

// Reconvergence as the counts see it: a shared access after an if/else is one request per
// warp; inside a loop with a lane-dependent trip count, one per iteration.
__global__ void reconverge(int* out, int* g, const int* a) {
    __shared__ int s[256];
    int tid = threadIdx.x;
    s[tid] = tid * 3;
    __syncthreads();
    int v = a[tid];
    int r = 0;
    if (v & 1) {
#pragma unroll 1
        for (int i = 0; i < 4; ++i) g[tid * 4 + i] = v + i;
        r = v * 5;
    } else {
#pragma unroll 1
        for (int i = 0; i < 3; ++i) g[1024 + tid * 3 + i] = v - i;
        r = v / 3;
    }
    int x = s[(tid * 7) & 255];  // SITE: after_ifelse
    int acc = 0;
#pragma unroll 1
    for (int i = 0; i <= (tid & 7); ++i) {
        acc += s[(tid + i) & 255];  // SITE: in_loop
    }
    if (v & 2) {
        acc += s[tid ^ 1];  // SITE: half
    }
    out[tid] = r + x + acc;
}

// Lanes that exit inside nested divergence: the code after runs once, for the lanes left.
__global__ void nested_exit(int* out, const int* a) {
    __shared__ int s[256];
    int tid = threadIdx.x;
    s[tid] = tid * 5;
    __syncthreads();
    int v = a[tid];
    if (v & 1) {
        if (v & 2) return;
        out[tid] = 1;
    }
    out[256 + tid] = s[tid ^ 3];  // SITE: after_exit
}

// A data-dependent search loop with two breaks; the access after the loop is one request.
__global__ void search(int* out, const int* a) {
    __shared__ int s[256];
    int tid = threadIdx.x;
    s[tid] = a[tid] & 1023;
    __syncthreads();
    int v = a[(tid * 5) & 255] & 1023;
    int i = 0;
#pragma unroll 1
    while (true) {
        if (s[(tid + i * 7) & 255] > v) break;  // SITE: search_loop
        ++i;
        if (i > 40) break;
    }
    out[tid] = i * 1000 + s[(tid * 3) & 255];  // SITE: after_search
}
