// A shared access inside a __device__ helper that nvcc inlines into the kernel: the
// conflict is on the helper's line (4), called from line 11. The SARIF result keeps the
// inline stack (tests/reports/reports_test.cpp).
// bankcheck: kernel=column_sum grid=1 block=32 arg=out=zeros:1024
__device__ __forceinline__ float column(const float (*t)[32], int row) { return t[row][0]; }

__global__ void column_sum(float* out) {
    __shared__ float tile[32][32];
    for (int r = 0; r < 32; ++r) tile[r][threadIdx.x] = r + threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = column(tile, threadIdx.x);
}
