// A 16x16 tiled GEMM storing B transposed in shared memory, launched with cudaLaunchKernel
// and an argument array; sizes from an enum and locals. No flags needed.
#include <cstdio>

enum { TILE = 16 };

__global__ void matmul(const float* a, const float* b, float* c, int n, float alpha) {
  __shared__ float as[TILE][TILE];
  __shared__ float bt[TILE][TILE];  // B transposed: column reads become row reads, stores stride
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < n; t += TILE) {
    as[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
    bt[threadIdx.x][threadIdx.y] = b[(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += as[threadIdx.y][k] * bt[threadIdx.x][k];
    __syncthreads();
  }
  c[row * n + col] = alpha * acc;
}

int main() {
  int n = 128;
  float alpha = 2.0f;
  size_t bytes = n * n * sizeof(float);
  float *a, *b, *c;
  cudaMalloc((void**)&a, bytes);
  cudaMalloc((void**)&b, bytes);
  cudaMalloc((void**)&c, bytes);
  dim3 threads(TILE, TILE);
  dim3 blocks(n / TILE, n / TILE);
  void* args[] = {&a, &b, &c, &n, &alpha};
  cudaLaunchKernel((const void*)matmul, blocks, threads, args, 0, 0);
  cudaDeviceSynchronize();
  return 0;
}
