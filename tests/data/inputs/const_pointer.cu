// A __constant__ pointer to a table the kernel reads.
__constant__ const int* table;

__global__ void lookup(float* out) {
  __shared__ float tile[1024];
  tile[table[threadIdx.x] % 1024] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}
