// cuGetErrorName and cuGetErrorString: every CUresult's name and message (cuda_errors.tsv,
// src/runtime/tools/cuda_errors.sh). They need no initialisation, as in the real driver.
#include "driver.hpp"

namespace {

struct ErrorText {
  int value;
  const char* name;
  const char* message;
};

constexpr ErrorText kErrors[] = {
#include "cuda_errors.inc"
};

const ErrorText* find(CUresult e) {
  for (const ErrorText& t : kErrors)
    if (t.value == static_cast<int>(e)) return &t;
  return nullptr;
}

}  // namespace

BANKCHECK_API CUresult cuGetErrorName(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  const ErrorText* t = find(error);
  *pStr = t ? t->name : nullptr;
  return t ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

BANKCHECK_API CUresult cuGetErrorString(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  const ErrorText* t = find(error);
  *pStr = t ? t->message : nullptr;
  return t ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
