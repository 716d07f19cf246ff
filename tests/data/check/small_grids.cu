// Three small grids and a large one in one run, sharing the sample's budget: each small grid
// (64 CTAs, about 1.8 million warp instructions) is analysed whole, the large one sampled.
// bankcheck: kernel=big grid=4096 block=256 arg=out=zeros:4M arg=n=400
// bankcheck: kernel=a grid=64 block=256 arg=out=zeros:1M arg=n=400
// bankcheck: kernel=b grid=64 block=256 arg=out=zeros:1M arg=n=400
// bankcheck: kernel=c grid=64 block=256 arg=out=zeros:1M arg=n=400
__global__ void a(float* out, int n) {
  __shared__ float s[256];
  float acc = 0;
  for (int i = 0; i < n; ++i) {
    s[threadIdx.x] = acc + i;
    __syncthreads();
    acc += s[(threadIdx.x * 2) % 256];
    __syncthreads();
  }
  out[blockIdx.x * 256 + threadIdx.x] = acc;
}
__global__ void b(float* out, int n) {
  __shared__ float s[256];
  float acc = 0;
  for (int i = 0; i < n; ++i) {
    s[threadIdx.x] = acc * i;
    __syncthreads();
    acc += s[(threadIdx.x * 4) % 256];
    __syncthreads();
  }
  out[blockIdx.x * 256 + threadIdx.x] = acc;
}
__global__ void c(float* out, int n) {
  __shared__ float s[256];
  float acc = 0;
  for (int i = 0; i < n; ++i) {
    s[threadIdx.x] = acc - i;
    __syncthreads();
    acc += s[(threadIdx.x * 8) % 256];
    __syncthreads();
  }
  out[blockIdx.x * 256 + threadIdx.x] = acc;
}
__global__ void big(float* out, int n) {
  __shared__ float s[256];
  float acc = 0;
  for (int i = 0; i < n; ++i) {
    s[threadIdx.x] = acc + i;
    __syncthreads();
    acc += s[threadIdx.x];
    __syncthreads();
  }
  out[blockIdx.x * 256 + threadIdx.x] = acc;
}
