// 1: one thread per element of C. threadIdx.x runs along C's rows (row = x), so the 32
// threads of a warp read A 32 rows apart and write C N floats apart: uncoalesced.
#pragma once

__global__ void sgemm_naive(int M, int N, int K, float alpha, const float* A, const float* B,
                            float beta, float* C) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;  // row of C
  const int y = blockIdx.y * blockDim.y + threadIdx.y;  // column of C
  if (x < M && y < N) {
    float tmp = 0.0f;
    for (int i = 0; i < K; ++i) tmp += A[x * K + i] * B[i * N + y];
    C[x * N + y] = alpha * tmp + beta * C[x * N + y];
  }
}
