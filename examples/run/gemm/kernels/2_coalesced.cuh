// 2: the same loop with threadIdx.x along C's columns: a warp reads one A element
// (broadcast) and 32 consecutive B elements, and writes 32 consecutive C elements.
#pragma once

__global__ void sgemm_coalesced(int M, int N, int K, float alpha, const float* A,
                                const float* B, float beta, float* C) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float tmp = 0.0f;
    for (int i = 0; i < K; ++i) tmp += A[row * K + i] * B[i * N + col];
    C[row * N + col] = alpha * tmp + beta * C[row * N + col];
  }
}
