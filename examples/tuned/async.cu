// async.cu: kernels that stage through shared memory with the asynchronous and matrix
// instructions, as tuned code does, run once each by main().
//   sgemm_cpasync   64x64 tiles, K-steps of 16, double-buffered with 16-byte cp.async
//                   (.ca); 256 threads each computing 4x4 outputs from As[m][k] (64-byte
//                   rows: the column reads conflict) and Bs[k][n].
//   ldsm_rows64     ldmatrix.x4 of a 16x32 half tile with 64-byte rows, plain.
//   ldsm_rows64_swz the same tile XOR-swizzled (16-byte chunk ^= (row / 2) % 4).
//   stsm_epilogue   stmatrix.x4 of each warp's 16x16 half fragment, then 16-byte stores
//                   out of shared memory.
//   scan_count      a block's inclusive scan of 512 floats (Hillis-Steele, double buffer)
//                   and __syncthreads_count of the positive inputs.
//   hist_u64        64-bit counters in shared memory: atomicAdd on unsigned long long.
#include <cstdio>
#include <cstdlib>

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

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait0() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }

constexpr int kNn = 1024, kK = 1024, kBM = 64, kBN = 64, kBK = 16;  // M = 1024: the grid

// bankcheck: kernel=sgemm_cpasync grid=16,16 block=256 arg=A=random:4M arg=B=random:4M arg=C=zeros:4M
__global__ void sgemm_cpasync(const float *A, const float *B, float *C) {
    __shared__ __align__(16) float As[2][kBM][kBK];
    __shared__ __align__(16) float Bs[2][kBK][kBN];
    const int t = threadIdx.x, tx = t % 16, ty = t / 16;
    const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
    // One 16-byte chunk of each tile per thread: A is 64 rows of 4 chunks, B 16 rows of 16.
    const int am = t / 4, ak = (t % 4) * 4, bk = t / 16, bn = (t % 16) * 4;
    float acc[4][4] = {};
    cp_async16(&As[0][am][ak], A + (size_t)(row0 + am) * kK + ak);
    cp_async16(&Bs[0][bk][bn], B + (size_t)bk * kNn + col0 + bn);
    cp_async_commit();
    for (int k0 = 0; k0 < kK; k0 += kBK) {
        const int cur = (k0 / kBK) % 2;
        cp_async_wait0();
        __syncthreads();
        if (k0 + kBK < kK) {
            cp_async16(&As[cur ^ 1][am][ak], A + (size_t)(row0 + am) * kK + k0 + kBK + ak);
            cp_async16(&Bs[cur ^ 1][bk][bn], B + (size_t)(k0 + kBK + bk) * kNn + col0 + bn);
        }
        cp_async_commit();
#pragma unroll
        for (int k = 0; k < kBK; ++k) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[cur][ty * 4 + i][k];
#pragma unroll
            for (int j = 0; j < 4; ++j) b[j] = Bs[cur][k][tx * 4 + j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            C[(size_t)(row0 + ty * 4 + i) * kNn + col0 + tx * 4 + j] = acc[i][j];
}

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const void *p) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}


// A warp's 16x32 tile of halves (16 rows of 64 bytes) into shared memory with 16-byte
// stores, then read as four 8x8 matrices per k-half with ldmatrix.x4: lanes 0-15 give rows
// 0-15 of columns 0-7, lanes 16-31 rows 0-15 of columns 8-15 (the A operand of m16n8k16).
template <bool kSwizzle>
__device__ void ldsm_tile(const half *in, unsigned *out) {
    __shared__ __align__(128) half tile[4][16 * 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const size_t t = (size_t)blockIdx.x * 4 + warp;
    half *s = tile[warp];
    auto chunk_of = [](int row, int chunk) { return kSwizzle ? chunk ^ ((row / 2) % 4) : chunk; };
    for (int c = lane; c < 16 * 4; c += 32) {  // 64 chunks of 16 bytes
        const int row = c / 4, chunk = c % 4;
        *reinterpret_cast<uint4 *>(s + row * 32 + chunk_of(row, chunk) * 8) =
            *reinterpret_cast<const uint4 *>(in + t * 512 + row * 32 + chunk * 8);
    }
    __syncwarp();
    unsigned acc = 0;
    for (int kh = 0; kh < 2; ++kh) {  // columns 0-15, then 16-31
        const int row = lane % 16, chunk = kh * 2 + lane / 16;
        unsigned r[4];
        ldsm_x4(r, s + row * 32 + chunk_of(row, chunk) * 8);
        acc ^= r[0] ^ r[1] ^ r[2] ^ r[3];
    }
    out[t * 32 + lane] = acc;
}

// bankcheck: kernel=ldsm_rows64 grid=1024 block=128 arg=in=random:4M arg=out=zeros:512K
__global__ void ldsm_rows64(const half *in, unsigned *out) { ldsm_tile<false>(in, out); }
// bankcheck: kernel=ldsm_rows64_swz grid=1024 block=128 arg=in=random:4M arg=out=zeros:512K
__global__ void ldsm_rows64_swz(const half *in, unsigned *out) { ldsm_tile<true>(in, out); }

// Each warp's accumulator fragment (as mma.m16n8k16 leaves it, two n8 halves) written to
// a 16x16 half tile with stmatrix.x4, then the tile leaves with 16-byte stores.
// bankcheck: kernel=stsm_epilogue grid=1024 block=128 arg=out=zeros:2M
__global__ void stsm_epilogue(half *out) {
    __shared__ __align__(128) half tile[4][16 * 16];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const size_t t = (size_t)blockIdx.x * 4 + warp;
    unsigned r[4];
    for (int i = 0; i < 4; ++i) {
        const __half2 v = __floats2half2_rn((float)(t + lane), (float)i);
        r[i] = *reinterpret_cast<const unsigned *>(&v);
    }
    half *s = tile[warp];
    const int row = lane % 16, col = (lane / 16) * 8;
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(s + row * 16 + col));
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(a),
                 "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
    __syncwarp();
    // 32 chunks of 16 bytes: one per lane.
    *reinterpret_cast<uint4 *>(out + t * 256 + lane * 8) = *reinterpret_cast<const uint4 *>(s + lane * 8);
}

constexpr int kScan = 512;

// bankcheck: kernel=scan_count grid=2048 block=512 arg=in=random:4M arg=out=zeros:4M arg=positives=zeros:8K
__global__ void scan_count(const float *in, float *out, int *positives) {
    __shared__ float buf[2][kScan];
    const int t = threadIdx.x;
    const float v = in[(size_t)blockIdx.x * kScan + t];
    const int n = __syncthreads_count(v > 0.5f);
    buf[0][t] = v;
    __syncthreads();
    int src = 0;
    for (int d = 1; d < kScan; d *= 2) {
        const float x = buf[src][t] + (t >= d ? buf[src][t - d] : 0.0f);
        buf[src ^ 1][t] = x;
        src ^= 1;
        __syncthreads();
    }
    out[(size_t)blockIdx.x * kScan + t] = buf[src][t];
    if (t == 0) positives[blockIdx.x] = n;
}

// bankcheck: kernel=hist_u64 grid=256 block=256 arg=keys=iota:4M arg=bins=zeros:512
__global__ void hist_u64(const unsigned *keys, unsigned long long *bins) {
    __shared__ unsigned long long h[64];
    const int t = threadIdx.x;
    if (t < 64) h[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * 256 + t; i < (1 << 20); i += gridDim.x * 256) {
        const unsigned k = keys[i] * 2654435761u;
        atomicAdd(&h[k >> 26], 1ull);
    }
    __syncthreads();
    if (t < 64) atomicAdd(&bins[t], h[t]);
}

int main() {
    float *A, *B, *C, *sin_, *sout;
    half *hin, *hout;
    unsigned *uout, *keys;
    int *pos;
    unsigned long long *bins;
    CHECK(cudaMalloc(&A, 4u << 20));
    CHECK(cudaMalloc(&B, 4u << 20));
    CHECK(cudaMalloc(&C, 4u << 20));
    CHECK(cudaMalloc(&hin, 4u << 20));
    CHECK(cudaMalloc(&uout, 512u << 10));
    CHECK(cudaMalloc(&hout, 2u << 20));
    CHECK(cudaMalloc(&sin_, 4u << 20));
    CHECK(cudaMalloc(&sout, 4u << 20));
    CHECK(cudaMalloc(&pos, 8u << 10));
    CHECK(cudaMalloc(&keys, 4u << 20));
    CHECK(cudaMalloc(&bins, 512));
    CHECK(cudaMemset(A, 0, 4u << 20));
    CHECK(cudaMemset(B, 0, 4u << 20));
    CHECK(cudaMemset(hin, 0, 4u << 20));
    CHECK(cudaMemset(sin_, 0, 4u << 20));
    CHECK(cudaMemset(bins, 0, 512));
    unsigned *h_keys = (unsigned *)std::malloc(4u << 20);
    for (unsigned i = 0; i < (1u << 20); ++i) h_keys[i] = i;
    CHECK(cudaMemcpy(keys, h_keys, 4u << 20, cudaMemcpyHostToDevice));

    sgemm_cpasync<<<dim3(16, 16), 256>>>(A, B, C);
    ldsm_rows64<<<1024, 128>>>(hin, uout);
    ldsm_rows64_swz<<<1024, 128>>>(hin, uout);
    stsm_epilogue<<<1024, 128>>>(hout);
    scan_count<<<2048, 512>>>(sin_, sout, pos);
    hist_u64<<<256, 256>>>(keys, bins);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    unsigned long long h[64], total = 0;
    CHECK(cudaMemcpy(h, bins, 512, cudaMemcpyDeviceToHost));
    for (unsigned long long v : h) total += v;
    std::printf("hist_u64: %s\n", total == (1ull << 20) ? "OK" : "WRONG");
    std::printf("async: done\n");
    std::free(h_keys);
    return 0;
}
