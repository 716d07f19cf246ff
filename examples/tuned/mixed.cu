// mixed.cu: five kernels as a performance engineer writes them, run once each by main().
//   conv3x3        3x3 convolution of a 2048x2048 float image, 16x16 blocks staging an
//                  18x18 halo tile in shared memory (loaded by a strided loop).
//   rmsnorm_bf16   RMSNorm of 1024 rows of 4096 bf16: 16-byte loads, the row stashed in
//                  shared memory between the reduction and the scaling.
//   gemv_smem      y = A x for a 4096x4096 float A: x staged in shared memory, each warp a
//                  row at a time, float4 reads of A and of the staged x.
//   radix_hist     4-bit digit histogram per block: one 16-bin sub-histogram per warp
//                  (atomicAdd on shared, result unused), merged into global bins.
//   transpose_bf16 32x32 tiles of a 4096x4096 bf16 matrix through tile[32][32] and
//   transpose_bf16_pad   through tile[32][33].
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_bf16.h>
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

constexpr int kImg = 2048, kTile = 16;

// bankcheck: kernel=conv3x3 grid=128,128 block=16,16 arg=in=random:16M arg=w=random:36 arg=out=zeros:16M
__global__ void conv3x3(const float *in, const float *w, float *out) {
    __shared__ float tile[kTile + 2][kTile + 2];
    const int x0 = blockIdx.x * kTile - 1, y0 = blockIdx.y * kTile - 1;
    const int t = threadIdx.y * kTile + threadIdx.x;
    for (int i = t; i < (kTile + 2) * (kTile + 2); i += kTile * kTile) {
        const int ty = i / (kTile + 2), tx = i % (kTile + 2);
        const int gx = x0 + tx, gy = y0 + ty;
        tile[ty][tx] = (gx >= 0 && gx < kImg && gy >= 0 && gy < kImg) ? in[gy * kImg + gx] : 0.0f;
    }
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int dy = 0; dy < 3; ++dy)
#pragma unroll
        for (int dx = 0; dx < 3; ++dx)
            acc += w[dy * 3 + dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
    out[(blockIdx.y * kTile + threadIdx.y) * kImg + blockIdx.x * kTile + threadIdx.x] = acc;
}

constexpr int kRows = 1024, kCols = 4096, kNormThreads = 512;

// bankcheck: kernel=rmsnorm_bf16 grid=1024 block=512 arg=x=random:8M arg=g=random:8K arg=y=zeros:8M
__global__ void rmsnorm_bf16(const __nv_bfloat16 *x, const __nv_bfloat16 *g, __nv_bfloat16 *y) {
    __shared__ __align__(16) __nv_bfloat16 row[kCols];
    __shared__ float partial[kNormThreads / 32];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const uint4 *src = reinterpret_cast<const uint4 *>(x + (size_t)blockIdx.x * kCols);
    uint4 v = src[t];  // 8 bf16 per thread: 512 x 8 = 4096
    reinterpret_cast<uint4 *>(row)[t] = v;
    const __nv_bfloat162 *p = reinterpret_cast<const __nv_bfloat162 *>(&v);
    float ss = 0.0f;
    for (int i = 0; i < 4; ++i) {
        const float2 f = __bfloat1622float2(p[i]);
        ss += f.x * f.x + f.y * f.y;
    }
    for (int o = 16; o > 0; o /= 2) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    if (lane == 0) partial[warp] = ss;
    __syncthreads();
    float total = 0.0f;
    for (int i = 0; i < kNormThreads / 32; ++i) total += partial[i];
    const float scale = rsqrtf(total / kCols + 1e-6f);
    // Each thread scales 8 elements again, read back from the stash with a stride of the
    // block: element t + 512 k.
    for (int k = 0; k < 8; ++k) {
        const int c = t + kNormThreads * k;
        const float f = __bfloat162float(row[c]) * scale * __bfloat162float(g[c]);
        y[(size_t)blockIdx.x * kCols + c] = __float2bfloat16(f);
    }
}

constexpr int kN = 4096, kGemvThreads = 256;

// bankcheck: kernel=gemv_smem grid=128 block=256 arg=A=random:64M arg=x=random:16K arg=y=zeros:16K
__global__ void gemv_smem(const float *A, const float *x, float *y) {
    __shared__ __align__(16) float xs[kN];
    for (int i = threadIdx.x; i < kN / 4; i += kGemvThreads)
        reinterpret_cast<float4 *>(xs)[i] = reinterpret_cast<const float4 *>(x)[i];
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int rows_per_block = kN / gridDim.x;
    for (int r = warp; r < rows_per_block; r += kGemvThreads / 32) {
        const int row = blockIdx.x * rows_per_block + r;
        const float4 *a4 = reinterpret_cast<const float4 *>(A + (size_t)row * kN);
        float acc = 0.0f;
        for (int i = lane; i < kN / 4; i += 32) {
            const float4 a = a4[i], b = reinterpret_cast<const float4 *>(xs)[i];
            acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        }
        for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
        if (lane == 0) y[row] = acc;
    }
}

constexpr int kKeys = 1 << 22, kHistThreads = 256;

// bankcheck: kernel=radix_hist grid=1024 block=256 arg=keys=iota:16M arg=bins=zeros:64
__global__ void radix_hist(const unsigned *keys, unsigned *bins) {
    __shared__ unsigned h[kHistThreads / 32][16];
    const int t = threadIdx.x, warp = t / 32;
    if (t < kHistThreads / 32 * 16) (&h[0][0])[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * kHistThreads + t; i < kKeys; i += gridDim.x * kHistThreads) {
        const unsigned k = keys[i] * 2654435761u;  // a hashed key: digits spread
        atomicAdd(&h[warp][k >> 28], 1u);
    }
    __syncthreads();
    if (t < 16) {
        unsigned s = 0;
        for (int w = 0; w < kHistThreads / 32; ++w) s += h[w][t];
        atomicAdd(&bins[t], s);
    }
}

constexpr int kT = 4096;

// bankcheck: kernel=transpose_bf16 grid=128,128 block=32,8 arg=in=random:32M arg=out=zeros:32M
__global__ void transpose_bf16(const __nv_bfloat16 *in, __nv_bfloat16 *out) {
    __shared__ __nv_bfloat16 tile[32][32];
    const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * kT + x];
    __syncthreads();
    const int ox = blockIdx.y * 32 + threadIdx.x, oy = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(size_t)(oy + j) * kT + ox] = tile[threadIdx.x][threadIdx.y + j];
}

// bankcheck: kernel=transpose_bf16_pad grid=128,128 block=32,8 arg=in=random:32M arg=out=zeros:32M
__global__ void transpose_bf16_pad(const __nv_bfloat16 *in, __nv_bfloat16 *out) {
    __shared__ __nv_bfloat16 tile[32][33];
    const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * kT + x];
    __syncthreads();
    const int ox = blockIdx.y * 32 + threadIdx.x, oy = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(size_t)(oy + j) * kT + ox] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
    float *img, *img_out, *w, *A, *x, *y;
    __nv_bfloat16 *bx, *bg, *by, *tin, *tout;
    unsigned *keys, *bins;
    CHECK(cudaMalloc(&img, 16u << 20));
    CHECK(cudaMalloc(&img_out, 16u << 20));
    CHECK(cudaMalloc(&w, 36));
    CHECK(cudaMalloc(&A, 64u << 20));
    CHECK(cudaMalloc(&x, 16u << 10));
    CHECK(cudaMalloc(&y, 16u << 10));
    CHECK(cudaMalloc(&bx, 8u << 20));
    CHECK(cudaMalloc(&bg, 8u << 10));
    CHECK(cudaMalloc(&by, 8u << 20));
    CHECK(cudaMalloc(&tin, 32u << 20));
    CHECK(cudaMalloc(&tout, 32u << 20));
    CHECK(cudaMalloc(&keys, 16u << 20));
    CHECK(cudaMalloc(&bins, 64));
    std::vector<unsigned> iota(kKeys);
    for (int i = 0; i < kKeys; ++i) iota[i] = (unsigned)i;
    CHECK(cudaMemcpy(keys, iota.data(), 16u << 20, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(img, 0, 16u << 20));
    CHECK(cudaMemset(w, 0, 36));
    CHECK(cudaMemset(A, 0, 64u << 20));
    CHECK(cudaMemset(x, 0, 16u << 10));
    CHECK(cudaMemset(bx, 0, 8u << 20));
    CHECK(cudaMemset(bg, 0, 8u << 10));
    CHECK(cudaMemset(tin, 0, 32u << 20));
    CHECK(cudaMemset(bins, 0, 64));

    conv3x3<<<dim3(128, 128), dim3(16, 16)>>>(img, w, img_out);
    rmsnorm_bf16<<<kRows, kNormThreads>>>(bx, bg, by);
    gemv_smem<<<128, kGemvThreads>>>(A, x, y);
    radix_hist<<<1024, kHistThreads>>>(keys, bins);
    transpose_bf16<<<dim3(128, 128), dim3(32, 8)>>>(tin, tout);
    transpose_bf16_pad<<<dim3(128, 128), dim3(32, 8)>>>(tin, tout);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    unsigned h[16];
    CHECK(cudaMemcpy(h, bins, 64, cudaMemcpyDeviceToHost));
    unsigned total = 0;
    for (unsigned v : h) total += v;
    std::printf("radix_hist: %s\n", total == (unsigned)kKeys ? "OK" : "WRONG");
    std::printf("mixed: done\n");
    return 0;
}
