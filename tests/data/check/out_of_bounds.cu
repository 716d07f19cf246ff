// Lane 31 writes one element past the shared array: reported with its source line.
// bankcheck: kernel=overrun grid=1 block=32 arg=out=zeros:128
__global__ void overrun(float* out) {
  __shared__ float s[31];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x % 31];
}
