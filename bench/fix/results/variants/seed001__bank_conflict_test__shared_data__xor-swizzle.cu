// seed001.cu: seed 001's example, before and after. Both kernels stage b in shared memory.
// bank_conflict_test then reads shared_data[(tid % 32) * 32 + tid / 32]: in each warp only
// lanes 0-7 pass the bound check, and all eight read the same bank (the warp's index), an
// 8-way conflict on one load per warp, 8 warps x 7 = 56 extra wavefronts, the article's
// "56 bank conflicts". bank_conflict_test_fixed reads shared_data[tid]: no conflict.
// One block of 256 threads, as in the article.
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

// bankcheck: kernel=bank_conflict_test grid=1 block=256 arg=a=zeros:1024 arg=b=random:1024 arg=c=random:1024 arg=N=256
__global__ void bank_conflict_test(float *a, float *b, float *c, int N) {
    __shared__ float shared_data[256];
    int tid = threadIdx.x;

    // Stage the data in shared memory.
    shared_data[tid ^ ((tid >> 5) & 7)] = b[tid];
    __syncthreads();

    // The conflicting pattern: lanes of a warp read elements 32 apart, all in one bank.
    int conflict_idx = (tid % 32) * 32 + (tid / 32);
    if (conflict_idx < 256) {
        a[tid] = shared_data[conflict_idx ^ ((conflict_idx >> 5) & 7)] + c[tid];
    } else {
        a[tid] = b[tid] + c[tid];
    }
}

// bankcheck: kernel=bank_conflict_test_fixed grid=1 block=256 arg=a=zeros:1024 arg=b=random:1024 arg=c=random:1024 arg=N=256
__global__ void bank_conflict_test_fixed(float *a, float *b, float *c, int N) {
    __shared__ float shared_data[256];
    int tid = threadIdx.x;

    // Stage the data in shared memory.
    shared_data[tid] = b[tid];
    __syncthreads();

    // Sequential access: no bank conflict.
    int conflict_idx = tid;
    if (conflict_idx < 256) {
        a[tid] = shared_data[conflict_idx] + c[tid];
    } else {
        a[tid] = b[tid] + c[tid];
    }
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 20250304;
static float next_random() {  // xorshift64*, uniform in [-1, 1)
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ull) >> 40) / 8388608.0f - 1.0f;
}

typedef void (*Kernel)(float *, float *, float *, int);

static bool check(const char *name, const std::vector<float> &got, const std::vector<float> &want) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (!(got[i] == want[i]) && bad++ == 0) first = i;
    if (bad == 0) {
        std::printf("%s: OK\n", name);
        return true;
    }
    std::printf("%s: WRONG (%zu of %zu elements differ; first a[%zu]: got %g, want %g)\n", name,
                bad, got.size(), first, got[first], want[first]);
    return false;
}

int main() {
    const int N = 256;
    std::vector<float> b(N), c(N), a(N), want_test(N), want_fixed(N);
    for (int i = 0; i < N; ++i) b[i] = next_random();
    for (int i = 0; i < N; ++i) c[i] = next_random();
    for (int tid = 0; tid < N; ++tid) {
        int idx = (tid % 32) * 32 + tid / 32;
        want_test[tid] = idx < 256 ? b[idx] + c[tid] : b[tid] + c[tid];
        want_fixed[tid] = b[tid] + c[tid];
    }

    float *d_a, *d_b, *d_c;
    CHECK(cudaMalloc(&d_a, N * sizeof(float)));
    CHECK(cudaMalloc(&d_b, N * sizeof(float)));
    CHECK(cudaMalloc(&d_c, N * sizeof(float)));
    CHECK(cudaMemcpy(d_b, b.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c, c.data(), N * sizeof(float), cudaMemcpyHostToDevice));

    struct {
        const char *name;
        Kernel kernel;
        const std::vector<float> *want;
    } cases[] = {{"bank_conflict_test", bank_conflict_test, &want_test},
                 {"bank_conflict_test_fixed", bank_conflict_test_fixed, &want_fixed}};
    int failed = 0;
    for (auto &k : cases) {
        CHECK(cudaMemset(d_a, 0xFF, N * sizeof(float)));  // NaN: unwritten elements fail
        k.kernel<<<1, 256>>>(d_a, d_b, d_c, N);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(a.data(), d_a, N * sizeof(float), cudaMemcpyDeviceToHost));
        failed += !check(k.name, a, *k.want);
    }
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    return failed ? 1 : 0;
}
