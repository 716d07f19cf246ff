// modern.cu: kernels as tuned code writes them today, launched the way applications launch
// them (a stream, dynamic shared memory, launcher templates, cudaLaunchKernelEx), run once
// each by main() and checked against the CPU.
//   softmax_rows     softmax of 2048 rows of 4096 bf16: bf16x2 loads, the row kept as floats
//                    in dynamic shared memory (float2 stores, scalar and paired reads).
//   wmma_bf16<0>     bf16 GEMM 1024x1024x1024 on tensor cores: 32x32 tiles of A and B staged
//                    in shared memory with 16-byte stores, read by wmma::load_matrix_sync
//   wmma_bf16<8>     (64-byte rows, then padded to 80 bytes); launched by a launcher template.
//   ldsm_trans<false> ldmatrix.x4.trans of a 64x64 half tile (128-byte rows), plain and
//   ldsm_trans<true>  XOR-swizzled (16-byte chunk ^= row % 8); by cudaLaunchKernelEx.
//   stencil_cp4      1D 7-point stencil whose tile and halo arrive by 4-byte cp.async.ca.
//   gather_cp8       embedding-bag gather: rows picked by a hash, 8-byte cp.async.ca into
//                    a padded tile, zero-filled (src-size 0) past the valid rows.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

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

__device__ __forceinline__ float block_reduce(float v, bool is_max, float *red) {
    for (int o = 16; o > 0; o /= 2) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) red[warp] = v;
    __syncthreads();
    v = lane < blockDim.x / 32 ? red[lane] : (is_max ? -INFINITY : 0.0f);
    for (int o = 16; o > 0; o /= 2) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    __syncthreads();  // red is reused by the next reduction
    return v;
}

__global__ void softmax_rows(const __nv_bfloat16 *x, __nv_bfloat16 *y, int cols) {
    extern __shared__ float row[];
    __shared__ float red[32];
    const __nv_bfloat162 *src = reinterpret_cast<const __nv_bfloat162 *>(x + (size_t)blockIdx.x * cols);
    __nv_bfloat162 *dst = reinterpret_cast<__nv_bfloat162 *>(y + (size_t)blockIdx.x * cols);
    float m = -INFINITY;
    for (int i = threadIdx.x; i < cols / 2; i += blockDim.x) {
        const float2 v = __bfloat1622float2(src[i]);
        reinterpret_cast<float2 *>(row)[i] = v;
        m = fmaxf(m, fmaxf(v.x, v.y));
    }
    m = block_reduce(m, true, red);
    float s = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        const float e = __expf(row[i] - m);
        row[i] = e;
        s += e;
    }
    s = block_reduce(s, false, red);
    const float inv = 1.0f / s;
    for (int i = threadIdx.x; i < cols / 2; i += blockDim.x)
        dst[i] = __floats2bfloat162_rn(row[2 * i] * inv, row[2 * i + 1] * inv);
}

constexpr int kG = 1024, kTile = 32;

// C (kG x kG, f32) = A (row-major) * B (row-major), bf16 inputs.
template <int kPad>
__global__ void wmma_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C) {
    __shared__ __align__(32) __nv_bfloat16 As[kTile][kTile + kPad], Bs[kTile][kTile + kPad];
    const int warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
    const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    const int r = threadIdx.x / 4, c = (threadIdx.x % 4) * 8;  // 128 threads x 8 bf16 = a tile
    for (int k0 = 0; k0 < kG; k0 += kTile) {
        *reinterpret_cast<uint4 *>(&As[r][c]) =
            *reinterpret_cast<const uint4 *>(A + (size_t)(m0 + r) * kG + k0 + c);
        *reinterpret_cast<uint4 *>(&Bs[r][c]) =
            *reinterpret_cast<const uint4 *>(B + (size_t)(k0 + r) * kG + n0 + c);
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTile; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
            wmma::load_matrix_sync(a, &As[wm * 16][kk], kTile + kPad);
            wmma::load_matrix_sync(b, &Bs[kk][wn * 16], kTile + kPad);
            wmma::mma_sync(acc, a, b, acc);
        }
        __syncthreads();
    }
    wmma::store_matrix_sync(C + (size_t)(m0 + wm * 16) * kG + n0 + wn * 16, acc, kG, wmma::mem_row_major);
}

template <int kPad>
void gemm_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, cudaStream_t stream) {
    const dim3 grid(kG / kTile, kG / kTile);
    wmma_bf16<kPad><<<grid, 128, 0, stream>>>(A, B, C);
}

constexpr int kTiles = 1024;

// Each block: one 64x64 half tile (8 KB), 4 warps; each warp reads its 16 rows as four
// ldmatrix.x4.trans (the B operand of P.V), XOR-ing the fragments into one word per lane.
template <bool kSwizzle>
__global__ void ldsm_trans(const half *in, unsigned *out) {
    extern __shared__ __align__(128) unsigned char smem[];
    half *tile = reinterpret_cast<half *>(smem);
    const half *src = in + (size_t)blockIdx.x * 64 * 64;
    for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x) {  // 512 chunks of 16 bytes
        const int row = i / 8, chunk = i % 8;
        const int sc = kSwizzle ? chunk ^ (row % 8) : chunk;
        *reinterpret_cast<uint4 *>(tile + row * 64 + sc * 8) =
            *reinterpret_cast<const uint4 *>(src + row * 64 + chunk * 8);
    }
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned acc = 0;
#pragma unroll
    for (int cb = 0; cb < 8; cb += 2) {  // column chunks cb, cb + 1 of rows 16w..16w+15
        const int row = warp * 16 + (lane % 16);
        const int chunk = cb + lane / 16;
        const int sc = kSwizzle ? chunk ^ (row % 8) : chunk;
        const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(tile + row * 64 + sc * 8));
        unsigned r0, r1, r2, r3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                     : "r"(addr));
        acc ^= r0 ^ r1 ^ r2 ^ r3;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

constexpr int kN1 = 1 << 24, kR = 3, kSt = 256;

__global__ void stencil_cp4(const float *in, float *out) {
    __shared__ float tile[kSt + 2 * kR];
    const int base = blockIdx.x * kSt;
    for (int i = threadIdx.x; i < kSt + 2 * kR; i += kSt) {
        const int g = min(max(base + i - kR, 0), kN1 - 1);  // clamped at the ends
        const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(&tile[i]));
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(in + g) : "memory");
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    const float *t = tile + threadIdx.x + kR;
    out[base + threadIdx.x] = 0.25f * t[0] + 0.125f * (t[-1] + t[1]) + 0.125f * (t[-2] + t[2]) +
                              0.125f * (t[-3] + t[3]);
}

constexpr int kVocab = 50000, kValid = 49000, kDim = 64, kBag = 32, kBags = 4096;

// Bag b sums rows hash(b, r) of an embedding table (kVocab x kDim floats); rows at or past
// kValid are zero-filled (src-size 0): a table whose tail is not loaded yet.
__global__ void gather_cp8(const float *table, float *out) {
    __shared__ __align__(16) float rows[kBag][kDim + 2];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;  // 8 warps, 4 rows each
    for (int r = warp; r < kBag; r += 8) {
        const int row = (int)(((unsigned)(blockIdx.x * kBag + r) * 2654435761u) % kVocab);
        const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(&rows[r][2 * lane]));
        const int src_size = row < kValid ? 8 : 0;
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(s),
                     "l"(table + (size_t)row * kDim + 2 * lane), "r"(src_size)
                     : "memory");
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    if (threadIdx.x < kDim) {
        float s = 0.0f;
        for (int r = 0; r < kBag; ++r) s += rows[r][threadIdx.x];
        out[(size_t)blockIdx.x * kDim + threadIdx.x] = s;
    }
}

namespace {

const char *verdict(bool ok) { return ok ? "OK" : "WRONG"; }

float bf(float v) { return __bfloat162float(__float2bfloat16(v)); }

}  // namespace

int main() {
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    // softmax_rows
    const int rows = 2048, cols = 4096;
    const size_t row_smem = cols * sizeof(float);
    __nv_bfloat16 *x, *y;
    CHECK(cudaMalloc(&x, (size_t)rows * cols * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&y, (size_t)rows * cols * sizeof(__nv_bfloat16)));
    std::vector<__nv_bfloat16> h_x((size_t)rows * cols);
    for (size_t i = 0; i < h_x.size(); ++i) h_x[i] = __float2bfloat16((float)((i * 37) % 101) / 25.0f - 2.0f);
    CHECK(cudaMemcpy(x, h_x.data(), h_x.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    CHECK(cudaFuncSetAttribute(softmax_rows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)row_smem));
    softmax_rows<<<rows, 256, row_smem, stream>>>(x, y, cols);

    // wmma_bf16<0>, wmma_bf16<8>
    __nv_bfloat16 *A, *B;
    float *C0, *C8;
    const size_t gbytes = (size_t)kG * kG * sizeof(__nv_bfloat16);
    CHECK(cudaMalloc(&A, gbytes));
    CHECK(cudaMalloc(&B, gbytes));
    CHECK(cudaMalloc(&C0, (size_t)kG * kG * sizeof(float)));
    CHECK(cudaMalloc(&C8, (size_t)kG * kG * sizeof(float)));
    std::vector<__nv_bfloat16> h_A((size_t)kG * kG), h_B((size_t)kG * kG);
    for (size_t i = 0; i < h_A.size(); ++i) {
        h_A[i] = __float2bfloat16((float)((int)(i % 5) - 2));
        h_B[i] = __float2bfloat16((float)((int)((i * 3) % 7) - 3));
    }
    CHECK(cudaMemcpy(A, h_A.data(), gbytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, h_B.data(), gbytes, cudaMemcpyHostToDevice));
    gemm_bf16<0>(A, B, C0, stream);
    gemm_bf16<8>(A, B, C8, stream);

    // ldsm_trans<false>, ldsm_trans<true>
    half *hin;
    unsigned *uout0, *uout1;
    CHECK(cudaMalloc(&hin, (size_t)kTiles * 64 * 64 * sizeof(half)));
    CHECK(cudaMalloc(&uout0, (size_t)kTiles * 128 * sizeof(unsigned)));
    CHECK(cudaMalloc(&uout1, (size_t)kTiles * 128 * sizeof(unsigned)));
    std::vector<half> h_hin((size_t)kTiles * 64 * 64);
    for (size_t i = 0; i < h_hin.size(); ++i) h_hin[i] = __float2half((float)(i % 2039));
    CHECK(cudaMemcpy(hin, h_hin.data(), h_hin.size() * sizeof(half), cudaMemcpyHostToDevice));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(kTiles);
    config.blockDim = dim3(128);
    config.dynamicSmemBytes = 64 * 64 * sizeof(half);
    config.stream = stream;
    CHECK(cudaLaunchKernelEx(&config, ldsm_trans<false>, (const half *)hin, uout0));
    CHECK(cudaLaunchKernelEx(&config, ldsm_trans<true>, (const half *)hin, uout1));

    // stencil_cp4
    float *sin_, *sout;
    CHECK(cudaMalloc(&sin_, kN1 * sizeof(float)));
    CHECK(cudaMalloc(&sout, kN1 * sizeof(float)));
    std::vector<float> h_s(kN1);
    for (int i = 0; i < kN1; ++i) h_s[i] = (float)(i % 977);
    CHECK(cudaMemcpy(sin_, h_s.data(), kN1 * sizeof(float), cudaMemcpyHostToDevice));
    stencil_cp4<<<kN1 / kSt, kSt, 0, stream>>>(sin_, sout);

    // gather_cp8
    float *table, *bags;
    CHECK(cudaMalloc(&table, (size_t)kVocab * kDim * sizeof(float)));
    CHECK(cudaMalloc(&bags, (size_t)kBags * kDim * sizeof(float)));
    std::vector<float> h_t((size_t)kVocab * kDim);
    for (size_t i = 0; i < h_t.size(); ++i) h_t[i] = (float)(i % 13);
    CHECK(cudaMemcpy(table, h_t.data(), h_t.size() * sizeof(float), cudaMemcpyHostToDevice));
    gather_cp8<<<kBags, 256, 0, stream>>>(table, bags);

    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(stream));

    // The CPU's answers.
    {
        std::vector<__nv_bfloat16> got((size_t)rows * cols);
        CHECK(cudaMemcpy(got.data(), y, got.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int r = 0; r < rows; r += 97) {
            const __nv_bfloat16 *xr = &h_x[(size_t)r * cols];
            double m = -1e30, s = 0;
            for (int c = 0; c < cols; ++c) m = std::fmax(m, __bfloat162float(xr[c]));
            for (int c = 0; c < cols; ++c) s += std::exp(__bfloat162float(xr[c]) - m);
            for (int c = 0; c < cols; ++c) {
                const double want = std::exp(__bfloat162float(xr[c]) - m) / s;
                ok = ok && std::fabs(__bfloat162float(got[(size_t)r * cols + c]) - want) <= 0.01 * want + 1e-6;
            }
        }
        std::printf("softmax_rows: %s\n", verdict(ok));
    }
    {
        std::vector<float> g0((size_t)kG * kG), g8(g0.size());
        CHECK(cudaMemcpy(g0.data(), C0, g0.size() * sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(g8.data(), C8, g8.size() * sizeof(float), cudaMemcpyDeviceToHost));
        bool ok0 = true, ok8 = true;
        for (int r = 0; r < kG; r += 13)
            for (int c = 0; c < kG; ++c) {
                float want = 0;
                for (int k = 0; k < kG; ++k)
                    want += bf(__bfloat162float(h_A[(size_t)r * kG + k])) * bf(__bfloat162float(h_B[(size_t)k * kG + c]));
                ok0 = ok0 && g0[(size_t)r * kG + c] == want;
                ok8 = ok8 && g8[(size_t)r * kG + c] == want;
            }
        std::printf("wmma_bf16<0>: %s\nwmma_bf16<8>: %s\n", verdict(ok0), verdict(ok8));
    }
    {
        // ldmatrix .trans: lane l's register j of matrix q holds column (l / 4) and rows
        // 2 (l % 4), 2 (l % 4) + 1 of the 8x8 matrix q: the XOR over q and the loop is the
        // same words as the plain tile's, in any layout of the smem tile.
        std::vector<unsigned> g0((size_t)kTiles * 128), g1(g0.size());
        CHECK(cudaMemcpy(g0.data(), uout0, g0.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(g1.data(), uout1, g1.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        bool ok0 = true, ok1 = true;
        for (int t = 0; t < kTiles; ++t)
            for (int w = 0; w < 4; ++w)
                for (int l = 0; l < 32; ++l) {
                    unsigned want = 0;
                    for (int cb = 0; cb < 8; cb += 2)
                        for (int q = 0; q < 4; ++q) {
                            // matrix q: rows 16w + 8 (q % 2) .. +7, column chunk cb + q / 2
                            const int r0 = w * 16 + 8 * (q % 2), ch = cb + q / 2;
                            const int col = ch * 8 + l / 4, rr = r0 + 2 * (l % 4);
                            const half *tile = &h_hin[(size_t)t * 64 * 64];
                            unsigned short lo, hi;
                            std::memcpy(&lo, &tile[rr * 64 + col], 2);
                            std::memcpy(&hi, &tile[(rr + 1) * 64 + col], 2);
                            want ^= (unsigned)lo | ((unsigned)hi << 16);
                        }
                    ok0 = ok0 && g0[(size_t)t * 128 + w * 32 + l] == want;
                    ok1 = ok1 && g1[(size_t)t * 128 + w * 32 + l] == want;
                }
        std::printf("ldsm_trans<false>: %s\nldsm_trans<true>: %s\n", verdict(ok0), verdict(ok1));
    }
    {
        std::vector<float> got(kN1);
        CHECK(cudaMemcpy(got.data(), sout, kN1 * sizeof(float), cudaMemcpyDeviceToHost));
        bool ok = true;
        auto at = [&](int i) { return h_s[std::min(std::max(i, 0), kN1 - 1)]; };
        for (int i = 0; i < kN1; ++i) {
            const float want = 0.25f * at(i) + 0.125f * (at(i - 1) + at(i + 1)) +
                               0.125f * (at(i - 2) + at(i + 2)) + 0.125f * (at(i - 3) + at(i + 3));
            ok = ok && std::fabs(got[i] - want) <= 1e-3f * (1.0f + std::fabs(want));
        }
        std::printf("stencil_cp4: %s\n", verdict(ok));
    }
    {
        std::vector<float> got((size_t)kBags * kDim);
        CHECK(cudaMemcpy(got.data(), bags, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int b = 0; b < kBags; ++b)
            for (int d = 0; d < kDim; ++d) {
                float want = 0;
                for (int r = 0; r < kBag; ++r) {
                    const int row = (int)(((unsigned)(b * kBag + r) * 2654435761u) % kVocab);
                    if (row < kValid) want += h_t[(size_t)row * kDim + d];
                }
                ok = ok && got[(size_t)b * kDim + d] == want;
            }
        std::printf("gather_cp8: %s\n", verdict(ok));
    }
    std::printf("modern: done\n");
    return 0;
}
