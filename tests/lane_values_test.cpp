// The per-lane functions every tier shares (src/emu/lane_values.hpp) against what they stand
// for. exp2_f32, ex2.approx.f32 as the emulator runs it, is the C library's exp2f: its
// vectorizable common case must round to exp2f's result wherever it decides one. Over every
// 13th float here (every float with BANKCHECK_EXHAUSTIVE=1: 4,294,967,296, about 20 s on
// two cores), and over the floats where results turn subnormal or overflow.
#include "lane_values.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <thread>

namespace det = bankcheck::emu::detail;

namespace {

struct Sweep {
  std::uint64_t floats = 0, decided = 0, wrong = 0;
  float first_wrong = 0;
};

Sweep sweep(std::uint64_t from, std::uint64_t to, std::uint64_t step) {
  Sweep s;
  for (std::uint64_t u = from; u < to; u += step) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(u));
    const float want = std::exp2(x);
    float got;
    ++s.floats;
    const bool decided = det::exp2_f32_common(x, got);
    const float any = det::exp2_f32(x);
    const bool differs =
        std::bit_cast<std::uint32_t>(any) != std::bit_cast<std::uint32_t>(want) ||
        (decided && std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want));
    s.decided += decided;
    if (differs && s.wrong++ == 0) s.first_wrong = x;
  }
  return s;
}

TEST(LaneValues, Exp2IsTheCLibrarysExp2f) {
  const char* all = std::getenv("BANKCHECK_EXHAUSTIVE");
  const std::uint64_t step = all && *all == '1' ? 1 : 13;
  Sweep a, b;
  std::thread other([&] { a = sweep(0, std::uint64_t{1} << 31, step); });
  b = sweep(std::uint64_t{1} << 31, std::uint64_t{1} << 32, step);
  other.join();
  EXPECT_EQ(a.wrong, 0u) << "first at x = " << a.first_wrong;
  EXPECT_EQ(b.wrong, 0u) << "first at x = " << b.first_wrong;
  // The common case decides all but a few of the floats in [-126, 127).
  const std::uint64_t in_range = (a.floats + b.floats) / 2;  // about half of all floats
  EXPECT_GT(a.decided + b.decided, in_range * 9 / 10);
}

TEST(LaneValues, Exp2AtTheEdgesOfItsRange) {
  // Every float from -150 to -125 (subnormal results, underflow) and from 126 to 128
  // (overflow), and the specials.
  const auto range = [](float lo, float hi) {
    std::uint64_t wrong = 0;
    for (float x = lo; x <= hi; x = std::nextafter(x, INFINITY)) {
      const float got = det::exp2_f32(x), want = std::exp2(x);
      wrong += std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want);
    }
    return wrong;
  };
  EXPECT_EQ(range(-150.0f, -125.0f), 0u);
  EXPECT_EQ(range(126.0f, 128.0f), 0u);
  for (const float x : {INFINITY, -INFINITY, NAN, -NAN, 0.0f, -0.0f, 1e-45f, -1e-45f}) {
    const float got = det::exp2_f32(x), want = std::exp2(x);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want)) << x;
  }
}

// lane_bits: byte l (0 or 1) is bit l. This build's form; native code's (AVX2, where the
// CPU has it) packs every predicate of the native tests.
TEST(LaneValues, LaneBitsPacksOneBitPerByte) {
  std::uint32_t seed = 1;
  for (int i = 0; i < 10000; ++i) {
    std::uint8_t v[32];
    std::uint32_t want = 0;
    for (int l = 0; l < 32; ++l) {
      seed = seed * 1664525u + 1013904223u;
      v[l] = i == 0 ? 1 : i == 1 ? 0 : (seed >> 28) & 1u;
      want |= static_cast<std::uint32_t>(v[l]) << l;
    }
    ASSERT_EQ(det::lane_bits(v), want) << "case " << i;
  }
}

}  // namespace
