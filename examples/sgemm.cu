// sgemm.cu: the register-tiled SGEMM ladder (after Simon Boehm, "How to Optimize a CUDA
// Matmul Kernel for cuBLAS-like Performance"), C = A * B for 512x512 row-major floats.
// Each step keeps more of the product in registers and reads shared memory in wider runs,
// so ptxas merges neighbouring scalar shared loads into LDS.64/LDS.128:
//   sgemm_1d_blocktiling:   64x64 tile, BK=8; each thread computes TM=8 rows of one column.
//                           As[row][k] is the same word for the whole warp (a broadcast).
//   sgemm_2d_blocktiling:   128x128 tile, BK=8; each thread computes an 8x8 block (TMxTN).
//   sgemm_vectorized:       as 2D, with float4 global loads; As is stored transposed,
//                           As[k][row], so the inner loop reads both tiles along rows.
//                           The transposing store puts lanes 512 words apart: 2-way.
//   sgemm_warptiling:       128x128 tile, BK=16, 4 warps of 64x64, each thread 8x16 results
//                           in four 8x4 sub-tiles.
//   sgemm_double_buffering: sgemm_vectorized with two shared buffers: the next tile is
//                           stored into one while the other is read, one barrier a tile.
// main() runs each kernel once and checks C against a double-precision CPU product.
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

constexpr int kN = 512;  // M = N = K

// bankcheck: kernel=sgemm_1d_blocktiling grid=8,8 block=512 arg=M=512 arg=N=512 arg=K=512 arg=A=random:1M arg=B=random:1M arg=C=zeros:1M
__global__ void sgemm_1d_blocktiling(int M, int N, int K, const float *A, const float *B,
                                     float *C) {
    constexpr int BM = 64, BN = 64, BK = 8, TM = 8;  // blockDim.x = BM * BN / TM = 512
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int threadCol = threadIdx.x % BN;
    const int threadRow = threadIdx.x / BN;
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    // One element of each tile per thread.
    const int innerColA = threadIdx.x % BK, innerRowA = threadIdx.x / BK;
    const int innerColB = threadIdx.x % BN, innerRowB = threadIdx.x / BN;

    float threadResults[TM] = {0.0f};
    for (int bk = 0; bk < K; bk += BK) {
        As[innerRowA * BK + innerColA] = A[innerRowA * K + innerColA];
        Bs[innerRowB * BN + innerColB] = B[innerRowB * N + innerColB];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int dotIdx = 0; dotIdx < BK; ++dotIdx) {
            float tmpB = Bs[dotIdx * BN + threadCol];
            for (int resIdx = 0; resIdx < TM; ++resIdx)
                threadResults[resIdx] += As[(threadRow * TM + resIdx) * BK + dotIdx] * tmpB;
        }
        __syncthreads();
    }
    for (int resIdx = 0; resIdx < TM; ++resIdx)
        C[(threadRow * TM + resIdx) * N + threadCol] = threadResults[resIdx];
}

// bankcheck: kernel=sgemm_2d_blocktiling grid=4,4 block=256 arg=M=512 arg=N=512 arg=K=512 arg=A=random:1M arg=B=random:1M arg=C=zeros:1M
__global__ void sgemm_2d_blocktiling(int M, int N, int K, const float *A, const float *B,
                                     float *C) {
    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;  // 256 threads
    constexpr int kThreads = (BM / TM) * (BN / TN);
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int threadCol = threadIdx.x % (BN / TN);
    const int threadRow = threadIdx.x / (BN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    const int innerColA = threadIdx.x % BK, innerRowA = threadIdx.x / BK;
    constexpr int strideA = kThreads / BK;  // rows of As loaded per pass
    const int innerColB = threadIdx.x % BN, innerRowB = threadIdx.x / BN;
    constexpr int strideB = kThreads / BN;

    float threadResults[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    for (int bk = 0; bk < K; bk += BK) {
        for (int off = 0; off < BM; off += strideA)
            As[(innerRowA + off) * BK + innerColA] = A[(innerRowA + off) * K + innerColA];
        for (int off = 0; off < BK; off += strideB)
            Bs[(innerRowB + off) * BN + innerColB] = B[(innerRowB + off) * N + innerColB];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int dotIdx = 0; dotIdx < BK; ++dotIdx) {
            for (int i = 0; i < TM; ++i) regM[i] = As[(threadRow * TM + i) * BK + dotIdx];
            for (int i = 0; i < TN; ++i) regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
            for (int m = 0; m < TM; ++m)
                for (int n = 0; n < TN; ++n) threadResults[m * TN + n] += regM[m] * regN[n];
        }
        __syncthreads();
    }
    for (int m = 0; m < TM; ++m)
        for (int n = 0; n < TN; ++n)
            C[(threadRow * TM + m) * N + threadCol * TN + n] = threadResults[m * TN + n];
}

// bankcheck: kernel=sgemm_vectorized grid=4,4 block=256 arg=M=512 arg=N=512 arg=K=512 arg=A=random:1M arg=B=random:1M arg=C=zeros:1M
__global__ void sgemm_vectorized(int M, int N, int K, const float *A, const float *B,
                                 float *C) {
    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;  // 256 threads
    __shared__ float As[BK * BM];  // transposed: As[k][row]
    __shared__ float Bs[BK * BN];
    const int threadCol = threadIdx.x % (BN / TN);
    const int threadRow = threadIdx.x / (BN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    // One float4 of each tile per thread: A is 128 rows of 2 float4, B 8 rows of 32.
    const int innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    const int innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);

    float threadResults[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    for (int bk = 0; bk < K; bk += BK) {
        float4 tmp = reinterpret_cast<const float4 *>(&A[innerRowA * K + innerColA * 4])[0];
        As[(innerColA * 4 + 0) * BM + innerRowA] = tmp.x;
        As[(innerColA * 4 + 1) * BM + innerRowA] = tmp.y;
        As[(innerColA * 4 + 2) * BM + innerRowA] = tmp.z;
        As[(innerColA * 4 + 3) * BM + innerRowA] = tmp.w;
        reinterpret_cast<float4 *>(&Bs[innerRowB * BN + innerColB * 4])[0] =
            reinterpret_cast<const float4 *>(&B[innerRowB * N + innerColB * 4])[0];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int dotIdx = 0; dotIdx < BK; ++dotIdx) {
            for (int i = 0; i < TM; ++i) regM[i] = As[dotIdx * BM + threadRow * TM + i];
            for (int i = 0; i < TN; ++i) regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
            for (int m = 0; m < TM; ++m)
                for (int n = 0; n < TN; ++n) threadResults[m * TN + n] += regM[m] * regN[n];
        }
        __syncthreads();
    }
    for (int m = 0; m < TM; ++m)
        for (int n = 0; n < TN; n += 4) {
            float4 out = make_float4(threadResults[m * TN + n], threadResults[m * TN + n + 1],
                                     threadResults[m * TN + n + 2], threadResults[m * TN + n + 3]);
            reinterpret_cast<float4 *>(&C[(threadRow * TM + m) * N + threadCol * TN + n])[0] = out;
        }
}

// bankcheck: kernel=sgemm_warptiling grid=4,4 block=128 arg=M=512 arg=N=512 arg=K=512 arg=A=random:1M arg=B=random:1M arg=C=zeros:1M
__global__ void sgemm_warptiling(int M, int N, int K, const float *A, const float *B,
                                 float *C) {
    constexpr int BM = 128, BN = 128, BK = 16;
    constexpr int WM = 64, WN = 64, WNITER = 4, TM = 8, TN = 4;
    constexpr int kThreads = 128;
    constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);  // 1
    constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;      // 64, 16
    __shared__ float As[BK * BM];  // transposed: As[k][row]
    __shared__ float Bs[BK * BN];
    const int warpIdx = threadIdx.x / 32;
    const int warpCol = warpIdx % (BN / WN), warpRow = warpIdx / (BN / WN);
    const int lane = threadIdx.x % 32;
    const int threadColInWarp = lane % (WSUBN / TN);  // 0..3
    const int threadRowInWarp = lane / (WSUBN / TN);  // 0..7
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += (blockIdx.y * BM + warpRow * WM) * N + blockIdx.x * BN + warpCol * WN;
    const int innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    constexpr int rowStrideA = kThreads * 4 / BK;  // 32
    const int innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);
    constexpr int rowStrideB = kThreads / (BN / 4);  // 4

    float threadResults[WMITER * TM * WNITER * TN] = {0.0f};
    float regM[WMITER * TM], regN[WNITER * TN];
    for (int bk = 0; bk < K; bk += BK) {
        for (int off = 0; off < BM; off += rowStrideA) {
            float4 tmp =
                reinterpret_cast<const float4 *>(&A[(innerRowA + off) * K + innerColA * 4])[0];
            As[(innerColA * 4 + 0) * BM + innerRowA + off] = tmp.x;
            As[(innerColA * 4 + 1) * BM + innerRowA + off] = tmp.y;
            As[(innerColA * 4 + 2) * BM + innerRowA + off] = tmp.z;
            As[(innerColA * 4 + 3) * BM + innerRowA + off] = tmp.w;
        }
        for (int off = 0; off < BK; off += rowStrideB)
            reinterpret_cast<float4 *>(&Bs[(innerRowB + off) * BN + innerColB * 4])[0] =
                reinterpret_cast<const float4 *>(&B[(innerRowB + off) * N + innerColB * 4])[0];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int dotIdx = 0; dotIdx < BK; ++dotIdx) {
            for (int wSubRow = 0; wSubRow < WMITER; ++wSubRow)
                for (int i = 0; i < TM; ++i)
                    regM[wSubRow * TM + i] = As[dotIdx * BM + warpRow * WM + wSubRow * WSUBM +
                                                threadRowInWarp * TM + i];
            for (int wSubCol = 0; wSubCol < WNITER; ++wSubCol)
                for (int i = 0; i < TN; ++i)
                    regN[wSubCol * TN + i] = Bs[dotIdx * BN + warpCol * WN + wSubCol * WSUBN +
                                                threadColInWarp * TN + i];
            for (int wSubRow = 0; wSubRow < WMITER; ++wSubRow)
                for (int wSubCol = 0; wSubCol < WNITER; ++wSubCol)
                    for (int m = 0; m < TM; ++m)
                        for (int n = 0; n < TN; ++n)
                            threadResults[(wSubRow * TM + m) * (WNITER * TN) + wSubCol * TN + n] +=
                                regM[wSubRow * TM + m] * regN[wSubCol * TN + n];
        }
        __syncthreads();
    }
    for (int wSubRow = 0; wSubRow < WMITER; ++wSubRow)
        for (int wSubCol = 0; wSubCol < WNITER; ++wSubCol) {
            float *C_sub = C + (wSubRow * WSUBM) * N + wSubCol * WSUBN;
            for (int m = 0; m < TM; ++m) {
                const float *r = &threadResults[(wSubRow * TM + m) * (WNITER * TN) + wSubCol * TN];
                reinterpret_cast<float4 *>(
                    &C_sub[(threadRowInWarp * TM + m) * N + threadColInWarp * TN])[0] =
                    make_float4(r[0], r[1], r[2], r[3]);
            }
        }
}

// bankcheck: kernel=sgemm_double_buffering grid=4,4 block=256 arg=M=512 arg=N=512 arg=K=512 arg=A=random:1M arg=B=random:1M arg=C=zeros:1M
__global__ void sgemm_double_buffering(int M, int N, int K, const float *A, const float *B,
                                       float *C) {
    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;  // 256 threads
    __shared__ float As[2][BK * BM];  // transposed: As[buf][k][row]
    __shared__ float Bs[2][BK * BN];
    const int threadCol = threadIdx.x % (BN / TN);
    const int threadRow = threadIdx.x / (BN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    const int innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    const int innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);

    // Tile t goes to buffer t % 2. Tile t + 1 is stored while tile t is read: the buffer it
    // overwrites was last read in step t - 1, which ended with the barrier.
    auto store_tile = [&](int buf, int bk) {
        float4 tmp = reinterpret_cast<const float4 *>(&A[innerRowA * K + bk + innerColA * 4])[0];
        As[buf][(innerColA * 4 + 0) * BM + innerRowA] = tmp.x;
        As[buf][(innerColA * 4 + 1) * BM + innerRowA] = tmp.y;
        As[buf][(innerColA * 4 + 2) * BM + innerRowA] = tmp.z;
        As[buf][(innerColA * 4 + 3) * BM + innerRowA] = tmp.w;
        reinterpret_cast<float4 *>(&Bs[buf][innerRowB * BN + innerColB * 4])[0] =
            reinterpret_cast<const float4 *>(&B[(bk + innerRowB) * N + innerColB * 4])[0];
    };

    float threadResults[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    store_tile(0, 0);
    __syncthreads();
    for (int bk = 0, buf = 0; bk < K; bk += BK, buf ^= 1) {
        if (bk + BK < K) store_tile(buf ^ 1, bk + BK);
        for (int dotIdx = 0; dotIdx < BK; ++dotIdx) {
            for (int i = 0; i < TM; ++i) regM[i] = As[buf][dotIdx * BM + threadRow * TM + i];
            for (int i = 0; i < TN; ++i) regN[i] = Bs[buf][dotIdx * BN + threadCol * TN + i];
            for (int m = 0; m < TM; ++m)
                for (int n = 0; n < TN; ++n) threadResults[m * TN + n] += regM[m] * regN[n];
        }
        __syncthreads();
    }
    for (int m = 0; m < TM; ++m)
        for (int n = 0; n < TN; n += 4) {
            float4 out = make_float4(threadResults[m * TN + n], threadResults[m * TN + n + 1],
                                     threadResults[m * TN + n + 2], threadResults[m * TN + n + 3]);
            reinterpret_cast<float4 *>(&C[(threadRow * TM + m) * N + threadCol * TN + n])[0] = out;
        }
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 0x5e3301;
static float next_random() {  // xorshift64*, uniform in [0, 1)
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ull) >> 40) / 16777216.0f;
}

typedef void (*Kernel)(int, int, int, const float *, const float *, float *);

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

    // Exactly the launch comments' configurations.
    struct {
        const char *name;
        Kernel kernel;
        dim3 grid, block;
    } cases[] = {
        {"sgemm_1d_blocktiling", sgemm_1d_blocktiling, dim3(kN / 64, kN / 64), dim3(512)},
        {"sgemm_2d_blocktiling", sgemm_2d_blocktiling, dim3(kN / 128, kN / 128), dim3(256)},
        {"sgemm_vectorized", sgemm_vectorized, dim3(kN / 128, kN / 128), dim3(256)},
        {"sgemm_warptiling", sgemm_warptiling, dim3(kN / 128, kN / 128), dim3(128)},
        {"sgemm_double_buffering", sgemm_double_buffering, dim3(kN / 128, kN / 128), dim3(256)},
    };
    const double rtol = 1e-4;  // 512 float FMAs of products in [0, 1), sums near 128
    int failed = 0;
    for (auto &k : cases) {
        CHECK(cudaMemset(d_C, 0xFF, nn * sizeof(float)));  // NaN: unwritten elements fail
        k.kernel<<<k.grid, k.block>>>(kN, kN, kN, d_A, d_B, d_C);
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
