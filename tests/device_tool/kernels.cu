// Two kernels with shared-memory loads and stores, built to a cubin (-lineinfo) for the GPU
// tool's test through the fake sanitizer (run.sh): their SASS gives the instructions the
// driver counts, their line table the lines the report lists.
__global__ void transpose_tile(const float* in, float* out, int n) {
  __shared__ float tile[32][32];
  const int x = blockIdx.x * 32 + threadIdx.x % 32, y = threadIdx.x / 32;
  tile[y][threadIdx.x % 32] = in[y * n + x];
  __syncthreads();
  out[x * n + y] = tile[threadIdx.x % 32][y];
}

__global__ void block_sum(const float* in, float* out) {
  __shared__ float s[256];
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
