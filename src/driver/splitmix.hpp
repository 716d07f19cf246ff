// splitmix64 (Steele, Lea, Flood 2014): the generator behind every random buffer fill; a
// fast, well-mixed generator, so that a 1 GiB buffer fills in about a second.
#pragma once

#include <cstdint>

namespace bankcheck::driver {

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t operator()() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// A value in [0, n) from the high bits of r, without a division (n < 2^32).
inline std::uint64_t below(std::uint64_t r, std::uint64_t n) { return ((r >> 32) * n) >> 32; }

}  // namespace bankcheck::driver
