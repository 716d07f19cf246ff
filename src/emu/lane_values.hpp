// The bit patterns of f32 and f64 lanes and the NaN and min/max rules of sm_90 that every
// tier shares: the micro-ops, the reference, and the native code of native.cpp, which
// compiles this very text into its generated source (so it includes only the standard
// library).
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace bankcheck::emu::detail {

inline float as_f32(std::uint64_t v) {
  const std::uint32_t b = static_cast<std::uint32_t>(v);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline double as_f64(std::uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline std::uint64_t from_f32(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline std::uint64_t from_f64(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
// NaN results as sm_90 gives them (measured on the GPU): f32 arithmetic returns the
// canonical NaN 0x7fffffff whatever the operands' payloads.
constexpr std::uint64_t kQuietF64 = 0x0008000000000000ull;
inline std::uint64_t canonical_f32(float r) {
  return r != r ? std::uint64_t{0x7fffffffu} : from_f32(r);
}
// min/max.f32/f64: a NaN operand gives the other operand; -0.0 is below +0.0; two NaNs
// give the canonical NaN (f32) or the second operand quieted (f64), as measured.
// Written as selects, the last the one that decides, so that a loop over lanes vectorizes;
// f32 compares as float and reads the sign from the bits (converted to double, with
// std::signbit, GCC 12 left every lane loop with a max scalar).
inline std::uint64_t f32_min_max(bool max, std::uint64_t a, std::uint64_t b) {
  const float x = as_f32(a), y = as_f32(b);
  const bool nx = x != x, ny = y != y;
  std::uint64_t r = (max ? x > y : x < y) ? a : b;
  r = (x == y && x == 0) ? ((((a >> 31) & 1u) != 0) != max ? a : b) : r;  // the negative zero
  r = ny ? a : r;
  r = nx ? b : r;
  return (nx && ny) ? std::uint64_t{0x7fffffffu} : r;
}
inline std::uint64_t float_min_max(bool max, bool f64, std::uint64_t a, std::uint64_t b) {
  if (!f64) return f32_min_max(max, a, b);
  const double x = as_f64(a), y = as_f64(b);
  const bool nx = x != x, ny = y != y;
  std::uint64_t r = (max ? x > y : x < y) ? a : b;
  r = (x == y && x == 0) ? ((std::signbit(x) != max) ? a : b) : r;  // min: the negative zero
  r = ny ? a : r;
  r = nx ? b : r;
  return (nx && ny) ? (b | kQuietF64) : r;
}

// f32 add, sub, mul and fma rounded toward zero, -inf or +inf without the host's rounding
// mode (the micro-ops set it; native code cannot: the compiler assumes the default). The
// exact result is rounded to odd in double (53 >= 24 + 2 bits: rounding that once more, in
// any direction, gives the correctly rounded result; a float is never that odd double), then
// to the nearest float, which moves one step where it went the wrong way. tests/emu_native_test.cpp
// compares it with the host's own directed arithmetic.
enum DirectedMode : int { kDirectedRz = 1, kDirectedRm = 2, kDirectedRp = 3 };
// p + c rounded to odd: the sum rounded to nearest in double and its error found exactly
// (TwoSum); an inexact sum whose last bit is even is moved one unit toward the exact value.
// Infinities and NaNs skip the correction (the sum is not finite). For p a product of two
// floats (exact in double: 48 significant bits) and c a float, the sum cannot overflow in
// double, and a nonzero exact sum is at least 2^-298, far above double's subnormals, so the
// error term is exact.
inline double sum_rounded_to_odd(double p, double c) {
  const double s = p + c;
  const double bv = s - p;
  const double err = (p - (s - bv)) + (c - bv);
  std::uint64_t bits;
  std::memcpy(&bits, &s, 8);
  // As selects, so that a loop over lanes vectorizes.
  const std::uint64_t moved = ((err > 0) == (s > 0)) ? bits + 1 : bits - 1;
  bits = (err != 0 && (bits & 1) == 0 && std::isfinite(s)) ? moved : bits;
  double odd;
  std::memcpy(&odd, &bits, 8);
  return odd;
}
// a * b + c with one rounding, without an FMA instruction: the product is exact in double,
// the sum rounded to odd, and that rounded to float is the correctly rounded result.
inline float fma_round_to_odd(float a, float b, float c) {
  return static_cast<float>(sum_rounded_to_odd(static_cast<double>(a) * static_cast<double>(b), c));
}

// The low bit of each of 32 bytes as a lane mask: multiplying a word of 8 bytes by this
// constant moves bit 8k to 56 + k.
inline std::uint32_t lane_bits(const std::uint8_t* v) {
  std::uint64_t w[4];
  std::memcpy(w, v, 32);
  std::uint32_t r = 0;
  for (int i = 0; i < 4; ++i)
    r |= static_cast<std::uint32_t>(((w[i] * 0x0102040810204080ull) >> 56) & 0xFF) << (8 * i);
  return r;
}

// op: 0 add, 1 sub, 2 mul, 3 fma (DirectedOp).
inline std::uint64_t directed_f32_value(int op, int mode, float x, float y, float z) {
  const double p = op >= 2 ? static_cast<double>(x) * static_cast<double>(y) : x;  // exact
  const double c = op == 3 ? z : op == 0 ? y : op == 1 ? -static_cast<double>(y) : 0.0;
  const double d = op == 2 ? p : sum_rounded_to_odd(p, c);
  const float r = static_cast<float>(d);
  std::uint32_t b;
  std::memcpy(&b, &r, 4);
  const double rd = r;
  const bool step = mode == kDirectedRm   ? rd > d
                    : mode == kDirectedRp ? rd < d
                                          : (rd > d ? d >= 0 : rd < d && d < 0);
  // One step toward -inf (rm, or rz of a positive), toward +inf (rp, or rz of a negative).
  const bool down = mode == kDirectedRm || (mode == kDirectedRz && d >= 0);
  std::uint32_t moved =
      r == 0 ? (down ? 0x80000001u : 0x00000001u) : ((r > 0) == down ? b - 1 : b + 1);
  const std::uint32_t out = step ? moved : b;
  // An exact zero sum rounded toward -inf is -0 unless both addends are +0 (all bits zero;
  // a select and bit tests rather than signbit(), so that the loop vectorizes).
  const bool negative_zero =
      op != 2 && mode == kDirectedRm && d == 0 && !(from_f64(p) == 0 && from_f64(c) == 0);
  return d != d ? std::uint64_t{0x7fffffffu} : std::uint64_t{negative_zero ? 0x80000000u : out};
}

// shfl.sync: the lane whose value `lane` reads (mode 0 up, 1 down, 2 bfly, 3 idx: ptx::ShflMode)
// from its lane operand b and its clamp and segment mask c, and whether that lane is in
// range (`ok`); out of range, its own.
inline std::int32_t shfl_source(int mode, std::uint32_t lane, std::uint32_t b, std::uint32_t c,
                                bool& ok) {
  const std::uint32_t bv = b & 0x1f;
  const std::uint32_t seg = (c >> 8) & 0x1f, clamp = c & 0x1f;
  const std::uint32_t max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
  std::int32_t j = 0;
  switch (mode) {
    case 0:
      j = static_cast<std::int32_t>(lane) - static_cast<std::int32_t>(bv);
      ok = j >= static_cast<std::int32_t>(max_lane);
      break;
    case 1:
      j = static_cast<std::int32_t>(lane + bv);
      ok = j <= static_cast<std::int32_t>(max_lane);
      break;
    case 2:
      j = static_cast<std::int32_t>(lane ^ bv);
      ok = j <= static_cast<std::int32_t>(max_lane);
      break;
    default:
      j = static_cast<std::int32_t>(min_lane | (bv & ~seg));
      ok = j <= static_cast<std::int32_t>(max_lane);
      break;
  }
  return ok ? (j & 31) : static_cast<std::int32_t>(lane);
}

// 32-bit div and rem as int_div() and int_rem() (cta.hpp) define them, through double
// division, which a loop over lanes vectorizes: for |x|, |y| < 2^32 the quotient's rounding
// error (< 2^-21 / |y|) is less than its distance to any other integer (>= 1 / |y|), so its
// truncation is exact. Division by zero gives all ones (div) or x (rem); INT32_MIN / -1
// gives INT32_MIN, its remainder 0. tests/emu_native_test.cpp compares them with int_div.
inline std::uint32_t truncated_u32(double d) {  // d in [0, 2^32)
  return d >= 2147483648.0
             ? static_cast<std::uint32_t>(static_cast<std::int32_t>(d - 2147483648.0)) + 0x80000000u
             : static_cast<std::uint32_t>(static_cast<std::int32_t>(d));
}
inline std::uint64_t div_u32_value(std::uint64_t a, std::uint64_t b) {
  const auto x = static_cast<std::uint32_t>(a), y = static_cast<std::uint32_t>(b);
  const std::uint32_t q = truncated_u32(static_cast<double>(x) / static_cast<double>(y ? y : 1u));
  return y ? q : 0xFFFFFFFFu;
}
inline std::uint64_t rem_u32_value(std::uint64_t a, std::uint64_t b) {
  const auto x = static_cast<std::uint32_t>(a), y = static_cast<std::uint32_t>(b);
  const std::uint32_t q = truncated_u32(static_cast<double>(x) / static_cast<double>(y ? y : 1u));
  return y ? x - q * y : x;
}
inline std::uint64_t div_s32_value(std::uint64_t a, std::uint64_t b) {
  const auto x = static_cast<std::int32_t>(a), y = static_cast<std::int32_t>(b);
  const bool special = y == 0 || (x == INT32_MIN && y == -1);
  const auto q = static_cast<std::int32_t>(static_cast<double>(x) / (special ? 1.0 : y));
  return y == 0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(q);
}
inline std::uint64_t rem_s32_value(std::uint64_t a, std::uint64_t b) {
  const auto x = static_cast<std::int32_t>(a), y = static_cast<std::int32_t>(b);
  const bool special = y == 0 || y == -1;
  const std::int32_t d = special ? 1 : y;
  const auto q = static_cast<std::int32_t>(static_cast<double>(x) / d);
  const std::uint32_t r =
      static_cast<std::uint32_t>(x) - static_cast<std::uint32_t>(q) * static_cast<std::uint32_t>(d);
  return y == 0 ? static_cast<std::uint32_t>(x) : y == -1 ? 0u : r;
}

}  // namespace bankcheck::emu::detail
