// stride.cu: the textbook strided access, shared[threadIdx.x * s] on 32-bit ints. Lanes
// s words apart fall in banks (lane * s) % 32: s = 1 and every odd s are conflict-free,
// s = 2 is 2-way, s = 32 puts the whole warp in one bank (32-way). One __device__ function
// does the work: each thread stores its element at shared[tid * s], then reads back its
// mirror image within the block at shared[(blockDim.x - 1 - tid) * s] (same stride, so
// the same degree). s is a kernel argument, not a constant: the four thin kernels
// stride1..stride32 differ only in the launch comment and the value main() passes.
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

constexpr int kBlock = 128;     // threads per block
constexpr int kMaxStride = 32;  // the largest s the shared array holds
constexpr int kGrid = 64;

__device__ void strided_reverse(int *out, const int *in, int s) {
    __shared__ int shared[kBlock * kMaxStride];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    shared[(tid * s) ^ (((tid * s) >> 5) & 31)] = in[gid];
    __syncthreads();
    out[gid] = shared[((blockDim.x - 1 - tid) * s) ^ ((((blockDim.x - 1 - tid) * s) >> 5) & 31)];
}

// bankcheck: kernel=stride1 grid=64 block=128 arg=out=zeros:32768 arg=in=random:32768 arg=s=1
__global__ void stride1(int *out, const int *in, int s) { strided_reverse(out, in, s); }

// bankcheck: kernel=stride2 grid=64 block=128 arg=out=zeros:32768 arg=in=random:32768 arg=s=2
__global__ void stride2(int *out, const int *in, int s) { strided_reverse(out, in, s); }

// bankcheck: kernel=stride3 grid=64 block=128 arg=out=zeros:32768 arg=in=random:32768 arg=s=3
__global__ void stride3(int *out, const int *in, int s) { strided_reverse(out, in, s); }

// bankcheck: kernel=stride32 grid=64 block=128 arg=out=zeros:32768 arg=in=random:32768 arg=s=32
__global__ void stride32(int *out, const int *in, int s) { strided_reverse(out, in, s); }

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 0x5712de;
static int next_random() {  // xorshift64*, any 32-bit value
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (int)(uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

typedef void (*Kernel)(int *, const int *, int);

int main() {
    const int n = kGrid * kBlock;
    std::vector<int> in(n), want(n), got(n);
    for (int i = 0; i < n; ++i) in[i] = next_random();
    for (int b = 0; b < kGrid; ++b)
        for (int t = 0; t < kBlock; ++t) want[b * kBlock + t] = in[b * kBlock + kBlock - 1 - t];

    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    struct {
        const char *name;
        Kernel kernel;
        int s;
    } cases[] = {{"stride1", stride1, 1},
                 {"stride2", stride2, 2},
                 {"stride3", stride3, 3},
                 {"stride32", stride32, 32}};
    int failed = 0;
    for (auto &k : cases) {
        CHECK(cudaMemset(d_out, 0xA5, n * sizeof(int)));
        k.kernel<<<kGrid, kBlock>>>(d_out, d_in, k.s);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
        int bad = 0, first = 0;
        for (int i = 0; i < n; ++i)
            if (got[i] != want[i] && bad++ == 0) first = i;
        if (bad == 0) {
            std::printf("%s: OK\n", k.name);
        } else {
            std::printf("%s: WRONG (%d of %d elements differ; first out[%d]: got %d, want %d)\n",
                        k.name, bad, n, first, got[first], want[first]);
            ++failed;
        }
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return failed ? 1 : 0;
}
