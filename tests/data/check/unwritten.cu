// A histogram whose shared bins are never zeroed: the atomics and the final read see
// shared memory no thread of the CTA wrote (the emulator reads it as zero; the GPU does
// not promise that). One note per line.
// bankcheck: kernel=histogram grid=2 block=256 arg=data=random:512 arg=out=zeros:2048
__global__ void histogram(unsigned* out, const unsigned char* data) {
  __shared__ unsigned bins[256];
  __syncthreads();
  atomicAdd(&bins[data[blockIdx.x * 256 + threadIdx.x]], 1u);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = bins[threadIdx.x];
}
