// Global requests: sector counts against a brute-force count, and the lane pattern
// behind an uncoalesced line (consecutive, strided, rows with a pitch).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "bankcheck/analysis/site_stats.hpp"
#include "bankcheck/model/arch.hpp"

namespace {

using namespace bankcheck::analysis;
using Kind = GlobalPattern::Kind;

struct Req {
  std::uint64_t addr[32] = {};
  std::uint32_t mask = 0xFFFFFFFFu;
};

Req lanes(std::uint64_t base, std::int64_t stride) {
  Req r;
  for (int l = 0; l < 32; ++l) r.addr[l] = base + static_cast<std::uint64_t>(stride * l);
  return r;
}

// Sectors by brute force (every byte of every active lane); the ideal as Nsight counts it:
// every active lane's bytes packed (a repeated address counted again), at most the sectors.
SectorCount brute(const Req& r, int width) {
  std::set<std::uint64_t> sectors, lines;
  int lanes_on = 0;
  for (int l = 0; l < 32; ++l) {
    if (!((r.mask >> l) & 1u)) continue;
    ++lanes_on;
    for (int b = 0; b < width; ++b) {
      sectors.insert((r.addr[l] + static_cast<std::uint64_t>(b)) / 32);
      lines.insert((r.addr[l] + static_cast<std::uint64_t>(b)) / 128);
    }
  }
  const auto packed = static_cast<std::uint32_t>((lanes_on * width + 31) / 32);
  return {static_cast<std::uint32_t>(sectors.size()),
          std::min(static_cast<std::uint32_t>(sectors.size()), packed),
          static_cast<std::uint32_t>(lines.size())};
}

TEST(GlobalSectors, MatchBruteForceOnRandomRequests) {
  std::mt19937_64 rng(6);
  for (int t = 0; t < 20000; ++t) {
    const int width = 1 << (rng() % 5);
    Req r;
    const std::uint64_t region = t % 3 == 0 ? 256 : (t % 3 == 1 ? 4096 : 1 << 20);
    const std::uint64_t base = 0x200000000000ull + (rng() % 64) * 256;
    if (t % 4 == 0)
      r = lanes(base + (rng() % 8) * static_cast<std::uint64_t>(width),
                width * static_cast<int>(rng() % 5));
    else
      for (auto& a : r.addr)
        a = base + (rng() % region) / static_cast<std::uint64_t>(width) *
                       static_cast<std::uint64_t>(width);
    r.mask = t % 5 == 0 ? static_cast<std::uint32_t>(rng()) | 1u : 0xFFFFFFFFu;
    const SectorCount got = count_sectors(r.addr, r.mask, width), want = brute(r, width);
    ASSERT_EQ(got.sectors, want.sectors) << t;
    ASSERT_EQ(got.ideal, want.ideal) << t;
    ASSERT_EQ(got.lines128, want.lines128) << t;
  }
}

// The memo (VerdictMemo::sectors) gives count_sectors's counts: requests of a few sites
// whose lanes keep their distances while the whole request moves (by multiples of 128, the
// memo's hits, and by other amounts, which must miss), masks, widths and sites that share
// entries.
TEST(GlobalSectors, MemoEqualsTheCount) {
  std::mt19937_64 rng(8);
  VerdictMemo memo(bankcheck::model::kDefaultArch);
  Req shapes[6];
  for (int s = 0; s < 6; ++s) {
    const std::int64_t strides[] = {4, 3072, 0, 8, 132, -4};
    shapes[s] = lanes(0, strides[s]);
    if (s == 5)
      for (int l = 0; l < 32; ++l) shapes[s].addr[l] = (l % 8) * 3072 + (l / 8) * 4;
  }
  for (int t = 0; t < 50000; ++t) {
    const int site = static_cast<int>(rng() % 7) * (t % 2 ? 1 : 128);  // 128 apart: shared entries
    const int width = 1 << (rng() % 4);
    const Req& shape = shapes[rng() % 6];
    Req r;
    const std::uint64_t move = rng() % 4 ? (rng() % 64) * 128 : rng() % 4096;
    const std::uint64_t base = 0x200000000000ull + 0x10000 + move;
    for (int l = 0; l < 32; ++l) r.addr[l] = base + shape.addr[l];
    if (rng() % 5 == 0) r.mask = static_cast<std::uint32_t>(rng() % 4) * 0x11111111u | 1u;
    const SectorCount want = count_sectors(r.addr, r.mask, width);
    const SectorCount got = memo.sectors(site, r.addr, r.mask, width);
    ASSERT_EQ(got.sectors, want.sectors) << t;
    ASSERT_EQ(got.ideal, want.ideal) << t;
    ASSERT_EQ(got.lines128, want.lines128) << t;
  }
}

TEST(GlobalSectors, IdealCountsRepeatedAddressesAsNsightDoes) {
  // The twiddle loads of a radix-2 FFT stage, tw[(t % half) * (512 / half)] of float2,
  // measured on the H100 (bench/check/measured/h100_run_new/tuned/classic: fft1024 line 76): per
  // warp the ten stages touch 1, 2, 4, 8, 16, 32, 32, 32, 16, 8 sectors, and Nsight's ideal is 1,
  // 2, 4, 8, 8, 8, 8, 8, 8, 8 (63 in all), not the distinct bytes' 1, 1, 1, 2, 4, 8, ...
  const std::uint32_t want_sectors[] = {1, 2, 4, 8, 16, 32, 32, 32, 16, 8};
  const std::uint32_t want_ideal[] = {1, 2, 4, 8, 8, 8, 8, 8, 8, 8};
  int stage = 0;
  for (int half = 1; half < 1024; half *= 2, ++stage) {
    Req r;
    for (int t = 0; t < 32; ++t)
      r.addr[t] =
          0x7f0000000000ull + static_cast<std::uint64_t>((t & (half - 1)) * (512 / half)) * 8;
    const SectorCount c = count_sectors(r.addr, r.mask, 8);
    EXPECT_EQ(c.sectors, want_sectors[stage]) << half;
    EXPECT_EQ(c.ideal, want_ideal[stage]) << half;
  }
}

TEST(GlobalPattern, ConsecutiveFromAMisalignedBase) {
  const Req r = lanes(0x1000 + 4, 4);
  const auto p = describe_global(r.addr, r.mask, 4);
  EXPECT_EQ(p.kind, Kind::Consecutive);
  EXPECT_EQ(p.offset, 4u);
  EXPECT_EQ(count_sectors(r.addr, r.mask, 4).sectors, 5u);
}

TEST(GlobalPattern, ArrayOfStructuresAndColumns) {
  for (std::int64_t s : {8, 12, 16, 24, 4096, -12}) {
    const Req r = lanes(0x100000, s);
    const auto p = describe_global(r.addr, r.mask, 4);
    EXPECT_EQ(p.kind, Kind::Strided) << s;
    EXPECT_EQ(p.stride, s);
  }
}

TEST(GlobalPattern, RowsWithAPitch) {
  // A 16x2 block over a row-major array of 1001 floats: lanes 0-15 one row, 16-31 the next.
  Req r;
  for (int l = 0; l < 32; ++l)
    r.addr[l] = 0x100000 + static_cast<std::uint64_t>((l / 16) * 4004 + (l % 16) * 4);
  const auto p = describe_global(r.addr, r.mask, 4);
  EXPECT_EQ(p.kind, Kind::Rows);
  EXPECT_EQ(p.run, 16);
  EXPECT_EQ(p.pitch, 4004);
  EXPECT_GT(count_sectors(r.addr, r.mask, 4).sectors, count_sectors(r.addr, r.mask, 4).ideal);
}

TEST(GlobalPattern, InactiveLanesAndIrregularRequests) {
  Req r = lanes(0x2000, 4);
  r.mask = 0x0000FFFFu;  // half the warp: still consecutive
  EXPECT_EQ(describe_global(r.addr, r.mask, 4).kind, Kind::Consecutive);
  Req g;
  std::mt19937 rng(1);
  for (auto& a : g.addr) a = 0x4000 + (rng() % 1000) * 4;
  EXPECT_EQ(describe_global(g.addr, g.mask, 4).kind, Kind::Unknown);
  Req one = lanes(0x2000, 4);
  one.mask = 1;
  EXPECT_EQ(describe_global(one.addr, one.mask, 4).kind, Kind::Unknown);
}

}  // namespace
