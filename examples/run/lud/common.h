// common.h: what lud.cu and lud_kernel.cu share.
#ifndef LUD_COMMON_H
#define LUD_COMMON_H

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                               \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
              cudaGetErrorString(err_));                                               \
      exit(EXIT_FAILURE);                                                              \
    }                                                                                  \
  } while (0)

#define BLOCK_SIZE 16

// Factors the matrix_dim x matrix_dim row-major matrix m (on the device) in place into
// L (unit lower, below the diagonal) and U; matrix_dim is a multiple of BLOCK_SIZE.
// Returns the number of kernel launches.
int lud_cuda(float* m, int matrix_dim);

#endif
