// local4m.cu: a 4 MB local array per thread.
// bankcheck: kernel=loc grid=1 block=32 arg=out=zeros:256
__global__ void loc(int* out, int i) {
  volatile int big[1 << 20];
  big[i] = threadIdx.x;
  __shared__ int s[32];
  s[threadIdx.x] = big[threadIdx.x % 7];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
