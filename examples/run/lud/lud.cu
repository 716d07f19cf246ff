// lud.cu: LU decomposition of a dense diagonally dominant matrix, the host side of a
// Rodinia-style lud (the kernels are in lud_kernel.cu).
//
//   usage: lud [-s matrix_dim] [-v]     matrix_dim: a multiple of 16; -v prints the corners
//   default: lud -s 128   (7 steps of lud_diagonal + lud_perimeter + lud_internal, then a
//                          last lud_diagonal: 22 launches)
//
// The factors are compared with a CPU LU decomposition of the same matrix and multiplied
// back (L * U against the input).
#include <unistd.h>

#include <cmath>
#include <vector>

#include "common.h"

// Doolittle's algorithm without pivoting, in place: L below the diagonal (unit diagonal
// implied), U on and above it.
static void lud_reference(std::vector<double>& a, int n) {
  for (int k = 0; k < n; ++k) {
    for (int i = k + 1; i < n; ++i) {
      a[i * n + k] /= a[k * n + k];
      for (int j = k + 1; j < n; ++j) a[i * n + j] -= a[i * n + k] * a[k * n + j];
    }
  }
}

int main(int argc, char** argv) {
  int matrix_dim = 128;
  bool verbose = false;
  int opt;
  while ((opt = getopt(argc, argv, "s:v")) != -1) {
    switch (opt) {
      case 's':
        matrix_dim = atoi(optarg);
        break;
      case 'v':
        verbose = true;
        break;
      default:
        fprintf(stderr, "usage: %s [-s matrix_dim] [-v]\n", argv[0]);
        return EXIT_FAILURE;
    }
  }
  if (matrix_dim < BLOCK_SIZE || matrix_dim % BLOCK_SIZE != 0) {
    fprintf(stderr, "matrix_dim must be a positive multiple of %d\n", BLOCK_SIZE);
    return EXIT_FAILURE;
  }
  printf("matrix %d x %d\n", matrix_dim, matrix_dim);

  int n = matrix_dim;
  size_t size = (size_t)n * n;
  std::vector<float> m(size);
  unsigned seed = 2024u;
  for (size_t k = 0; k < size; ++k) {
    seed = seed * 1664525u + 1013904223u;
    m[k] = (float)(seed >> 9) / (float)(1u << 23) - 0.5f;  // [-0.5, 0.5)
  }
  for (int i = 0; i < n; ++i) m[(size_t)i * n + i] += (float)n;  // diagonally dominant

  float* d_m;
  CUDA_CHECK(cudaMalloc(&d_m, size * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_m, m.data(), size * sizeof(float), cudaMemcpyHostToDevice));
  int launches = lud_cuda(d_m, matrix_dim);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> lu(size);
  CUDA_CHECK(cudaMemcpy(lu.data(), d_m, size * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_m));
  printf("%d launches\n", launches);
  if (verbose)
    printf("lu[0][0] %g lu[0][n-1] %g lu[n-1][0] %g lu[n-1][n-1] %g\n", lu[0], lu[n - 1],
           lu[size - n], lu[size - 1]);

  // 1. The factors against the CPU's.
  std::vector<double> ref(m.begin(), m.end());
  lud_reference(ref, n);
  double max_factor_err = 0.0;
  for (size_t k = 0; k < size; ++k) {
    double err = std::fabs((double)lu[k] - ref[k]) / (1.0 + std::fabs(ref[k]));
    if (std::isnan(err)) err = INFINITY;
    if (err > max_factor_err) max_factor_err = err;
  }

  // 2. L * U against the input.
  double max_rebuild_err = 0.0, max_a = 0.0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int k = 0; k <= i && k <= j; ++k) {
        double l = (k == i) ? 1.0 : lu[(size_t)i * n + k];
        sum += l * lu[(size_t)k * n + j];
      }
      double err = std::fabs(sum - m[(size_t)i * n + j]);
      if (std::isnan(err)) err = INFINITY;
      if (err > max_rebuild_err) max_rebuild_err = err;
      if (std::fabs(m[(size_t)i * n + j]) > max_a) max_a = std::fabs(m[(size_t)i * n + j]);
    }
  }
  printf("max relative difference from the CPU factors %.3g, max |L*U - A| / max |A| %.3g\n",
         max_factor_err, max_rebuild_err / max_a);

  bool ok = max_factor_err < 1e-4 && max_rebuild_err / max_a < 1e-5;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
