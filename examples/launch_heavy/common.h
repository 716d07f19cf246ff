// common.h: what every benchmark program here shares, as LLM-training kernel suites write it:
// error checks, reproducible inputs, a device buffer checked against a CPU reference, and a
// launcher timed over many launches between CUDA events with the L2 flushed before each.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
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

// A linear congruential generator: the same bits on every machine (no libm, no <random>
// distributions), so that the GPU and any other run see identical inputs.
struct Lcg {
  unsigned state;
  explicit Lcg(unsigned seed) : state(seed) {}
  unsigned next() {
    state = state * 1664525u + 1013904223u;
    return state;
  }
  // Uniform in [-1, 1), a multiple of 2^-23.
  float uniform() { return (float)(next() >> 8) / (float)(1u << 23) - 1.0f; }
  int below(int n) { return (int)((next() >> 8) % (unsigned)n); }
};

inline std::vector<float> make_random_float(size_t n, unsigned seed, float scale = 1.0f) {
  std::vector<float> v(n);
  Lcg g(seed);
  for (auto& x : v) x = g.uniform() * scale;
  return v;
}

inline std::vector<int> make_random_int(size_t n, int below, unsigned seed) {
  std::vector<int> v(n);
  Lcg g(seed);
  for (auto& x : v) x = g.below(below);
  return v;
}

template <class T>
T* device_copy(const std::vector<T>& host) {
  T* d = nullptr;
  cudaCheck(cudaMalloc(&d, host.size() * sizeof(T)));
  cudaCheck(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// Compares n device values with the reference, |got - want| <= tolerance + 1e-5 * |want|;
// prints the first mismatches. True when all agree.
inline bool validate_result(const float* device_result, const float* cpu_reference,
                            const char* name, size_t n, float tolerance) {
  std::vector<float> got(n);
  cudaCheck(cudaMemcpy(got.data(), device_result, n * sizeof(float), cudaMemcpyDeviceToHost));
  int faults = 0;
  for (size_t i = 0; i < n; i++) {
    const float want = cpu_reference[i];
    if (!(std::fabs(got[i] - want) <= tolerance + 1e-5f * std::fabs(want))) {
      if (faults < 10)
        printf("  mismatch of %s at %zu: CPU %f, GPU %f\n", name, i, (double)want, (double)got[i]);
      faults++;
    }
  }
  if (faults) printf("  %s: %d of %zu values differ\n", name, faults, n);
  return faults == 0;
}

// Runs the launcher `repeats` times, each launch alone between two events after a memset of
// a buffer the size of the L2 cache (so that no launch finds its inputs in L2); returns the
// average time of one launch in ms.
template <class Launcher, class... Args>
float benchmark_kernel(int repeats, Launcher launcher, const Args&... args) {
  cudaDeviceProp prop;
  cudaCheck(cudaGetDeviceProperties(&prop, 0));
  void* flush = nullptr;
  const size_t flush_bytes = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : 0;
  if (flush_bytes) cudaCheck(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t start, stop;
  cudaCheck(cudaEventCreate(&start));
  cudaCheck(cudaEventCreate(&stop));
  float total = 0.0f;
  for (int i = 0; i < repeats; i++) {
    if (flush) cudaCheck(cudaMemset(flush, 0, flush_bytes));
    cudaCheck(cudaEventRecord(start, nullptr));
    launcher(args...);
    cudaCheck(cudaEventRecord(stop, nullptr));
    cudaCheck(cudaEventSynchronize(stop));
    float ms = 0.0f;
    cudaCheck(cudaEventElapsedTime(&ms, start, stop));
    total += ms;
  }
  cudaCheck(cudaEventDestroy(start));
  cudaCheck(cudaEventDestroy(stop));
  if (flush) cudaCheck(cudaFree(flush));
  return repeats > 0 ? total / (float)repeats : 0.0f;
}

// The command line every program here takes:
//   PROGRAM [KERNEL [BLOCK_SIZE [REPEATS]]]
// KERNEL 0 (the default) runs every variant, BLOCK_SIZE 0 (the default) every block size,
// REPEATS (default 1000) the launches timed per variant and block size (0: validate only).
struct Options {
  int kernel = 0;
  int block_size = 0;
  int repeats = 1000;
};

inline Options parse_args(int argc, char** argv, int kernels) {
  Options a;
  if (argc > 1) a.kernel = atoi(argv[1]);
  if (argc > 2) a.block_size = atoi(argv[2]);
  if (argc > 3) a.repeats = atoi(argv[3]);
  if (argc > 4 || a.kernel < 0 || a.kernel > kernels || a.block_size < 0 || a.repeats < 0) {
    printf("usage: %s [kernel 0..%d (0: all)] [block size (0: all)] [repeats]\n", argv[0], kernels);
    exit(EXIT_FAILURE);
  }
  return a;
}

// The block sizes to run: the one asked for, else all of `all`.
inline std::vector<int> block_sizes(const Options& a, std::vector<int> all) {
  if (a.block_size) return {a.block_size};
  return all;
}
