// An unconditional and a conditional store to one shared word: nvcc keeps both PTX stores
// (the value comes from a global load under the condition), ptxas issues one STS whose
// value it selects, on the line of the read after the barrier (tests/sass_compiled_test.cpp).
// bankcheck: kernel=merged_store grid=1 block=64 arg=out=zeros:256 arg=in=iota:256 arg=n=40
__global__ void merged_store(int* out, const int* in, int n) {
  __shared__ int s[64];
  const int i = threadIdx.x;
  s[i] = 0;
  if (i < n) s[i] = in[i];
  __syncthreads();
  out[i] = s[63 - i];
}
