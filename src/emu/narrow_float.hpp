// The narrow float formats (f16, bf16, tf32, e4m3, e5m2): their bit patterns decoded to a
// double (exact: every value of these formats is a double) and a double rounded into
// them, in any PTX rounding mode, with .satfinite. One generic encoder serves all five.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::emu::detail {

struct NarrowFormat {
  int ebits, mbits, bias;
  bool ieee;          // the top exponent code holds inf and NaN (e4m3: only 0x7f/0xff, NaN)
  std::uint32_t nan;  // the NaN the conversions and arithmetic produce (sign clear)
};
inline constexpr NarrowFormat kF16{5, 10, 15, true, 0x7fff};
inline constexpr NarrowFormat kBF16{8, 7, 127, true, 0x7fff};
inline constexpr NarrowFormat kTF32{8, 10, 127, true, 0x7ffff};  // the top 19 bits of an f32
inline constexpr NarrowFormat kE4M3{4, 3, 7, false, 0x7f};
inline constexpr NarrowFormat kE5M2{5, 2, 15, true, 0x7f};

inline int narrow_bits(const NarrowFormat& f) { return 1 + f.ebits + f.mbits; }
// The largest finite code (sign clear).
inline std::uint32_t narrow_max(const NarrowFormat& f) {
  return f.ieee ? ((((1u << f.ebits) - 1) << f.mbits) - 1) : ((1u << (f.ebits + f.mbits)) - 2);
}

inline double narrow_to_double(const NarrowFormat& f, std::uint32_t code) {
  const std::uint32_t sign = (code >> (f.ebits + f.mbits)) & 1;
  const std::uint32_t e = (code >> f.mbits) & ((1u << f.ebits) - 1);
  const std::uint32_t m = code & ((1u << f.mbits) - 1);
  const std::uint32_t emax = (1u << f.ebits) - 1;
  double v;
  if (f.ieee && e == emax)
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (!f.ieee && e == emax && m == (1u << f.mbits) - 1)
    v = std::numeric_limits<double>::quiet_NaN();
  else if (e == 0)
    v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.mbits);
  else
    v = std::ldexp(static_cast<double>(m | (1u << f.mbits)),
                   static_cast<int>(e) - f.bias - f.mbits);
  return sign ? -v : v;
}

// `v` rounded into the format by `r` (None: to nearest even; Rna: to nearest, ties away).
// Overflow gives infinity under to-nearest and the rounding away from zero, else the
// largest finite value; .satfinite (and e4m3, which has no infinity) always the largest
// finite value, infinities included. NaN gives the format's NaN.
inline std::uint32_t double_to_narrow(const NarrowFormat& f, double v, ptx::Round r,
                                      bool satfinite) {
  const int top = f.ebits + f.mbits;
  const std::uint32_t sign = std::signbit(v) ? (1u << top) : 0;
  const std::uint32_t maxc = narrow_max(f);
  const std::uint32_t infc = ((1u << f.ebits) - 1) << f.mbits;
  if (std::isnan(v)) return f.nan;
  const bool sat = satfinite || !f.ieee;
  if (std::isinf(v)) return sign | (sat ? maxc : infc);
  const double a = std::fabs(v);
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);
  const int E = std::max(e - 1, 1 - f.bias);    // the exponent (subnormals: the minimum)
  const double t = std::ldexp(a, f.mbits - E);  // a in units of the last place: exact
  double m = std::floor(t);
  const double frac = t - m;
  bool up;
  switch (r) {
    case ptx::Round::Rz:
    case ptx::Round::Rzi:
      up = false;
      break;
    case ptx::Round::Rm:
    case ptx::Round::Rmi:
      up = frac > 0 && sign;
      break;
    case ptx::Round::Rp:
    case ptx::Round::Rpi:
      up = frac > 0 && !sign;
      break;
    case ptx::Round::Rna:
      up = frac >= 0.5;
      break;
    default:
      up = frac > 0.5 || (frac == 0.5 && std::fmod(m, 2.0) != 0);
      break;
  }
  if (up) m += 1;
  // ((E + bias - 1) << mbits) + m encodes normals (a carry bumps the exponent) and, at the
  // minimum exponent, subnormals (m below 2^mbits).
  const double bits = std::ldexp(static_cast<double>(E + f.bias - 1), f.mbits) + m;
  if (bits > static_cast<double>(maxc)) {
    const bool away = r == ptx::Round::None || r == ptx::Round::Rn || r == ptx::Round::Rna ||
                      (r == ptx::Round::Rp && !sign) || (r == ptx::Round::Rm && sign);
    return sign | ((away && !sat) ? infc : maxc);
  }
  return sign | static_cast<std::uint32_t>(bits);
}

inline const NarrowFormat& narrow_format(ptx::Ty t) {
  switch (t) {
    case ptx::Ty::BF16:
    case ptx::Ty::BF16X2:
      return kBF16;
    case ptx::Ty::TF32:
      return kTF32;
    case ptx::Ty::E4M3X2:
      return kE4M3;
    case ptx::Ty::E5M2X2:
      return kE5M2;
    default:
      return kF16;
  }
}

}  // namespace bankcheck::emu::detail
