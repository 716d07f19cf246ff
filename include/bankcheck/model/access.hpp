// One warp-wide shared-memory request: what the model is asked about.
#pragma once

#include <cstdint>

#include "bankcheck/model/config.hpp"

namespace bankcheck::model {

inline constexpr int kWarpSize = 32;

// The kind of shared-memory instruction. Atomics other than compare-and-swap (add, exch,
// min, max, and, or, xor, inc, dec, and `red`) share one rule; CAS moves two operands and
// costs twice as much (bench/hardware/measured/patterns_merge).
enum class Op : std::uint8_t { Load, Store, Atomic, AtomicCas };

BANKCHECK_HD constexpr const char* op_name(Op op) {
  switch (op) {
    case Op::Load:
      return "load";
    case Op::Store:
      return "store";
    case Op::Atomic:
      return "atomic";
    case Op::AtomicCas:
      return "atomic CAS";
  }
  return "?";
}

// A request: op, access width in bytes (1, 2, 4, 8 or 16), one byte address per lane
// (offsets into the CTA's shared window) and the mask of lanes that take part.
// Addresses of inactive lanes are ignored.
struct WarpAccess {
  Op op = Op::Load;
  std::uint8_t width = 4;
  std::uint32_t active = 0xFFFFFFFFu;
  std::uint32_t addr[kWarpSize] = {};

  BANKCHECK_HD constexpr bool lane_active(int lane) const { return (active >> lane) & 1u; }
};

}  // namespace bankcheck::model
