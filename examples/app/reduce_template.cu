// A template reduction launched through a template launcher function called from main with
// constant arguments; the block size is a template argument, dynamic shared memory is given
// in the launch. bankcheck reads the launch from the launcher and its call; no flags needed.
#include <cstdio>

template <int BLOCK, typename T>
__global__ void reduce(const T* in, T* out, int n) {
  extern __shared__ unsigned char raw[];
  T* sdata = reinterpret_cast<T*>(raw);
  const int tid = threadIdx.x;
  const int i = blockIdx.x * BLOCK * 2 + tid;
  T v = 0;
  if (i < n) v = in[i];
  if (i + BLOCK < n) v += in[i + BLOCK];
  sdata[tid] = v;
  __syncthreads();
  for (int s = 1; s < BLOCK; s *= 2) {  // interleaved addressing: strided shared accesses
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

template <int BLOCK>
void launch_reduce(const float* in, float* out, int n, cudaStream_t stream) {
  const int blocks = (n + BLOCK * 2 - 1) / (BLOCK * 2);
  reduce<BLOCK, float><<<blocks, BLOCK, BLOCK * sizeof(float), stream>>>(in, out, n);
}

int main() {
  const int n = 1 << 15;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, (n / 256) * sizeof(float));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  launch_reduce<128>(in, out, n, stream);
  launch_reduce<256>(in, out, n, stream);
  cudaStreamSynchronize(stream);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
