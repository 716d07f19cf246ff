// A tile whose dimensions are template parameters: `bankcheck fix` cannot read its row
// length from the declaration and says so instead of guessing.
// bankcheck: kernel=transpose_t grid=2,2 block=32,32 arg=in=random:16384 arg=out=zeros:16384
template <int W>
__global__ void transpose_t(const float* in, float* out) {
    __shared__ float tile[W][W];
    tile[threadIdx.y][threadIdx.x] = in[(blockIdx.y * W + threadIdx.y) * 64 + blockIdx.x * W + threadIdx.x];
    __syncthreads();
    out[(blockIdx.x * W + threadIdx.y) * 64 + blockIdx.y * W + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
template __global__ void transpose_t<32>(const float*, float*);
