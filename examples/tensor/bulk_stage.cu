// bulk_stage.cu: row sums of a skinny matrix (rows of 32 floats, 128 bytes), with tiles of
// 128 rows staged into shared memory by the TMA unit (cp.async.bulk, sm_90), double
// buffered on two mbarriers: thread 0 arms a buffer's mbarrier with the tile's bytes
// (mbarrier.arrive.expect_tx) and issues its copy; every thread waits on the phase's parity
// (mbarrier.try_wait.parity), then sums its row. Thread 0 refills a buffer once every
// thread has read it.
//   row_sums_conflicted: thread t reads row t from left to right. Rows are 128 bytes apart,
//                        so the 8 lanes of each quarter-warp phase of a 16-byte load hit the
//                        same four banks: 8-way conflicts.
//   row_sums_rotated:    thread t starts at 16-byte chunk t % 8 of its row and wraps
//                        around: the 8 lanes of a phase read 8 different chunks, all 32
//                        banks. No conflicts, and no padding (a bulk copy writes the tile
//                        as one contiguous block, so padded rows would need a copy per row).
// Inputs are multiples of 1/8 in [-16, 16]: every sum is exact, and main() compares each
// row's sum with a CPU sum for equality.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

constexpr int kCols = 32, kRows = 128, kGrid = 64, kTiles = 8;
constexpr unsigned kTileBytes = kRows * kCols * sizeof(float);  // 16 KB, one bulk copy

__device__ inline unsigned smem(const void *p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Arms the mbarrier with the tile's bytes and copies the tile into the buffer.
__device__ inline void stage(float *buf, const float *src, unsigned long long *full) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(smem(full)), "r"(kTileBytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1], %2, [%3];"
                 :: "r"(smem(buf)), "l"(src), "r"(kTileBytes), "r"(smem(full)) : "memory");
}

// Waits until the mbarrier's phase of this parity has completed.
__device__ inline void wait(unsigned long long *full, unsigned parity) {
    asm volatile("{\n\t.reg .pred P1;\n"
                 "LAB_WAIT:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
                 "@P1 bra DONE;\n\t"
                 "bra LAB_WAIT;\n"
                 "DONE:\n\t}"
                 :: "r"(smem(full)), "r"(parity) : "memory");
}

// Each CTA sums `tiles` consecutive tiles of 128 rows; ROTATE picks the read order.
template <bool ROTATE>
__device__ void row_sums(const float *in, float *out, int tiles) {
    __shared__ alignas(128) float4 buf[2][kRows][kCols / 4];
    __shared__ alignas(8) unsigned long long full[2];
    const int t = threadIdx.x;
    const float *first = in + size_t(blockIdx.x) * tiles * kRows * kCols;
    if (t == 0) {
        for (int s = 0; s < 2; ++s)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full[s])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t == 0)
        for (int k = 0; k < 2 && k < tiles; ++k)
            stage(&buf[k][0][0].x, first + size_t(k) * kRows * kCols, &full[k]);
    for (int k = 0; k < tiles; ++k) {
        wait(&full[k % 2], (k / 2) & 1);
        const float4 *row = buf[k % 2][t];
        float acc = 0.f;
#pragma unroll
        for (int c = 0; c < kCols / 4; ++c) {
            const float4 v = row[ROTATE ? (c + t) % (kCols / 4) : c];
            acc += (v.x + v.y) + (v.z + v.w);
        }
        out[(size_t(blockIdx.x) * tiles + k) * kRows + t] = acc;
        __syncthreads();  // every row of the buffer read: it may be refilled
        if (t == 0 && k + 2 < tiles)
            stage(&buf[k % 2][0][0].x, first + size_t(k + 2) * kRows * kCols, &full[k % 2]);
    }
}

// bankcheck: kernel=row_sums_conflicted grid=64 block=128 arg=in=random:8M arg=out=zeros:256K arg=tiles=8
__global__ void row_sums_conflicted(const float *in, float *out, int tiles) {
    row_sums<false>(in, out, tiles);
}

// bankcheck: kernel=row_sums_rotated grid=64 block=128 arg=in=random:8M arg=out=zeros:256K arg=tiles=8
__global__ void row_sums_rotated(const float *in, float *out, int tiles) {
    row_sums<true>(in, out, tiles);
}

int main() {
    const size_t rows = size_t(kGrid) * kTiles * kRows, n = rows * kCols;
    std::vector<float> in(n), out(rows);
    std::uint64_t s = 1;
    for (float &x : in) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x = static_cast<float>(static_cast<int>((s >> 40) % 257) - 128) / 8.f;
    }
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, rows * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    int failures = 0;
    const struct {
        const char *name;
        void (*kernel)(const float *, float *, int);
    } kernels[] = {{"row_sums_conflicted", row_sums_conflicted},
                   {"row_sums_rotated", row_sums_rotated}};
    for (const auto &k : kernels) {
        CHECK(cudaMemset(d_out, 0xff, rows * sizeof(float)));  // NaN
        k.kernel<<<kGrid, kRows>>>(d_in, d_out, kTiles);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(out.data(), d_out, rows * sizeof(float), cudaMemcpyDeviceToHost));
        size_t wrong = 0;
        for (size_t r = 0; r < rows; ++r) {
            float want = 0.f;
            for (int c = 0; c < kCols; c += 4)
                want += (in[r * kCols + c] + in[r * kCols + c + 1]) +
                        (in[r * kCols + c + 2] + in[r * kCols + c + 3]);
            if (out[r] != want) ++wrong;
        }
        if (wrong) {
            std::printf("%s: WRONG (%zu of %zu rows)\n", k.name, wrong, rows);
            ++failures;
        } else {
            std::printf("%s: OK\n", k.name);
        }
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return failures ? 1 : 0;
}
