// The reference semantics of the narrow float types, per lane: f16, bf16 and their packed
// pairs (f16x2, bf16x2: two independent halves in one 32-bit register, the low half the
// first element) for arithmetic, min/max, neg/abs, the approximate transcendentals and
// comparisons; and the conversions that involve a packed or 8-bit format or tf32.
//
// Correctly rounded operations (add, sub, mul, fma) are computed in double rounded to odd
// (round toward zero, then the last bit set when inexact): a double has more than two bits
// beyond the 11 of f16 and the 8 of bf16, so rounding that result once more into the
// format, in any mode, gives the correctly rounded result of the exact operation.
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>

#include "cta.hpp"
#include "narrow_float.hpp"

namespace bankcheck::emu::detail {

namespace {

double round_to_odd(Opc op, double a, double b, double c) {
  std::feclearexcept(FE_INEXACT);
  std::fesetround(FE_TOWARDZERO);
  volatile double x = a, y = b, z = c;
  volatile double v;
  switch (op) {
    case Opc::Add:
      v = x + y;
      break;
    case Opc::Sub:
      v = x - y;
      break;
    case Opc::Mul:
      v = x * y;
      break;
    default:  // fma, mad
      v = std::fma(static_cast<double>(x), static_cast<double>(y), static_cast<double>(z));
      break;
  }
  const double r = v;
  const bool inexact = std::fetestexcept(FE_INEXACT);
  std::fesetround(FE_TONEAREST);
  if (!inexact || !std::isfinite(r)) return r;
  std::uint64_t bits;
  std::memcpy(&bits, &r, 8);
  bits |= 1;
  double o;
  std::memcpy(&o, &bits, 8);
  return o;
}

// One 16-bit element of the operation.
std::uint32_t half_op(const Instr& in, const NarrowFormat& f, std::uint32_t a, std::uint32_t b,
                      std::uint32_t c) {
  const std::uint32_t sign = 0x8000;
  const bool ftz = (in.flags & ptx::kFlagFtz) && &f == &kF16;
  auto flush = [&](std::uint32_t x) {  // .ftz: subnormals to zero of the same sign
    return (ftz && (x & 0x7c00) == 0) ? (x & sign) : x;
  };
  a = flush(a);
  b = flush(b);
  c = flush(c);
  const double x = narrow_to_double(f, a), y = narrow_to_double(f, b), z = narrow_to_double(f, c);
  const ptx::Round rnd = in.mod.round == ptx::Round::None ? ptx::Round::Rn : in.mod.round;
  auto encode = [&](double r) {
    if (std::isnan(r)) return (in.flags & ptx::kFlagSat) ? 0u : f.nan;  // .sat: NaN gives +0
    if (in.flags & ptx::kFlagSat) r = r <= 0 ? 0.0 : std::min(r, 1.0);
    if (in.mod.relu && r < 0) r = 0.0;
    return flush(double_to_narrow(f, r, rnd, false));
  };
  switch (in.op) {
    case Opc::Add:
    case Opc::Sub:
    case Opc::Mul:
    case Opc::Fma:
    case Opc::Mad:
      return encode(round_to_odd(in.op, x, y, z));
    case Opc::Min:
    case Opc::Max: {
      // As f32: a NaN operand gives the other one, two give the canonical NaN, -0 is below
      // +0; .NaN: any NaN operand gives the canonical NaN. .relu: negative results give +0.
      const bool max = in.op == Opc::Max;
      std::uint32_t r;
      if (std::isnan(x) || std::isnan(y)) {
        if (in.mod.nan || (std::isnan(x) && std::isnan(y))) return f.nan;
        r = std::isnan(x) ? b : a;
      } else if (x == y && x == 0) {
        r = (std::signbit(x) != max) ? a : b;
      } else {
        r = (max ? x > y : x < y) ? a : b;
      }
      if (in.mod.relu && (r & sign) && !std::isnan(narrow_to_double(f, r))) r = 0;
      return r;
    }
    case Opc::Neg:
      return a ^ sign;
    case Opc::Abs:
      return a & ~sign;
    // The approximate functions: the exact function rounded to nearest (the ISA allows
    // the hardware a maximum relative error of about 2^-9.9 for ex2.approx.f16; the tests
    // accept two units in the last place).
    case Opc::Ex2:
      return double_to_narrow(f, std::exp2(x), ptx::Round::Rn, false);
    case Opc::Tanh:
      return double_to_narrow(f, std::tanh(x), ptx::Round::Rn, false);
    case Opc::Sin:
      return double_to_narrow(f, std::sin(x), ptx::Round::Rn, false);
    case Opc::Cos:
      return double_to_narrow(f, std::cos(x), ptx::Round::Rn, false);
    case Opc::Lg2:
      return double_to_narrow(f, std::log2(x), ptx::Round::Rn, false);
    case Opc::Rcp:
      return double_to_narrow(f, 1.0 / x, ptx::Round::Rn, false);
    case Opc::Sqrt:
      return double_to_narrow(f, std::sqrt(x), ptx::Round::Rn, false);
    case Opc::Rsqrt:
      return double_to_narrow(f, 1.0 / std::sqrt(x), ptx::Round::Rn, false);
    default:
      return 0;
  }
}

}  // namespace

std::uint64_t half_arith(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const NarrowFormat& f = narrow_format(in.type);
  const int n = ptx::ty_packed(in.type) ? 2 : 1;
  std::uint64_t r = 0;
  for (int i = 0; i < n; ++i) {
    const auto part = [&](std::uint64_t v) {
      return static_cast<std::uint32_t>(v >> (16 * i)) & 0xffff;
    };
    r |= static_cast<std::uint64_t>(half_op(in, f, part(a), part(b), part(c))) << (16 * i);
  }
  return r;
}

bool compare_float(ptx::Cmp c, double x, double y);

bool half_compare(ptx::Cmp c, Ty t, std::uint64_t a, std::uint64_t b) {
  const NarrowFormat& f = narrow_format(t);
  return compare_float(c, narrow_to_double(f, static_cast<std::uint32_t>(a & 0xffff)),
                       narrow_to_double(f, static_cast<std::uint32_t>(b & 0xffff)));
}

double narrow_value(Ty t, std::uint64_t bits) {
  if (t == Ty::TF32) return static_cast<double>(as_f32(bits));
  return narrow_to_double(narrow_format(t), static_cast<std::uint32_t>(bits & 0xffff));
}

// cvt with a packed, 8-bit or tf32 type:
//   cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b   a to the high half, b to the low
//   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b     the same, 8 bits each
//   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a      each half converted in place
//   cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a                each byte widened (exact)
//   cvt.{rna,rn,rz}{.satfinite}.tf32.f32 d, a              an f32 pattern, 13 low bits zero
std::uint64_t narrow_convert(const Instr& in, std::uint64_t a, std::uint64_t b) {
  const Ty d = in.type, s = in.type2;
  const ptx::Round rnd = in.mod.round == ptx::Round::None ? ptx::Round::Rn : in.mod.round;
  const bool satf = in.mod.satfinite;
  auto one = [&](const NarrowFormat& f, double v) -> std::uint32_t {
    if (std::isnan(v)) return f.nan;
    if (in.mod.relu && v < 0) v = 0.0;
    return double_to_narrow(f, v, rnd, satf);
  };
  if (d == Ty::TF32) {
    const float x = as_f32(a);
    if (std::isnan(x)) return 0x7fffffffu;
    return static_cast<std::uint64_t>(one(kTF32, x)) << 13;
  }
  const NarrowFormat& df = narrow_format(d);
  const int w = narrow_bits(df);
  if (ptx::ty_packed(s)) {  // element by element: e4m3x2 <-> f16x2
    const NarrowFormat& sf = narrow_format(s);
    const int sw = narrow_bits(sf);
    std::uint64_t r = 0;
    for (int i = 0; i < 2; ++i) {
      const double v =
          narrow_to_double(sf, static_cast<std::uint32_t>(a >> (sw * i)) & ((1u << sw) - 1));
      r |= static_cast<std::uint64_t>(one(df, v)) << (w * i);
    }
    return r;
  }
  // Two scalar sources: a to the high element, b to the low.
  const auto value = [&](std::uint64_t x) {
    return s == Ty::F64   ? as_f64(x)
           : s == Ty::F32 ? static_cast<double>(as_f32(x))
                          : narrow_value(s, x);
  };
  if (in.nsrc < 2) return one(df, value(a));
  return (static_cast<std::uint64_t>(one(df, value(a))) << w) | one(df, value(b));
}

}  // namespace bankcheck::emu::detail
