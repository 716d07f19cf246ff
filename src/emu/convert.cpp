// The reference semantics of comparisons (setp, set) and conversions (cvt), per lane.
#include <algorithm>
#include <bit>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>

#include "cta.hpp"
#include "narrow_float.hpp"

namespace bankcheck::emu::detail {

bool compare(ptx::Cmp c, Ty t, std::uint64_t a, std::uint64_t b) {
  if (ptx::ty_half(t)) return half_compare(c, t, a, b);
  if (ptx::ty_float(t))
    return compare_float(c, t == Ty::F64 ? as_f64(a) : as_f32(a),
                         t == Ty::F64 ? as_f64(b) : as_f32(b));
  return compare_int(c, t, a, b);
}

bool compare_float(ptx::Cmp c, double x, double y) {
  {
    const bool nan = std::isnan(x) || std::isnan(y);
    switch (c) {
      case ptx::Cmp::Eq:
        return !nan && x == y;
      case ptx::Cmp::Ne:
        return !nan && x != y;
      case ptx::Cmp::Lt:
        return !nan && x < y;
      case ptx::Cmp::Le:
        return !nan && x <= y;
      case ptx::Cmp::Gt:
        return !nan && x > y;
      case ptx::Cmp::Ge:
        return !nan && x >= y;
      case ptx::Cmp::Equ:
        return nan || x == y;
      case ptx::Cmp::Neu:
        return nan || x != y;
      case ptx::Cmp::Ltu:
        return nan || x < y;
      case ptx::Cmp::Leu:
        return nan || x <= y;
      case ptx::Cmp::Gtu:
        return nan || x > y;
      case ptx::Cmp::Geu:
        return nan || x >= y;
      case ptx::Cmp::Num:
        return !nan;
      case ptx::Cmp::Nan:
        return nan;
      default:
        return false;
    }
  }
}

bool compare_int(ptx::Cmp c, Ty t, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t m = mask_of(t);
  const bool s = ptx::ty_signed(t);
  const std::int64_t sa = sext(a, t), sb = sext(b, t);
  const std::uint64_t ua = a & m, ub = b & m;
  switch (c) {
    case ptx::Cmp::Eq:
      return ua == ub;
    case ptx::Cmp::Ne:
      return ua != ub;
    case ptx::Cmp::Lt:
      return s ? sa < sb : ua < ub;
    case ptx::Cmp::Le:
      return s ? sa <= sb : ua <= ub;
    case ptx::Cmp::Gt:
      return s ? sa > sb : ua > ub;
    case ptx::Cmp::Ge:
      return s ? sa >= sb : ua >= ub;
    case ptx::Cmp::Lo:
      return ua < ub;
    case ptx::Cmp::Ls:
      return ua <= ub;
    case ptx::Cmp::Hi:
      return ua > ub;
    case ptx::Cmp::Hs:
      return ua >= ub;
    default:
      return false;
  }
}

std::uint64_t convert(const Instr& in, std::uint64_t x) {
  const Ty d = in.type, s = in.type2;
  const auto rnd = in.mod.round;
  const bool sat = in.flags & ptx::kFlagSat;
  if (ptx::ty_packed(d) || ptx::ty_packed(s) || d == Ty::TF32 || s == Ty::TF32)
    return narrow_convert(in, x, 0);
  if (!ptx::ty_float(s) && !ptx::ty_float(d)) {
    std::uint64_t v = ptx::ty_signed(s) ? static_cast<std::uint64_t>(sext(x, s)) : (x & mask_of(s));
    if (sat) {
      const int db = ptx::ty_bytes(d) * 8;
      if (ptx::ty_signed(d)) {
        const std::int64_t lo = db == 64 ? INT64_MIN : -(1ll << (db - 1)),
                           hi = db == 64 ? INT64_MAX : (1ll << (db - 1)) - 1;
        std::int64_t sv = ptx::ty_signed(s) ? static_cast<std::int64_t>(v)
                                            : static_cast<std::int64_t>(std::min<std::uint64_t>(
                                                  v, static_cast<std::uint64_t>(INT64_MAX)));
        v = static_cast<std::uint64_t>(std::clamp(sv, lo, hi));
      } else {
        const std::uint64_t hi = mask_of(d);
        if (ptx::ty_signed(s) && static_cast<std::int64_t>(v) < 0)
          v = 0;
        else
          v = std::min(v, hi);
      }
    }
    if (ptx::ty_signed(d)) return static_cast<std::uint64_t>(sext(v, d)) & mask_of(d);
    return v & mask_of(d);
  }
  double f;
  if (s == Ty::F32)
    f = as_f32(x);
  else if (s == Ty::F64)
    f = as_f64(x);
  else if (s == Ty::F16)
    f = half_to_float(static_cast<std::uint16_t>(x));
  else if (s == Ty::BF16)
    f = narrow_value(s, x);
  else
    f = ptx::ty_signed(s) ? static_cast<double>(sext(x, s)) : static_cast<double>(x & mask_of(s));
  if (ptx::ty_float(d)) {
    if (ptx::ty_float(s) && rnd >= ptx::Round::Rni) f = round_mode(f, rnd);
    const int mode = fe_mode(rnd);  // .rn/.rz/.rm/.rp (none: to nearest)
    if (d == Ty::BF16 || (d == Ty::F16 && (in.mod.relu || in.mod.satfinite))) {
      f = saturate(in, f);
      if (std::isnan(f)) return 0x7fff;
      if (in.mod.relu && f < 0) f = 0.0;
      return double_to_narrow(narrow_format(d), f, rnd == ptx::Round::None ? ptx::Round::Rn : rnd,
                              in.mod.satfinite);
    }
    if (d == Ty::F16) {
      f = saturate(in, f);
      // A NaN: from f64 the sign and top payload bits are kept, from f32 the canonical
      // 0x7fff (as measured).
      if (std::isnan(f))
        return s == Ty::F64 ? ((x >> 48) & 0x8000) | 0x7e00 | ((x >> 42) & 0x3ff) : 0x7fff;
      return to_half(f, rnd);
    }
    const bool from_int = !ptx::ty_float(s);
    const bool from_signed = ptx::ty_signed(s);
    const std::uint64_t bits =
        from_signed ? static_cast<std::uint64_t>(sext(x, s)) : (x & mask_of(s));
    if (d == Ty::F32) {
      // From the exact integer or double, rounded once in the instruction's mode.
      float r = with_rounding(mode, [&] {
        volatile std::uint64_t vi = bits;
        volatile double vf = f;
        volatile float o = !from_int     ? static_cast<float>(static_cast<double>(vf))
                           : from_signed ? static_cast<float>(static_cast<std::int64_t>(vi))
                                         : static_cast<float>(static_cast<std::uint64_t>(vi));
        return static_cast<float>(o);
      });
      r = saturate(in, r);
      // NaNs from f32/f16 sources come out canonical; from f64 with their payload.
      return s == Ty::F64 ? from_f32(r) : canonical_f32(r);
    }
    double r = !from_int ? f : with_rounding(mode, [&] {
      volatile std::uint64_t vi = bits;
      volatile double o = from_signed ? static_cast<double>(static_cast<std::int64_t>(vi))
                                      : static_cast<double>(static_cast<std::uint64_t>(vi));
      return static_cast<double>(o);
    });
    return from_f64(saturate(in, r));
  }
  // float to integer: rounded, then saturated to the destination's range (NaN: 0). The
  // bounds are compared as powers of two: 2^63 and 2^64 are not below INT64_MAX/UINT64_MAX
  // as doubles, and casting them is undefined.
  const int db = ptx::ty_bytes(d) * 8;
  // A NaN gives 0 from f32/f16 into 32 bits or fewer; from f64, or into 64 bits, the
  // type's sign bit alone (0x80000000, 0x8000000000000000), as measured.
  if (std::isnan(f)) return (s == Ty::F64 || db == 64) ? (1ull << (db - 1)) : 0;
  f = round_mode(f, rnd == ptx::Round::None ? ptx::Round::Rzi : rnd);
  if (ptx::ty_signed(d)) {
    const double lim = std::ldexp(1.0, db - 1);
    if (f >= lim) return mask_of(d) >> 1;         // the largest value
    if (f <= -lim) return (mask_of(d) >> 1) + 1;  // the smallest value
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(f)) & mask_of(d);
  }
  if (f <= 0) return 0;
  if (f >= std::ldexp(1.0, db)) return mask_of(d);
  return static_cast<std::uint64_t>(f) & mask_of(d);
}

}  // namespace bankcheck::emu::detail
