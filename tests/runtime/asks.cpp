// A library of the program's own, built with the shared CUDA runtime, that asks the runtime
// for a driver function as CUTLASS does for cuTensorMapEncodeTiled: it gets one, and calling
// it reaches bankcheck's driver, which names this library when it does not implement it.
#define __CUDA_API_VERSION_INTERNAL 1  // every form of cuda.h's functions, by exported name
#include <cuda.h>
#include <cuda_runtime_api.h>

extern "C" int ask_for_driver_function() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                       &status) != cudaSuccess ||
      !fn || status != cudaDriverEntryPointSuccess)
    return 1;
  using Encode = decltype(&cuTensorMapEncodeTiled);
  CUtensorMap map;
  const cuuint64_t dims[1] = {64}, strides[1] = {4};
  const cuuint32_t box[1] = {16}, element[1] = {1};
  const CUresult r = reinterpret_cast<Encode>(fn)(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, nullptr, dims, strides, box, element,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_ERROR_NOT_SUPPORTED ? 0 : 2;
}
