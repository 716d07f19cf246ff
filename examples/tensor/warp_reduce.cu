// warp_reduce.cu: a block sum of 256 unsigned ints with the warp-level reduction
// instruction (redux.sync, sm_80 and later) instead of a shuffle tree, 1024 blocks.
//   block_sum_redux: __reduce_add_sync over each warp, one partial per warp in shared
//                    memory (8 lanes of 8 warps, distinct words), then warp 0 reduces the
//                    8 partials the same way. No conflicts.
//   block_sum_cg:    the same with cooperative groups: cg::reduce on a 32-thread tile,
//                    which compiles to redux.sync for 32-bit integers.
// Sums of unsigned ints wrap exactly, so main() compares each block's sum with a CPU sum
// for equality.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
                         cudaGetErrorString(err_));                                      \
            std::exit(2);                                                                \
        }                                                                                \
    } while (0)

constexpr int kBlock = 256, kWarps = kBlock / 32, kGrid = 1024;

// bankcheck: kernel=block_sum_redux grid=1024 block=256 arg=in=random:1M arg=out=zeros:4096
__global__ void block_sum_redux(const unsigned int *in, unsigned int *out) {
    __shared__ unsigned int warp_sums[kWarps];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    v = __reduce_add_sync(0xffffffffu, v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kWarps ? warp_sums[lane] : 0u;
        v = __reduce_add_sync(0xffffffffu, v);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

// bankcheck: kernel=block_sum_cg grid=1024 block=256 arg=in=random:1M arg=out=zeros:4096
__global__ void block_sum_cg(const unsigned int *in, unsigned int *out) {
    __shared__ unsigned int warp_sums[kWarps];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    unsigned int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    v = cg::reduce(tile, v, cg::plus<unsigned int>());
    if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < kWarps ? warp_sums[tile.thread_rank()] : 0u;
        v = cg::reduce(tile, v, cg::plus<unsigned int>());
        if (tile.thread_rank() == 0) out[blockIdx.x] = v;
    }
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 0x7ed0;
static unsigned int next_random() {  // xorshift64*, the top 32 bits
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (unsigned int)((rng_state * 2685821657736338717ull) >> 32);
}

typedef void (*Kernel)(const unsigned int *, unsigned int *);

int main() {
    const size_t n = (size_t)kGrid * kBlock;
    std::vector<unsigned int> in(n), want(kGrid, 0u), got(kGrid);
    for (auto &v : in) v = next_random();  // full 32-bit values: the sums wrap
    for (size_t i = 0; i < n; ++i) want[i / kBlock] += in[i];

    unsigned int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(unsigned int)));
    CHECK(cudaMalloc(&d_out, kGrid * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(unsigned int), cudaMemcpyHostToDevice));

    struct {
        const char *name;
        Kernel kernel;
    } cases[] = {{"block_sum_redux", block_sum_redux}, {"block_sum_cg", block_sum_cg}};
    int failed = 0;
    for (auto &k : cases) {
        CHECK(cudaMemset(d_out, 0xA5, kGrid * sizeof(unsigned int)));
        k.kernel<<<kGrid, kBlock>>>(d_in, d_out);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(got.data(), d_out, kGrid * sizeof(unsigned int), cudaMemcpyDeviceToHost));
        int bad = 0, first = 0;
        for (int b = 0; b < kGrid; ++b)
            if (got[b] != want[b] && bad++ == 0) first = b;
        if (bad == 0) {
            std::printf("%s: OK\n", k.name);
        } else {
            std::printf("%s: WRONG (%d of %d block sums differ; first block %d: got %u, want %u)\n",
                        k.name, bad, kGrid, first, got[first], want[first]);
            ++failed;
        }
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return failed ? 1 : 0;
}
