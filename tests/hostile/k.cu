// k.cu: a 2-way strided shared access, the hostile suite's ordinary kernel.
// bankcheck: kernel=k grid=4 block=64 arg=out=zeros:1024 arg=n=1
__global__ void k(int* out, int n) {
  __shared__ int s[128];
  s[threadIdx.x * 2 % 128] = n;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x * 2 % 128];
}
