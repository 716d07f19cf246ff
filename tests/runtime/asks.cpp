// A library built with the shared CUDA runtime that asks it for a driver function, as CUTLASS
// does for cuTensorMapEncodeTiled: bankcheck's runtime must refuse and name this library.
#include <cuda_runtime_api.h>

extern "C" int ask_for_driver_function() {
  void* fn = reinterpret_cast<void*>(1);
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSuccess;
  const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                         cudaEnableDefault, &status);
  return e == cudaErrorNotSupported && fn == nullptr && status == cudaDriverEntryPointSymbolNotFound
             ? 0
             : 1;
}
