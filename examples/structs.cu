// structs.cu: arrays of structs in shared memory, read one struct per thread (seed 003,
// after the CUDA Programming Guide 2.2). struct { float x, y, z; } is 12 bytes, aligned to 4:
// three 32-bit loads with a stride of 3 words; 3 is odd, so no two lanes share a bank.
// struct { float x, y; } is 8 bytes, aligned to 4: the PTX has two 32-bit loads with a
// stride of 2 words (the seed's 2-way conflict), but ptxas, knowing the array's alignment,
// merges them into one LDS.64, which the H100 serves conflict-free (2 wavefronts, the
// 64-bit minimum). Each kernel fills its array with unit-stride float stores (a coalesced
// copy of the array-of-structs input), reads shared[tid], writes the fields to global.
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

struct Vec3 {
    float x, y, z;
};
struct Vec2 {
    float x, y;
};

// bankcheck: kernel=read_struct3 grid=64 block=256 arg=out_x=zeros:65536 arg=out_y=zeros:65536 arg=out_z=zeros:65536 arg=in=random:196608
__global__ void read_struct3(float *out_x, float *out_y, float *out_z, const float *in) {
    __shared__ Vec3 shared[kBlock];
    int tid = threadIdx.x;
    float *flat = reinterpret_cast<float *>(shared);
    const float *src = in + blockIdx.x * 3 * kBlock;
#pragma unroll
    for (int k = 0; k < 3; ++k) flat[tid + k * kBlock] = src[tid + k * kBlock];
    __syncthreads();
    Vec3 data = shared[tid];
    int gid = blockIdx.x * blockDim.x + tid;
    out_x[gid] = data.x;
    out_y[gid] = data.y;
    out_z[gid] = data.z;
}

// bankcheck: kernel=read_struct2 grid=64 block=256 arg=out_x=zeros:65536 arg=out_y=zeros:65536 arg=in=random:131072
__global__ void read_struct2(float *out_x, float *out_y, const float *in) {
    __shared__ Vec2 shared[kBlock];
    int tid = threadIdx.x;
    float *flat = reinterpret_cast<float *>(shared);
    const float *src = in + blockIdx.x * 2 * kBlock;
#pragma unroll
    for (int k = 0; k < 2; ++k) flat[tid + k * kBlock] = src[tid + k * kBlock];
    __syncthreads();
    Vec2 data = shared[tid];
    int gid = blockIdx.x * blockDim.x + tid;
    out_x[gid] = data.x;
    out_y[gid] = data.y;
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 2011;
static float next_random() {  // xorshift64*, uniform in [-1, 1)
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ull) >> 40) / 8388608.0f - 1.0f;
}

// Checks field `field` of `fields`-float structs: out[i] == in[i * fields + field].
static int compare(const char *name, const char *field_name, const std::vector<float> &got,
                   const std::vector<float> &in, int fields, int field) {
    int bad = 0, first = 0;
    for (int i = 0; i < (int)got.size(); ++i)
        if (!(got[i] == in[i * fields + field]) && bad++ == 0) first = i;
    if (bad)
        std::printf("%s: WRONG (%d of %zu %s values differ; first [%d]: got %g, want %g)\n", name,
                    bad, got.size(), field_name, first, got[first], in[first * fields + field]);
    return bad;
}

int main() {
    const int n = kGrid * kBlock;
    std::vector<float> in3(3 * n), in2(2 * n);
    for (auto &v : in3) v = next_random();
    for (auto &v : in2) v = next_random();

    float *d_in, *d_x, *d_y, *d_z;
    CHECK(cudaMalloc(&d_in, 3 * n * sizeof(float)));
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMalloc(&d_z, n * sizeof(float)));
    std::vector<float> x(n), y(n), z(n);
    int failed = 0;

    // read_struct3
    CHECK(cudaMemcpy(d_in, in3.data(), 3 * n * sizeof(float), cudaMemcpyHostToDevice));
    for (float *p : {d_x, d_y, d_z}) CHECK(cudaMemset(p, 0xFF, n * sizeof(float)));
    read_struct3<<<kGrid, kBlock>>>(d_x, d_y, d_z, d_in);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(x.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(z.data(), d_z, n * sizeof(float), cudaMemcpyDeviceToHost));
    {
        int bad = compare("read_struct3", "x", x, in3, 3, 0) +
                  compare("read_struct3", "y", y, in3, 3, 1) +
                  compare("read_struct3", "z", z, in3, 3, 2);
        if (!bad) std::printf("read_struct3: OK\n");
        failed += bad != 0;
    }

    // read_struct2
    CHECK(cudaMemcpy(d_in, in2.data(), 2 * n * sizeof(float), cudaMemcpyHostToDevice));
    for (float *p : {d_x, d_y}) CHECK(cudaMemset(p, 0xFF, n * sizeof(float)));
    read_struct2<<<kGrid, kBlock>>>(d_x, d_y, d_in);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(x.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    {
        int bad = compare("read_struct2", "x", x, in2, 2, 0) +
                  compare("read_struct2", "y", y, in2, 2, 1);
        if (!bad) std::printf("read_struct2: OK\n");
        failed += bad != 0;
    }

    for (float *p : {d_in, d_x, d_y, d_z}) CHECK(cudaFree(p));
    return failed ? 1 : 0;
}
