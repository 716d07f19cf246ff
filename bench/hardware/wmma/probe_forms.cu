// The wmma forms probe_wmma.cu leaves out, on sm_90: A column-major, B row-major, f16
// accumulators, column-major accumulators, bf16 inputs (whose <mma.h> loads are generic),
// and fragments loaded from and stored to global memory. Each kernel is one warp: it fills
// a 16 x LD tile whose element (memory row r, memory column c) holds r * 16 + c (-1 past
// column 15), loads A, B and C fragments from it in the kernel's layouts, writes every
// lane's fragment elements out, multiplies (C = A B + C) and stores C back in its layout.
// A, B and C have a tile each (ptxas merges the loads of one tile's A and B fragments).
// main() prints the elements (as probe_wmma.cu does: "FORM ldLD a|b|c laneL v0 v1 ...");
// the SASS and Nsight Compute's per-line counters come from bench/check/run_new.sh:
//   bash bench/check/run_new.sh OUTDIR bench/hardware/wmma/probe_forms.cu
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

constexpr int kMaxLd = 64;

template <class E>
__device__ E from_float(float v);
template <>
__device__ half from_float<half>(float v) { return __float2half(v); }
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <>
__device__ float from_float<float>(float v) { return v; }

template <class E>
__device__ float to_float(E v) { return float(v); }
template <>
__device__ float to_float<half>(half v) { return __half2float(v); }
template <>
__device__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class E>
__device__ void fill(E *t, int ld) {
    for (int i = threadIdx.x; i < 16 * ld; i += 32) {
        const int r = i / ld, c = i % ld;
        t[i] = from_float<E>(c < 16 ? float(r * 16 + c) : -1.0f);
    }
}

template <class F>
__device__ void dump(const F &f, float *out) {
    for (int i = 0; i < f.num_elements; ++i) out[threadIdx.x * f.num_elements + i] = to_float(f.x[i]);
}

// In shared memory: In the input type (half, bf16), T the accumulator type.
template <class In, class AL, class BL, class T, wmma::layout_t CL, int LD>
__global__ void shared_form(float *out_a, float *out_b, float *out_c) {
    __shared__ __align__(128) In atile[16 * LD];
    __shared__ __align__(128) In btile[16 * LD];
    __shared__ __align__(128) T ctile[16 * LD];
    fill(atile, LD);
    fill(btile, LD);
    fill(ctile, LD);
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, In, AL> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, In, BL> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, T> c;
    wmma::load_matrix_sync(a, atile, LD);
    wmma::load_matrix_sync(b, btile, LD);
    wmma::load_matrix_sync(c, ctile, LD, CL);
    dump(a, out_a);
    dump(b, out_b);
    dump(c, out_c);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(ctile, c, LD, CL);
    __syncwarp();
    if (threadIdx.x == 0 && to_float(ctile[0]) < -1e30f) out_c[0] = 0;  // keep the store
}

// In global memory: the tiles are filled by the host.
template <class AL, class BL, class T, wmma::layout_t CL, int LD>
__global__ void global_form(const half *atile, const half *btile, T *ctile, float *out_a,
                            float *out_b, float *out_c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, AL> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, BL> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, T> c;
    wmma::load_matrix_sync(a, atile, LD);
    wmma::load_matrix_sync(b, btile, LD);
    wmma::load_matrix_sync(c, ctile, LD, CL);
    dump(a, out_a);
    dump(b, out_b);
    dump(c, out_c);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(ctile, c, LD, CL);
}

using wmma::col_major;
using wmma::mem_col_major;
using wmma::mem_row_major;
using wmma::row_major;
typedef __nv_bfloat16 bf16;

// FORM name, then one launch per leading dimension.
#define SHARED(NAME, In, AL, BL, T, CL)                 \
    run_shared(NAME, 16, shared_form<In, AL, BL, T, CL, 16>); \
    run_shared(NAME, 24, shared_form<In, AL, BL, T, CL, 24>); \
    run_shared(NAME, 64, shared_form<In, AL, BL, T, CL, 64>);

static float *d_out[3];
static int failed = 0;

static void print(const char *name, int ld, int in_elems, int c_elems) {
    if (cudaDeviceSynchronize() != cudaSuccess) {
        std::printf("%s ld%d: launch failed\n", name, ld);
        failed = 1;
        return;
    }
    static float h[32 * 16];
    const char *frag[] = {"a", "b", "c"};
    for (int f = 0; f < 3; ++f) {
        const int n = f == 2 ? c_elems : in_elems;
        cudaMemcpy(h, d_out[f], sizeof(float) * 32 * n, cudaMemcpyDeviceToHost);
        for (int l = 0; l < 32; ++l) {
            std::printf("%s ld%d %s lane%d", name, ld, frag[f], l);
            for (int i = 0; i < n; ++i) std::printf(" %g", h[l * n + i]);
            std::printf("\n");
        }
    }
}

// Elements per lane: 16 for f16 A and B, 8 for bf16 A and B and for every accumulator.
template <class K>
static void run_shared(const char *name, int ld, K kernel) {
    kernel<<<1, 32>>>(d_out[0], d_out[1], d_out[2]);
    const bool bf = name[0] == 'b';
    print(name, ld, bf ? 8 : 16, 8);
}

template <class T, class K>
static void run_global(const char *name, int ld, K kernel) {
    half h_tile[16 * kMaxLd];
    T h_c[16 * kMaxLd];
    for (int i = 0; i < 16 * ld; ++i) {
        const int r = i / ld, c = i % ld;
        h_tile[i] = __float2half(c < 16 ? float(r * 16 + c) : -1.0f);
        h_c[i] = T(c < 16 ? float(r * 16 + c) : -1.0f);
    }
    half *d_a, *d_b;
    T *d_c;
    cudaMalloc(&d_a, sizeof h_tile);
    cudaMalloc(&d_b, sizeof h_tile);
    cudaMalloc(&d_c, sizeof h_c);
    cudaMemcpy(d_a, h_tile, sizeof h_tile, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_tile, sizeof h_tile, cudaMemcpyHostToDevice);
    cudaMemcpy(d_c, h_c, sizeof h_c, cudaMemcpyHostToDevice);
    kernel<<<1, 32>>>(d_a, d_b, d_c, d_out[0], d_out[1], d_out[2]);
    print(name, ld, 16, 8);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
}

int main() {
    for (auto &o : d_out) cudaMalloc(&o, 32 * 16 * sizeof(float));
    SHARED("f16_acol_brow_f32_ccol", half, col_major, row_major, float, mem_col_major)
    SHARED("f16_arow_brow_f16_crow", half, row_major, row_major, half, mem_row_major)
    SHARED("f16_acol_bcol_f16_ccol", half, col_major, col_major, half, mem_col_major)
    SHARED("f16_arow_bcol_f16_ccol", half, row_major, col_major, half, mem_col_major)
    SHARED("bf16_arow_bcol_f32_crow", bf16, row_major, col_major, float, mem_row_major)
    SHARED("bf16_acol_brow_f32_ccol", bf16, col_major, row_major, float, mem_col_major)
    run_global<float>("global_arow_bcol_f32_crow", 16, global_form<row_major, col_major, float, mem_row_major, 16>);
    run_global<float>("global_arow_bcol_f32_crow", 64, global_form<row_major, col_major, float, mem_row_major, 64>);
    run_global<half>("global_acol_brow_f16_ccol", 16, global_form<col_major, row_major, half, mem_col_major, 16>);
    run_global<half>("global_acol_brow_f16_ccol", 64, global_form<col_major, row_major, half, mem_col_major, 64>);
    return failed;
}
