// wmma_gemm.cu: a tiled tensor-core GEMM written with nvcuda::wmma, C = A * B for row-major
// f16 A (MxK) and B (KxN), f32 accumulators and f32 C, 512^3. A block of 4 warps computes
// a 64x64 tile of C, each warp 32x32 as 2x2 wmma 16x16x16 accumulators. K advances 32 at a
// time: the block copies the A (64x32) and B (32x64) tiles to shared memory with 16-byte
// loads and stores, and each warp loads its fragments from there with
// wmma::load_matrix_sync (A row-major, B row-major). The accumulators go back through a
// shared f32 tile (wmma::store_matrix_sync) so that C is written with 16-byte stores.
//   wmma_gemm_unpadded: tiles as wide as the data. A's rows are 64 bytes, B's 128 bytes,
//                       the C tile's 256 bytes: the 8 rows of every 8x8 matrix that a
//                       fragment load reads fall on the same banks (4-way for A, 8-way for
//                       B), and so do the accumulator stores (4-way).
//   wmma_gemm_padded:   every row padded by 16 bytes (A, B: 8 halves) or 32 bytes (C: 8
//                       floats), the padding the CUDA samples call a skew: fragment loads
//                       and accumulator stores conflict-free.
// main() runs each kernel once and checks C against a double-precision product of the
// same f16 inputs: relative Frobenius error below 1e-3, no NaN.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

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
constexpr int BM = 64, BN = 64, BK = 32, kThreads = 128;

// Pad: extra elements at the end of each shared row (0 or the skew).
template <int Pad>
__device__ __forceinline__ void wmma_gemm_tile(int M, int N, int K, const half *A, const half *B,
                                               float *C) {
    constexpr int lda = BK + Pad, ldb = BN + Pad, ldc = BN + Pad;  // elements
    __shared__ __align__(128) half As[BM * lda];
    __shared__ __align__(128) half Bs[BK * ldb];
    __shared__ __align__(128) float Cs[BM * ldc];
    const int tid = threadIdx.x, warp = tid / 32;
    const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;  // the warp's 32x32 of the tile
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        // 256 16-byte chunks per tile, 2 per thread: A 4 chunks a row, B 8.
        for (int c = tid; c < BM * BK / 8; c += kThreads) {
            const int r = c / (BK / 8), col = (c % (BK / 8)) * 8;
            *reinterpret_cast<uint4 *>(&As[r * lda + col]) =
                *reinterpret_cast<const uint4 *>(&A[(size_t)(m0 + r) * K + k0 + col]);
        }
        for (int c = tid; c < BK * BN / 8; c += kThreads) {
            const int r = c / (BN / 8), col = (c % (BN / 8)) * 8;
            *reinterpret_cast<uint4 *>(&Bs[r * ldb + col]) =
                *reinterpret_cast<const uint4 *>(&B[(size_t)(k0 + r) * N + n0 + col]);
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b[2];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[(wm + i * 16) * lda + kk], lda);
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk * ldb + wn + j * 16], ldb);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();  // the tiles are refilled by the next iteration
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            wmma::store_matrix_sync(&Cs[(wm + i * 16) * ldc + wn + j * 16], acc[i][j], ldc,
                                    wmma::mem_row_major);
    __syncthreads();
    // 1024 float4 of the tile, 8 per thread, each quarter-warp one 128-byte run of a row.
    for (int c = tid; c < BM * BN / 4; c += kThreads) {
        const int r = c / (BN / 4), col = (c % (BN / 4)) * 4;
        *reinterpret_cast<float4 *>(&C[(size_t)(m0 + r) * N + n0 + col]) =
            *reinterpret_cast<const float4 *>(&Cs[r * ldc + col]);
    }
}

// bankcheck: kernel=wmma_gemm_unpadded grid=8,8 block=128 arg=M=512 arg=N=512 arg=K=512 arg=A=random:512K arg=B=random:512K arg=C=zeros:1M
__global__ void wmma_gemm_unpadded(int M, int N, int K, const half *A, const half *B, float *C) {
    wmma_gemm_tile<0>(M, N, K, A, B, C);
}

// bankcheck: kernel=wmma_gemm_padded grid=8,8 block=128 arg=M=512 arg=N=512 arg=K=512 arg=A=random:512K arg=B=random:512K arg=C=zeros:1M
__global__ void wmma_gemm_padded(int M, int N, int K, const half *A, const half *B, float *C) {
    wmma_gemm_tile<8>(M, N, K, A, B, C);
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 0x77a1;
static float next_random() {  // xorshift64*, uniform in [-1, 1)
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ull) >> 40) / 8388608.0f - 1.0f;
}

typedef void (*Kernel)(int, int, int, const half *, const half *, float *);

int main() {
    const size_t nn = (size_t)kN * kN;
    std::vector<half> A(nn), B(nn);
    std::vector<float> Af(nn), Bf(nn), C(nn);
    for (size_t i = 0; i < nn; ++i) {
        A[i] = __float2half(next_random());
        Af[i] = __half2float(A[i]);
    }
    for (size_t i = 0; i < nn; ++i) {
        B[i] = __float2half(next_random());
        Bf[i] = __half2float(B[i]);
    }
    std::vector<double> want(nn, 0.0);
    for (int i = 0; i < kN; ++i)  // C[i][j] = sum_k A[i][k] * B[k][j], in double
        for (int k = 0; k < kN; ++k) {
            const double a = Af[(size_t)i * kN + k];
            const float *b = &Bf[(size_t)k * kN];
            double *w = &want[(size_t)i * kN];
            for (int j = 0; j < kN; ++j) w[j] += a * b[j];
        }

    half *d_A, *d_B;
    float *d_C;
    CHECK(cudaMalloc(&d_A, nn * sizeof(half)));
    CHECK(cudaMalloc(&d_B, nn * sizeof(half)));
    CHECK(cudaMalloc(&d_C, nn * sizeof(float)));
    CHECK(cudaMemcpy(d_A, A.data(), nn * sizeof(half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_B, B.data(), nn * sizeof(half), cudaMemcpyHostToDevice));

    struct {
        const char *name;
        Kernel kernel;
    } cases[] = {{"wmma_gemm_unpadded", wmma_gemm_unpadded}, {"wmma_gemm_padded", wmma_gemm_padded}};
    const double rtol = 1e-3;  // f32 accumulation of exact f16 products: about 1e-7 here
    int failed = 0;
    for (auto &k : cases) {
        CHECK(cudaMemset(d_C, 0xFF, nn * sizeof(float)));  // NaN: unwritten elements fail
        k.kernel<<<dim3(kN / BN, kN / BM), kThreads>>>(kN, kN, kN, d_A, d_B, d_C);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(C.data(), d_C, nn * sizeof(float), cudaMemcpyDeviceToHost));
        double err = 0.0, ref = 0.0;
        size_t nonfinite = 0;
        for (size_t i = 0; i < nn; ++i) {
            if (!std::isfinite(C[i])) ++nonfinite;
            err += (C[i] - want[i]) * (C[i] - want[i]);
            ref += want[i] * want[i];
        }
        const double rel = std::sqrt(err / ref);
        if (nonfinite == 0 && rel < rtol) {
            std::printf("%s: OK\n", k.name);
        } else {
            std::printf("%s: WRONG (relative error %.3g, %zu elements not finite)\n", k.name, rel,
                        nonfinite);
            ++failed;
        }
    }
    CHECK(cudaFree(d_A));
    CHECK(cudaFree(d_B));
    CHECK(cudaFree(d_C));
    return failed ? 1 : 0;
}
