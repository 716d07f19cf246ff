// Threads of the last warp return before __syncthreads(): a note, not a hang.
// bankcheck: kernel=early_exit grid=1 block=64 arg=out=zeros:256
__global__ void early_exit(float* out) {
  __shared__ float s[64];
  if (threadIdx.x >= 32) return;
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[31 - threadIdx.x];
}
