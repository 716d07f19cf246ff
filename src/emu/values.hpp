// Lane values: the bit patterns a 64-bit register slot holds for each PTX type, and the
// float rounding and NaN rules of sm_90 that every tier shares.
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "bankcheck/emu/emulator.hpp"
#include "lane_values.hpp"

namespace bankcheck::emu::detail {

using ptx::Instr;
using ptx::Opc;
using ptx::Opnd;
using ptx::Space;
using ptx::Ty;

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

inline std::uint64_t mask_of(Ty t) {
  const int b = ptx::ty_bytes(t);
  return b >= 8 || b == 0 ? ~0ull : ((1ull << (8 * b)) - 1);
}
inline std::int64_t sext(std::uint64_t v, Ty t) {
  switch (ptx::ty_bytes(t)) {
    case 1:
      return static_cast<std::int8_t>(v);
    case 2:
      return static_cast<std::int16_t>(v);
    case 4:
      return static_cast<std::int32_t>(v);
    default:
      return static_cast<std::int64_t>(v);
  }
}
// IEEE half to float, exact, by moving the bits (every half is a float); NaNs become the
// quiet NaN of their sign. The sign is or-ed in, not branched on.
inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  std::uint32_t bits;
  if (exp - 1 < 30) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (exp == 0) {
    const float v = static_cast<float>(man) * 0x1p-24f;  // subnormal or zero: exact
    std::memcpy(&bits, &v, 4);
    bits |= sign;
  } else {
    bits = sign | (man ? 0x7fc00000u : 0x7f800000u);
  }
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}
// IEEE half from a double (exact for f32 and f16 sources), rounded by `r` (.rn when none).
inline std::uint16_t to_half(double v, ptx::Round r) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return static_cast<std::uint16_t>(sign | 0x7e00);
  if (std::isinf(v)) return static_cast<std::uint16_t>(sign | 0x7c00);
  const double a = std::fabs(v);
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);
  const int E = std::max(e - 1, -14);      // the half exponent (subnormals: -14)
  const double t = std::ldexp(a, 10 - E);  // a in units of the last place: exact
  double m = std::floor(t);
  const double frac = t - m;
  bool up;
  switch (r) {
    case ptx::Round::Rz:
      up = false;
      break;
    case ptx::Round::Rm:
      up = frac > 0 && sign;
      break;
    case ptx::Round::Rp:
      up = frac > 0 && !sign;
      break;
    default:
      up = frac > 0.5 || (frac == 0.5 && std::fmod(m, 2.0) != 0);
      break;
  }
  if (up) m += 1;
  // ((E + 14) << 10) + m encodes normals (m in [1024, 2048], a carry bumps the exponent)
  // and, for E == -14, subnormals (m < 1024).
  const double bits = std::ldexp(static_cast<double>(E + 14), 10) + m;
  if (bits >= 0x7c00) {
    const bool inf = r == ptx::Round::Rn || r == ptx::Round::None ||
                     (r == ptx::Round::Rp && !sign) || (r == ptx::Round::Rm && sign);
    return static_cast<std::uint16_t>(sign | (inf ? 0x7c00 : 0x7bff));
  }
  return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(bits));
}
// The host rounding mode for a PTX rounding modifier (.rn and none: to nearest).
inline int fe_mode(ptx::Round r) {
  switch (r) {
    case ptx::Round::Rz:
      return FE_TOWARDZERO;
    case ptx::Round::Rm:
      return FE_DOWNWARD;
    case ptx::Round::Rp:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}
// The host rounding mode of this thread: FE_TONEAREST but inside a RoundingScope.
inline thread_local int host_rounding = FE_TONEAREST;
// The host rounding mode `mode` for its lifetime, then the one before. A micro-op that
// rounds every lane in one directed mode (uop_run.hpp) sets it once for the warp instead of
// twice per lane; the lanes' with_rounding() of that mode then run as they are. Nothing but
// with_rounding() of the same mode may compute floats inside one.
class RoundingScope {
 public:
  explicit RoundingScope(int mode) : saved_(host_rounding) {
    if (mode != saved_) set(mode);
  }
  ~RoundingScope() {
    if (host_rounding != saved_) set(saved_);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  static void set(int mode) {
    std::fesetround(mode);
    host_rounding = mode;
  }
  int saved_;
};
// Runs `f` under the host rounding mode `mode`. `f` must read its operands through
// volatile and return through volatile, so that the compiler cannot move the arithmetic
// out from between the mode changes.
template <typename F>
auto with_rounding(int mode, F f) {
  if (mode == host_rounding) return f();
  RoundingScope scope(mode);
  return f();
}
inline double round_mode(double v, ptx::Round r) {
  switch (r) {
    case ptx::Round::Rni:
    case ptx::Round::Rn:
      return std::nearbyint(v);
    case ptx::Round::Rzi:
    case ptx::Round::Rz:
      return std::trunc(v);
    case ptx::Round::Rmi:
    case ptx::Round::Rm:
      return std::floor(v);
    case ptx::Round::Rpi:
    case ptx::Round::Rp:
      return std::ceil(v);
    default:
      return std::trunc(v);
  }
}

// The rounding modifier of a float operation.
inline ptx::Round float_round(const Instr& in) { return in.mod.round; }
inline bool directed_round(const Instr& in) {
  const ptx::Round r = float_round(in);
  return r == ptx::Round::Rz || r == ptx::Round::Rm || r == ptx::Round::Rp;
}

// .sat: clamps to [+0.0, 1.0]; NaN and -0.0 give +0.0.
template <typename T>
T saturate(const Instr& in, T r) {
  if (!(in.flags & ptx::kFlagSat)) return r;
  return (std::isnan(r) || r <= T(0)) ? T(0) : std::min(r, T(1));
}

inline model::Op access_op(const Instr& in) {
  if (in.op == Opc::Ld || in.op == Opc::WmmaLoad) return model::Op::Load;
  if (in.op == Opc::St || in.op == Opc::WmmaStore) return model::Op::Store;
  return in.mod.atom == ptx::AtomOp::Cas ? model::Op::AtomicCas : model::Op::Atomic;
}

// Records that a request reached bytes up to offset `top` (0: nothing new) of buffer `b`
// and whether it read or wrote it, for the report of what the CTAs used. Every global
// access ends here, whichever tier ran it. Atomics count as writes.
inline void touch(GlobalMemory::Buffer& b, std::uint64_t top, bool load) {
  std::uint64_t seen = b.max_touched.load(std::memory_order_relaxed);
  while (top > seen && !b.max_touched.compare_exchange_weak(seen, top, std::memory_order_relaxed)) {
  }
  std::atomic<bool>& flag = load ? b.read : b.written;
  if (!flag.load(std::memory_order_relaxed)) flag.store(true, std::memory_order_relaxed);
}

}  // namespace bankcheck::emu::detail
