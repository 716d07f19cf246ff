// 3 and 4: TILE x TILE tiles of A and B staged in shared memory, one thread per element
// of C. A's tile is stored k-major (As[k][row]) so that the inner loop reads it with one
// broadcast per warp; the store that transposes it runs down a column: with PAD = 0 the
// 32 threads of a warp write 32 words TILE apart, all in one bank (kernel 3); a padded
// row of TILE + 1 words spreads them over all 32 banks (kernel 4).
#pragma once

template <int TILE, int PAD>
__global__ void sgemm_smem_tiled(int M, int N, int K, float alpha, const float* A,
                                 const float* B, float beta, float* C) {
  __shared__ float As[TILE][TILE + PAD];  // As[k][row]
  __shared__ float Bs[TILE][TILE];        // Bs[k][col]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;

  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[tx][ty] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[k][ty] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
