// apply.cu: a column read of a 32x32 tile, which declaration padding fixes (fix --apply).
// bankcheck: kernel=tr grid=1 block=32,8 arg=out=zeros:4096
__global__ void tr(float* out) {
  __shared__ float tile[32][32];
  for (int j = threadIdx.y; j < 32; j += 8) tile[j][threadIdx.x] = j;
  __syncthreads();
  for (int j = threadIdx.y; j < 32; j += 8) out[j * 32 + threadIdx.x] = tile[threadIdx.x][j];
}
