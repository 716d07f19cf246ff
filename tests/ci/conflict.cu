// A 32x32 tile read by column: every load of the column walk is a 32-way bank conflict.
// bankcheck: kernel=column grid=1 block=32,32
__global__ void column(const float* in, float* out) {
  __shared__ float tile[32][32];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
