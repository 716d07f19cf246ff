// What wmma's shared-memory loads and stores are on sm_90, for emulating them: the SASS
// ptxas makes of wmma.load/store from shared memory (cuobjdump), the fragment layout (each
// lane's elements of a 16x16x16 f16 A, B and f32 C fragment, written out by index), and
// Nsight Compute's per-line shared counters of the loads at two leading dimensions.
// Run: bash bench/hardware/wmma/run.sh OUTDIR (on the GPU machine).
#include <cstdio>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// Element (r, c) of a 16 x LD tile holds r * 16 + c (exact in f16 up to 2048).
template <int LD>
__global__ void layout(float *out_a, float *out_b, float *out_c) {
    __shared__ __align__(128) half tile[16 * LD];
    __shared__ __align__(128) float ctile[16 * LD];
    for (int i = threadIdx.x; i < 16 * LD; i += 32) {
        int r = i / LD, c = i % LD;
        tile[i] = __float2half(c < 16 ? float(r * 16 + c) : -1.0f);
        ctile[i] = c < 16 ? float(r * 16 + c) : -1.0f;
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(a, tile, LD);
    wmma::load_matrix_sync(b, tile, LD);
    wmma::load_matrix_sync(c, ctile, LD, wmma::mem_row_major);
    const int l = threadIdx.x;
    for (int i = 0; i < a.num_elements; ++i) out_a[l * a.num_elements + i] = __half2float(a.x[i]);
    for (int i = 0; i < b.num_elements; ++i) out_b[l * b.num_elements + i] = __half2float(b.x[i]);
    for (int i = 0; i < c.num_elements; ++i) out_c[l * c.num_elements + i] = c.x[i];
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> d;
    wmma::fill_fragment(d, 0.0f);
    wmma::mma_sync(d, a, b, d);
    wmma::store_matrix_sync(ctile, d, LD, wmma::mem_row_major);
    __syncwarp();
    if (l == 0 && ctile[0] < -1e30f) out_c[0] = 0;  // keep the store
}

int main() {
    float *a, *b, *c;
    cudaMalloc(&a, 32 * 16 * 4);
    cudaMalloc(&b, 32 * 16 * 4);
    cudaMalloc(&c, 32 * 16 * 4);
    float h[32 * 16];
    const int lds[] = {16, 24, 32, 64};
    for (int k = 0; k < 4; ++k) {
        switch (k) {
            case 0: layout<16><<<1, 32>>>(a, b, c); break;
            case 1: layout<24><<<1, 32>>>(a, b, c); break;
            case 2: layout<32><<<1, 32>>>(a, b, c); break;
            case 3: layout<64><<<1, 32>>>(a, b, c); break;
        }
        if (cudaDeviceSynchronize() != cudaSuccess) { std::printf("launch failed\n"); return 1; }
        const char *names[] = {"a", "b", "c"};
        float *bufs[] = {a, b, c};
        for (int f = 0; f < 3; ++f) {
            cudaMemcpy(h, bufs[f], sizeof h, cudaMemcpyDeviceToHost);
            for (int l = 0; l < 32; ++l) {
                std::printf("ld%d %s lane%d", lds[k], names[f], l);
                for (int i = 0; i < (f == 2 ? 8 : 16); ++i) std::printf(" %g", h[l * (f == 2 ? 8 : 16) + i]);
                std::printf("\n");
            }
        }
    }
    return 0;
}
