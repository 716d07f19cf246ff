// A library of the program's with a kernel of its own, built as libraries ship (PTX and
// SASS, no -lineinfo): the kernel runs in the emulator and is reported under the library's
// name. The tile is read down its columns on the store: 32-way.
#include <cuda_runtime.h>

__global__ void column_copy(const float* in, float* out) {
  __shared__ float tile[32][32];
  tile[threadIdx.x][threadIdx.y] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.y][threadIdx.x];
}

extern "C" int library_transpose(const float* in, float* out) {
  column_copy<<<1, dim3(32, 32)>>>(in, out);
  return static_cast<int>(cudaDeviceSynchronize());
}
