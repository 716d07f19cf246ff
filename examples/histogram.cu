// histogram.cu: a 256-bin byte histogram of 1 MiB of random bytes, counted in shared memory
// and merged into global memory (after the CUDA samples' histogram256 and the "GPU Pro Tip:
// Fast Histograms Using Shared Atomics" post), 64 blocks of 256 threads.
//   histogram_shared:          one block-wide bins[256]; atomicAdd(&bins[v], 1), result
//                              unused. Lanes that draw the same byte hit the same word.
//   histogram_per_warp:        one private bins[warp][256] per warp, summed per bin at the
//                              end: fewer lanes contend for a word, the same bank pattern.
//   histogram_warp_aggregated: lanes with equal bytes are found with __match_any_sync and
//                              the lowest of them adds the group's count: one atomic per
//                              distinct byte of a warp.
// main() runs each kernel once and compares the histogram with a CPU count.
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

constexpr int kBins = 256;
constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;
constexpr int kGrid = 64;
constexpr int kBytes = 1 << 20;

// bankcheck: kernel=histogram_shared grid=64 block=256 arg=data=random:1M arg=n=1048576 arg=hist=zeros:1024
__global__ void histogram_shared(const unsigned char *data, int n, unsigned int *hist) {
    __shared__ unsigned int bins[kBins];
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) bins[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) atomicAdd(&hist[i], bins[i]);
}

// bankcheck: kernel=histogram_per_warp grid=64 block=256 arg=data=random:1M arg=n=1048576 arg=hist=zeros:1024
__global__ void histogram_per_warp(const unsigned char *data, int n, unsigned int *hist) {
    __shared__ unsigned int bins[kWarps][kBins];
    const int warp = threadIdx.x / 32;
    for (int i = threadIdx.x; i < kWarps * kBins; i += blockDim.x) (&bins[0][0])[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[warp][data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) {
        unsigned int sum = 0;
        for (int w = 0; w < kWarps; ++w) sum += bins[w][i];
        atomicAdd(&hist[i], sum);
    }
}

// bankcheck: kernel=histogram_warp_aggregated grid=64 block=256 arg=data=random:1M arg=n=1048576 arg=hist=zeros:1024
__global__ void histogram_warp_aggregated(const unsigned char *data, int n, unsigned int *hist) {
    __shared__ unsigned int bins[kBins];
    const int lane = threadIdx.x % 32;
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) bins[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned int v = data[i];
        const unsigned int peers = __match_any_sync(__activemask(), v);
        if (lane == __ffs(peers) - 1) atomicAdd(&bins[v], (unsigned int)__popc(peers));
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) atomicAdd(&hist[i], bins[i]);
}

// ---------------------------------------------------------------------------------------
// Host

// The bytes `bankcheck check` gives `data` for `arg=data=random` (src/driver/args.cpp:
// splitmix64, one generator per 1M-element chunk, each byte the low byte of a value below
// 1000), so that the GPU run and the check count the same atomics: how many lanes of a warp
// hit one bin depends on the data.
static uint64_t splitmix64(uint64_t &state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static void bankcheck_random_bytes(std::vector<unsigned char> &out) {
    uint64_t first = 12345;
    const uint64_t seed = splitmix64(first);  // the first random buffer's seed
    const size_t chunk = size_t{1} << 20;
    for (size_t c = 0; c * chunk < out.size(); ++c) {
        uint64_t gen = seed ^ (c * 0xD1B54A32D192ED03ull);
        for (size_t i = c * chunk; i < out.size() && i < (c + 1) * chunk; ++i)
            out[i] = (unsigned char)((((splitmix64(gen) >> 32) * 1000) >> 32) & 0xff);
    }
}

typedef void (*Kernel)(const unsigned char *, int, unsigned int *);

int main() {
    std::vector<unsigned char> data(kBytes);
    bankcheck_random_bytes(data);
    std::vector<unsigned int> want(kBins, 0), got(kBins);
    for (unsigned char b : data) ++want[b];

    unsigned char *d_data;
    unsigned int *d_hist;
    CHECK(cudaMalloc(&d_data, kBytes));
    CHECK(cudaMalloc(&d_hist, kBins * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_data, data.data(), kBytes, cudaMemcpyHostToDevice));

    struct {
        const char *name;
        Kernel kernel;
    } cases[] = {{"histogram_shared", histogram_shared},
                 {"histogram_per_warp", histogram_per_warp},
                 {"histogram_warp_aggregated", histogram_warp_aggregated}};
    int failed = 0;
    for (auto &k : cases) {
        CHECK(cudaMemset(d_hist, 0, kBins * sizeof(unsigned int)));  // the kernels accumulate
        k.kernel<<<kGrid, kBlock>>>(d_data, kBytes, d_hist);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(got.data(), d_hist, kBins * sizeof(unsigned int),
                         cudaMemcpyDeviceToHost));
        int bad = 0, first = 0;
        for (int i = 0; i < kBins; ++i)
            if (got[i] != want[i] && bad++ == 0) first = i;
        if (bad == 0) {
            std::printf("%s: OK\n", k.name);
        } else {
            std::printf("%s: WRONG (%d of %d bins differ; first bin %d: got %u, want %u)\n",
                        k.name, bad, kBins, first, got[first], want[first]);
            ++failed;
        }
    }
    CHECK(cudaFree(d_data));
    CHECK(cudaFree(d_hist));
    return failed ? 1 : 0;
}
