// Two arrays named `tile`: the kernel's own is declared in a device function after a
// smaller one of another kernel, so the first declaration in the file is not its.
// bankcheck: kernel=big grid=1 block=32,32 arg=out=zeros:4096
__global__ void small(float* out) {
    __shared__ float tile[16][16];
    tile[threadIdx.y][threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.y * 16 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

__device__ void column_read(float* out) {
    __shared__ float tile[32][32];
    tile[threadIdx.y][threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void big(float* out) { column_read(out); }
