// Errors: the last error of the calling thread and the sticky error, the name and message of
// every code (the real runtime's own, src/runtime/cudart_errors.tsv), and the versions.
#include <algorithm>
#include <iterator>

#include "runtime.hpp"

using namespace bankcheck::runtime;

namespace {

struct ErrorText {
  int value;
  const char* name;
  const char* message;
};

// Generated from cudart_errors.tsv (src/runtime/CMakeLists.txt), ascending by value.
constexpr ErrorText kErrors[] = {
#include "cudart_errors.inc"
};

const ErrorText* find_error(cudaError_t e) {
  const auto it = std::lower_bound(std::begin(kErrors), std::end(kErrors), static_cast<int>(e),
                                   [](const ErrorText& t, int v) { return t.value < v; });
  return it != std::end(kErrors) && it->value == static_cast<int>(e) ? it : nullptr;
}

// The real runtime's answer for a value outside the enum, to both functions.
constexpr const char* kUnrecognized = "unrecognized error code";

// The CUDA version this library stands in for: libcudart.so.13 of CUDA 13.0.
constexpr int kCudaVersion = 13000;

}  // namespace

BANKCHECK_API const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* t = find_error(error);
  return t ? t->name : kUnrecognized;
}

BANKCHECK_API const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* t = find_error(error);
  return t ? t->message : kUnrecognized;
}

// Returns the last error and clears it; a sticky error stays.
BANKCHECK_API cudaError_t cudaGetLastError() {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (rt.sticky != cudaSuccess) return rt.sticky;
  const cudaError_t e = Runtime::last_error();
  Runtime::last_error() = cudaSuccess;
  return e;
}

BANKCHECK_API cudaError_t cudaPeekAtLastError() {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> lock(rt.mutex);
  return rt.sticky != cudaSuccess ? rt.sticky : Runtime::last_error();
}

BANKCHECK_API cudaError_t cudaDriverGetVersion(int* version) {
  return query([&](Runtime&) {
    if (!version) return cudaErrorInvalidValue;
    *version = kCudaVersion;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaRuntimeGetVersion(int* version) {
  return query([&](Runtime&) {
    if (!version) return cudaErrorInvalidValue;
    *version = kCudaVersion;
    return cudaSuccess;
  });
}
