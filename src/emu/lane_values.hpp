// The bit patterns of f32 and f64 lanes and the NaN and min/max rules of sm_90 that every
// tier shares: the micro-ops, the reference, and the native code of native.cpp, which
// compiles this very text into its generated source (so it includes only the standard
// library).
#pragma once

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
// Written as selects, the last the one that decides, so that a loop over lanes vectorizes.
inline std::uint64_t float_min_max(bool max, bool f64, std::uint64_t a, std::uint64_t b) {
  const double x = f64 ? as_f64(a) : as_f32(a), y = f64 ? as_f64(b) : as_f32(b);
  const bool nx = x != x, ny = y != y;
  std::uint64_t r = (max ? x > y : x < y) ? a : b;
  r = (x == y && x == 0) ? ((std::signbit(x) != max) ? a : b) : r;  // min: the negative zero
  r = ny ? a : r;
  r = nx ? b : r;
  return (nx && ny) ? (f64 ? (b | kQuietF64) : std::uint64_t{0x7fffffffu}) : r;
}

}  // namespace bankcheck::emu::detail
