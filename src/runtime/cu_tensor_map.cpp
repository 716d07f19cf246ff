// Tensor memory access descriptors (cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col), which
// programs and libraries reach through cuGetProcAddress (cudaGetDriverEntryPoint) to build
// the 128-byte maps that TMA copies (cp.async.bulk.tensor) read. The emulator's own map layout
// (emu/tensor_map.hpp) is what these will encode; until then they are named stubs.
#include "driver.hpp"
#include "stubs.hpp"

BANKCHECK_API CUresult cuTensorMapEncodeTiled(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                              const cuuint64_t*, const cuuint64_t*,
                                              const cuuint32_t*, const cuuint32_t*,
                                              CUtensorMapInterleave, CUtensorMapSwizzle,
                                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  return static_cast<CUresult>(
      bankcheck::runtime::unimplemented("cuTensorMapEncodeTiled", __builtin_return_address(0)));
}

BANKCHECK_API CUresult cuTensorMapEncodeIm2col(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                               const cuuint64_t*, const cuuint64_t*, const int*,
                                               const int*, cuuint32_t, cuuint32_t,
                                               const cuuint32_t*, CUtensorMapInterleave,
                                               CUtensorMapSwizzle, CUtensorMapL2promotion,
                                               CUtensorMapFloatOOBfill) {
  return static_cast<CUresult>(
      bankcheck::runtime::unimplemented("cuTensorMapEncodeIm2col", __builtin_return_address(0)));
}
