// Properties of analyze() over many inputs, the documented rules of the older
// generations, errors, and that the model works in constant expressions.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "bankcheck/model/analyze.hpp"

namespace {

using namespace bankcheck::model;

constexpr WarpAccess strided(Op op, int width, std::uint32_t stride_elems,
                             std::uint32_t active = 0xFFFFFFFFu) {
  WarpAccess a;
  a.op = op;
  a.width = static_cast<std::uint8_t>(width);
  a.active = active;
  for (int l = 0; l < kWarpSize; ++l)
    a.addr[l] = static_cast<std::uint32_t>(l) * stride_elems * width;
  return a;
}

// The model is usable at compile time: the seed transpose in constant expressions.
static_assert(analyze(strided(Op::Load, 4, 32)).wavefronts == 32, "column of float[32][32]");
static_assert(analyze(strided(Op::Load, 4, 33)).wavefronts == 1, "column of float[32][33]");
static_assert(analyze(strided(Op::Load, 16, 1)).wavefronts == 4, "float4 row: quarter-warps");

const Arch& arch(const char* name) {
  const Arch* a = find_arch(name);
  EXPECT_NE(a, nullptr) << name;
  return a ? *a : kDefaultArch;
}

TEST(Arch, LooksUpNamesAndSuffixes) {
  EXPECT_EQ(find_arch("sm_90")->cc, 90);
  EXPECT_EQ(find_arch("sm_90a")->cc, 90);
  EXPECT_EQ(find_arch("compute_80")->cc, 80);
  EXPECT_EQ(find_arch("sm_100f")->cc, 100);
  EXPECT_TRUE(find_arch("sm_35-8byte")->kepler_8byte_mode);
  EXPECT_FALSE(find_arch("sm_35")->kepler_8byte_mode);
  EXPECT_EQ(find_arch("sm_91"), nullptr);
  EXPECT_EQ(find_arch("gfx90a"), nullptr);
  EXPECT_EQ(find_arch(""), nullptr);
}

// Classic result: 32-bit accesses with a stride of s words are gcd(s, 32)-way.
TEST(Model, StrideWaysIsGcdWith32) {
  for (std::uint32_t s = 1; s <= 1024; ++s) {
    const Verdict v = analyze(strided(Op::Load, 4, s));
    EXPECT_EQ(v.ways, std::gcd(s, 32u)) << "stride " << s;
    EXPECT_EQ(v.wavefronts, v.ways);
    EXPECT_EQ(v.ideal_wavefronts, 1u);
  }
  EXPECT_EQ(analyze(strided(Op::Load, 4, 0)).wavefronts, 1u) << "broadcast";
  EXPECT_EQ(analyze(strided(Op::Store, 4, 0)).wavefronts, 1u) << "one word stored";
}

TEST(Model, NoActiveLaneCostsNothing) {
  for (Op op : {Op::Load, Op::Store, Op::Atomic, Op::AtomicCas})
    for (int w : {1, 2, 4, 8, 16}) {
      if ((op == Op::Atomic || op == Op::AtomicCas) && w != 4) continue;
      const Verdict v = analyze(strided(op, w, 1, 0));
      EXPECT_TRUE(v.ok());
      EXPECT_EQ(v.wavefronts, 0u);
      EXPECT_EQ(v.ideal_wavefronts, 0u);
    }
}

TEST(Model, Errors) {
  WarpAccess a = strided(Op::Load, 4, 1);
  a.addr[7] = 6;
  Verdict v = analyze(a);
  EXPECT_EQ(v.error, AccessError::Misaligned);
  EXPECT_EQ(v.error_lane, 7);
  a.active &= ~(1u << 7);
  EXPECT_TRUE(analyze(a).ok()) << "an inactive lane's address does not matter";
  a.width = 3;
  EXPECT_EQ(analyze(a).error, AccessError::BadWidth);
  EXPECT_EQ(analyze(strided(Op::Atomic, 8, 1)).error, AccessError::Unsupported);
  EXPECT_EQ(analyze(strided(Op::Atomic, 4, 1), arch("sm_35")).error, AccessError::Unsupported);
}

TEST(Model, PairMergeForWideLoads) {
  // Lanes 2k and 2k+1 share a double: the warp is one phase, one wavefront.
  WarpAccess a = strided(Op::Load, 8, 1);
  for (int l = 0; l < kWarpSize; ++l) a.addr[l] = static_cast<std::uint32_t>(l / 2) * 8;
  Schedule s;
  EXPECT_EQ(analyze(a, kDefaultArch, &s).wavefronts, 1u);
  EXPECT_EQ(s.merge_distance, 1);
  // Stores do not merge; nor do loads before sm_70.
  a.op = Op::Store;
  EXPECT_EQ(analyze(a).wavefronts, 2u);
  a.op = Op::Load;
  EXPECT_EQ(analyze(a, arch("sm_60")).wavefronts, 2u);
  // Lanes n and n^4 sharing is not enough (measured: period4 patterns cost 2).
  for (int l = 0; l < kWarpSize; ++l) a.addr[l] = static_cast<std::uint32_t>(l % 4) * 8;
  EXPECT_EQ(analyze(a).wavefronts, 2u);
  // 128-bit broadcast: pairs of quarter-warps merge, so 2 wavefronts, not 1.
  EXPECT_EQ(analyze(strided(Op::Load, 16, 0)).wavefronts, 2u);
}

TEST(Model, AtomicsHaveNoBroadcastAndCasCostsTwice) {
  EXPECT_EQ(analyze(strided(Op::Atomic, 4, 0)).wavefronts, 32u);
  EXPECT_EQ(analyze(strided(Op::Atomic, 4, 1)).wavefronts, 1u);
  EXPECT_EQ(analyze(strided(Op::AtomicCas, 4, 1)).wavefronts, 2u);
  const Verdict cas = analyze(strided(Op::AtomicCas, 4, 0));
  EXPECT_EQ(cas.wavefronts, 64u);
  EXPECT_EQ(cas.ideal_wavefronts, 2u);
  EXPECT_EQ(cas.ways, 32u);
}

// A 64-bit CAS loop: lanes at byte offsets l * stride, each word's value 1000.
constexpr SpinAccess spin(SpinOp op, std::uint32_t stride, std::uint64_t operand,
                          std::uint32_t active = 0xFFFFFFFFu) {
  SpinAccess a;
  a.op = op;
  a.active = active;
  for (int l = 0; l < kWarpSize; ++l) {
    a.addr[l] = static_cast<std::uint32_t>(l) * stride;
    a.operand[l] = operand;
    a.word[l] = 1000;
  }
  return a;
}

// Usable at compile time too: 32 lanes on one word, 16 passes of both half-warps, then
// 16 of the high half alone.
static_assert(atomic64_spin(spin(SpinOp::Add, 0, 1)).wavefronts == 96, "one word");

TEST(Model, SpinLoopHighHalfLosesToLowHalf) {
  const Verdict one_word = atomic64_spin(spin(SpinOp::Add, 0, 1));
  EXPECT_EQ(one_word.ideal_wavefronts, 4u);
  EXPECT_EQ(one_word.ways, 32u);
  // One half-warp alone never loses: one lane per pass, one phase each.
  EXPECT_EQ(atomic64_spin(spin(SpinOp::Add, 0, 1, 0x0000FFFFu)).wavefronts, 32u);
  EXPECT_EQ(atomic64_spin(spin(SpinOp::Add, 0, 1, 0xFFFF0000u)).wavefronts, 32u);
  // A store that leaves the value as it was does not fail the high half's compare.
  EXPECT_EQ(atomic64_spin(spin(SpinOp::Or, 0, 0)).wavefronts, 64u);
  EXPECT_EQ(atomic64_spin(spin(SpinOp::AddF64, 0, 0)).wavefronts, 64u);
  EXPECT_EQ(atomic64_spin(spin(SpinOp::AddF64, 0, 0x3FF0000000000000u)).wavefronts, 96u);
  // Distinct words: 8-byte stride is conflict-free, a 128-byte stride 16 passes of 4.
  EXPECT_EQ(atomic64_spin(spin(SpinOp::Add, 8, 1)).wavefronts, 4u);
  EXPECT_EQ(atomic64_spin(spin(SpinOp::Add, 128, 1)).wavefronts, 64u);
}

TEST(Model, SpinLoopMinMaxLeaveWithoutCas) {
  SpinLoads loads;
  const Verdict none = atomic64_spin(spin(SpinOp::MinU, 0, 1000), &loads);
  EXPECT_EQ(none.wavefronts, 0u);
  EXPECT_EQ(none.ways, 0u);
  EXPECT_EQ(loads.count, 1);  // the LDS.64 still runs once
  EXPECT_EQ(loads.lanes[0], 0xFFFFFFFFu);
  EXPECT_EQ(atomic64_spin(spin(SpinOp::MaxU, 0, 999)).wavefronts, 0u);
  EXPECT_EQ(atomic64_spin(spin(SpinOp::MinU, 0, ~0ull)).wavefronts, 0u);
  EXPECT_EQ(atomic64_spin(spin(SpinOp::MaxS, 0, ~0ull)).wavefronts, 0u);  // -1 < 1000
  // Equal operands: the first lane stores, every other lane then leaves.
  loads = SpinLoads{};
  const Verdict min = atomic64_spin(spin(SpinOp::MinS, 0, ~0ull), &loads);
  EXPECT_EQ(min.wavefronts, 4u);  // lane 0 stores, lane 16 fails; then both halves leave
  EXPECT_EQ(min.ways, 1u);
  EXPECT_EQ(loads.count, 2);
  EXPECT_EQ(loads.lanes[1], 0xFFFFFFFEu);
  EXPECT_EQ(atomic64_spin(spin(SpinOp::MaxU, 0, 1001, 0x0000FFFFu)).wavefronts, 2u);
}

TEST(Model, SpinLoopIsOneCasWithoutSharedWordsAcrossHalves) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    SpinAccess s = spin(SpinOp::Add, 8, 1, rng() | 1u);
    WarpAccess a = strided(Op::AtomicCas, 8, 1, s.active);
    for (int l = 0; l < kWarpSize; ++l) {
      // Odd trials: each half-warp on its own 64 words (the same bank pairs).
      const std::uint32_t base = trial % 2 && l >= 16 ? 64 : 0;
      s.addr[l] = a.addr[l] = (base + static_cast<std::uint32_t>(rng() % 64)) * 8;
      s.word[l] = 0;  // every lane on a word sees the same value
    }
    bool shared_across = false;
    for (int l = 0; l < 16; ++l)
      for (int h = 16; h < kWarpSize; ++h)
        shared_across |= ((s.active >> l) & (s.active >> h) & 1u) && s.addr[l] == s.addr[h];
    const Verdict loop = atomic64_spin(s), once = atomic64(a);
    EXPECT_EQ(loop.ideal_wavefronts, once.ideal_wavefronts);
    if (shared_across) {  // the high half may lose, which costs passes
      EXPECT_GE(loop.wavefronts, once.wavefronts);
      continue;
    }
    EXPECT_EQ(loop.wavefronts, once.wavefronts);
    EXPECT_EQ(loop.ways, once.ways);
  }
  SpinAccess odd = spin(SpinOp::Add, 8, 1);
  odd.addr[5] = 44;
  EXPECT_EQ(atomic64_spin(odd).error, AccessError::Misaligned);
  EXPECT_EQ(atomic64_spin(odd).error_lane, 5);
}

// Tesla (cc 1.x): 16 banks, half-warps, one broadcast word per pass.
TEST(Model, TeslaRules) {
  const Arch& t = arch("sm_13");
  // char s[tid]: four lanes per word, 4-way (seed 000); s[4*tid]: none.
  EXPECT_EQ(analyze(strided(Op::Load, 1, 1), t).ways, 4u);
  EXPECT_EQ(analyze(strided(Op::Load, 1, 4), t).ways, 1u);
  EXPECT_EQ(analyze(strided(Op::Load, 2, 1), t).ways, 2u);
  EXPECT_EQ(analyze(strided(Op::Load, 2, 2), t).ways, 1u);
  // int s[2*tid]: lanes 0 and 8 of a half-warp share bank 0.
  EXPECT_EQ(analyze(strided(Op::Load, 4, 2), t).ways, 2u);
  // Threads of different half-warps never conflict: 16 banks, stride 16 words is 16-way, not 32.
  EXPECT_EQ(analyze(strided(Op::Load, 4, 16), t).ways, 16u);
  // double s[tid]: split into 32-bit accesses with a stride of two words: 2-way.
  EXPECT_EQ(analyze(strided(Op::Load, 8, 1), t).ways, 2u);
}

TEST(Model, FermiRules) {
  const Arch& f = arch("sm_20");
  for (std::uint32_t s = 1; s <= 64; ++s)
    EXPECT_EQ(analyze(strided(Op::Load, 4, s), f).wavefronts > 1, s % 2 == 0) << s;
  EXPECT_EQ(analyze(strided(Op::Load, 1, 1), f).ways, 1u) << "multicast: char s[tid] is free";
  EXPECT_EQ(analyze(strided(Op::Load, 8, 1), f).ways, 1u);
  EXPECT_EQ(analyze(strided(Op::Load, 16, 1), f).ways, 2u) << "128-bit: usually 2-way";
}

TEST(Model, KeplerBankModes) {
  const Arch& k4 = arch("sm_35");
  const Arch& k8 = arch("sm_35-8byte");
  // 64-bit words at stride 1: one pass in either mode (256 B over 32 x 8-byte banks).
  EXPECT_EQ(analyze(strided(Op::Load, 8, 1), k4).wavefronts, 1u);
  EXPECT_EQ(analyze(strided(Op::Load, 8, 1), k8).wavefronts, 1u);
  // Words i and i+32 of one 64-word segment do not conflict in 4-byte mode.
  WarpAccess a = strided(Op::Load, 4, 1);
  for (int l = 0; l < kWarpSize; ++l) a.addr[l] = static_cast<std::uint32_t>(l % 2 ? 32 : 0) * 4;
  EXPECT_EQ(analyze(a, k4).wavefronts, 1u);
  // In 8-byte mode, words 0 and 64 (bytes 0 and 256) are two rows of bank 0.
  for (int l = 0; l < kWarpSize; ++l) a.addr[l] = static_cast<std::uint32_t>(l % 2 ? 256 : 0);
  EXPECT_EQ(analyze(a, k8).wavefronts, 2u);
}

// For random requests on every architecture, the schedule explains the verdict: its
// wavefronts are the verdict's, every word every active lane needs is delivered exactly
// once, a slot's bank is its address's bank, and the deepest round is the N-way degree.
TEST(Model, ScheduleExplainsVerdictForRandomRequests) {
  std::mt19937 rng(1234);
  for (const Arch& ar : kArchs) {
    for (Op op : {Op::Load, Op::Store, Op::Atomic, Op::AtomicCas}) {
      for (int w : {1, 2, 4, 8, 16}) {
        for (int trial = 0; trial < 60; ++trial) {
          WarpAccess a;
          a.op = op;
          a.width = static_cast<std::uint8_t>(w);
          a.active = trial % 3 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(rng());
          const std::uint32_t region = trial % 2 ? 256 : 8192;
          const std::uint32_t pool = 1 + rng() % 33;
          std::vector<std::uint32_t> choices(pool);
          for (auto& c : choices) c = (rng() % region) / w * w;
          for (int l = 0; l < kWarpSize; ++l) a.addr[l] = choices[rng() % pool];
          Schedule s;
          const Verdict v = analyze(a, ar, &s);
          const Verdict fast = analyze(a, ar);
          if (!v.ok()) {
            EXPECT_EQ(fast.error, v.error);
            continue;
          }
          SCOPED_TRACE(std::string(ar.name) + " " + op_name(op) + " w" + std::to_string(w));
          EXPECT_EQ(fast.wavefronts, v.wavefronts);
          EXPECT_EQ(fast.ways, v.ways);
          EXPECT_GE(v.wavefronts, v.ideal_wavefronts);
          EXPECT_EQ(static_cast<std::uint32_t>(s.wavefront_count), v.wavefronts);
          const bool atomic = op == Op::Atomic || op == Op::AtomicCas;
          const int copies = op == Op::AtomicCas ? 2 : 1;
          // Count deliveries per (lane, word).
          std::map<std::pair<int, std::uint32_t>, int> got;
          std::uint32_t deepest = 0;
          for (int i = 0; i < s.slot_count; ++i) {
            const Slot& sl = s.slots[i];
            EXPECT_LT(sl.wavefront, v.wavefronts);
            const std::uint32_t unit = ar.kepler_8byte_mode ? 8 : 4;
            EXPECT_EQ(sl.bank, (sl.addr / unit) % ar.banks);
            deepest = std::max<std::uint32_t>(deepest, sl.round + 1u);
            for (int l = 0; l < kWarpSize; ++l) {
              if (!((sl.lanes >> l) & 1u)) continue;
              EXPECT_TRUE(a.lane_active(l));
              if (ar.kepler_8byte_mode) {
                got[{l, sl.addr}]++;
              } else if (ar.rule == BankRule::Kepler) {
                // A Kepler 4-byte-mode cell is a pair of words: count the lane's own words.
                for (int k = 0; k < std::max(1, w / 4); ++k) {
                  const std::uint32_t word = a.addr[l] / 4 + k;
                  if (word % 32 == sl.bank && word / 64 == (sl.addr / 4) / 64) got[{l, word * 4}]++;
                }
              } else {
                got[{l, sl.addr}]++;
              }
            }
          }
          // Fermi's 128-bit degree is by definition one more than its worst bank.
          const bool fermi128 = ar.rule == BankRule::Fermi && w == 16;
          if (!atomic) {
            EXPECT_EQ(deepest + (fermi128 ? 1 : 0), v.ways);
          }
          for (int l = 0; l < kWarpSize; ++l) {
            if (!a.lane_active(l)) continue;
            if (ar.kepler_8byte_mode) {
              for (int r = 0; r < std::max(1, w / 8); ++r)
                EXPECT_EQ((got[{l, (a.addr[l] / 8 + r) * 8}]), copies) << "lane " << l;
            } else {
              for (int k = 0; k < std::max(1, w / 4); ++k)
                EXPECT_EQ((got[{l, (a.addr[l] / 4 + k) * 4}]), copies) << "lane " << l;
            }
          }
        }
      }
    }
  }
}

// Within one whole-warp phase, the lane order does not matter.
TEST(Model, LanePermutationDoesNotChangeThirtyTwoBitCost) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 2000; ++trial) {
    WarpAccess a = strided(trial % 2 ? Op::Load : Op::Store, 4, 1);
    for (int l = 0; l < kWarpSize; ++l) a.addr[l] = (rng() % 2048) * 4;
    const Verdict before = analyze(a);
    std::shuffle(std::begin(a.addr), std::end(a.addr), rng);
    EXPECT_EQ(analyze(a).wavefronts, before.wavefronts);
  }
}

}  // namespace
