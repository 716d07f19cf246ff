// dp_wavefront.cu: Needleman-Wunsch scores of 128 independent pairs of sequences of 64
// symbols, one block of 64 threads per pair. The 65x65 score matrix lives in shared memory
// and is filled one anti-diagonal at a time: on diagonal m, thread t computes cell
// (t + 1, m - t + 1) from its north, west and north-west neighbours. Neighbouring threads
// walk down the diagonal, so a warp's cells are 64 words apart: a stride that puts them on
// a few banks (the square layout), or on 32 (the skewed one, each row shifted by one).
//   nw_square: score[i][j] at i * 65 + j.
//   nw_skewed: the same matrix stored by anti-diagonal: cell (i, j) at
//              (i + j) * 65 + i, so one diagonal is one contiguous row.
// main() checks every pair's final score against the host's.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_OK(call)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));       \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (0)

constexpr int N = 64, W = N + 1, GAP = 2;

__device__ __forceinline__ int sq(int i, int j) { return i * W + j; }
__device__ __forceinline__ int sk(int i, int j) { return (i + j) * W + i; }

template <bool Skewed>
__device__ void align(const char* a, const char* b, int* out) {
  __shared__ int score[(2 * N + 1) * W];
  __shared__ char sa[N], sb[N];
  const int t = threadIdx.x, pair = blockIdx.x;
  sa[t] = a[pair * N + t];
  sb[t] = b[pair * N + t];
  auto at = [](int i, int j) { return Skewed ? sk(i, j) : sq(i, j); };
  score[at(t + 1, 0)] = -(t + 1) * GAP;
  score[at(0, t + 1)] = -(t + 1) * GAP;
  if (t == 0) score[at(0, 0)] = 0;
  __syncthreads();
  for (int m = 0; m < 2 * N - 1; ++m) {
    const int i = t + 1, j = m - t + 1;
    if (j >= 1 && j <= N) {
      const int match = sa[i - 1] == sb[j - 1] ? 1 : -1;
      const int diag = score[at(i - 1, j - 1)] + match;
      const int up = score[at(i - 1, j)] - GAP;
      const int left = score[at(i, j - 1)] - GAP;
      score[at(i, j)] = max(diag, max(up, left));
    }
    __syncthreads();
  }
  if (t == 0) out[pair] = score[at(N, N)];
}

__global__ void nw_square(const char* a, const char* b, int* out) { align<false>(a, b, out); }
__global__ void nw_skewed(const char* a, const char* b, int* out) { align<true>(a, b, out); }

int main(int argc, char** argv) {
  const int pairs = argc > 1 ? std::atoi(argv[1]) : 128;
  std::vector<char> a((size_t)pairs * N), b(a.size());
  unsigned x = 99;
  for (size_t i = 0; i < a.size(); ++i) {
    x = x * 1664525u + 1013904223u; a[i] = "ACGT"[(x >> 13) & 3];
    x = x * 1664525u + 1013904223u; b[i] = "ACGT"[(x >> 13) & 3];
  }
  std::vector<int> want(pairs);
  for (int p = 0; p < pairs; ++p) {
    std::vector<int> s(W * W);
    for (int i = 0; i <= N; ++i) s[i * W] = -i * GAP, s[i] = -i * GAP;
    for (int i = 1; i <= N; ++i)
      for (int j = 1; j <= N; ++j)
        s[i * W + j] = std::max({s[(i - 1) * W + j - 1] + (a[p * N + i - 1] == b[p * N + j - 1] ? 1 : -1),
                                 s[(i - 1) * W + j] - GAP, s[i * W + j - 1] - GAP});
    want[p] = s[N * W + N];
  }
  char *da, *db;
  int* dout;
  CUDA_OK(cudaMalloc(&da, a.size()));
  CUDA_OK(cudaMalloc(&db, b.size()));
  CUDA_OK(cudaMalloc(&dout, pairs * sizeof(int)));
  CUDA_OK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  int bad = 0;
  for (int v = 0; v < 2; ++v) {
    if (v == 0) nw_square<<<pairs, N>>>(da, db, dout);
    else nw_skewed<<<pairs, N>>>(da, db, dout);
    CUDA_OK(cudaGetLastError());
    std::vector<int> got(pairs);
    CUDA_OK(cudaMemcpy(got.data(), dout, pairs * sizeof(int), cudaMemcpyDeviceToHost));
    const bool ok = got == want;
    bad += !ok;
    std::printf("%s: %s\n", v ? "nw_skewed" : "nw_square", ok ? "OK" : "WRONG");
  }
  return bad ? 1 : 0;
}
