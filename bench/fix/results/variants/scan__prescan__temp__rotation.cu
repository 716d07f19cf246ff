// scan.cu: the work-efficient (Blelloch) exclusive scan of GPU Gems 3, chapter 39, 1024
// elements per block with 512 threads (two elements each), 1024 blocks scanned separately.
// prescan is the plain version: in the up-sweep and down-sweep, active lanes address
// temp[offset * (2 * thid + 1) - 1], 2 * offset words apart, so the conflicts grow to
// 16- and 32-way as offset grows. prescan_padded adds CONFLICT_FREE_OFFSET(n) = n >> 5, one
// padding word after every 32, which spreads those lanes over distinct banks; its shared
// array is 1024 + 32 floats instead of 1024 (both are dynamic shared memory, as in the
// book).
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

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

constexpr int kN = 1024;          // elements per block
constexpr int kThreads = kN / 2;  // 512
constexpr int kBlocks = 1024;

// bankcheck: kernel=prescan grid=1024 block=512 smem=4096 arg=g_odata=zeros:4M arg=g_idata=random:4M arg=n=1024
__global__ void prescan(float *g_odata, const float *g_idata, int n) {
    extern __shared__ float temp[];
    int thid = threadIdx.x;
    int offset = 1;
    g_idata += blockIdx.x * n;
    g_odata += blockIdx.x * n;

    temp[(2 * thid) - (2 * thid) % 32 + ((2 * thid) + (2 * thid) / 32) % 32] = g_idata[2 * thid];  // load input into shared memory
    temp[(2 * thid + 1) - (2 * thid + 1) % 32 + ((2 * thid + 1) + (2 * thid + 1) / 32) % 32] = g_idata[2 * thid + 1];

    for (int d = n >> 1; d > 0; d >>= 1) {  // build sum in place up the tree
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            temp[bi - bi % 32 + (bi + bi / 32) % 32] += temp[ai - ai % 32 + (ai + ai / 32) % 32];
        }
        offset *= 2;
    }

    if (thid == 0) temp[(n - 1) - (n - 1) % 32 + ((n - 1) + (n - 1) / 32) % 32] = 0;  // clear the last element

    for (int d = 1; d < n; d *= 2) {  // traverse down the tree and build the scan
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            float t = temp[ai - ai % 32 + (ai + ai / 32) % 32];
            temp[ai - ai % 32 + (ai + ai / 32) % 32] = temp[bi - bi % 32 + (bi + bi / 32) % 32];
            temp[bi - bi % 32 + (bi + bi / 32) % 32] += t;
        }
    }
    __syncthreads();

    g_odata[2 * thid] = temp[(2 * thid) - (2 * thid) % 32 + ((2 * thid) + (2 * thid) / 32) % 32];  // write results to device memory
    g_odata[2 * thid + 1] = temp[(2 * thid + 1) - (2 * thid + 1) % 32 + ((2 * thid + 1) + (2 * thid + 1) / 32) % 32];
}

// bankcheck: kernel=prescan_padded grid=1024 block=512 smem=4224 arg=g_odata=zeros:4M arg=g_idata=random:4M arg=n=1024
__global__ void prescan_padded(float *g_odata, const float *g_idata, int n) {
    extern __shared__ float temp[];
    int thid = threadIdx.x;
    int offset = 1;
    g_idata += blockIdx.x * n;
    g_odata += blockIdx.x * n;

    int ai = thid;
    int bi = thid + (n / 2);
    int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bankOffsetA] = g_idata[ai];
    temp[bi + bankOffsetB] = g_idata[bi];

    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }

    if (thid == 0) temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0;

    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();

    g_odata[ai] = temp[ai + bankOffsetA];
    g_odata[bi] = temp[bi + bankOffsetB];
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 0x6e3539;
static float next_random() {  // xorshift64*, uniform in [0, 1)
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ull) >> 40) / 16777216.0f;
}

typedef void (*Kernel)(float *, const float *, int);

int main() {
    const int total = kBlocks * kN;
    std::vector<float> in(total), got(total);
    std::vector<double> want(total);
    for (auto &v : in) v = next_random();
    for (int b = 0; b < kBlocks; ++b) {
        double sum = 0;
        for (int i = 0; i < kN; ++i) {
            want[b * kN + i] = sum;
            sum += in[b * kN + i];
        }
    }

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, total * sizeof(float)));
    CHECK(cudaMalloc(&d_out, total * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), total * sizeof(float), cudaMemcpyHostToDevice));

    struct {
        const char *name;
        Kernel kernel;
        size_t smem;
    } cases[] = {{"prescan", prescan, kN * sizeof(float)},
                 {"prescan_padded", prescan_padded,
                  (kN + CONFLICT_FREE_OFFSET(kN)) * sizeof(float)}};  // 4096 and 4224 bytes
    // Partial sums reach ~512; float rounding along the tree stays far under 1e-5 of that.
    const double rtol = 1e-5;
    int failed = 0;
    for (auto &k : cases) {
        CHECK(cudaMemset(d_out, 0xFF, total * sizeof(float)));  // NaN: unwritten elements fail
        k.kernel<<<kBlocks, kThreads, k.smem>>>(d_out, d_in, kN);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(got.data(), d_out, total * sizeof(float), cudaMemcpyDeviceToHost));
        int bad = 0, first = 0;
        for (int i = 0; i < total; ++i) {
            double block_total = want[(i / kN) * kN + kN - 1] + in[(i / kN) * kN + kN - 1];
            if (!(std::fabs(got[i] - want[i]) <= rtol * block_total) && bad++ == 0) first = i;
        }
        if (bad == 0) {
            std::printf("%s: OK\n", k.name);
        } else {
            std::printf("%s: WRONG (%d of %d elements off by more than %g of the block total; "
                        "first [%d]: got %.9g, want %.9g)\n",
                        k.name, bad, total, rtol, first, got[first], want[first]);
            ++failed;
        }
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return failed ? 1 : 0;
}
