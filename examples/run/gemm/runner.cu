// runner.cu: one launcher per step of the SGEMM ladder, each choosing its grid and block,
// and run_kernel() dispatching on the kernel number.
#include "kernels.cuh"
#include "runner.cuh"

#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))

void run_sgemm_naive(int M, int N, int K, float alpha, const float* A, const float* B,
                     float beta, float* C, cudaStream_t stream) {
  dim3 gridDim(CEIL_DIV(M, 32), CEIL_DIV(N, 32));
  dim3 blockDim(32, 32);
  sgemm_naive<<<gridDim, blockDim, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}

void run_sgemm_coalesced(int M, int N, int K, float alpha, const float* A, const float* B,
                         float beta, float* C, cudaStream_t stream) {
  dim3 gridDim(CEIL_DIV(N, 32), CEIL_DIV(M, 32));
  dim3 blockDim(32, 32);
  sgemm_coalesced<<<gridDim, blockDim, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}

template <int PAD>
void run_sgemm_smem_tiled(int M, int N, int K, float alpha, const float* A, const float* B,
                          float beta, float* C, cudaStream_t stream) {
  constexpr int TILE = 32;
  dim3 gridDim(CEIL_DIV(N, TILE), CEIL_DIV(M, TILE));
  dim3 blockDim(TILE, TILE);
  sgemm_smem_tiled<TILE, PAD><<<gridDim, blockDim, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}

void run_sgemm_1d_blocktiling(int M, int N, int K, float alpha, const float* A, const float* B,
                              float beta, float* C, cudaStream_t stream) {
  constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
  dim3 gridDim(CEIL_DIV(N, BN), CEIL_DIV(M, BM));
  dim3 blockDim((BM * BN) / TM);
  sgemm_1d_blocktiling<BM, BN, BK, TM>
      <<<gridDim, blockDim, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}

void run_sgemm_2d_blocktiling(int M, int N, int K, float alpha, const float* A, const float* B,
                              float beta, float* C, cudaStream_t stream) {
  constexpr int BK = 8, TM = 8, TN = 8;
  if (M >= 128 && N >= 128 && M % 128 == 0 && N % 128 == 0) {
    constexpr int BM = 128, BN = 128;
    dim3 gridDim(CEIL_DIV(N, BN), CEIL_DIV(M, BM));
    dim3 blockDim((BM * BN) / (TM * TN));
    sgemm_2d_blocktiling<BM, BN, BK, TM, TN>
        <<<gridDim, blockDim, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  } else {  // small matrices: 64 x 64 blocks keep more of the GPU busy
    constexpr int BM = 64, BN = 64;
    dim3 gridDim(CEIL_DIV(N, BN), CEIL_DIV(M, BM));
    dim3 blockDim((BM * BN) / (TM * TN));
    sgemm_2d_blocktiling<BM, BN, BK, TM, TN>
        <<<gridDim, blockDim, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  }
}

void run_sgemm_vectorized(int M, int N, int K, float alpha, const float* A, const float* B,
                          float beta, float* C, cudaStream_t stream) {
  constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  dim3 gridDim(CEIL_DIV(N, BN), CEIL_DIV(M, BM));
  dim3 blockDim((BM * BN) / (TM * TN));
  sgemm_vectorized<BM, BN, BK, TM, TN>
      <<<gridDim, blockDim, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}

const char* kernel_name(int kernel_num) {
  static const char* names[kNumKernels] = {
      "naive", "global memory coalesced", "shared memory tiles (A transposed)",
      "shared memory tiles, padded", "1D blocktiling", "2D blocktiling", "vectorized"};
  return kernel_num >= 1 && kernel_num <= kNumKernels ? names[kernel_num - 1] : nullptr;
}

bool kernel_supports(int kernel_num, int M, int N, int K, const char** why) {
  switch (kernel_num) {
    case 5:
      *why = "M and N multiples of 64, K of 8";
      return M % 64 == 0 && N % 64 == 0 && K % 8 == 0;
    case 6:
      *why = "M and N multiples of 64, K of 8";
      return M % 64 == 0 && N % 64 == 0 && K % 8 == 0;
    case 7:
      *why = "M and N multiples of 128, K of 8";
      return M % 128 == 0 && N % 128 == 0 && K % 8 == 0;
    default:
      *why = "";
      return kernel_num >= 1 && kernel_num <= kNumKernels;
  }
}

void run_kernel(int kernel_num, int M, int N, int K, float alpha, const float* A,
                const float* B, float beta, float* C, cudaStream_t stream) {
  switch (kernel_num) {
    case 1:
      run_sgemm_naive(M, N, K, alpha, A, B, beta, C, stream);
      break;
    case 2:
      run_sgemm_coalesced(M, N, K, alpha, A, B, beta, C, stream);
      break;
    case 3:
      run_sgemm_smem_tiled<0>(M, N, K, alpha, A, B, beta, C, stream);
      break;
    case 4:
      run_sgemm_smem_tiled<1>(M, N, K, alpha, A, B, beta, C, stream);
      break;
    case 5:
      run_sgemm_1d_blocktiling(M, N, K, alpha, A, B, beta, C, stream);
      break;
    case 6:
      run_sgemm_2d_blocktiling(M, N, K, alpha, A, B, beta, C, stream);
      break;
    case 7:
      run_sgemm_vectorized(M, N, K, alpha, A, B, beta, C, stream);
      break;
    default:
      fprintf(stderr, "no kernel %d\n", kernel_num);
      exit(EXIT_FAILURE);
  }
  CUDA_CHECK(cudaGetLastError());
}
