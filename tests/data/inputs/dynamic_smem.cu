// Dynamic shared memory: its size comes from the launch.
__global__ void stage(const float* in, float* out) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}
