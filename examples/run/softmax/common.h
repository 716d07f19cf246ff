// common.h: helpers shared by kernel test programs: error checks, random inputs, checking
// a device buffer against a CPU reference, and timing a kernel launcher with CUDA events.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

template <class T>
__host__ __device__ T ceil_div(T dividend, T divisor) {
  return (dividend + divisor - 1) / divisor;
}

inline void cuda_check(cudaError_t error, const char* file, int line) {
  if (error != cudaSuccess) {
    printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
    exit(EXIT_FAILURE);
  }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// Uniform in [-1, 1), reproducible.
inline std::vector<float> make_random_float(size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = (float)(seed >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
  }
  return v;
}

// Compares n device values with the reference; prints the first mismatches. True when
// every |got - want| <= tolerance.
template <class T>
bool validate_result(const T* device_result, const T* cpu_reference, const char* name, size_t n,
                     T tolerance = 1e-4) {
  std::vector<T> out_gpu(n);
  cudaCheck(cudaMemcpy(out_gpu.data(), device_result, n * sizeof(T), cudaMemcpyDeviceToHost));
  int nfaults = 0;
  for (size_t i = 0; i < n; i++) {
    if (i < 3) printf("%f %f\n", (double)cpu_reference[i], (double)out_gpu[i]);
    if (!(std::fabs(cpu_reference[i] - out_gpu[i]) <= tolerance)) {
      printf("Mismatch of %s at %zu: CPU_ref: %f vs GPU: %f\n", name, i, (double)cpu_reference[i],
             (double)out_gpu[i]);
      if (++nfaults >= 10) break;
    }
  }
  return nfaults == 0;
}

// Runs the launcher repeat_times times between two events (clearing the L2 cache before
// each run) and returns the average time of one run in ms.
template <class Kernel, class... KernelArgs>
float benchmark_kernel(int repeat_times, Kernel kernel, KernelArgs&&... kernel_args) {
  cudaEvent_t start, stop;
  cudaDeviceProp deviceProp;
  cudaCheck(cudaGetDeviceProperties(&deviceProp, 0));
  void* flush_buffer = nullptr;
  size_t flush_bytes = deviceProp.l2CacheSize > 0 ? (size_t)deviceProp.l2CacheSize : 0;
  if (flush_bytes) cudaCheck(cudaMalloc(&flush_buffer, flush_bytes));
  cudaCheck(cudaEventCreate(&start));
  cudaCheck(cudaEventCreate(&stop));
  float elapsed_time = 0.f;
  for (int i = 0; i < repeat_times; i++) {
    if (flush_bytes) cudaCheck(cudaMemset(flush_buffer, 0, flush_bytes));
    cudaCheck(cudaEventRecord(start, nullptr));
    kernel(std::forward<KernelArgs>(kernel_args)...);
    cudaCheck(cudaEventRecord(stop, nullptr));
    cudaCheck(cudaEventSynchronize(start));
    cudaCheck(cudaEventSynchronize(stop));
    float single_call = 0.f;
    cudaCheck(cudaEventElapsedTime(&single_call, start, stop));
    elapsed_time += single_call;
  }
  if (flush_buffer) cudaCheck(cudaFree(flush_buffer));
  cudaCheck(cudaEventDestroy(start));
  cudaCheck(cudaEventDestroy(stop));
  return elapsed_time / repeat_times;
}
