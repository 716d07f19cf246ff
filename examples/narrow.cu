// narrow.cu: 8- and 16-bit shared arrays. On sm_20 and later, lanes reading different bytes
// of one 32-bit word share it (multicast), so char s[tid] and short s[tid] are
// conflict-free: a warp touches 8 or 16 words. Spreading the lanes out to one word each,
// s[4 * tid] for char and s[2 * tid] for short, is conflict-free too (32 words in 32
// banks). Compute capability 1.x hardware saw it the other way round (seed 000): char
// s[tid] was a 4-way conflict there, and s[4 * tid] the cure. Each kernel first copies a
// block of bytes into shared memory with unit-stride stores, then reads one element per
// thread with the pattern in its name.
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
constexpr int kGrid = 64;

// bankcheck: kernel=char_unit grid=64 block=256 arg=out=zeros:16384 arg=in=random:65536
__global__ void char_unit(char *out, const char *in) {
    __shared__ char s[4 * kBlock];
    int tid = threadIdx.x;
    const char *src = in + blockIdx.x * 4 * kBlock;
#pragma unroll
    for (int k = 0; k < 4; ++k) s[tid + k * kBlock] = src[tid + k * kBlock];
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}

// bankcheck: kernel=char_stride4 grid=64 block=256 arg=out=zeros:16384 arg=in=random:65536
__global__ void char_stride4(char *out, const char *in) {
    __shared__ char s[4 * kBlock];
    int tid = threadIdx.x;
    const char *src = in + blockIdx.x * 4 * kBlock;
#pragma unroll
    for (int k = 0; k < 4; ++k) s[tid + k * kBlock] = src[tid + k * kBlock];
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[4 * tid];
}

// bankcheck: kernel=short_unit grid=64 block=256 arg=out=zeros:32768 arg=in=random:65536
__global__ void short_unit(short *out, const short *in) {
    __shared__ short s[2 * kBlock];
    int tid = threadIdx.x;
    const short *src = in + blockIdx.x * 2 * kBlock;
#pragma unroll
    for (int k = 0; k < 2; ++k) s[tid + k * kBlock] = src[tid + k * kBlock];
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}

// bankcheck: kernel=short_stride2 grid=64 block=256 arg=out=zeros:32768 arg=in=random:65536
__global__ void short_stride2(short *out, const short *in) {
    __shared__ short s[2 * kBlock];
    int tid = threadIdx.x;
    const short *src = in + blockIdx.x * 2 * kBlock;
#pragma unroll
    for (int k = 0; k < 2; ++k) s[tid + k * kBlock] = src[tid + k * kBlock];
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[2 * tid];
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 0x8b17;
static uint32_t next_random() {  // xorshift64*
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

// Runs kernel on `in` (elements of T, per block `per_block` of them) and checks
// out[b * kBlock + t] == in[b * per_block + step * t].
template <class T>
static bool run(const char *name, void (*kernel)(T *, const T *), const std::vector<T> &in,
                int per_block, int step) {
    const int n_out = kGrid * kBlock;
    T *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, in.size() * sizeof(T)));
    CHECK(cudaMalloc(&d_out, n_out * sizeof(T)));
    CHECK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0xA5, n_out * sizeof(T)));
    kernel<<<kGrid, kBlock>>>(d_out, d_in);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<T> got(n_out);
    CHECK(cudaMemcpy(got.data(), d_out, n_out * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    int bad = 0, first = 0;
    for (int b = 0; b < kGrid; ++b)
        for (int t = 0; t < kBlock; ++t) {
            int i = b * kBlock + t;
            if (got[i] != in[b * per_block + step * t] && bad++ == 0) first = i;
        }
    if (bad == 0) {
        std::printf("%s: OK\n", name);
        return true;
    }
    int b = first / kBlock, t = first % kBlock;
    std::printf("%s: WRONG (%d of %d elements differ; first out[%d]: got %d, want %d)\n", name,
                bad, n_out, first, (int)got[first], (int)in[b * per_block + step * t]);
    return false;
}

int main() {
    std::vector<char> in8(kGrid * 4 * kBlock);
    std::vector<short> in16(kGrid * 2 * kBlock);
    for (auto &v : in8) v = (char)next_random();
    for (auto &v : in16) v = (short)next_random();
    int failed = 0;
    failed += !run<char>("char_unit", char_unit, in8, 4 * kBlock, 1);
    failed += !run<char>("char_stride4", char_stride4, in8, 4 * kBlock, 4);
    failed += !run<short>("short_unit", short_unit, in16, 2 * kBlock, 1);
    failed += !run<short>("short_stride2", short_stride2, in16, 2 * kBlock, 2);
    return failed ? 1 : 0;
}
