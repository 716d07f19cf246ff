// 5: each thread computes TM elements of a column of C's BM x BN block: BM * BN / TM
// threads; per k step one B value from shared memory serves TM A values.
// Needs M % BM == N % BN == K % BK == 0 and BM * BK == BN * BK == the thread count.
#pragma once

template <int BM, int BN, int BK, int TM>
__global__ void sgemm_1d_blocktiling(int M, int N, int K, float alpha, const float* A,
                                     const float* B, float beta, float* C) {
  static_assert(BM * BK == BM * BN / TM && BN * BK == BM * BN / TM,
                "one A and one B element per thread per tile");
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  const int threadCol = threadIdx.x % BN;
  const int threadRow = threadIdx.x / BN;  // TM rows each

  A += blockIdx.y * BM * K;
  B += blockIdx.x * BN;
  C += blockIdx.y * BM * N + blockIdx.x * BN;

  const int innerColA = threadIdx.x % BK, innerRowA = threadIdx.x / BK;
  const int innerColB = threadIdx.x % BN, innerRowB = threadIdx.x / BN;

  float threadResults[TM] = {0.0f};
  for (int bkIdx = 0; bkIdx < K; bkIdx += BK) {
    As[innerRowA * BK + innerColA] = A[innerRowA * K + innerColA];
    Bs[innerRowB * BN + innerColB] = B[innerRowB * N + innerColB];
    __syncthreads();
    A += BK;
    B += BK * N;

    for (int dotIdx = 0; dotIdx < BK; ++dotIdx) {
      const float tmpB = Bs[dotIdx * BN + threadCol];
      for (int resIdx = 0; resIdx < TM; ++resIdx)
        threadResults[resIdx] += As[(threadRow * TM + resIdx) * BK + dotIdx] * tmpB;
    }
    __syncthreads();
  }

  for (int resIdx = 0; resIdx < TM; ++resIdx) {
    const int idx = (threadRow * TM + resIdx) * N + threadCol;
    C[idx] = alpha * threadResults[resIdx] + beta * C[idx];
  }
}
