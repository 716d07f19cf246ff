// The interleaved tree reduction with a constant bound: ptxas unrolls the loop, merges the
// first step's two loads into an LDS.64, and for every later step issues two LDS that the
// cubin's line table both places on the first load's PTX line. The H100 counts 8,512 shared
// wavefronts on the loop's line for 64 CTAs of 256 threads.
// bankcheck: kernel=reduce grid=64 block=256
__global__ void reduce(const float* in, float* out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned k = 1; k < 256; k *= 2) { unsigned i = 2 * k * t; if (i < 256) s[i] += s[i + k]; __syncthreads(); }
  if (t == 0) out[blockIdx.x] = s[0];
}
