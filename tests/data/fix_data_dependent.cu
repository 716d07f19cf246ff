// Shared indices that come from loaded data. `scatter_keys` writes tile[keys[i]]: which lanes
// collide depends on the keys, so `bankcheck fix` says so and suggests no layout.
// `column_at` reads a column whose position comes from memory but is the same for the whole
// block: the conflict does not depend on the data, and a layout fixes it.
// bankcheck: kernel=scatter_keys grid=4 block=128 arg=keys=random:2048 arg=out=zeros:2048
__global__ void scatter_keys(const unsigned* keys, float* out) {
    __shared__ float tile[1024];
    const unsigned k = keys[blockIdx.x * blockDim.x + threadIdx.x] % 1024;
    tile[k] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x];
}

// bankcheck: kernel=column_at grid=4 block=32,32 arg=cols=iota:16 arg=out=zeros:16384
__global__ void column_at(const int* cols, float* out) {
    __shared__ float tile[32][32];
    const int c = cols[blockIdx.x] % 32;
    tile[threadIdx.y][threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[(blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x] = tile[threadIdx.x][(c + threadIdx.y) % 32];
}
