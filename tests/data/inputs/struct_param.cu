// A by-value struct parameter: scalars, pointers and an array, given field by field.
#define NW 4
struct Params {
  int n;
  const float* in;
  float* out;
  float scale;
  int w[NW];
};

__global__ void scale(Params p) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) tile[threadIdx.x] = p.in[i] * p.scale;
  __syncthreads();
  if (i < p.n) p.out[i] = tile[(threadIdx.x * p.w[1]) % 256];
}
