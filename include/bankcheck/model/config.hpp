// Portability macro for the model: the same headers compile under a host compiler and
// under nvcc (host and device), so the emulator and device code share one bank model.
#pragma once

#if defined(__CUDACC__)
#define BANKCHECK_HD __host__ __device__ inline
#else
#define BANKCHECK_HD inline
#endif

// Fully unrolls a fixed 32-lane loop on host compilers (the model's hot path); nvcc and
// others get the plain loop.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define BANKCHECK_UNROLL _Pragma("GCC unroll 32")
#elif defined(__clang__) && !defined(__CUDACC__)
#define BANKCHECK_UNROLL _Pragma("unroll 32")
#else
#define BANKCHECK_UNROLL
#endif
