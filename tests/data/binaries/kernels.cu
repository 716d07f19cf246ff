// Two kernels for the binary-input tests (tests/binary_input_test.sh): built into an
// executable, an object file, a fat binary, a cubin and PTX, each checked against this file.
// tile_transpose reads its tile by column (a 32-way conflict); strided's launch is in the
// comment below, which a check of the binary reads from this file when it finds it. Every
// setting is given (buffers too), so that the source's own check takes none from main().
#include <cstdio>

__global__ void tile_transpose(float* out, const float* in) {
  __shared__ float tile[32][32];
  const int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = in[y * 32 + x];
  __syncthreads();
  out[y * 32 + x] = tile[x][y];
}

// bankcheck: kernel=strided grid=2 block=64 smem=0 arg=stride=2 arg=out=zeros:512
__global__ void strided(float* out, int stride) {
  __shared__ float s[64 * 4];
  s[threadIdx.x * stride] = float(threadIdx.x);
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[(threadIdx.x * stride) % 256];
}

int main() {
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, 32 * 32 * sizeof(float));
  cudaMalloc(&out, 32 * 32 * sizeof(float));
  tile_transpose<<<1, dim3(32, 32)>>>(out, in);
  strided<<<2, 64>>>(out, 2);
  std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
