// occupancy.cu: seed 004's warning made concrete. A 64x64 float tile (16 KB) transposed by
// 128 threads, with a 512-byte table beside it: 16,896 B of shared memory per block. The
// column read tile[tx][ty + j] is a 32-way bank conflict. Padding the tile to [64][65]
// fixes it but costs 256 B more per block, and on sm_90 (228 KB per SM, 1 KB reserved per
// block) that is one resident block fewer: 13 -> 12 blocks, 52 -> 48 warps per SM. An XOR
// swizzle or a rotation fixes the conflict in the same 16 KB. `bankcheck fix` ranks them so
// and says what the padding costs.
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

#define TILE 64
#define ROWS 2  // threads per column: each thread moves TILE / ROWS elements

// bankcheck: kernel=transposeTile64 grid=128,128 block=64,2 arg=in=random:256M arg=out=zeros:256M arg=scale=iota:512 arg=n=8192
__global__ void transposeTile64(const float* in, float* out, const float* scale, int n) {
    __shared__ float tile[TILE][TILE];
    __shared__ float factor[TILE * ROWS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    factor[ty * TILE + tx] = scale[ty * TILE + tx];
    int x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
    for (int j = 0; j < TILE; j += ROWS) tile[ty + j][tx] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + tx;
    y = blockIdx.x * TILE + ty;
    const float f = factor[(ty * TILE + tx + blockIdx.x) % (TILE * ROWS)];
    for (int j = 0; j < TILE; j += ROWS) out[(y + j) * n + x] = tile[tx][ty + j] * f;
}

// ---------------------------------------------------------------------------------------
// Host

int main() {
    const int n = 8192;
    const size_t count = (size_t)n * n, bytes = count * sizeof(float);
    std::vector<float> in(count), out(count), scale(TILE * ROWS);
    for (size_t i = 0; i < count; ++i) in[i] = (float)(i % 1000003);
    for (int i = 0; i < TILE * ROWS; ++i) scale[i] = (float)(i % 3 + 1);
    float *d_in, *d_out, *d_scale;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMalloc(&d_scale, scale.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_scale, scale.data(), scale.size() * sizeof(float), cudaMemcpyHostToDevice));
    transposeTile64<<<dim3(n / TILE, n / TILE), dim3(TILE, ROWS)>>>(d_in, d_out, d_scale, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int by = 0; by < n / TILE; ++by)
        for (int bx = 0; bx < n / TILE; ++bx)
            for (int ty = 0; ty < ROWS; ++ty)
                for (int tx = 0; tx < TILE; ++tx) {
                    const float f = scale[(ty * TILE + tx + bx) % (TILE * ROWS)];
                    for (int j = 0; j < TILE; j += ROWS) {
                        const size_t o = (size_t)(bx * TILE + ty + j) * n + by * TILE + tx;
                        const size_t i = (size_t)(by * TILE + tx) * n + bx * TILE + ty + j;
                        if (out[o] != in[i] * f) ++bad;
                    }
                }
    std::printf("transposeTile64: %s\n", bad ? "WRONG" : "OK");
    return bad ? 1 : 0;
}
