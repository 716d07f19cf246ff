// CHECK(x, want) for the test programs that call the driver API: a call that returns anything
// but `want` names itself, what it returned and its line, and main returns 1.
#pragma once

#include <cuda.h>

#include <cstdio>

#define CHECK(x, want)                                                                      \
  do {                                                                                      \
    const CUresult r_ = (x);                                                                \
    if (r_ != (want)) {                                                                     \
      std::fprintf(stderr, "FAIL: %s gave %d, not %d (line %d)\n", #x, r_, want, __LINE__); \
      return 1;                                                                             \
    }                                                                                       \
  } while (0)
