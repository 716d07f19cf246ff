// One finding of each severity in one kernel (docs/reports.md: error from 25% of the
// kernel's shared wavefronts in excess, warning from 5%, else note). One warp: the 33
// conflict-free stores cost 33 wavefronts; the reads below cost 16, 4 and 2 (55 in all),
// so their excess is 15/55 (27%, error), 3/55 (5.5%, warning) and 1/55 (1.8%, note).
// bankcheck: kernel=severities grid=1 block=32 arg=out=zeros:128 arg=in=random:4224
__global__ void severities(float* out, const float* in) {
  __shared__ float t[32 * 33];
  const int x = threadIdx.x;
#pragma unroll
  for (int i = 0; i < 33; ++i) t[x + 32 * i] = in[x + 32 * i];
  __syncthreads();
  const float a = t[x * 16];
  const float b = t[x * 4];
  const float c = t[x * 2];
  out[x] = a + b + c;
}
