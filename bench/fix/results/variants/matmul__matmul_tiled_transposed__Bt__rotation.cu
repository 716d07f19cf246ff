// matmul.cu: tiled matrix multiply C = A * B, 1024x1024 floats, 32x32 tiles, one output
// element per thread. matmul_tiled stores both tiles by rows and reads As[ty][k] (the same
// word for the whole warp: a broadcast) and Bs[k][tx] (32 consecutive words): no conflicts.
// matmul_tiled_transposed stores the B tile transposed, Bt[tx][ty], and reads Bt[tx][k]:
// lanes 32 words apart, the whole warp in one bank, on the store and on every load.
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

#define TILE 32
constexpr int kN = 1024;

// bankcheck: kernel=matmul_tiled grid=32,32 block=32,32 arg=A=random:4M arg=B=random:4M arg=C=zeros:4M arg=n=1024
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// bankcheck: kernel=matmul_tiled_transposed grid=32,32 block=32,32 arg=A=random:4M arg=B=random:4M arg=C=zeros:4M arg=n=1024
__global__ void matmul_tiled_transposed(const float *A, const float *B, float *C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bt[TILE][TILE];  // Bt[j][k] holds B[t * TILE + k][j]
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bt[tx][(ty + tx) % TILE] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bt[tx][(k + tx) % TILE];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 0x3a7301;
static float next_random() {  // xorshift64*, uniform in [0, 1)
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ull) >> 40) / 16777216.0f;
}

typedef void (*Kernel)(const float *, const float *, float *, int);

int main() {
    const size_t nn = (size_t)kN * kN;
    std::vector<float> A(nn), B(nn), C(nn);
    std::vector<double> want(nn, 0.0);
    for (auto &v : A) v = next_random();
    for (auto &v : B) v = next_random();
    for (int i = 0; i < kN; ++i)  // double-precision reference, i-k-j order
        for (int k = 0; k < kN; ++k) {
            double a = A[(size_t)i * kN + k];
            const float *b = &B[(size_t)k * kN];
            double *w = &want[(size_t)i * kN];
            for (int j = 0; j < kN; ++j) w[j] += a * b[j];
        }

    float *d_A, *d_B, *d_C;
    CHECK(cudaMalloc(&d_A, nn * sizeof(float)));
    CHECK(cudaMalloc(&d_B, nn * sizeof(float)));
    CHECK(cudaMalloc(&d_C, nn * sizeof(float)));
    CHECK(cudaMemcpy(d_A, A.data(), nn * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_B, B.data(), nn * sizeof(float), cudaMemcpyHostToDevice));

    struct {
        const char *name;
        Kernel kernel;
    } cases[] = {{"matmul_tiled", matmul_tiled},
                 {"matmul_tiled_transposed", matmul_tiled_transposed}};
    const double rtol = 1e-4;  // 1024 float FMAs of products in [0, 1), sums near 256
    int failed = 0;
    for (auto &k : cases) {
        CHECK(cudaMemset(d_C, 0xFF, nn * sizeof(float)));  // NaN: unwritten elements fail
        k.kernel<<<dim3(kN / TILE, kN / TILE), dim3(TILE, TILE)>>>(d_A, d_B, d_C, kN);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(C.data(), d_C, nn * sizeof(float), cudaMemcpyDeviceToHost));
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < nn; ++i)
            if (!(std::fabs(C[i] - want[i]) <= rtol * std::fabs(want[i])) && bad++ == 0) first = i;
        if (bad == 0) {
            std::printf("%s: OK\n", k.name);
        } else {
            std::printf("%s: WRONG (%zu of %zu elements off by more than %g relative; first "
                        "C[%zu][%zu]: got %.9g, want %.9g)\n",
                        k.name, bad, nn, rtol, first / kN, first % kN, C[first], want[first]);
            ++failed;
        }
    }
    CHECK(cudaFree(d_A));
    CHECK(cudaFree(d_B));
    CHECK(cudaFree(d_C));
    return failed ? 1 : 0;
}
