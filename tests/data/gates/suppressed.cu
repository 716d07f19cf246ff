// severities.cu with its error and its note accepted in the source, and two comments that
// are wrong: one that matches nothing and has no reason, one naming an unknown rule.
// bankcheck: kernel=severities grid=1 block=32 arg=out=zeros:128 arg=in=random:4224
__global__ void severities(float* out, const float* in) {
  __shared__ float t[32 * 33];
  const int x = threadIdx.x;
#pragma unroll
  for (int i = 0; i < 33; ++i) t[x + 32 * i] = in[x + 32 * i];
  __syncthreads();
  const float a = t[x * 16];  // bankcheck: ignore[bank-conflict] a lookup table read once
  const float b = t[x * 4];
  // bankcheck: ignore-next-line measured: 2% of the kernel's time
  const float c = t[x * 2];
  // bankcheck: ignore-next-line
  out[x] = a + b + c;
  // bankcheck: ignore[bank-conflicts] typo in the rule
}
