// A histogram: the shared address is a value loaded from `data`.
__global__ void histogram(const unsigned* data, unsigned* out, int n) {
  __shared__ unsigned bins[256];
  bins[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i] % 256], 1u);
  __syncthreads();
  atomicAdd(&out[threadIdx.x], bins[threadIdx.x]);
}
