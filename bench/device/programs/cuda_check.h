// CHECK(x) for the device programs: a CUDA runtime call that fails names itself and its
// error on standard error, and main returns 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>

#define CHECK(x)                                                                               \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)
