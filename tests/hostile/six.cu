// six.cu: six pointer parameters left at their default buffer size.
// bankcheck: kernel=six grid=1 block=32
__global__ void six(int* a, int* b, int* c, int* d, int* e, int* f) {
  __shared__ int s[32];
  s[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x] + c[threadIdx.x] + d[threadIdx.x] + e[threadIdx.x];
  __syncthreads();
  f[threadIdx.x] = s[threadIdx.x];
}
