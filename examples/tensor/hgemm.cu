// hgemm.cu: a tensor-core GEMM, C = A * B^T for f16 A (MxK) and B (NxK, the layout of a
// linear layer's weight), f32 accumulators and f32 C, 1024^3. A block computes a 64x64
// tile with 4 warps of 32x32; K advances 64 at a time through two shared stages filled by
// cp.async (16 bytes a lane, global to shared without registers). Warps read their
// fragments with ldmatrix.x4 and multiply with mma.sync.m16n8k16.
//   hgemm_rowmajor: the 64x64 half tiles stored row by row, 128 bytes a row. Each 8x8
//                   matrix of an ldmatrix is 8 rows at the same column: 8 16-byte rows
//                   that all fall on the same 4 banks, an 8-way conflict.
//   hgemm_swizzled: the same tiles with the 16-byte chunk index XORed with the row modulo
//                   8 (CuTe's Swizzle<3,3,3> on half offsets): the 8 rows of a matrix land
//                   in 8 different chunks, conflict-free, with no padding.
// main() runs each kernel once and checks C against a double-precision product of the
// same f16 inputs: relative Frobenius error below 1e-3, no NaN.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_fp16.h>
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

constexpr int kN = 1024;  // M = N = K
constexpr int BM = 64, BN = 64, BK = 64, kStages = 2, kThreads = 128;

// ---------------------------------------------------------------------------------------
// PTX wrappers, as every hand-written tensor-core kernel has them.

__device__ __forceinline__ void cp_async_16(void *smem, const void *gmem) {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void *smem) {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s)
                 : "memory");
}
// d += a * b: a is a 16x16 row-major f16 fragment, b a 16x8 column-major one.
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4],
                                          const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// ---------------------------------------------------------------------------------------
// Tile layouts: the half offset of (row, col) in a 64x64 tile.

struct RowMajor {
    static __device__ __forceinline__ int offset(int row, int col) { return row * BK + col; }
};

// Swizzle<3,3,3>: offset bits [6,9) (the row modulo 8) XORed into bits [3,6) (the 16-byte
// chunk within the 128-byte row); bits [0,3) (the half within the chunk) stay.
struct Swizzled {
    static __device__ __forceinline__ int offset(int row, int col) {
        int o = row * BK + col;
        return o ^ ((o >> 3) & (7 << 3));
    }
};

template <class Layout>
__device__ __forceinline__ void hgemm_tile(int M, int N, int K, const half *A, const half *B,
                                           float *C) {
    __shared__ __align__(128) half As[kStages][BM * BK];
    __shared__ __align__(128) half Bs[kStages][BN * BK];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int warp_m = warp / 2, warp_n = warp % 2;  // a 2x2 grid of 32x32 warp tiles
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    // 512 16-byte chunks per tile, 8 per row, 4 per thread.
    auto load_stage = [&](int stage, int k0) {
        for (int c = tid; c < BM * BK / 8; c += kThreads) {
            int row = c / (BK / 8), col = (c % (BK / 8)) * 8;
            cp_async_16(&As[stage][Layout::offset(row, col)], &A[(size_t)(m0 + row) * K + k0 + col]);
            cp_async_16(&Bs[stage][Layout::offset(row, col)], &B[(size_t)(n0 + row) * K + k0 + col]);
        }
        cp_async_commit();
    };

    float acc[2][4][4] = {};  // [m16 tile][n8 tile][fragment]
    const int tiles = K / BK;
    load_stage(0, 0);
    for (int t = 0; t < tiles; ++t) {
        const int s = t % kStages;
        if (t + 1 < tiles) load_stage((t + 1) % kStages, (t + 1) * BK);
        else cp_async_commit();  // an empty group keeps "all but the newest" meaning tile t
        cp_async_wait<1>();
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            uint32_t a[2][4], b[4][2];
            for (int mi = 0; mi < 2; ++mi) {
                // Lanes 0-15 address rows 0-15 at kk, lanes 16-31 the same rows at kk + 8.
                int row = warp_m * 32 + mi * 16 + lane % 16;
                int col = kk + (lane / 16) * 8;
                ldmatrix_x4(a[mi], &As[s][Layout::offset(row, col)]);
            }
            for (int nj = 0; nj < 2; ++nj) {
                // Matrices: n 0-7 k 0-7, n 0-7 k 8-15, n 8-15 k 0-7, n 8-15 k 8-15.
                int row = warp_n * 32 + nj * 16 + (lane & 7) + ((lane >> 4) << 3);
                int col = kk + ((lane >> 3) & 1) * 8;
                uint32_t r[4];
                ldmatrix_x4(r, &Bs[s][Layout::offset(row, col)]);
                b[2 * nj][0] = r[0];
                b[2 * nj][1] = r[1];
                b[2 * nj + 1][0] = r[2];
                b[2 * nj + 1][1] = r[3];
            }
            for (int mi = 0; mi < 2; ++mi)
                for (int ni = 0; ni < 4; ++ni) mma_16816(acc[mi][ni], a[mi], b[ni]);
        }
        __syncthreads();  // stage s is refilled by the next iteration's load
    }
    // Accumulator fragment: c0, c1 at (lane / 4, 2 * (lane % 4) + {0, 1}); c2, c3 8 rows down.
    for (int mi = 0; mi < 2; ++mi)
        for (int ni = 0; ni < 4; ++ni) {
            int row = m0 + warp_m * 32 + mi * 16 + lane / 4;
            int col = n0 + warp_n * 32 + ni * 8 + (lane % 4) * 2;
            *reinterpret_cast<float2 *>(&C[(size_t)row * N + col]) =
                make_float2(acc[mi][ni][0], acc[mi][ni][1]);
            *reinterpret_cast<float2 *>(&C[(size_t)(row + 8) * N + col]) =
                make_float2(acc[mi][ni][2], acc[mi][ni][3]);
        }
}

// bankcheck: kernel=hgemm_rowmajor grid=16,16 block=128 arg=M=1024 arg=N=1024 arg=K=1024 arg=A=random:2M arg=B=random:2M arg=C=zeros:4M
__global__ void hgemm_rowmajor(int M, int N, int K, const half *A, const half *B, float *C) {
    hgemm_tile<RowMajor>(M, N, K, A, B, C);
}

// bankcheck: kernel=hgemm_swizzled grid=16,16 block=128 arg=M=1024 arg=N=1024 arg=K=1024 arg=A=random:2M arg=B=random:2M arg=C=zeros:4M
__global__ void hgemm_swizzled(int M, int N, int K, const half *A, const half *B, float *C) {
    hgemm_tile<Swizzled>(M, N, K, A, B, C);
}

// ---------------------------------------------------------------------------------------
// Host

static uint64_t rng_state = 0x4e3301;
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
    std::vector<double> want(nn);
    for (int i = 0; i < kN; ++i)  // C[i][j] = sum_k A[i][k] * B[j][k], in double
        for (int j = 0; j < kN; ++j) {
            const float *a = &Af[(size_t)i * kN], *b = &Bf[(size_t)j * kN];
            double s = 0.0;
            for (int k = 0; k < kN; ++k) s += (double)a[k] * b[k];
            want[(size_t)i * kN + j] = s;
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
    } cases[] = {{"hgemm_rowmajor", hgemm_rowmajor}, {"hgemm_swizzled", hgemm_swizzled}};
    const double rtol = 1e-3;  // f32 accumulation of exact f16 products: about 1e-6 here
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
