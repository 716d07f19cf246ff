// Portability macro for the model: the same headers compile under a host compiler and
// under nvcc (host and device), so the emulator and device code share one bank model.
#pragma once

#if defined(__CUDACC__)
#define BANKCHECK_HD __host__ __device__ inline
#else
#define BANKCHECK_HD inline
#endif

// Unrolls a fixed 32-lane loop by 8 on host compilers (the model's hot path; by 8 beat 1, 2,
// 4 and 32 on bench/model_bench: a full unroll spills registers); nvcc and
// others get the plain loop.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define BANKCHECK_UNROLL _Pragma("GCC unroll 8")
#elif defined(__clang__) && !defined(__CUDACC__)
#define BANKCHECK_UNROLL _Pragma("unroll 8")
#else
#define BANKCHECK_UNROLL
#endif
