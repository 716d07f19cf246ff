// The swizzle modes of Hopper's tensor memory accelerator (cp.async.bulk.tensor's tensor
// maps) and of wgmma's shared-memory matrix descriptors: one address transform, CuTe's
// Swizzle<B, 4, 3> on shared byte addresses,
//
//   address bits:  ... [9:7] row in the pattern ... [6:4] 16-byte chunk ... [3:0] byte
//                         yyy                           xxx  ->  xxx ^= yyy (B bits of each)
//
// so the 16-byte chunks of each 128-byte line are permuted by the line's row within a
// pattern of 8 lines (B = 3, 128B: 1024 bytes), 4 (B = 2, 64B: 512 bytes) or 2 (B = 1, 32B:
// 256 bytes). The pattern is taken on the address itself, so a tile must start at a
// multiple of the pattern's size for its first row to be row 0 (CUTLASS aligns a 128B tile
// to 1024 bytes). Constexpr, host and device.
//
// Worked example: 128B, a column of 16-byte chunks down 8 rows of 128 bytes (addresses
// 0, 128, ..., 896) becomes 0, 144, 288, 432, 576, 720, 864, 1008: one chunk per bank
// group, one wavefront for an ldmatrix of the column instead of 8.
#pragma once

#include <cstdint>

#include "bankcheck/model/config.hpp"

namespace bankcheck::model {

// The mode's B (bits XORed): the values of CUtensorMapSwizzle for NONE, 32B, 64B and 128B.
enum class TmaSwizzle : std::uint8_t { None = 0, B32 = 1, B64 = 2, B128 = 3 };

// Pre: none. Post: an involution; moves bytes only within their 128-byte line.
BANKCHECK_HD constexpr std::uint32_t tma_swizzle(std::uint32_t address, TmaSwizzle mode) {
  const std::uint32_t bits = static_cast<std::uint32_t>(mode);
  const std::uint32_t mask = (1u << bits) - 1u;
  return address ^ (((address >> 7) & mask) << 4);
}

// The bytes of a row the mode swizzles within (a box's inner dimension may not exceed it):
// 16 (none: each chunk alone), 32, 64, 128.
BANKCHECK_HD constexpr std::uint32_t tma_swizzle_span(TmaSwizzle mode) {
  return 16u << static_cast<std::uint32_t>(mode);
}

// The alignment a tile needs for the pattern to start at its first row: 128 (the TMA's own
// minimum), 256, 512, 1024.
BANKCHECK_HD constexpr std::uint32_t tma_swizzle_alignment(TmaSwizzle mode) {
  return mode == TmaSwizzle::None ? 128u : 128u << static_cast<std::uint32_t>(mode);
}

// wgmma's descriptor layout type (bits 62-63) for the mode: 0 none, 3 32B, 2 64B, 1 128B.
BANKCHECK_HD constexpr std::uint32_t wgmma_layout_type(TmaSwizzle mode) {
  return mode == TmaSwizzle::None ? 0u : 4u - static_cast<std::uint32_t>(mode);
}

// The driver's and the runtime's names of the mode.
constexpr const char* tma_swizzle_name(TmaSwizzle mode) {
  switch (mode) {
    case TmaSwizzle::None:
      return "CU_TENSOR_MAP_SWIZZLE_NONE";
    case TmaSwizzle::B32:
      return "CU_TENSOR_MAP_SWIZZLE_32B";
    case TmaSwizzle::B64:
      return "CU_TENSOR_MAP_SWIZZLE_64B";
    case TmaSwizzle::B128:
      return "CU_TENSOR_MAP_SWIZZLE_128B";
  }
  return "?";
}

static_assert(tma_swizzle(896, TmaSwizzle::B128) == 1008, "row 7's chunk 0 goes to chunk 7");
static_assert(tma_swizzle(tma_swizzle(12345, TmaSwizzle::B64), TmaSwizzle::B64) == 12345,
              "a swizzle is its own inverse");
static_assert(wgmma_layout_type(TmaSwizzle::B128) == 1 && wgmma_layout_type(TmaSwizzle::B32) == 3,
              "wgmma's layout types count down");

}  // namespace bankcheck::model
