// 7: kernel 6 with 16-byte global loads and stores. A's tile is stored transposed
// (As[k][row], four scalar stores per float4 read) so that both tiles are read along
// their rows in the inner loop; B's tile is copied as float4.
// Needs M % BM == N % BN == K % BK == 0, and one float4 of each tile per thread.
#pragma once

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN))
    sgemm_vectorized(int M, int N, int K, float alpha, const float* A, const float* B,
                     float beta, float* C) {
  constexpr int kThreads = (BM * BN) / (TM * TN);
  static_assert(BM * BK == 4 * kThreads && BN * BK == 4 * kThreads,
                "one float4 of each tile per thread");
  __shared__ float As[BK * BM];
  __shared__ float Bs[BK * BN];

  const int threadCol = threadIdx.x % (BN / TN);
  const int threadRow = threadIdx.x / (BN / TN);

  A += blockIdx.y * BM * K;
  B += blockIdx.x * BN;
  C += blockIdx.y * BM * N + blockIdx.x * BN;

  const int innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
  const int innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);

  float threadResults[TM * TN] = {0.0f};
  float regM[TM];
  float regN[TN];

  for (int bkIdx = 0; bkIdx < K; bkIdx += BK) {
    const float4 tmp = reinterpret_cast<const float4*>(&A[innerRowA * K + innerColA * 4])[0];
    As[(innerColA * 4 + 0) * BM + innerRowA] = tmp.x;
    As[(innerColA * 4 + 1) * BM + innerRowA] = tmp.y;
    As[(innerColA * 4 + 2) * BM + innerRowA] = tmp.z;
    As[(innerColA * 4 + 3) * BM + innerRowA] = tmp.w;
    reinterpret_cast<float4*>(&Bs[innerRowB * BN + innerColB * 4])[0] =
        reinterpret_cast<const float4*>(&B[innerRowB * N + innerColB * 4])[0];
    __syncthreads();
    A += BK;
    B += BK * N;

    for (int dotIdx = 0; dotIdx < BK; ++dotIdx) {
      for (int i = 0; i < TM; ++i) regM[i] = As[dotIdx * BM + threadRow * TM + i];
      for (int i = 0; i < TN; ++i) regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
      for (int m = 0; m < TM; ++m)
        for (int n = 0; n < TN; ++n) threadResults[m * TN + n] += regM[m] * regN[n];
    }
    __syncthreads();
  }

  for (int m = 0; m < TM; ++m)
    for (int n = 0; n < TN; n += 4) {
      float4* c = reinterpret_cast<float4*>(&C[(threadRow * TM + m) * N + threadCol * TN + n]);
      float4 v = c[0];
      v.x = alpha * threadResults[m * TN + n + 0] + beta * v.x;
      v.y = alpha * threadResults[m * TN + n + 1] + beta * v.y;
      v.z = alpha * threadResults[m * TN + n + 2] + beta * v.z;
      v.w = alpha * threadResults[m * TN + n + 3] + beta * v.w;
      c[0] = v;
    }
}
