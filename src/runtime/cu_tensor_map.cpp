// Tensor memory access descriptors (cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col,
// cuTensorMapReplaceAddress), which programs and libraries (CUTLASS) reach through
// cuGetProcAddress (cudaGetDriverEntryPoint) to build the 128-byte maps that TMA copies
// (cp.async.bulk.tensor) read. The maps are bankcheck's own layout (emu/tensor_map.hpp), the
// one the emulator decodes; a map the encoder refuses returns CUDA_ERROR_INVALID_VALUE, as the
// driver does, and the first refusal of each function says the rule it broke. Encoding needs no
// context: it is pure host work on the caller's values.
#include <cstdint>
#include <string>

#include "bankcheck/emu/tensor_map.hpp"
#include "driver.hpp"

using namespace bankcheck::runtime;

namespace {

CUresult answer(int status, const char* name, const std::string& why) {
  if (status != 0) {
    // Once per function: a program that retries in a loop is told the rule once.
    diagnose_once(name, std::string(name) + ": " + why);
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

std::uint64_t address_of(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace

BANKCHECK_API CUresult cuTensorMapEncodeTiled(
    CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
    void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
    const cuuint32_t* boxDim, const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  return query([&](Driver&) {
    std::string why;
    const int r = bankcheck::emu::encode_tiled(
        tensorMap, static_cast<unsigned>(tensorDataType), tensorRank, address_of(globalAddress),
        globalDim, globalStrides, boxDim, elementStrides, static_cast<unsigned>(interleave),
        static_cast<unsigned>(swizzle), static_cast<unsigned>(l2Promotion),
        static_cast<unsigned>(oobFill), &why);
    return answer(r, "cuTensorMapEncodeTiled", why);
  });
}

BANKCHECK_API CUresult cuTensorMapEncodeIm2col(
    CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
    void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
    const int* pixelBoxLowerCorner, const int* pixelBoxUpperCorner, cuuint32_t channelsPerPixel,
    cuuint32_t pixelsPerColumn, const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  return query([&](Driver&) {
    std::string why;
    const int r = bankcheck::emu::encode_im2col(
        tensorMap, static_cast<unsigned>(tensorDataType), tensorRank, address_of(globalAddress),
        globalDim, globalStrides, pixelBoxLowerCorner, pixelBoxUpperCorner, channelsPerPixel,
        pixelsPerColumn, elementStrides, static_cast<unsigned>(interleave),
        static_cast<unsigned>(swizzle), static_cast<unsigned>(l2Promotion),
        static_cast<unsigned>(oobFill), &why);
    return answer(r, "cuTensorMapEncodeIm2col", why);
  });
}

BANKCHECK_API CUresult cuTensorMapReplaceAddress(CUtensorMap* tensorMap, void* globalAddress) {
  return query([&](Driver&) {
    std::string why;
    const int r = bankcheck::emu::replace_address(tensorMap, address_of(globalAddress), &why);
    return answer(r, "cuTensorMapReplaceAddress", why);
  });
}
