// A tiled transpose: constexpr sizes, dim3 variables for grid and block, cudaMalloc of
// locals computed from them. bankcheck reads the launch from main(); no flags needed.
#include <cstdio>

constexpr int TILE = 32;
constexpr int ROWS = 8;

__global__ void transpose(float* out, const float* in, int width, int height) {
  __shared__ float tile[TILE][TILE];  // no padding: the column read conflicts
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int width = 512, height = 256;
  const size_t bytes = width * height * sizeof(float);
  float *d_in, *d_out;
  cudaMalloc(&d_in, bytes);
  cudaMalloc(&d_out, bytes);
  dim3 block(TILE, ROWS);
  dim3 grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
  transpose<<<grid, block>>>(d_out, d_in, width, height);
  cudaDeviceSynchronize();
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
