// A 2D stencil with a halo: the launch is in a launcher function that main calls with
// constant sizes; block and grid are dim3 values built from the launcher's parameters, and
// the shared tile's size goes in the launch as dynamic shared memory. No flags needed.
#include <cstdio>

#define RADIUS 1
#define BX 16
#define BY 8

__global__ void stencil(const float* in, float* out, int nx, int ny) {
  extern __shared__ float tile[];  // (BY + 2R) rows of (BX + 2R)
  const int w = blockDim.x + 2 * RADIUS;
  const int gx = blockIdx.x * blockDim.x + threadIdx.x;
  const int gy = blockIdx.y * blockDim.y + threadIdx.y;
  for (int y = threadIdx.y; y < blockDim.y + 2 * RADIUS; y += blockDim.y)
    for (int x = threadIdx.x; x < w; x += blockDim.x) {
      int sx = min(max((int)(blockIdx.x * blockDim.x) + x - RADIUS, 0), nx - 1);
      int sy = min(max((int)(blockIdx.y * blockDim.y) + y - RADIUS, 0), ny - 1);
      tile[y * w + x] = in[sy * nx + sx];
    }
  __syncthreads();
  if (gx < nx && gy < ny) {
    const int c = (threadIdx.y + RADIUS) * w + threadIdx.x + RADIUS;
    out[gy * nx + gx] = tile[c] + tile[c - 1] + tile[c + 1] + tile[c - w] + tile[c + w];
  }
}

void run_stencil(const float* in, float* out, int nx, int ny, cudaStream_t stream) {
  dim3 block(BX, BY);
  dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
  size_t smem = (block.x + 2 * RADIUS) * (block.y + 2 * RADIUS) * sizeof(float);
  stencil<<<grid, block, smem, stream>>>(in, out, nx, ny);
}

int main() {
  const int nx = 256;
  const int ny = 128;
  float *in, *out;
  cudaMalloc(&in, nx * ny * sizeof(float));
  cudaMalloc(&out, nx * ny * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  run_stencil(in, out, nx, ny, s);
  cudaStreamSynchronize(s);
  return 0;
}
