// Portability macro for the model: the same headers compile under a host compiler and
// under nvcc (host and device), so the emulator and device code share one bank model.
#pragma once

#if defined(__CUDACC__)
#define BANKCHECK_HD __host__ __device__ inline
#else
#define BANKCHECK_HD inline
#endif
