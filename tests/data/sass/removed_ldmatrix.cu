// A software-pipelined ldmatrix loop, unrolled: each iteration loads the next fragment,
// and the last iteration's load is never used. nvcc keeps it in the PTX; ptxas removes it,
// so the hardware issues four LDSM where the PTX has five ldmatrix
// (tests/sass_compiled_test.cpp).
// bankcheck: kernel=pipelined grid=1 block=32 arg=out=zeros:128
__device__ __forceinline__ unsigned ldm(const void* p) {
  unsigned r;
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(a));
  return r;
}

__global__ void pipelined(unsigned* out) {
  __shared__ __align__(16) unsigned short tile[8][64];
  for (int i = threadIdx.x; i < 8 * 64; i += 32) tile[i / 64][i % 64] = i;
  __syncthreads();
  const int lane = threadIdx.x;
  unsigned cur = ldm(&tile[lane % 8][0]);
  unsigned acc = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const unsigned next = ldm(&tile[lane % 8][(k + 1) * 8 % 64]);
    acc += cur;
    if (k < 3) cur = next;
  }
  out[threadIdx.x] = acc;
}
