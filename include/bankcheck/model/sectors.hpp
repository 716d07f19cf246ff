// Global memory requests: the 32-byte sectors one warp request touches, the fewest it could
// touch as Nsight Compute counts its "Ideal", and the 128-byte lines. The definitions of
// "L2 Theoretical Sectors Global" and its "Ideal" (bench/check): used by the emulator's
// analysis on the CPU and by the GPU backend's patched instructions alike.
//
//   lane addresses  0x100 0x104 ... 0x17c (32 lanes, 4 bytes)  -> 4 sectors, ideal 4
//                   0x110 0x114 ... 0x18c (16 bytes off)       -> 5 sectors, ideal 4
#pragma once

#include <cstdint>

#include "bankcheck/model/config.hpp"

namespace bankcheck::model {

struct SectorCount {
  std::uint32_t sectors = 0, ideal = 0, lines128 = 0;
};

namespace detail {

// Ascending, in place; n <= 32 (a warp's lanes).
BANKCHECK_HD constexpr void sort_lanes(std::uint64_t* v, int n) {
  for (int i = 1; i < n; ++i) {
    const std::uint64_t x = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = x;
  }
}

}  // namespace detail

// The request of the lanes in `mask`, each reading or writing `width` bytes from addr[lane].
// Post: ideal <= sectors; all 0 when no lane is active. Nsight's ideal is the active lanes'
// bytes packed into sectors, a repeated address counted again (an FFT's twiddle load, 32
// lanes of 8 bytes on 8 addresses 512 B apart: ideal 8, not 2), never more than the sectors
// the request touches (one address: 1).
BANKCHECK_HD constexpr SectorCount count_sectors(const std::uint64_t* addr, std::uint32_t mask,
                                                 int width) {
  std::uint64_t s[kWarpSize] = {};
  int n = 0;
  for (int l = 0; l < kWarpSize; ++l)
    if ((mask >> l) & 1u) s[n++] = addr[l];
  SectorCount c;
  if (n == 0) return c;
  const auto w = static_cast<std::uint64_t>(width);
  bool sorted = true, consecutive = true;
  for (int i = 1; i < n; ++i) {
    sorted &= s[i] >= s[i - 1];
    consecutive &= s[i] == s[i - 1] + w;
  }
  if (sorted && consecutive) {  // coalesced: consecutive elements, in closed form
    const std::uint64_t end = s[n - 1] + w;
    c.sectors = static_cast<std::uint32_t>((end - 1) / 32 - s[0] / 32 + 1);
    c.ideal = static_cast<std::uint32_t>((end - s[0] + 31) / 32);
    c.lines128 = static_cast<std::uint32_t>((end - 1) / 128 - s[0] / 128 + 1);
    return c;
  }
  if (!sorted) detail::sort_lanes(s, n);
  // In address order, a lane's range adds the lines and sectors past the last one counted.
  bool any = false;
  std::uint64_t last_sector = 0, last_line = 0;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t a = s[i], b = a + w;  // [a, b)
    const std::uint64_t line_hi = (b - 1) / 128, sector_hi = (b - 1) / 32;
    std::uint64_t line_lo = a / 128, sector_lo = a / 32;
    if (any && last_line + 1 > line_lo) line_lo = last_line + 1;
    if (any && last_sector + 1 > sector_lo) sector_lo = last_sector + 1;
    if (line_hi >= line_lo) {
      c.lines128 += static_cast<std::uint32_t>(line_hi - line_lo + 1);
      last_line = line_hi;
    }
    if (sector_hi >= sector_lo) {
      c.sectors += static_cast<std::uint32_t>(sector_hi - sector_lo + 1);
      last_sector = sector_hi;
    }
    any = true;
  }
  const auto packed = static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * w + 31) / 32);
  c.ideal = c.sectors < packed ? c.sectors : packed;
  return c;
}

}  // namespace bankcheck::model
