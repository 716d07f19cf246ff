// The assertions of the runtime test programs: each failure is one line on standard error,
// and the program exits 1 if any failed.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>

static int failures = 0;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                          \
    }                                                                      \
  } while (0)

#define CHECK_EQ(a, b)                                                                            \
  do {                                                                                            \
    const long long a_ = static_cast<long long>(a), b_ = static_cast<long long>(b);               \
    if (a_ != b_) {                                                                               \
      std::fprintf(stderr, "FAIL %s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, \
                   b_);                                                                           \
      ++failures;                                                                                 \
    }                                                                                             \
  } while (0)

// A call and the error it must return.
#define EXPECT_ERR(call, code)                                                                     \
  do {                                                                                             \
    const cudaError_t e_ = (call);                                                                 \
    if (e_ != (code)) {                                                                            \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorName(e_), cudaGetErrorName(code));                                  \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

#define EXPECT_OK(call) EXPECT_ERR(call, cudaSuccess)
