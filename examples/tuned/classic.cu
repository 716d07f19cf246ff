// classic.cu: shared-memory kernels from the parallel-algorithms canon, written as people
// write them today, run once each by main() and checked against the CPU.
//   bitonic_sort   sorts 1024-key segments in shared memory: 512 threads, each comparing
//                  the pair (i, i + j) of every step (stride-j pairs; the swaps depend on
//                  the keys).
//   fft1024        radix-2 FFT of 1024 complex floats per block: a bit-reversed load
//                  (s[__brev(t)]), then float2 butterflies on pairs half apart.
//   dgemm16        16x16 tiled GEMM of 512x512 doubles.
//   conv1d_u8      17-tap box filter over bytes: a byte tile with an 8-byte halo.
//   sbox_lookup    byte substitution of every byte of 4M words through a 256-byte table
//                  in shared memory (indices from the data).
//   transpose_xor  32x32 float tiles transposed through an XOR-swizzled tile (no padding).
//   cg_tile_sum    a block sum through cooperative_groups tiles of 16 and cg::reduce.
//   mma_epilogue   mma.sync m16n8k16 (f16 in, f32 out), each warp's 16x16 of a 16x64
//                  tile staged as float2 through Cs[16][64], then float4 rows out;
//   mma_epilogue_pad   the same through Cs[16][64 + 4].
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

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

constexpr int kSortN = 1 << 22, kSeg = 1024;

// bankcheck: kernel=bitonic_sort arg=keys=iota:16M
__global__ void bitonic_sort(unsigned *keys) {
    __shared__ unsigned s[kSeg];
    unsigned *seg = keys + (size_t)blockIdx.x * kSeg;
    const int t = threadIdx.x;
    s[t] = seg[t] * 2654435761u;  // hashed: the keys arrive unsorted
    s[t + kSeg / 2] = seg[t + kSeg / 2] * 2654435761u;
    __syncthreads();
    for (int k = 2; k <= kSeg; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            const int i = 2 * t - (t & (j - 1));
            const bool up = (i & k) == 0;
            const unsigned a = s[i], b = s[i + j];
            if ((a > b) == up) {
                s[i] = b;
                s[i + j] = a;
            }
            __syncthreads();
        }
    seg[t] = s[t];
    seg[t + kSeg / 2] = s[t + kSeg / 2];
}

constexpr int kFftN = 1024, kFfts = 2048;

__global__ void fft1024(float2 *x, const float2 *tw) {
    __shared__ float2 s[kFftN];
    float2 *v = x + (size_t)blockIdx.x * kFftN;
    const int t = threadIdx.x;
    s[__brev(t) >> 22] = v[t];
    s[__brev(t + kFftN / 2) >> 22] = v[t + kFftN / 2];
    __syncthreads();
    for (int half = 1; half < kFftN; half <<= 1) {
        const int pos = t & (half - 1), i = 2 * t - pos;
        const float2 w = tw[pos * (kFftN / 2 / half)];
        const float2 a = s[i], b = s[i + half];
        const float2 wb = make_float2(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);
        s[i] = make_float2(a.x + wb.x, a.y + wb.y);
        s[i + half] = make_float2(a.x - wb.x, a.y - wb.y);
        __syncthreads();
    }
    v[t] = s[t];
    v[t + kFftN / 2] = s[t + kFftN / 2];
}

constexpr int kD = 512;

__global__ void dgemm16(const double *A, const double *B, double *C) {
    __shared__ double As[16][16], Bs[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    double acc = 0.0;
    for (int k0 = 0; k0 < kD; k0 += 16) {
        As[ty][tx] = A[row * kD + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * kD + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * kD + col] = acc;
}

constexpr int kBytes = 1 << 24, kR = 8, kConvThreads = 256;

__global__ void conv1d_u8(const unsigned char *in, unsigned char *out) {
    __shared__ unsigned char tile[kConvThreads + 2 * kR];
    const int g = blockIdx.x * kConvThreads + threadIdx.x;
    tile[threadIdx.x + kR] = in[g];
    if (threadIdx.x < kR) {
        tile[threadIdx.x] = g >= kR ? in[g - kR] : 0;
        tile[threadIdx.x + kConvThreads + kR] = g + kConvThreads < kBytes ? in[g + kConvThreads] : 0;
    }
    __syncthreads();
    unsigned s = 0;
#pragma unroll
    for (int d = -kR; d <= kR; ++d) s += tile[threadIdx.x + kR + d];
    out[g] = (unsigned char)(s / (2 * kR + 1));
}

constexpr int kWords = 1 << 22;

// bankcheck: kernel=sbox_lookup arg=data=iota:16M arg=sbox=iota:1K
__global__ void sbox_lookup(const unsigned *data, const unsigned *sbox, unsigned *out) {
    __shared__ unsigned char lut[256];
    lut[threadIdx.x] = (unsigned char)(sbox[threadIdx.x] * 167u + 13u);
    __syncthreads();
    for (int i = blockIdx.x * 256 + threadIdx.x; i < kWords; i += gridDim.x * 256) {
        const unsigned w = data[i] * 2654435761u;
        unsigned r = 0;
#pragma unroll
        for (int b = 0; b < 4; ++b) r |= (unsigned)lut[(w >> (8 * b)) & 255u] << (8 * b);
        out[i] = r;
    }
}

constexpr int kT = 4096;

__global__ void transpose_xor(const float *in, float *out) {
    __shared__ float tile[32][32];
    const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
        const int r = threadIdx.y + j;
        tile[r][threadIdx.x ^ r] = in[(size_t)(y + j) * kT + x];
    }
    __syncthreads();
    const int ox = blockIdx.y * 32 + threadIdx.x, oy = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
        const int c = threadIdx.y + j;  // the input's column c is the output's row
        out[(size_t)(oy + j) * kT + ox] = tile[threadIdx.x][c ^ threadIdx.x];
    }
}

constexpr int kSumN = 1 << 24;

// bankcheck: kernel=cg_tile_sum arg=x=iota:64M
__global__ void cg_tile_sum(const int *x, int *out) {
    __shared__ int partial[256 / 16];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    int v = 0;
    for (int i = blockIdx.x * 256 + threadIdx.x; i < kSumN; i += gridDim.x * 256) v += x[i] & 7;
    v = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0) partial[block.thread_rank() / 16] = v;
    block.sync();
    if (block.thread_rank() < 16) {
        const int s = cg::reduce(tile, partial[tile.thread_rank()], cg::plus<int>());
        if (tile.thread_rank() == 0) atomicAdd(out, s);
    }
}

constexpr int kMm = 2048, kMn = 2048, kMk = 256;

// C (kMm x kMn, f32) = A (kMm x kMk, row-major) * B, with B given as Bt (kMn x kMk,
// row-major). A block computes a 16x64 tile: 4 warps, each two m16n8k16 columns.
template <int kPad>
__device__ void mma_tile(const half *A, const half *Bt, float *C) {
    __shared__ __align__(16) float Cs[16][64 + kPad];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, q = lane % 4;
    const int m0 = blockIdx.y * 16, n0 = blockIdx.x * 64 + warp * 16;
    float c[2][4] = {};
    for (int k0 = 0; k0 < kMk; k0 += 16) {
        const half *a = A + (size_t)m0 * kMk + k0;
        unsigned ra[4];
        ra[0] = *reinterpret_cast<const unsigned *>(a + g * kMk + 2 * q);
        ra[1] = *reinterpret_cast<const unsigned *>(a + (g + 8) * kMk + 2 * q);
        ra[2] = *reinterpret_cast<const unsigned *>(a + g * kMk + 2 * q + 8);
        ra[3] = *reinterpret_cast<const unsigned *>(a + (g + 8) * kMk + 2 * q + 8);
#pragma unroll
        for (int n = 0; n < 2; ++n) {
            const half *b = Bt + (size_t)(n0 + n * 8 + g) * kMk + k0;
            const unsigned rb0 = *reinterpret_cast<const unsigned *>(b + 2 * q);
            const unsigned rb1 = *reinterpret_cast<const unsigned *>(b + 2 * q + 8);
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                : "+f"(c[n][0]), "+f"(c[n][1]), "+f"(c[n][2]), "+f"(c[n][3])
                : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb0), "r"(rb1));
        }
    }
#pragma unroll
    for (int n = 0; n < 2; ++n) {
        const int col = warp * 16 + n * 8 + 2 * q;
        *reinterpret_cast<float2 *>(&Cs[g][col]) = make_float2(c[n][0], c[n][1]);
        *reinterpret_cast<float2 *>(&Cs[g + 8][col]) = make_float2(c[n][2], c[n][3]);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 16 * 16; i += blockDim.x) {  // 16 rows of 16 float4
        const int r = i / 16, c4 = i % 16;
        const float4 v = *reinterpret_cast<const float4 *>(&Cs[r][c4 * 4]);
        *reinterpret_cast<float4 *>(C + (size_t)(m0 + r) * kMn + blockIdx.x * 64 + c4 * 4) = v;
    }
}

__global__ void mma_epilogue(const half *A, const half *Bt, float *C) { mma_tile<0>(A, Bt, C); }
__global__ void mma_epilogue_pad(const half *A, const half *Bt, float *C) { mma_tile<4>(A, Bt, C); }

namespace {

const char *verdict(bool ok) { return ok ? "OK" : "WRONG"; }

unsigned char sbox_byte(unsigned i) { return (unsigned char)(i * 167u + 13u); }

}  // namespace

int main() {
    // bitonic_sort
    unsigned *keys;
    CHECK(cudaMalloc(&keys, kSortN * sizeof(unsigned)));
    std::vector<unsigned> h_keys(kSortN);
    for (int i = 0; i < kSortN; ++i) h_keys[i] = (unsigned)i;
    CHECK(cudaMemcpy(keys, h_keys.data(), kSortN * sizeof(unsigned), cudaMemcpyHostToDevice));
    bitonic_sort<<<kSortN / kSeg, kSeg / 2>>>(keys);

    // fft1024
    float2 *x, *tw;
    CHECK(cudaMalloc(&x, (size_t)kFfts * kFftN * sizeof(float2)));
    CHECK(cudaMalloc(&tw, kFftN / 2 * sizeof(float2)));
    std::vector<float2> h_x((size_t)kFfts * kFftN), h_tw(kFftN / 2);
    for (size_t i = 0; i < h_x.size(); ++i)
        h_x[i] = make_float2((float)((i * 7) % 13) - 6.0f, (float)((i * 5) % 11) - 5.0f);
    const double kPi = 3.14159265358979323846;
    for (int k = 0; k < kFftN / 2; ++k)
        h_tw[k] = make_float2((float)std::cos(-2 * kPi * k / kFftN), (float)std::sin(-2 * kPi * k / kFftN));
    CHECK(cudaMemcpy(x, h_x.data(), h_x.size() * sizeof(float2), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(tw, h_tw.data(), h_tw.size() * sizeof(float2), cudaMemcpyHostToDevice));
    fft1024<<<kFfts, kFftN / 2>>>(x, tw);

    // dgemm16
    double *dA, *dB, *dC;
    const size_t dbytes = (size_t)kD * kD * sizeof(double);
    CHECK(cudaMalloc(&dA, dbytes));
    CHECK(cudaMalloc(&dB, dbytes));
    CHECK(cudaMalloc(&dC, dbytes));
    std::vector<double> h_dA(kD * kD), h_dB(kD * kD);
    for (int i = 0; i < kD * kD; ++i) {
        h_dA[i] = (double)(i % 7) - 3.0;
        h_dB[i] = (double)((i * 3) % 5) - 2.0;
    }
    CHECK(cudaMemcpy(dA, h_dA.data(), dbytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, h_dB.data(), dbytes, cudaMemcpyHostToDevice));
    dgemm16<<<dim3(kD / 16, kD / 16), dim3(16, 16)>>>(dA, dB, dC);

    // conv1d_u8
    unsigned char *bin, *bout;
    CHECK(cudaMalloc(&bin, kBytes));
    CHECK(cudaMalloc(&bout, kBytes));
    std::vector<unsigned char> h_bin(kBytes);
    for (int i = 0; i < kBytes; ++i) h_bin[i] = (unsigned char)((i * 2654435761u) >> 24);
    CHECK(cudaMemcpy(bin, h_bin.data(), kBytes, cudaMemcpyHostToDevice));
    conv1d_u8<<<kBytes / kConvThreads, kConvThreads>>>(bin, bout);

    // sbox_lookup
    unsigned *data, *sbox, *sout;
    CHECK(cudaMalloc(&data, kWords * sizeof(unsigned)));
    CHECK(cudaMalloc(&sbox, 256 * sizeof(unsigned)));
    CHECK(cudaMalloc(&sout, kWords * sizeof(unsigned)));
    std::vector<unsigned> h_data(kWords), h_sbox(256);
    for (int i = 0; i < kWords; ++i) h_data[i] = (unsigned)i;
    for (int i = 0; i < 256; ++i) h_sbox[i] = (unsigned)i;
    CHECK(cudaMemcpy(data, h_data.data(), kWords * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(sbox, h_sbox.data(), 256 * sizeof(unsigned), cudaMemcpyHostToDevice));
    sbox_lookup<<<1024, 256>>>(data, sbox, sout);

    // transpose_xor
    float *tin, *tout;
    const size_t tbytes = (size_t)kT * kT * sizeof(float);
    CHECK(cudaMalloc(&tin, tbytes));
    CHECK(cudaMalloc(&tout, tbytes));
    std::vector<float> h_tin((size_t)kT * kT);
    for (size_t i = 0; i < h_tin.size(); ++i) h_tin[i] = (float)(i % 65521);
    CHECK(cudaMemcpy(tin, h_tin.data(), tbytes, cudaMemcpyHostToDevice));
    transpose_xor<<<dim3(kT / 32, kT / 32), dim3(32, 8)>>>(tin, tout);

    // cg_tile_sum
    int *xs, *sum;
    CHECK(cudaMalloc(&xs, kSumN * sizeof(int)));
    CHECK(cudaMalloc(&sum, sizeof(int)));
    std::vector<int> h_xs(kSumN);
    for (int i = 0; i < kSumN; ++i) h_xs[i] = i;
    CHECK(cudaMemcpy(xs, h_xs.data(), kSumN * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(sum, 0, sizeof(int)));
    cg_tile_sum<<<1024, 256>>>(xs, sum);

    // mma_epilogue, mma_epilogue_pad
    half *hA, *hBt;
    float *hC, *hC2;
    CHECK(cudaMalloc(&hA, (size_t)kMm * kMk * sizeof(half)));
    CHECK(cudaMalloc(&hBt, (size_t)kMn * kMk * sizeof(half)));
    CHECK(cudaMalloc(&hC, (size_t)kMm * kMn * sizeof(float)));
    CHECK(cudaMalloc(&hC2, (size_t)kMm * kMn * sizeof(float)));
    std::vector<half> h_hA((size_t)kMm * kMk), h_hBt((size_t)kMn * kMk);
    std::vector<float> f_A(h_hA.size()), f_Bt(h_hBt.size());
    for (size_t i = 0; i < h_hA.size(); ++i) {
        f_A[i] = (float)((int)(i % 5) - 2);
        h_hA[i] = __float2half(f_A[i]);
    }
    for (size_t i = 0; i < h_hBt.size(); ++i) {
        f_Bt[i] = (float)((int)((i * 3) % 7) - 3);
        h_hBt[i] = __float2half(f_Bt[i]);
    }
    CHECK(cudaMemcpy(hA, h_hA.data(), h_hA.size() * sizeof(half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(hBt, h_hBt.data(), h_hBt.size() * sizeof(half), cudaMemcpyHostToDevice));
    mma_epilogue<<<dim3(kMn / 64, kMm / 16), 128>>>(hA, hBt, hC);
    mma_epilogue_pad<<<dim3(kMn / 64, kMm / 16), 128>>>(hA, hBt, hC2);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    // The CPU's answers.
    {
        std::vector<unsigned> got(kSortN);
        CHECK(cudaMemcpy(got.data(), keys, kSortN * sizeof(unsigned), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int s = 0; s < kSortN / kSeg && ok; ++s) {
            std::vector<unsigned> want(kSeg);
            for (int i = 0; i < kSeg; ++i) want[i] = h_keys[(size_t)s * kSeg + i] * 2654435761u;
            std::sort(want.begin(), want.end());
            for (int i = 0; i < kSeg; ++i) ok = ok && got[(size_t)s * kSeg + i] == want[i];
        }
        std::printf("bitonic_sort: %s\n", verdict(ok));
    }
    {
        std::vector<float2> got(h_x.size());
        CHECK(cudaMemcpy(got.data(), x, got.size() * sizeof(float2), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int f = 0; f < kFfts && ok; f += 257)  // a DFT of every 257th transform
            for (int k = 0; k < kFftN; ++k) {
                double re = 0, im = 0;
                for (int n = 0; n < kFftN; ++n) {
                    const float2 v = h_x[(size_t)f * kFftN + n];
                    const double a = -2 * kPi * (double)((long)k * n % kFftN) / kFftN;
                    re += v.x * std::cos(a) - v.y * std::sin(a);
                    im += v.x * std::sin(a) + v.y * std::cos(a);
                }
                const float2 g = got[(size_t)f * kFftN + k];
                ok = ok && std::fabs(g.x - re) < 1e-2 * (1 + std::fabs(re)) &&
                     std::fabs(g.y - im) < 1e-2 * (1 + std::fabs(im));
            }
        std::printf("fft1024: %s\n", verdict(ok));
    }
    {
        std::vector<double> got(kD * kD);
        CHECK(cudaMemcpy(got.data(), dC, dbytes, cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int r = 0; r < kD; r += 3)
            for (int c = 0; c < kD; ++c) {
                double want = 0;
                for (int k = 0; k < kD; ++k) want += h_dA[r * kD + k] * h_dB[k * kD + c];
                ok = ok && got[r * kD + c] == want;
            }
        std::printf("dgemm16: %s\n", verdict(ok));
    }
    {
        std::vector<unsigned char> got(kBytes);
        CHECK(cudaMemcpy(got.data(), bout, kBytes, cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int g = 0; g < kBytes; ++g) {
            unsigned s = 0;
            for (int d = -kR; d <= kR; ++d) {
                const int i = g + d;
                // a block's halo reads only its neighbours' bytes inside the array
                if (i >= 0 && i < kBytes) s += h_bin[i];
            }
            ok = ok && got[g] == (unsigned char)(s / (2 * kR + 1));
        }
        std::printf("conv1d_u8: %s\n", verdict(ok));
    }
    {
        std::vector<unsigned> got(kWords);
        CHECK(cudaMemcpy(got.data(), sout, kWords * sizeof(unsigned), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int i = 0; i < kWords; ++i) {
            const unsigned w = h_data[i] * 2654435761u;
            unsigned r = 0;
            for (int b = 0; b < 4; ++b) r |= (unsigned)sbox_byte((w >> (8 * b)) & 255u) << (8 * b);
            ok = ok && got[i] == r;
        }
        std::printf("sbox_lookup: %s\n", verdict(ok));
    }
    {
        std::vector<float> got((size_t)kT * kT);
        CHECK(cudaMemcpy(got.data(), tout, tbytes, cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int r = 0; r < kT && ok; ++r)
            for (int c = 0; c < kT; ++c) ok = ok && got[(size_t)r * kT + c] == h_tin[(size_t)c * kT + r];
        std::printf("transpose_xor: %s\n", verdict(ok));
    }
    {
        int got = 0;
        CHECK(cudaMemcpy(&got, sum, sizeof(int), cudaMemcpyDeviceToHost));
        long want = 0;
        for (int i = 0; i < kSumN; ++i) want += h_xs[i] & 7;
        std::printf("cg_tile_sum: %s\n", verdict(got == want));
    }
    {
        std::vector<float> got((size_t)kMm * kMn), got2(got.size());
        CHECK(cudaMemcpy(got.data(), hC, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(got2.data(), hC2, got2.size() * sizeof(float), cudaMemcpyDeviceToHost));
        bool ok = true, ok2 = true;
        for (int r = 0; r < kMm; r += 7)
            for (int c = 0; c < kMn; ++c) {
                float want = 0;
                for (int k = 0; k < kMk; ++k) want += f_A[(size_t)r * kMk + k] * f_Bt[(size_t)c * kMk + k];
                ok = ok && got[(size_t)r * kMn + c] == want;
                ok2 = ok2 && got2[(size_t)r * kMn + c] == want;
            }
        std::printf("mma_epilogue: %s\nmma_epilogue_pad: %s\n", verdict(ok), verdict(ok2));
    }
    std::printf("classic: done\n");
    return 0;
}
