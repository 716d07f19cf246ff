// attention_swizzle.cu: `bankcheck fix examples/tensor/attention.cu` suggests, for its
// padded tiles (rows of 72 halves, 144 bytes), "drop the 16-byte padding of each 144-byte
// row and XOR the column with the row instead (CuTe Swizzle<3,3,3> on rows of 128 B)":
// each row's cp.async.cg then fills one 128-byte line (the H100 charges 10.5 wavefronts a
// request for the padded rows, 4 for aligned ones) and ldmatrix stays conflict-free. This
// is the example's kernel with its tile layout as a parameter, both layouts in one
// program: each checked against a double-precision CPU attention, then timed with CUDA
// events (median of 50 launches after 5 warm-ups). run.sh adds Nsight Compute's per-line
// counters, which tests/fix_test.cpp compares with the prediction.
#include <algorithm>
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

constexpr int kHeads = 8, kSeq = 512, kD = 64;
constexpr int kBr = 64, kBc = 64, kThreads = 128;  // query rows and key rows per tile

__device__ __forceinline__ void cp_async_16(void *smem, const void *gmem) {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
__device__ __forceinline__ void cp_async_wait_all() {
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void *smem) {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s)
                 : "memory");
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void *smem) {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s)
                 : "memory");
}
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                          uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The two tile layouts: the example's padded rows, and the suggestion.
struct Padded {
    static constexpr int kStride = kD + 8;
    static __device__ __forceinline__ int at(int row, int col) { return row * kStride + col; }
};
struct Swizzled {  // Swizzle<3,3,3> on half offsets: the 16-byte chunk XOR the row modulo 8
    static constexpr int kStride = kD;
    static __device__ __forceinline__ int at(int row, int col) {
        int o = row * kStride + col;
        return o ^ ((o >> 3) & 56);
    }
};

template <class L>
__device__ __forceinline__ void flash_attention(const half *Q, const half *K, const half *V,
                                                half *O, int seq_len) {
    __shared__ __align__(16) half Qs[kBr * L::kStride];
    __shared__ __align__(16) half Ks[kBc * L::kStride];
    __shared__ __align__(16) half Vs[kBc * L::kStride];
    __shared__ __align__(16) half Ps[kBr * L::kStride];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int r0 = warp * 16;  // the warp's first query row in the tile
    const size_t head = (size_t)blockIdx.y * seq_len * kD;
    Q += head + (size_t)blockIdx.x * kBr * kD;
    O += head + (size_t)blockIdx.x * kBr * kD;
    K += head;
    V += head;

    // A 64x64 tile, 8 16-byte chunks a row, 4 chunks a thread.
    auto load_tile = [&](half *dst, const half *src) {
        for (int c = tid; c < 64 * kD / 8; c += kThreads) {
            int row = c / (kD / 8), col = (c % (kD / 8)) * 8;
            cp_async_16(&dst[L::at(row, col)], &src[row * kD + col]);
        }
    };
    load_tile(Qs, Q);
    cp_async_commit();

    const float scale_log2 = 0.125f * 1.4426950408889634f;  // 1/sqrt(64), for exp2
    uint32_t qf[4][4];                                       // Q fragments, k = 0, 16, 32, 48
    float o[8][4] = {};  // O: 16 rows x 64 dims, 8 n8 tiles
    // Each lane holds rows lane/4 (fragment elements 0, 1) and lane/4 + 8 (elements 2, 3).
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    for (int kv = 0; kv < seq_len; kv += kBc) {
        load_tile(Ks, K + (size_t)kv * kD);
        load_tile(Vs, V + (size_t)kv * kD);
        cp_async_commit();
        cp_async_wait_all();
        __syncthreads();
        if (kv == 0)
            for (int kk = 0; kk < 4; ++kk)
                ldmatrix_x4(qf[kk], &Qs[L::at(r0 + lane % 16, kk * 16 + (lane / 16) * 8)]);

        // S = Q K^T: K's rows are S's columns, so K is the column-major B operand as stored.
        float s[8][4] = {};
        for (int kk = 0; kk < 4; ++kk)
            for (int nj = 0; nj < 4; ++nj) {
                uint32_t r[4];
                int row = nj * 16 + (lane & 7) + ((lane >> 4) << 3);
                int col = kk * 16 + ((lane >> 3) & 1) * 8;
                ldmatrix_x4(r, &Ks[L::at(row, col)]);
                mma_16816(s[2 * nj], qf[kk], r[0], r[1]);
                mma_16816(s[2 * nj + 1], qf[kk], r[2], r[3]);
            }

        // Online softmax; a row's 64 scores are spread over the 4 lanes of a quad.
        for (int h = 0; h < 2; ++h) {
            float mx = m[h];
            for (int nt = 0; nt < 8; ++nt) mx = fmaxf(mx, fmaxf(s[nt][2 * h], s[nt][2 * h + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float corr = exp2f((m[h] - mx) * scale_log2);  // 0 on the first tile
            m[h] = mx;
            l[h] *= corr;
            for (int nt = 0; nt < 8; ++nt) {
                o[nt][2 * h] *= corr;
                o[nt][2 * h + 1] *= corr;
                const float p0 = exp2f((s[nt][2 * h] - mx) * scale_log2);
                const float p1 = exp2f((s[nt][2 * h + 1] - mx) * scale_log2);
                l[h] += p0 + p1;
                *reinterpret_cast<half2 *>(
                    &Ps[L::at(r0 + lane / 4 + 8 * h, nt * 8 + (lane % 4) * 2)]) =
                    __floats2half2_rn(p0, p1);
            }
        }
        __syncwarp();  // a warp reads back only its own 16 rows of P

        // O += P V: V's rows are the k dimension, so V is read transposed.
        for (int kk = 0; kk < 4; ++kk) {
            uint32_t pf[4];
            ldmatrix_x4(pf, &Ps[L::at(r0 + lane % 16, kk * 16 + (lane / 16) * 8)]);
            for (int nj = 0; nj < 4; ++nj) {
                uint32_t r[4];
                int row = kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
                int col = nj * 16 + (lane >> 4) * 8;
                ldmatrix_x4_trans(r, &Vs[L::at(row, col)]);
                mma_16816(o[2 * nj], pf, r[0], r[1]);
                mma_16816(o[2 * nj + 1], pf, r[2], r[3]);
            }
        }
        __syncthreads();  // K and V are refilled next
    }

    for (int h = 0; h < 2; ++h) {
        float sum = l[h];
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        const float inv = 1.0f / sum;
        for (int nt = 0; nt < 8; ++nt)
            *reinterpret_cast<half2 *>(&O[(size_t)(r0 + lane / 4 + 8 * h) * kD + nt * 8 +
                                          (lane % 4) * 2]) =
                __floats2half2_rn(o[nt][2 * h] * inv, o[nt][2 * h + 1] * inv);
    }
}


// bankcheck: kernel=attention_padded grid=8,8 block=128 arg=Q=random:524288 arg=K=random:524288 arg=V=random:524288 arg=O=zeros:524288 arg=seq_len=512
__global__ void attention_padded(const half *Q, const half *K, const half *V, half *O, int seq_len) {
    flash_attention<Padded>(Q, K, V, O, seq_len);
}
// bankcheck: kernel=attention_swizzled grid=8,8 block=128 arg=Q=random:524288 arg=K=random:524288 arg=V=random:524288 arg=O=zeros:524288 arg=seq_len=512
__global__ void attention_swizzled(const half *Q, const half *K, const half *V, half *O, int seq_len) {
    flash_attention<Swizzled>(Q, K, V, O, seq_len);
}

static uint64_t rng_state = 0xa77e;
static float next_random() {  // xorshift64*, uniform in [-1, 1)
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ull) >> 40) / 8388608.0f - 1.0f;
}

int main() {
    const size_t n = (size_t)kHeads * kSeq * kD;
    std::vector<half> q(n), k(n), v(n), out(n);
    for (auto &x : q) x = __float2half(2.0f * next_random());
    for (auto &x : k) x = __float2half(2.0f * next_random());
    for (auto &x : v) x = __float2half(next_random());
    std::vector<double> want(n), s(kSeq);
    for (int h = 0; h < kHeads; ++h)
        for (int i = 0; i < kSeq; ++i) {
            const half *qi = &q[((size_t)h * kSeq + i) * kD];
            double mx = -INFINITY, sum = 0.0;
            for (int j = 0; j < kSeq; ++j) {
                const half *kj = &k[((size_t)h * kSeq + j) * kD];
                double dot = 0.0;
                for (int d = 0; d < kD; ++d) dot += (double)__half2float(qi[d]) * __half2float(kj[d]);
                s[j] = dot / 8.0;
                mx = std::fmax(mx, s[j]);
            }
            for (int j = 0; j < kSeq; ++j) sum += (s[j] = std::exp(s[j] - mx));
            double *o = &want[((size_t)h * kSeq + i) * kD];
            for (int d = 0; d < kD; ++d) o[d] = 0.0;
            for (int j = 0; j < kSeq; ++j) {
                const half *vj = &v[((size_t)h * kSeq + j) * kD];
                for (int d = 0; d < kD; ++d) o[d] += s[j] / sum * __half2float(vj[d]);
            }
        }
    half *d_q, *d_k, *d_v, *d_o;
    CHECK(cudaMalloc(&d_q, n * sizeof(half)));
    CHECK(cudaMalloc(&d_k, n * sizeof(half)));
    CHECK(cudaMalloc(&d_v, n * sizeof(half)));
    CHECK(cudaMalloc(&d_o, n * sizeof(half)));
    CHECK(cudaMemcpy(d_q, q.data(), n * sizeof(half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_k, k.data(), n * sizeof(half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_v, v.data(), n * sizeof(half), cudaMemcpyHostToDevice));
    using Kernel = void (*)(const half *, const half *, const half *, half *, int);
    const struct { const char *name; Kernel k; } kernels[] = {
        {"attention_padded", attention_padded}, {"attention_swizzled", attention_swizzled}};
    const bool timing = std::getenv("NO_TIMING") == nullptr;  // under ncu: one launch each
    int failed = 0;
    for (const auto &kc : kernels) {
        CHECK(cudaMemset(d_o, 0xFF, n * sizeof(half)));  // NaN: unwritten elements fail
        kc.k<<<dim3(kSeq / kBr, kHeads), kThreads>>>(d_q, d_k, d_v, d_o, kSeq);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(out.data(), d_o, n * sizeof(half), cudaMemcpyDeviceToHost));
        double err = 0.0, ref = 0.0;
        size_t nonfinite = 0;
        for (size_t i = 0; i < n; ++i) {
            const double g = __half2float(out[i]);
            if (!std::isfinite(g)) ++nonfinite;
            err += (g - want[i]) * (g - want[i]);
            ref += want[i] * want[i];
        }
        const double rel = std::sqrt(err / ref);
        const bool ok = nonfinite == 0 && rel < 1e-2;
        failed |= !ok;
        float median_us = 0.0f;
        if (timing) {
            cudaEvent_t a, b;
            CHECK(cudaEventCreate(&a));
            CHECK(cudaEventCreate(&b));
            std::vector<float> t;
            for (int rep = 0; rep < 55; ++rep) {
                CHECK(cudaEventRecord(a));
                kc.k<<<dim3(kSeq / kBr, kHeads), kThreads>>>(d_q, d_k, d_v, d_o, kSeq);
                CHECK(cudaEventRecord(b));
                CHECK(cudaEventSynchronize(b));
                float ms = 0.0f;
                CHECK(cudaEventElapsedTime(&ms, a, b));
                if (rep >= 5) t.push_back(ms * 1000.0f);
            }
            std::sort(t.begin(), t.end());
            median_us = t[t.size() / 2];
        }
        std::printf("%s\t%s\trel_err=%.3g\tmedian_us=%.2f\n", kc.name, ok ? "OK" : "WRONG", rel,
                    median_us);
    }
    CHECK(cudaFree(d_q));
    CHECK(cudaFree(d_k));
    CHECK(cudaFree(d_v));
    CHECK(cudaFree(d_o));
    return failed;
}
