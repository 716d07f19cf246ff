// The bit patterns of f32 and f64 lanes and the NaN and min/max rules of sm_90 that every
// tier shares: the micro-ops, the reference, and the native code of native.cpp, which
// compiles this very text into its generated source (so it includes only the standard
// library and the compiler's own intrinsics).
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

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

// 32 bytes of 0 or 1 (bools) as a lane mask: with AVX2 a compare and a movemask (the
// multiplies below, which GCC vectorized with vpmullq, were half of an `if (i < n)` run's
// native code); else multiplying a word of 8 bytes by the constant moves bit 8k to 56 + k.
inline std::uint32_t lane_bits(const std::uint8_t* v) {
#if defined(__AVX2__)
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v));
  return static_cast<std::uint32_t>(
      _mm256_movemask_epi8(_mm256_cmpgt_epi8(b, _mm256_setzero_si256())));
#else
  std::uint64_t w[4];
  std::memcpy(w, v, 32);
  std::uint32_t r = 0;
  for (int i = 0; i < 4; ++i)
    r |= static_cast<std::uint32_t>(((w[i] * 0x0102040810204080ull) >> 56) & 0xFF) << (8 * i);
  return r;
#endif
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

// ex2.approx.f32 as every tier runs it: the C library's exp2f. Its common case is computed
// here as glibc computes it (2^x = 2^(k/32) 2^r, |r| <= 1/64: a table of 2^(i/32) and a
// cubic in r, in double), in a form a loop over lanes vectorizes, and that result rounded
// to float is returned where it lies more than 512 units of its last place (2^-43,
// relative) from halfway between two floats: there a computation a few units apart (an
// exp2f whose compiler fused its multiply-adds, another C library of the same method)
// rounds alike. The rest (halfway cases, x outside [-126, 127), where results are
// subnormal or overflow, NaN) is exp2f's own: exp2_f32 calls it. Equal to glibc's exp2f
// for every float (tests/lane_values_test.cpp; over all 2^32, BANKCHECK_EXHAUSTIVE=1).
// kExp2Table[i]: the bits of 2^(i/32) less i << 47, where k's bits above its low five go.
inline constexpr std::uint64_t kExp2Table[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540};
// True, with the result in `out`, when the common case decides it.
inline bool exp2_f32_common(float x, float& out) {
  // Computed for every x (outside, NaN included, the table's index stays in range and the
  // result is not used): a select of x here kept GCC 12 from vectorizing the table's load.
  const bool in = x >= -126.0f && x < 127.0f;
  const double xd = x;
  const double shift = 0x1.8p+47;  // 1.5 * 2^52 / 32: xd + shift rounds xd to k / 32
  double kd = xd + shift;
  std::uint64_t ki;
  std::memcpy(&ki, &kd, 8);
  kd -= shift;
  const double r = xd - kd;
  const std::uint64_t t = kExp2Table[ki % 32] + (ki << 47);
  double s;
  std::memcpy(&s, &t, 8);
  const double z = 0x1.c6af84b912394p-5 * r + 0x1.ebfce50fac4f3p-3;
  const double r2 = r * r;
  double y = 0x1.62e42ff0c52d6p-1 * r + 1.0;
  y = z * r2 + y;
  y = y * s;
  std::uint64_t b;
  std::memcpy(&b, &y, 8);
  // The 29 bits float drops, against the halfway point 2^28.
  const std::uint64_t low = b & ((std::uint64_t{1} << 29) - 1), half = std::uint64_t{1} << 28;
  const std::uint64_t apart = low > half ? low - half : half - low;
  out = static_cast<float>(y);
  return in && apart > 512;
}
inline float exp2_f32(float x) {
  float r;
  return exp2_f32_common(x, r) ? r : std::exp2(x);
}

}  // namespace bankcheck::emu::detail
