// transpose.cu: seed 004's 8192x8192 float matrix transpose, four ways. transposeNaive
// uses no shared memory; transposeShared reads its 32x32 tile by column (a 32-way bank
// conflict on every load); transposeSharedNobankconf pads the tile to [32][33]; and
// transposeSharedNobankconf_nopading keeps [32][32] but rotates each row by its index, so
// both the row store and the column load touch 32 different banks. The kernels are the
// article's, on the article's __device__ arrays; only main() is new.
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

// -- matrix size --
const int nimax = 8192, njmax = 8192;
// -- the number of threads per block --
const int BS = 32;
__device__ float idata[nimax][njmax], odata[nimax][njmax];

// bankcheck: kernel=transposeNaive grid=256,256 block=32,32
__global__ void transposeNaive() {
    int ni, nj;
    ni = blockIdx.y * blockDim.y + threadIdx.y;
    nj = blockIdx.x * blockDim.x + threadIdx.x;
    odata[nj][ni] = idata[ni][nj];
    return;
}

// bankcheck: kernel=transposeShared grid=256,256 block=32,32
__global__ void transposeShared() {
    int ni, nj;
    __shared__ float tile[BS][BS];
    ni = blockIdx.y * blockDim.y + threadIdx.y;
    nj = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.y][threadIdx.x ^ threadIdx.y] = idata[ni][nj];
    __syncthreads();
    ni = blockIdx.x * blockDim.x + threadIdx.y;
    nj = blockIdx.y * blockDim.y + threadIdx.x;
    odata[ni][nj] = tile[threadIdx.x][threadIdx.y ^ threadIdx.x];
    return;
}

// bankcheck: kernel=transposeSharedNobankconf grid=256,256 block=32,32
__global__ void transposeSharedNobankconf() {
    int ni, nj;
    __shared__ float tile[BS][BS + 1];
    ni = blockIdx.y * blockDim.y + threadIdx.y;
    nj = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = idata[ni][nj];
    __syncthreads();
    ni = blockIdx.x * blockDim.x + threadIdx.y;
    nj = blockIdx.y * blockDim.y + threadIdx.x;
    odata[ni][nj] = tile[threadIdx.x][threadIdx.y];
    return;
}

// bankcheck: kernel=transposeSharedNobankconf_nopading grid=256,256 block=32,32
__global__ void transposeSharedNobankconf_nopading() {
    int ni, nj;
    __shared__ float tile[BS][BS];
    ni = blockIdx.y * blockDim.y + threadIdx.y;
    nj = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.y][(threadIdx.x + threadIdx.y) % BS] = idata[ni][nj];
    __syncthreads();
    ni = blockIdx.x * blockDim.x + threadIdx.y;
    nj = blockIdx.y * blockDim.y + threadIdx.x;
    odata[ni][nj] = tile[threadIdx.x][(threadIdx.x + threadIdx.y) % BS];
    return;
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 248309;
static float next_random() {  // xorshift64*, uniform in [0, 1e6)
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ull) >> 40) * (1e6f / 16777216.0f);
}

typedef void (*Kernel)();

static bool run(const char* name, Kernel kernel, const std::vector<float>& ref,
                std::vector<float>& out) {
    const size_t bytes = (size_t)nimax * njmax * sizeof(float);
    float* d_odata = nullptr;
    CHECK(cudaGetSymbolAddress((void**)&d_odata, odata));
    CHECK(cudaMemset(d_odata, 0xFF, bytes));  // NaN everywhere: unwritten elements fail
    dim3 grid(nimax / BS, njmax / BS), blck(BS, BS);
    kernel<<<grid, blck>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpyFromSymbol(out.data(), odata, bytes));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < out.size(); ++i)
        if (std::memcmp(&out[i], &ref[i], sizeof(float)) != 0 && bad++ == 0) first = i;
    if (bad == 0) {
        std::printf("%s: OK\n", name);
        return true;
    }
    std::printf("%s: WRONG (%zu of %zu elements differ; first [%zu][%zu]: got %g, want %g)\n",
                name, bad, out.size(), first / njmax, first % njmax, out[first], ref[first]);
    return false;
}

int main() {
    const size_t n = (size_t)nimax * njmax;
    std::vector<float> in(n), ref(n), out(n);
    for (size_t i = 0; i < n; ++i) in[i] = next_random();
    for (int ni = 0; ni < nimax; ++ni)
        for (int nj = 0; nj < njmax; ++nj) ref[(size_t)nj * nimax + ni] = in[(size_t)ni * njmax + nj];
    CHECK(cudaMemcpyToSymbol(idata, in.data(), n * sizeof(float)));

    int failed = 0;
    failed += !run("transposeNaive", transposeNaive, ref, out);
    failed += !run("transposeShared", transposeShared, ref, out);
    failed += !run("transposeSharedNobankconf", transposeSharedNobankconf, ref, out);
    failed += !run("transposeSharedNobankconf_nopading", transposeSharedNobankconf_nopading,
                   ref, out);
    return failed ? 1 : 0;
}
