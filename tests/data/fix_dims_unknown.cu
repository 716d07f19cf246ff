// A tile whose dimensions bankcheck cannot evaluate (a constexpr function's result):
// `bankcheck fix` says so instead of guessing its row length.
// bankcheck: kernel=transpose_f grid=2,2 block=32,32 arg=in=random:16384 arg=out=zeros:16384
__host__ __device__ constexpr int width() { return 32; }

__global__ void transpose_f(const float* in, float* out) {
    __shared__ float tile[width()][width()];
    tile[threadIdx.y][threadIdx.x] = in[(blockIdx.y * 32 + threadIdx.y) * 64 + blockIdx.x * 32 + threadIdx.x];
    __syncthreads();
    out[(blockIdx.x * 32 + threadIdx.y) * 64 + blockIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
