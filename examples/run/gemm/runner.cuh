// runner.cuh: the launchers of the SGEMM ladder (runner.cu), as main.cu calls them.
#pragma once

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

constexpr int kNumKernels = 7;

// The kernel's name, or nullptr for a number outside 1..kNumKernels.
const char* kernel_name(int kernel_num);

// Whether the kernel handles an M x N x K problem; when not, *why says what it needs.
bool kernel_supports(int kernel_num, int M, int N, int K, const char** why);

// C = alpha * A * B + beta * C (row-major, device pointers) with kernel kernel_num.
void run_kernel(int kernel_num, int M, int N, int K, float alpha, const float* A,
                const float* B, float beta, float* C, cudaStream_t stream);
