// reduction.cu: the classic tree reductions of a block's 256 floats in shared memory (after
// Mark Harris, "Optimizing Parallel Reduction in CUDA"), over 1M floats in 4096 blocks,
// one partial sum per block.
//   reduce_interleaved:          if (tid % (2*s) == 0) sdata[tid] += sdata[tid + s];
//                                divergent warps, but conflict-free: the active lanes,
//                                2*s words apart, each get their own bank.
//   reduce_interleaved_strided:  index = 2*s*tid; if (index < blockDim.x) ...
//                                less divergence, but lanes 2*s words apart in one warp:
//                                2-, 4-, 8-, 16-way conflicts as s grows.
//   reduce_sequential:           for (s = blockDim.x/2; s > 0; s >>= 1) if (tid < s) ...
//                                contiguous lanes, conflict-free.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
                         cudaGetErrorString(err_));                                      \
            std::exit(2);                                                                \
        }                                                                                \
    } while (0)

constexpr int kBlock = 256;
constexpr int kElements = 1 << 20;
constexpr int kGrid = kElements / kBlock;  // 4096

// bankcheck: kernel=reduce_interleaved grid=4096 block=256 arg=g_odata=zeros:16384 arg=g_idata=random:4M
__global__ void reduce_interleaved(float *g_odata, const float *g_idata) {
    __shared__ float sdata[kBlock];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = g_idata[i];
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// bankcheck: kernel=reduce_interleaved_strided grid=4096 block=256 arg=g_odata=zeros:16384 arg=g_idata=random:4M
__global__ void reduce_interleaved_strided(float *g_odata, const float *g_idata) {
    __shared__ float sdata[kBlock];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid ^ ((tid >> 5) & 7)] = g_idata[i];
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x) sdata[index ^ ((index >> 5) & 7)] += sdata[(index + s) ^ (((index + s) >> 5) & 7)];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// bankcheck: kernel=reduce_sequential grid=4096 block=256 arg=g_odata=zeros:16384 arg=g_idata=random:4M
__global__ void reduce_sequential(float *g_odata, const float *g_idata) {
    __shared__ float sdata[kBlock];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = g_idata[i];
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 0x2ed0c7;
static float next_random() {  // xorshift64*, uniform in [0, 1)
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ull) >> 40) / 16777216.0f;
}

typedef void (*Kernel)(float *, const float *);

int main() {
    std::vector<float> in(kElements), got(kGrid);
    std::vector<double> want(kGrid, 0.0);
    for (auto &v : in) v = next_random();
    for (int i = 0; i < kElements; ++i) want[i / kBlock] += in[i];

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, kElements * sizeof(float)));
    CHECK(cudaMalloc(&d_out, kGrid * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), kElements * sizeof(float), cudaMemcpyHostToDevice));

    struct {
        const char *name;
        Kernel kernel;
    } cases[] = {{"reduce_interleaved", reduce_interleaved},
                 {"reduce_interleaved_strided", reduce_interleaved_strided},
                 {"reduce_sequential", reduce_sequential}};
    const double rtol = 1e-5;  // 255 float additions of values in [0, 1), sums near 128
    int failed = 0;
    for (auto &k : cases) {
        CHECK(cudaMemset(d_out, 0xFF, kGrid * sizeof(float)));  // NaN: unwritten sums fail
        k.kernel<<<kGrid, kBlock>>>(d_out, d_in);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(got.data(), d_out, kGrid * sizeof(float), cudaMemcpyDeviceToHost));
        int bad = 0, first = 0;
        for (int b = 0; b < kGrid; ++b)
            if (!(std::fabs(got[b] - want[b]) <= rtol * std::fabs(want[b])) && bad++ == 0) first = b;
        if (bad == 0) {
            std::printf("%s: OK\n", k.name);
        } else {
            std::printf("%s: WRONG (%d of %d block sums off by more than %g relative; first "
                        "block %d: got %.9g, want %.9g)\n",
                        k.name, bad, kGrid, rtol, first, got[first], want[first]);
            ++failed;
        }
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return failed ? 1 : 0;
}
