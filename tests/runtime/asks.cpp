// A library of the program's own, built with the shared CUDA runtime, that asks the runtime
// for driver functions as CUTLASS does: cuTensorMapEncodeTiled and cuTensorMapReplaceAddress,
// which bankcheck's driver serves (its own map layout: a good map is encoded, a box of 512 rows
// refused with the driver's error), and cuTensorMapEncodeIm2colWide, which it does not
// implement: calling it names this library.
#define __CUDA_API_VERSION_INTERNAL 1  // every form of cuda.h's functions, by exported name
#include <cuda.h>
#include <cuda_runtime_api.h>

namespace {

void* ask(const char* name, int version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &status) !=
          cudaSuccess ||
      status != cudaDriverEntryPointSuccess)
    return nullptr;
  return fn;
}

}  // namespace

extern "C" int ask_for_driver_function() {
  void* encode = ask("cuTensorMapEncodeTiled", 12000);
  void* replace = ask("cuTensorMapReplaceAddress", 12000);
  void* wide = ask("cuTensorMapEncodeIm2colWide", 12080);
  if (!encode || !replace || !wide) return 1;
  // A 64 x 64 fp16 matrix in 64 x 8 boxes with the 128-byte swizzle.
  void* base = nullptr;
  if (cudaMalloc(&base, 64 * 64 * 2) != cudaSuccess) return 2;
  alignas(64) CUtensorMap map = {};
  const cuuint64_t dims[2] = {64, 64}, strides[1] = {128};
  const cuuint32_t box[2] = {64, 8}, tall[2] = {64, 512}, one[2] = {1, 1};
  const auto tiled = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(encode);
  if (tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides, box, one,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return 3;
  bool written = false;
  for (const auto word : map.opaque) written = written || word != 0;
  if (!written) return 4;
  // Refused, the map left as it was.
  const CUtensorMap before = map;
  if (tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides, tall, one,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_NONE,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_ERROR_INVALID_VALUE)
    return 5;
  for (int i = 0; i < 16; ++i)
    if (map.opaque[i] != before.opaque[i]) return 6;
  const auto replace_address = reinterpret_cast<decltype(&cuTensorMapReplaceAddress)>(replace);
  if (replace_address(&map, static_cast<char*>(base) + 256) != CUDA_SUCCESS) return 7;
  if (replace_address(&map, static_cast<char*>(base) + 8) != CUDA_ERROR_INVALID_VALUE) return 8;
  cudaFree(base);
  // Not implemented: named (its arguments are not read).
  const auto unimplemented = reinterpret_cast<CUresult (*)()>(wide);
  return unimplemented() == CUDA_ERROR_NOT_SUPPORTED ? 0 : 9;
}
