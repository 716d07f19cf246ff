// wide.cu: 64- and 128-bit shared accesses, double and float4. A warp's 8-byte request
// needs at least 2 wavefronts (256 bytes through 128 bytes per pass) and a 16-byte request
// at least 4 (512 bytes), so s[tid] is conflict-free at 2 and 4 wavefronts. s[2 * tid]
// doubles the bytes spanned and the wavefronts (4 and 8), half the data fetched unused.
// The column read of a 32x32 tile (a transpose, tile[tx][ty]) puts all 32 lanes in the same
// banks, 32 wavefronts for both types. unit and stride2 kernels copy a block's data into
// shared memory with unit-stride stores first; column kernels store the tile by rows.
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

constexpr int kBlock = 256;  // threads per block for the 1-D kernels
constexpr int kGrid = 64;    // blocks for the 1-D kernels
constexpr int TILE = 32;     // the column kernels: 32x32 threads, one tile per block
constexpr int kWidth = 512;  // the column kernels transpose a 512x512 matrix, grid 16x16

// ---- double ----

// bankcheck: kernel=double_unit grid=64 block=256 arg=out=zeros:131072 arg=in=random:262144
__global__ void double_unit(double *out, const double *in) {
    __shared__ double s[2 * kBlock];
    int tid = threadIdx.x;
    const double *src = in + blockIdx.x * 2 * kBlock;
#pragma unroll
    for (int k = 0; k < 2; ++k) s[tid + k * kBlock] = src[tid + k * kBlock];
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}

// bankcheck: kernel=double_stride2 grid=64 block=256 arg=out=zeros:131072 arg=in=random:262144
__global__ void double_stride2(double *out, const double *in) {
    __shared__ double s[2 * kBlock];
    int tid = threadIdx.x;
    const double *src = in + blockIdx.x * 2 * kBlock;
#pragma unroll
    for (int k = 0; k < 2; ++k) s[(tid + k * kBlock) - (tid + k * kBlock) % 16 + ((tid + k * kBlock) + (tid + k * kBlock) / 16) % 16] = src[tid + k * kBlock];
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[(2 * tid) - (2 * tid) % 16 + ((2 * tid) + (2 * tid) / 16) % 16];
}

// bankcheck: kernel=double_column grid=16,16 block=32,32 arg=out=zeros:2M arg=in=random:2M arg=width=512
__global__ void double_column(double *out, const double *in, int width) {
    __shared__ double tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    tile[ty][tx] = in[(blockIdx.y * TILE + ty) * width + blockIdx.x * TILE + tx];
    __syncthreads();
    out[(blockIdx.x * TILE + ty) * width + blockIdx.y * TILE + tx] = tile[tx][ty];
}

// ---- float4 ----

// bankcheck: kernel=float4_unit grid=64 block=256 arg=out=zeros:262144 arg=in=random:524288
__global__ void float4_unit(float4 *out, const float4 *in) {
    __shared__ float4 s[2 * kBlock];
    int tid = threadIdx.x;
    const float4 *src = in + blockIdx.x * 2 * kBlock;
#pragma unroll
    for (int k = 0; k < 2; ++k) s[tid + k * kBlock] = src[tid + k * kBlock];
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}

// bankcheck: kernel=float4_stride2 grid=64 block=256 arg=out=zeros:262144 arg=in=random:524288
__global__ void float4_stride2(float4 *out, const float4 *in) {
    __shared__ float4 s[2 * kBlock];
    int tid = threadIdx.x;
    const float4 *src = in + blockIdx.x * 2 * kBlock;
#pragma unroll
    for (int k = 0; k < 2; ++k) s[tid + k * kBlock] = src[tid + k * kBlock];
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[2 * tid];
}

// bankcheck: kernel=float4_column grid=16,16 block=32,32 arg=out=zeros:4M arg=in=random:4M arg=width=512
__global__ void float4_column(float4 *out, const float4 *in, int width) {
    __shared__ float4 tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    tile[ty][tx] = in[(blockIdx.y * TILE + ty) * width + blockIdx.x * TILE + tx];
    __syncthreads();
    out[(blockIdx.x * TILE + ty) * width + blockIdx.y * TILE + tx] = tile[tx][ty];
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 0x64128;
static float next_random() {  // xorshift64*, uniform in [-1, 1)
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ull) >> 40) / 8388608.0f - 1.0f;
}

static bool same(double a, double b) { return a == b; }
static bool same(float4 a, float4 b) {
    return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

// Launches `launch` on a copy of `in`, then checks out[i] == in[source(i)].
template <class T, class Launch, class Source>
static bool run(const char *name, Launch launch, const std::vector<T> &in, size_t n_out,
                Source source) {
    T *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, in.size() * sizeof(T)));
    CHECK(cudaMalloc(&d_out, n_out * sizeof(T)));
    CHECK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0xFF, n_out * sizeof(T)));  // NaN: unwritten elements fail
    launch(d_out, d_in);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<T> got(n_out);
    CHECK(cudaMemcpy(got.data(), d_out, n_out * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n_out; ++i)
        if (!same(got[i], in[source(i)]) && bad++ == 0) first = i;
    if (bad == 0) {
        std::printf("%s: OK\n", name);
        return true;
    }
    std::printf("%s: WRONG (%zu of %zu elements differ; first out[%zu], want in[%zu])\n", name,
                bad, n_out, first, (size_t)source(first));
    return false;
}

int main() {
    const size_t n1 = (size_t)kGrid * kBlock;         // outputs of the 1-D kernels
    const size_t n2 = (size_t)kWidth * kWidth;        // the column kernels' matrix
    std::vector<double> d1(2 * n1), d2(n2);
    std::vector<float4> f1(2 * n1), f2(n2);
    for (auto &v : d1) v = (double)next_random() + (double)next_random() * 1e-9;
    for (auto &v : d2) v = (double)next_random() + (double)next_random() * 1e-9;
    for (auto &v : f1) v = make_float4(next_random(), next_random(), next_random(), next_random());
    for (auto &v : f2) v = make_float4(next_random(), next_random(), next_random(), next_random());

    auto unit = [](size_t i) { return (i / kBlock) * 2 * kBlock + i % kBlock; };
    auto stride2 = [](size_t i) { return (i / kBlock) * 2 * kBlock + 2 * (i % kBlock); };
    auto column = [](size_t i) { return (i % kWidth) * kWidth + i / kWidth; };  // transpose
    const dim3 grid2(kWidth / TILE, kWidth / TILE), block2(TILE, TILE);

    int failed = 0;
    failed += !run("double_unit", [](double *o, const double *i) { double_unit<<<kGrid, kBlock>>>(o, i); },
                   d1, n1, unit);
    failed += !run("double_stride2", [](double *o, const double *i) { double_stride2<<<kGrid, kBlock>>>(o, i); },
                   d1, n1, stride2);
    failed += !run("double_column", [&](double *o, const double *i) { double_column<<<grid2, block2>>>(o, i, kWidth); },
                   d2, n2, column);
    failed += !run("float4_unit", [](float4 *o, const float4 *i) { float4_unit<<<kGrid, kBlock>>>(o, i); },
                   f1, n1, unit);
    failed += !run("float4_stride2", [](float4 *o, const float4 *i) { float4_stride2<<<kGrid, kBlock>>>(o, i); },
                   f1, n1, stride2);
    failed += !run("float4_column", [&](float4 *o, const float4 *i) { float4_column<<<grid2, block2>>>(o, i, kWidth); },
                   f2, n2, column);
    return failed ? 1 : 0;
}
