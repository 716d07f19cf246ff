// The shared-memory side of the tensor-core data movers: ldmatrix/stmatrix (LDSM/STSM)
// and cp.async (LDGSTS), as the H100 counts their wavefronts.
//
// Every rule below was found on bench/hardware/matrix (one warp, one instruction per
// launch, 1,260 patterns; H100 results in bench/hardware/measured/corpora/matrix_*) and is
// replayed by tests/matrix_corpus_test.cpp. docs/model.md ("ldmatrix, stmatrix,
// cp.async") gives the measurements behind each.
//
// Worked example (sm_90): ldmatrix.x4 of a row-major 64-half tile (128-byte rows), lane
// 8m+r giving row r of matrix m at r*128 + m*16: the eight rows of each matrix sit in
// banks 4m..4m+3, eight different words each, so each matrix costs 8 wavefronts: 32 in
// all, ideal 4, 8-way. XOR-swizzling the 16-byte chunk by the row (CuTe Swizzle<3,4,3>)
// spreads the rows over all 32 banks: 4 wavefronts.
#pragma once

#include <cstdint>

#include "bankcheck/model/access.hpp"
#include "bankcheck/model/analyze.hpp"
#include "bankcheck/model/arch.hpp"
#include "bankcheck/model/config.hpp"
#include "bankcheck/model/sectors.hpp"

namespace bankcheck::model {

enum class MatrixOp : std::uint8_t { Load, Store };  // ldmatrix (LDSM), stmatrix (STSM)

// One ldmatrix/stmatrix .m8n8 .b16: `matrices` (1, 2 or 4) 8x8 matrices of 16-bit
// elements, each eight 16-byte rows. Lane 8m+r gives the byte address of row r of matrix
// m; lanes past 8 * matrices are ignored (.x1 reads lanes 0-7, .x2 lanes 0-15).
// `.trans` changes which register gets which element, not which bytes move: the H100
// charges it the same (all 940 patterns, each measured with and without .trans).
struct MatrixAccess {
  MatrixOp op = MatrixOp::Load;
  std::uint8_t matrices = 4;
  bool trans = false;
  std::uint32_t addr[kWarpSize] = {};
};

// One cp.async (LDGSTS): each active lane copies `width` bytes (4, 8 or 16) from
// global_addr to addr in shared memory. `bypass` is .cg (LDGSTS.BYPASS, 16 bytes only);
// `src_size` says the instruction carries a src-size operand (.ZFILL in SASS). `reads`
// holds the lanes that read global memory: a lane whose src-size is 0 only writes zeros,
// and is charged on its shared side alone (bench/hardware/cpasync: a warp of them costs
// what a store of the same lanes does, and no global sector). A .cg copy without src-size
// whose lanes do not all read carries ptxas's zero-fill predicate (`..., P0`): its lanes
// that read nothing are charged the .ca rule (analyze_ldgsts).
struct AsyncCopy {
  std::uint8_t width = 16;
  bool bypass = false;
  bool src_size = false;
  std::uint32_t active = 0xFFFFFFFFu;
  std::uint32_t reads = 0xFFFFFFFFu;
  std::uint32_t addr[kWarpSize] = {};         // shared destination
  std::uint32_t global_addr[kWarpSize] = {};  // global source (its L1 slot for .ca)

  BANKCHECK_HD constexpr bool lane_active(int lane) const { return (active >> lane) & 1u; }
  BANKCHECK_HD constexpr bool lane_reads(int lane) const {
    return ((active & reads) >> lane) & 1u;
  }
};

namespace detail {

// The request an ldmatrix/stmatrix is charged as: a 16-byte access per row, in
// quarter-warp phases (one phase = one matrix), never paired. Pairing would merge two
// matrices that share their rows; the H100 does not (the `dup_*` patterns: x4 with four
// copies of one matrix costs 4, not 2).
BANKCHECK_HD constexpr WarpAccess matrix_rows(const MatrixAccess& m) {
  WarpAccess a;
  a.op = Op::Store;  // the phase rule without load pairing
  a.width = 16;
  a.active = lanes_mask(0, 8 * m.matrices);
  for (int lane = 0; lane < kWarpSize; ++lane) a.addr[lane] = m.addr[lane];
  return a;
}

// LDGSTS through L1 (.ca, and the zero-fill part of .ZFILL): store phases (whole warp for
// 4 bytes, half-warps for 8, quarter-warps for 16). A lane's data sits in L1 at its
// position in its global 128-byte line (its W-byte slot, W the copy's width) and goes to
// its W-byte slot of a shared 128-byte row (its banks); a lane goes in the wavefront after
// as many earlier lanes of its phase as share its global slot (whichever line, the same
// word included: no multicast) or its shared slot (the same address included: stride 0
// costs 32 at every width). Measured by the chunks-from-anywhere corpora
// (bench/hardware/matrix: 16 bytes, and 4 and 8 bytes): so a tile of 64-byte rows read
// from a row-major matrix (4 lanes a row, each row another line) costs 2 a phase, a 4-byte
// halo whose clamped lanes read one word costs one wavefront per lane on it, and a column
// gather 128 bytes apart costs 32. Lanes colliding on both sides through different lanes
// cost more than this (up to 3 more wavefronts in the corpora; never less). A lane that
// reads nothing (src-size 0) has no global slot. The ideal is the instruction's, not the
// phases' (analyze_ldgsts).
template <bool Record>
BANKCHECK_HD constexpr Verdict ldgsts_l1(const AsyncCopy& c, Schedule* s, int first_wf) {
  Verdict v;
  const int phase = c.width == 4 ? 32 : (c.width == 8 ? 16 : 8);
  const int words = c.width / 4;
  const std::uint32_t w = c.width, slots = 128u / w;
  for (int first = 0, p = 0; first < kWarpSize; first += phase, ++p) {
    const std::uint32_t lanes = lanes_mask(first, phase) & c.active;
    if constexpr (Record) push_phase(s, lanes_mask(first, phase));
    if (!lanes) continue;
    int worst = 0;
    const int base = first_wf + static_cast<int>(v.wavefronts);
    // Earlier lanes on the global slot, on the shared slot; those on both are counted once
    // (looked for only when both counts are non-zero, which a plain copy never makes).
    int on_global[32] = {}, on_shared[32] = {};
    for (int lane = first; lane < first + phase; ++lane) {
      if (!((lanes >> lane) & 1u)) continue;
      const std::uint32_t g = (c.global_addr[lane] / w) % slots, sh = (c.addr[lane] / w) % slots;
      const bool reads = c.lane_reads(lane);
      int both = 0;
      if (reads && on_global[g] && on_shared[sh])
        for (int j = first; j < lane; ++j)
          both += ((lanes >> j) & 1u) && c.lane_reads(j) && (c.global_addr[j] / w) % slots == g &&
                  (c.addr[j] / w) % slots == sh;
      const int earlier = (reads ? on_global[g]++ : 0) + on_shared[sh]++ - both;
      worst = earlier + 1 > worst ? earlier + 1 : worst;
      if constexpr (Record)
        for (int k = 0; k < words; ++k) {
          const std::uint32_t word = c.addr[lane] / 4 + static_cast<std::uint32_t>(k);
          push_slot(s, base + earlier, p, static_cast<int>(word & 31u), word * 4, 1u << lane,
                    earlier);
        }
    }
    if constexpr (Record) push_wavefronts(s, worst, p);
    v.wavefronts += static_cast<std::uint32_t>(worst);
    v.ways =
        static_cast<std::uint32_t>(worst) > v.ways ? static_cast<std::uint32_t>(worst) : v.ways;
  }
  return v;
}

// LDGSTS.BYPASS (.cg): the data goes from L2 to shared memory outside the LSU data pipe
// (l1tex__data_pipe_lsu_wavefronts_mem_shared does not count it). Nsight Compute's LDGSTS
// counters charge it wavefronts; its kernel-level bank-conflict counter stays 0, while the
// Source Counters' per-instruction "Ideal" is one wavefront per global 128-byte line, so a
// padded tile's copy shows excess wavefronts there (bench/hardware/matrix/gen_cg.py).
// Rule (measured, docs/model.md; bench/hardware/matrix/gen_cg_from.py chose each lane's
// global chunk apart from its lane): drop lanes that repeat an earlier lane's shared
// address. A wavefront moves 16-byte chunks from one global 128-byte line to one shared
// 128-byte line through one route: the 16-byte halves of every 32-byte sector kept or
// swapped alike, and global sector x (0-3 in its line) to shared sector
// x ^ (b | k[x & 1] << 1), for one b and one k per parity of x (so every XOR of the
// sectors, and every rotation). It carries either whole global sectors (both halves in the
// wavefront) or sectors of which one half is copied, all the same half. The copy costs the
// wavefronts of taking, each time, the most lanes one such wavefront can move (which of
// equals is taken does not change the count on any measured pattern). So a row copied
// whole, XOR-swizzled or shifted by 32 bytes costs 1 per shared line; shifted by 16 bytes,
// 2 per shared line with more than one chunk; lanes copying single chunks out of order
// cost up to one each.
// Its global side (bench/hardware/cpasync, Source Counters per instruction): each wavefront
// reads the distinct 32-byte sectors of the chunks it moves, so a sector whose halves go
// in two wavefronts is read twice ("L2 Theoretical Sectors Global": a row shifted by 16
// bytes in shared memory reads 32 sectors for 16); the ideal is the copied bytes (one
// 16-byte chunk per distinct shared address) in sectors.
struct BypassCost {
  std::uint32_t wavefronts = 0;
  std::uint32_t lines = 0;    // distinct global 128-byte lines
  std::uint32_t worst = 0;    // the most wavefronts of one (global line, shared line) pair
  std::uint32_t sectors = 0;  // per wavefront, the distinct global sectors it moves; summed
  std::uint32_t unique = 0;   // lanes left once repeated shared addresses are dropped
};
BANKCHECK_HD constexpr int popcount32(std::uint32_t x) {
  int n = 0;
  for (; x; x &= x - 1) ++n;
  return n;
}
// Of the lanes lane[0..m) still in `left` (bits over lane[]), those one wavefront with
// route `route` moves: bit 0 the half swap, bit 1 b, bits 2-3 k for even and odd global
// sectors; the class with the most lanes of: whole sectors, lower halves alone, upper
// halves alone.
BANKCHECK_HD constexpr std::uint32_t bypass_wavefront(const std::uint32_t* g,
                                                      const std::uint32_t* s, const int* lane,
                                                      int m, std::uint32_t left, int route) {
  std::uint32_t fit = 0;
  std::uint32_t halves[4] = {};
  for (int i = 0; i < m; ++i) {
    if (!(left >> i & 1u)) continue;
    const std::uint32_t gj = g[lane[i]], sj = s[lane[i]];
    const std::uint32_t gh = gj / 16 & 1u, gs = gj / 32 % 4;
    const std::uint32_t k = gs & 1u ? (route >> 3 & 1) : (route >> 2 & 1);
    if ((gh ^ static_cast<std::uint32_t>(route & 1)) != (sj / 16 & 1u)) continue;
    if ((gs ^ (static_cast<std::uint32_t>(route >> 1 & 1) | k << 1)) != sj / 32 % 4) continue;
    fit |= 1u << i;
    halves[gs] |= 1u << gh;
  }
  std::uint32_t cls[3] = {};
  for (int i = 0; i < m; ++i) {
    if (!(fit >> i & 1u)) continue;
    const std::uint32_t gj = g[lane[i]];
    cls[halves[gj / 32 % 4] == 3u ? 0 : 1 + (gj / 16 & 1u)] |= 1u << i;
  }
  std::uint32_t best = cls[0];
  for (int i = 1; i < 3; ++i)
    if (popcount32(cls[i]) > popcount32(best)) best = cls[i];
  return best;
}
BANKCHECK_HD constexpr BypassCost ldgsts_bypass(const AsyncCopy& c) {
  std::uint32_t g[kWarpSize] = {}, s[kWarpSize] = {};
  int n = 0;
  for (int l = 0; l < kWarpSize; ++l) {
    if (!c.lane_reads(l)) continue;
    bool repeat = false;
    for (int j = 0; j < n && !repeat; ++j) repeat = s[j] == c.addr[l];
    if (repeat) continue;
    g[n] = static_cast<std::uint32_t>(c.global_addr[l]);
    s[n] = c.addr[l];
    ++n;
  }
  BypassCost r;
  r.unique = static_cast<std::uint32_t>(n);
  bool taken[kWarpSize] = {};
  for (int i = 0; i < n; ++i) {
    bool seen_line = false;
    for (int j = 0; j < i && !seen_line; ++j) seen_line = g[j] / 128 == g[i] / 128;
    if (!seen_line) ++r.lines;
    if (taken[i]) continue;
    // A wavefront stays within one (global line, shared line) pair: each pair apart.
    int lane[kWarpSize] = {};
    int m = 0;
    for (int j = i; j < n; ++j) {
      if (taken[j] || g[j] / 128 != g[i] / 128 || s[j] / 128 != s[i] / 128) continue;
      taken[j] = true;
      lane[m++] = j;
    }
    std::uint32_t left = m == kWarpSize ? 0xFFFFFFFFu : (1u << m) - 1u;
    std::uint32_t cost = 0;
    while (left) {
      std::uint32_t best = 0;
      for (int route = 0; route < 16 && best != left; ++route) {
        const std::uint32_t w = bypass_wavefront(g, s, lane, m, left, route);
        if (popcount32(w) > popcount32(best)) best = w;
      }
      if (!best) best = left & (~left + 1u);  // every lane has a route; kept for termination
      left &= ~best;
      ++cost;
      std::uint32_t seen[kWarpSize] = {};
      int distinct = 0;
      for (int k = 0; k < m; ++k) {
        if (!(best >> k & 1u)) continue;
        const std::uint32_t sector = g[lane[k]] / 32;
        bool again = false;
        for (int q = 0; q < distinct && !again; ++q) again = seen[q] == sector;
        if (!again) seen[distinct++] = sector;
      }
      r.sectors += static_cast<std::uint32_t>(distinct);
    }
    r.wavefronts += cost;
    r.worst = cost > r.worst ? cost : r.worst;
  }
  return r;
}

}  // namespace detail

// Costs one ldmatrix/stmatrix. Each matrix is one phase; a phase costs the most distinct
// 4-byte words one bank delivers for its eight rows; ideal = matrices.
// Pre: matrices in {1, 2, 4}; the used lanes' addresses 16-byte aligned (else the
// verdict's error says which lane). Post: ideal_wavefronts == matrices on success.
// ldmatrix exists from sm_75 and stmatrix from sm_90; the rule was measured on sm_90 and
// is applied to every Maxwell-rule architecture that has the instruction.
BANKCHECK_HD constexpr Verdict analyze_matrix(const MatrixAccess& m, const Arch& arch,
                                              Schedule* schedule = nullptr) {
  Verdict v;
  const int needs = m.op == MatrixOp::Load ? 75 : 90;
  if (arch.rule != BankRule::Maxwell || arch.cc < needs) {
    v.error = AccessError::Unsupported;
    return v;
  }
  if (m.matrices != 1 && m.matrices != 2 && m.matrices != 4) {
    v.error = AccessError::BadWidth;
    return v;
  }
  return analyze(detail::matrix_rows(m), arch, schedule);
}

// Costs the shared side of one cp.async, as Nsight Compute's LDGSTS counters
// (`..._mem_shared_op_ldgsts`) count it; LDGSTS never shows in the op_ld or op_st ones.
//   .ca (LDGSTS, LDGSTS.E.64/128):      ldgsts_l1 above.
//   .cg (LDGSTS.E.BYPASS.128):          bypass wavefronts.
//   .cg with src-size (BYPASS...ZFILL): both: the bypass part of the lanes that read plus
//                                       the .ca cost of the same request.
//   .cg with a zero-fill predicate      the bypass part of the lanes that read plus the .ca
//   (BYPASS.128 [..], [..], P0):        cost of the lanes that do not (the form ptxas gives
//                                       Triton's pipelined loads, whose lanes copy 16 bytes
//                                       or write 16 zeros): a warp whose lanes all read nothing
//                                       still writes its zeros, and Nsight Compute counts
//                                       them (examples/hopper/triton_dot.py on the H200: 4
//                                       wavefronts = the ideal for every execution, those of
//                                       the pipeline's last stages that read nothing too).
// Post: wavefronts >= ideal_wavefronts (a wavefront writes at most one 128-byte shared row,
// and every chunk counted by the ideal is written by the bypass or the L1 part).
// The ideal is the copied bytes in 128-byte wavefronts, as the Source Counters' "L1
// Wavefronts Shared Ideal" counts it (bench/hardware/cpasync, 718 instructions): .ca the
// active lanes' bytes (a warp of 16-byte copies: 4, wherever in global memory they come
// from), .cg one 16-byte chunk per distinct shared address. So a tile loader whose lanes
// read 16 different global lines costs 4 wavefronts at best, not 16.
// Pre: width 4, 8 or 16 (16 for bypass), active lanes aligned to it. cp.async exists from
// sm_80; measured on sm_90.
BANKCHECK_HD constexpr Verdict analyze_ldgsts(const AsyncCopy& c, const Arch& arch,
                                              Schedule* schedule = nullptr) {
  Verdict v;
  if (arch.rule != BankRule::Maxwell || arch.cc < 80) {
    v.error = AccessError::Unsupported;
    return v;
  }
  if ((c.width != 4 && c.width != 8 && c.width != 16) || (c.bypass && c.width != 16)) {
    v.error = AccessError::BadWidth;
    return v;
  }
  std::uint32_t unique = 0, seen[kWarpSize] = {};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!c.lane_active(lane)) continue;
    if (c.addr[lane] % c.width) {
      v.error = AccessError::Misaligned;
      v.error_lane = static_cast<std::int8_t>(lane);
      return v;
    }
    bool again = false;
    for (std::uint32_t q = 0; q < unique && !again; ++q) again = seen[q] == c.addr[lane];
    if (!again) seen[unique++] = c.addr[lane];
  }
  const std::uint32_t bytes =
      c.bypass ? unique * 16u
               : static_cast<std::uint32_t>(detail::popcount32(c.active)) * c.width;
  const std::uint32_t ideal = (bytes + 127u) / 128u;
  if (schedule) *schedule = Schedule{};
  const detail::BypassCost by = c.bypass ? detail::ldgsts_bypass(c) : detail::BypassCost{};
  const std::uint32_t bypass = by.wavefronts;
  // The L1 part: every active lane for .ca and .ZFILL; for the .cg predicate form, the lanes
  // that read nothing (they write zeros, which no bypass wavefront carries).
  AsyncCopy l1 = c;
  if (c.bypass && !c.src_size) {
    l1.active = c.active & ~c.reads;
    l1.reads = 0;
  }
  if (c.bypass && !l1.active) {
    v.wavefronts = bypass;
    v.ideal_wavefronts = ideal;
    v.ways = by.worst;
    if (schedule) {
      detail::push_phase(schedule, 0xFFFFFFFFu);
      detail::push_wavefronts(schedule, static_cast<int>(bypass), 0);
    }
    return v;
  }
  // The bypass wavefronts come first in the schedule (phase 0, no slots: which bank
  // writes what in them is not known), then the L1 part's phases.
  if (schedule && bypass) detail::push_wavefronts(schedule, static_cast<int>(bypass), 0);
  v = schedule ? detail::ldgsts_l1<true>(l1, schedule, static_cast<int>(bypass))
               : detail::ldgsts_l1<false>(l1, nullptr, 0);
  v.wavefronts += bypass;
  v.ideal_wavefronts = ideal;
  if (by.worst > v.ways) v.ways = by.worst;
  return v;
}

// The global side of one cp.async as the Source Counters count it ("L2 Theoretical
// Sectors Global" and its "Ideal" on the LDGSTS row; bench/hardware/cpasync): .ca as a
// load of the lanes that read (count_sectors); .cg per bypass wavefront (BypassCost).
// Lanes with src-size 0 read nothing. `global_addr` holds the full addresses (.ca's load);
// the bypass rule reads c.global_addr, whose low 32 bits keep every lane's line and sector.
BANKCHECK_HD constexpr SectorCount ldgsts_sectors(const AsyncCopy& c,
                                                  const std::uint64_t* global_addr) {
  if (!c.bypass) return count_sectors(global_addr, c.active & c.reads, c.width);
  const detail::BypassCost by = detail::ldgsts_bypass(c);
  SectorCount s;
  s.sectors = by.sectors;
  s.ideal = (by.unique * 16u + 31u) / 32u;
  s.lines128 = by.lines;
  return s;
}

}  // namespace bankcheck::model
