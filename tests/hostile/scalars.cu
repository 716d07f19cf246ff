// scalars.cu: parameters of several widths, so that out-of-range values can be refused.
// bankcheck: kernel=sc grid=1 block=32 arg=out=zeros:256 arg=f=1.5
__global__ void sc(int* out, unsigned n, signed char c, long long w, float f) {
  __shared__ int s[32];
  s[threadIdx.x] = n + c + (int)w + (int)f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
