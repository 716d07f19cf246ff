// The buffer fills (src/driver/fills.hpp) against their definition: every element from its
// chunk's own splitmix64 stream, an integer as the low bytes of a value in [0, 1000), a float
// in [-1000, 1000] in steps of 0.001; the same bytes on any number of threads, for every
// element size, and the progress counters at the end.
#include "fills.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "splitmix.hpp"

namespace bankcheck::driver {
namespace {

// The definition, one element at a time.
std::vector<std::uint8_t> reference(std::uint64_t bytes, int es, bool is_float,
                                    std::uint64_t seed) {
  std::vector<std::uint8_t> out(bytes, 0);
  const std::uint64_t n = bytes / static_cast<std::uint64_t>(es);
  constexpr std::uint64_t kChunk = 1u << 20;
  for (std::uint64_t c = 0; c * kChunk < n; ++c) {
    SplitMix64 gen{seed ^ (c * 0xD1B54A32D192ED03ull)};
    for (std::uint64_t i = c * kChunk; i < n && i < (c + 1) * kChunk; ++i) {
      std::uint8_t* at = out.data() + i * static_cast<std::uint64_t>(es);
      if (is_float && es == 4) {
        const float f = static_cast<float>(below(gen(), 2000001)) / 1000.0f - 1000.0f;
        std::memcpy(at, &f, 4);
      } else if (is_float && es == 8) {
        const double d = static_cast<double>(below(gen(), 2000001)) / 1000.0 - 1000.0;
        std::memcpy(at, &d, 8);
      } else {
        const std::uint64_t r = below(gen(), 1000);
        std::memcpy(at, &r, static_cast<std::size_t>(es));
      }
    }
  }
  return out;
}

TEST(Fills, RandomIsItsDefinitionOnAnyNumberOfThreads) {
  // Three chunks and a part of one for 1-byte elements; less than a chunk for the others.
  const std::uint64_t bytes = 3 * (1u << 20) + 12345 * 8;
  for (const auto& [es, is_float] : std::vector<std::pair<int, bool>>{
           {1, false}, {2, false}, {4, false}, {8, false}, {4, true}, {8, true}}) {
    const std::vector<std::uint8_t> want = reference(bytes, es, is_float, 0xC0FFEE);
    for (unsigned threads : {1u, 3u}) {
      SCOPED_TRACE(testing::Message()
                   << es << (is_float ? " float" : " int") << ", threads " << threads);
      std::vector<std::uint8_t> got(bytes, 0);
      Progress progress;
      fill_random(got.data(), bytes, es, is_float, 0xC0FFEE, threads, &progress);
      EXPECT_EQ(got, want);
      EXPECT_EQ(progress.fill_done.load(), bytes / es * es);
      EXPECT_EQ(progress.fill_total.load(), 0u);  // none under way
    }
  }
}

TEST(Fills, Iota) {
  std::vector<std::uint8_t> b(40, 0xff);
  fill_iota(b.data(), b.size(), 4, true);
  float f = 0;
  std::memcpy(&f, b.data() + 36, 4);
  EXPECT_EQ(f, 9.0f);
  fill_iota(b.data(), b.size(), 2, false);
  std::uint16_t v = 0;
  std::memcpy(&v, b.data() + 38, 2);
  EXPECT_EQ(v, 19);
}

}  // namespace
}  // namespace bankcheck::driver
