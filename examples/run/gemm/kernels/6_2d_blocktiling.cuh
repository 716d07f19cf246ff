// 6: each thread computes a TM x TN sub-block of C's BM x BN block from TM values of A's
// tile and TN of B's held in registers (an outer product per k step).
// Needs M % BM == N % BN == K % BK == 0.
#pragma once

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN))
    sgemm_2d_blocktiling(int M, int N, int K, float alpha, const float* A, const float* B,
                         float beta, float* C) {
  constexpr int kThreads = (BM * BN) / (TM * TN);
  static_assert(kThreads % BK == 0 && kThreads % BN == 0 && BM % (kThreads / BK) == 0 &&
                    BK % (kThreads / BN) == 0,
                "the tile loads must divide evenly among the threads");
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  const int threadCol = threadIdx.x % (BN / TN);
  const int threadRow = threadIdx.x / (BN / TN);

  A += blockIdx.y * BM * K;
  B += blockIdx.x * BN;
  C += blockIdx.y * BM * N + blockIdx.x * BN;

  const int innerRowA = threadIdx.x / BK, innerColA = threadIdx.x % BK;
  constexpr int strideA = kThreads / BK;
  const int innerRowB = threadIdx.x / BN, innerColB = threadIdx.x % BN;
  constexpr int strideB = kThreads / BN;

  float threadResults[TM * TN] = {0.0f};
  float regM[TM];
  float regN[TN];

  for (int bkIdx = 0; bkIdx < K; bkIdx += BK) {
    for (int off = 0; off < BM; off += strideA)
      As[(innerRowA + off) * BK + innerColA] = A[(innerRowA + off) * K + innerColA];
    for (int off = 0; off < BK; off += strideB)
      Bs[(innerRowB + off) * BN + innerColB] = B[(innerRowB + off) * N + innerColB];
    __syncthreads();
    A += BK;
    B += BK * N;

    for (int dotIdx = 0; dotIdx < BK; ++dotIdx) {
      for (int i = 0; i < TM; ++i) regM[i] = As[(threadRow * TM + i) * BK + dotIdx];
      for (int i = 0; i < TN; ++i) regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
      for (int m = 0; m < TM; ++m)
        for (int n = 0; n < TN; ++n) threadResults[m * TN + n] += regM[m] * regN[n];
    }
    __syncthreads();
  }

  for (int m = 0; m < TM; ++m)
    for (int n = 0; n < TN; ++n) {
      const int idx = (threadRow * TM + m) * N + threadCol * TN + n;
      C[idx] = alpha * threadResults[m * TN + n] + beta * C[idx];
    }
}
