// cub.cu: block-wide primitives from CUB (the CUDA toolkit's CCCL), as application kernels
// use them, run once each by main() and checked against the CPU. Their shared-memory
// traffic is CUB's own code, inlined into the kernel.
//   block_sum      cub::BlockReduce<float, 256>::Sum (warp reductions, then one warp).
//   block_scan     BlockLoad (BLOCK_LOAD_TRANSPOSE) -> BlockScan::ExclusiveSum -> BlockStore
//                  (BLOCK_STORE_TRANSPOSE), 4 ints a thread, one union of TempStorage.
//   block_sort     cub::BlockRadixSort<unsigned, 256, 4>::Sort of hashed keys (the ranks,
//                  and so the scatter, depend on the keys).
//   block_hist     cub::BlockHistogram<unsigned char, 256, 4, 256> with the atomic
//                  algorithm: 256 bins in shared memory, bytes from the data.
//   warp_max       cub::WarpReduce<int>::Reduce(cub::Max) in each of 8 warps.
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
                         cudaGetErrorString(err_));                                      \
            std::exit(2);                                                                \
        }                                                                                \
    } while (0)

constexpr int kThreads = 256, kItems = 4, kTile = kThreads * kItems;

__global__ void block_sum(const float *in, float *out) {
    using BlockReduce = cub::BlockReduce<float, kThreads>;
    __shared__ typename BlockReduce::TempStorage temp;
    const float v = in[blockIdx.x * kThreads + threadIdx.x];
    const float s = BlockReduce(temp).Sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

__global__ void block_scan(const int *in, int *out) {
    using BlockLoad = cub::BlockLoad<int, kThreads, kItems, cub::BLOCK_LOAD_TRANSPOSE>;
    using BlockScan = cub::BlockScan<int, kThreads>;
    using BlockStore = cub::BlockStore<int, kThreads, kItems, cub::BLOCK_STORE_TRANSPOSE>;
    __shared__ union {
        typename BlockLoad::TempStorage load;
        typename BlockScan::TempStorage scan;
        typename BlockStore::TempStorage store;
    } temp;
    int items[kItems];
    const int base = blockIdx.x * kTile;
    BlockLoad(temp.load).Load(in + base, items);
    __syncthreads();
    BlockScan(temp.scan).ExclusiveSum(items, items);
    __syncthreads();
    BlockStore(temp.store).Store(out + base, items);
}

// bankcheck: kernel=block_sort arg=keys=iota:4M
__global__ void block_sort(unsigned *keys) {
    using BlockRadixSort = cub::BlockRadixSort<unsigned, kThreads, kItems>;
    __shared__ typename BlockRadixSort::TempStorage temp;
    unsigned k[kItems];
    unsigned *tile = keys + blockIdx.x * kTile;
    for (int i = 0; i < kItems; ++i) k[i] = tile[threadIdx.x * kItems + i] * 2654435761u;
    BlockRadixSort(temp).Sort(k);
    for (int i = 0; i < kItems; ++i) tile[threadIdx.x * kItems + i] = k[i];
}

// bankcheck: kernel=block_hist arg=data=iota:4M
__global__ void block_hist(const unsigned *data, unsigned *bins) {
    using BlockHistogram = cub::BlockHistogram<unsigned char, kThreads, kItems, 256, cub::BLOCK_HISTO_ATOMIC>;
    __shared__ typename BlockHistogram::TempStorage temp;
    __shared__ unsigned smem_bins[256];
    const unsigned w = data[blockIdx.x * kThreads + threadIdx.x] * 2654435761u;
    unsigned char b[kItems];
    for (int i = 0; i < kItems; ++i) b[i] = (unsigned char)(w >> (8 * i));
    BlockHistogram(temp).Histogram(b, smem_bins);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], smem_bins[threadIdx.x]);
}

__global__ void warp_max(const int *in, int *out) {
    using WarpReduce = cub::WarpReduce<int>;
    __shared__ typename WarpReduce::TempStorage temp[kThreads / 32];
    const int warp = threadIdx.x / 32;
    const int v = in[blockIdx.x * kThreads + threadIdx.x];
    const int m = WarpReduce(temp[warp]).Reduce(v, cuda::maximum<>{});
    if (threadIdx.x % 32 == 0) out[blockIdx.x * (kThreads / 32) + warp] = m;
}

namespace {

const char *verdict(bool ok) { return ok ? "OK" : "WRONG"; }

}  // namespace

int main() {
    const int blocks = 4096, n = blocks * kThreads, tiles = 1024, m = tiles * kTile;
    float *fin, *fout;
    int *iin, *iout, *win, *wout;
    unsigned *keys, *data, *bins;
    CHECK(cudaMalloc(&fin, n * sizeof(float)));
    CHECK(cudaMalloc(&fout, blocks * sizeof(float)));
    CHECK(cudaMalloc(&iin, m * sizeof(int)));
    CHECK(cudaMalloc(&iout, m * sizeof(int)));
    CHECK(cudaMalloc(&keys, m * sizeof(unsigned)));
    CHECK(cudaMalloc(&data, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&bins, 256 * sizeof(unsigned)));
    CHECK(cudaMalloc(&win, n * sizeof(int)));
    CHECK(cudaMalloc(&wout, n / 32 * sizeof(int)));

    std::vector<float> h_f(n);
    for (int i = 0; i < n; ++i) h_f[i] = (float)(i % 17) - 8.0f;
    std::vector<int> h_i(m);
    for (int i = 0; i < m; ++i) h_i[i] = i % 7 - 3;
    std::vector<unsigned> h_k(m), h_d(n);
    for (int i = 0; i < m; ++i) h_k[i] = (unsigned)i;
    for (int i = 0; i < n; ++i) h_d[i] = (unsigned)i;
    std::vector<int> h_w(n);
    for (int i = 0; i < n; ++i) h_w[i] = (int)((i * 2654435761u) % 100003);
    CHECK(cudaMemcpy(fin, h_f.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(iin, h_i.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(keys, h_k.data(), m * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(data, h_d.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(win, h_w.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(bins, 0, 256 * sizeof(unsigned)));

    block_sum<<<blocks, kThreads>>>(fin, fout);
    block_scan<<<tiles, kThreads>>>(iin, iout);
    block_sort<<<tiles, kThreads>>>(keys);
    block_hist<<<blocks, kThreads>>>(data, bins);
    warp_max<<<blocks, kThreads>>>(win, wout);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    {
        std::vector<float> got(blocks);
        CHECK(cudaMemcpy(got.data(), fout, blocks * sizeof(float), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int b = 0; b < blocks; ++b) {
            float want = 0;
            for (int t = 0; t < kThreads; ++t) want += h_f[b * kThreads + t];
            ok = ok && got[b] == want;
        }
        std::printf("block_sum: %s\n", verdict(ok));
    }
    {
        std::vector<int> got(m);
        CHECK(cudaMemcpy(got.data(), iout, m * sizeof(int), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int t = 0; t < tiles; ++t) {
            int run = 0;
            for (int i = 0; i < kTile; ++i) {
                ok = ok && got[t * kTile + i] == run;
                run += h_i[t * kTile + i];
            }
        }
        std::printf("block_scan: %s\n", verdict(ok));
    }
    {
        std::vector<unsigned> got(m);
        CHECK(cudaMemcpy(got.data(), keys, m * sizeof(unsigned), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int t = 0; t < tiles; ++t) {
            std::vector<unsigned> want(kTile);
            for (int i = 0; i < kTile; ++i) want[i] = h_k[t * kTile + i] * 2654435761u;
            std::sort(want.begin(), want.end());
            for (int i = 0; i < kTile; ++i) ok = ok && got[t * kTile + i] == want[i];
        }
        std::printf("block_sort: %s\n", verdict(ok));
    }
    {
        std::vector<unsigned> got(256), want(256, 0);
        CHECK(cudaMemcpy(got.data(), bins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) {
            const unsigned w = h_d[i] * 2654435761u;
            for (int k = 0; k < kItems; ++k) ++want[(w >> (8 * k)) & 255u];
        }
        std::printf("block_hist: %s\n", verdict(got == want));
    }
    {
        std::vector<int> got(n / 32);
        CHECK(cudaMemcpy(got.data(), wout, n / 32 * sizeof(int), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int w = 0; w < n / 32; ++w) {
            int want = h_w[w * 32];
            for (int l = 1; l < 32; ++l) want = std::max(want, h_w[w * 32 + l]);
            ok = ok && got[w] == want;
        }
        std::printf("warp_max: %s\n", verdict(ok));
    }
    std::printf("cub: done\n");
    return 0;
}
