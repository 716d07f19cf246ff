// Whether an nvcc is found (driver::find_nvcc), for the tests that compile CUDA sources:
// REQUIRE_NVCC() skips the test where none is.
#pragma once

#include <gtest/gtest.h>

#include "bankcheck/driver/error.hpp"
#include "bankcheck/driver/nvcc.hpp"

inline bool have_nvcc() {
  try {
    bankcheck::driver::find_nvcc("");
    return true;
  } catch (const bankcheck::driver::DriverError&) {
    return false;
  }
}

#define REQUIRE_NVCC() \
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found"
