// sgemm.cu: a user's register-blocked SGEMM, C = A * B (row-major, M x K times K x N): each
// block of 256 threads computes a 64x64 tile of C, each thread a 4x4 block of it in
// registers; A's 64x16 tile is kept transposed in shared memory (As[k][m]) so that a thread
// reads its four rows of A as one float4, as B's tile (Bs[k][n]) gives its four columns.
// Its own command line and its own check against the CPU.
//
//   usage: sgemm M N K [--reps R] [--no-check]
//   default: sgemm 128 128 64
//
// Prints "sgemm: PASSED" (or the first wrong element) and exits 0 (or 1).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
#define THREADS 256

__global__ void sgemm_regblock(int M, int N, int K, const float* A, const float* B, float* C) {
  __shared__ float As[BK][BM];  // A's tile, transposed
  __shared__ float Bs[BK][BN];
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
      const int m = e / BK, k = e % BK;
      As[k][m] = row0 + m < M && k0 + k < K ? A[(row0 + m) * K + k0 + k] : 0.0f;
    }
    for (int e = threadIdx.x; e < BK * BN; e += THREADS) {
      const int k = e / BN, n = e % BN;
      Bs[k][n] = k0 + k < K && col0 + n < N ? B[(k0 + k) * N + col0 + n] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
      for (int i = 0; i < TM; ++i) a[i] = As[k][ty * TM + i];
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      const int r = row0 + ty * TM + i, c = col0 + tx * TN + j;
      if (r < M && c < N) C[r * N + c] = acc[i][j];
    }
}

int main(int argc, char** argv) {
  int dims[3] = {128, 128, 64}, given = 0, reps = 1;
  bool check = true;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-check"))
      check = false;
    else if (argv[i][0] != '-' && given < 3)
      dims[given++] = atoi(argv[i]);
    else {
      fprintf(stderr, "usage: %s M N K [--reps R] [--no-check]\n", argv[0]);
      return 2;
    }
  }
  const int M = dims[0], N = dims[1], K = dims[2];
  if (M < 1 || N < 1 || K < 1 || reps < 1) {
    fprintf(stderr, "sgemm: M, N, K and --reps must be positive\n");
    return 2;
  }
  std::vector<float> a((size_t)M * K), b((size_t)K * N), c((size_t)M * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;

  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, a.size() * sizeof(float)));
  CHECK(cudaMalloc(&dB, b.size() * sizeof(float)));
  CHECK(cudaMalloc(&dC, c.size() * sizeof(float)));
  CHECK(cudaMemcpy(dA, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  for (int r = 0; r < reps; ++r) sgemm_regblock<<<grid, THREADS>>>(M, N, K, dA, dB, dC);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dC, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));

  if (check)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double want = 0;
        for (int k = 0; k < K; ++k) want += (double)a[(size_t)i * K + k] * b[(size_t)k * N + j];
        const float got = c[(size_t)i * N + j];
        if (std::fabs(got - want) > 1e-4 * (1.0 + std::fabs(want))) {
          fprintf(stderr, "sgemm: C[%d][%d] is %g, expected %g\n", i, j, got, want);
          printf("sgemm: FAILED\n");
          return 1;
        }
      }
  printf("sgemm: %s\n", check ? "PASSED" : "done (not checked)");
  return 0;
}
