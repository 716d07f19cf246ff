// Two tiled transposes for the CI-gate example: the tile read by columns conflicts 32 ways
// unless each row is padded by one float.
#define TILE 32

// bankcheck: kernel=transpose_unpadded grid=8,8 block=32,32 arg=in=random arg=out=zeros arg=n=256
__global__ void transpose_unpadded(const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

// bankcheck: kernel=transpose_padded grid=8,8 block=32,32 arg=in=random arg=out=zeros arg=n=256
__global__ void transpose_padded(const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
