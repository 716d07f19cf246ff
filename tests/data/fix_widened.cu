// Each thread sums four neighbouring floats of one row: ptxas merges the four scalar loads
// into one LDS.128 (the PTX has four ld.shared.f32), and a warp's 32 rows all start in bank
// 0. Padding each row by 1 float removes the conflict but unaligns the windows (4 x LDS);
// by 2, 2 x LDS.64; by 4, the LDS.128 stays: `bankcheck fix` ranks by what SASS would issue.
// bankcheck: kernel=row_quads grid=1 block=32,8 arg=in=random:4096 arg=out=zeros:4096
__global__ void row_quads(const float* in, float* out) {
    __shared__ float tile[32][32];
    for (int r = threadIdx.y; r < 32; r += 8) tile[r][threadIdx.x] = in[r * 32 + threadIdx.x];
    __syncthreads();
    const int row = threadIdx.x, col = 4 * threadIdx.y;
    float sum = 0.0f;
    for (int k = 0; k < 4; ++k) sum += tile[row][col + k];
    out[threadIdx.y * 32 + threadIdx.x] = sum;
}
