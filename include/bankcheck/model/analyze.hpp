// analyze(): how many wavefronts one warp request costs, what it would cost without
// conflicts, its N-way degree, and (on request) the schedule that explains it.
//
// The one place that knows how banks serve a warp. Every rule below is either documented
// (arch.hpp names the source) or measured on an H100 (bench/hardware, replayed exactly by
// tests/hardware_corpus_test.cpp).
//
// Worked example (sm_90): 32 lanes load floats at tile[lane][0] of `float tile[32][32]`:
// addresses 0, 128, 256, ... all fall in bank 0 as 32 different words, so one phase needs
// 32 wavefronts; ideal 1; excess 31; 32-way.
#pragma once

#include <cstdint>

#include "bankcheck/model/access.hpp"
#include "bankcheck/model/arch.hpp"
#include "bankcheck/model/config.hpp"

namespace bankcheck::model {

enum class AccessError : std::uint8_t {
  None,
  BadWidth,     // width not 1, 2, 4, 8 or 16
  Misaligned,   // an active lane's address is not a multiple of the width
  Unsupported,  // no rule for this op/width on this architecture
};

// What a cost has over its ideal (wavefronts or sectors), 0 where it has none. A cost below
// its ideal is impossible on the hardware (a counting error the reports name in a note,
// analysis::total); it never shows as a wrapped-around difference.
template <class T>
BANKCHECK_HD constexpr T excess_of(T cost, T ideal) {
  return cost > ideal ? cost - ideal : T{0};
}

struct Verdict {
  std::uint32_t wavefronts = 0;        // passes of the shared-memory pipeline
  std::uint32_t ideal_wavefronts = 0;  // the same request without conflicts
  std::uint32_t ways = 0;              // most distinct words one bank delivers in one phase
  AccessError error = AccessError::None;
  std::int8_t error_lane = -1;  // the offending lane, for Misaligned

  BANKCHECK_HD constexpr std::uint32_t excess() const {
    return excess_of(wavefronts, ideal_wavefronts);
  }
  BANKCHECK_HD constexpr bool ok() const { return error == AccessError::None; }
};

// One bank delivering one word (or, on Kepler, one 8-byte row) to some lanes in one wavefront.
struct Slot {
  std::uint16_t wavefront;  // 0-based, across the whole request
  std::uint8_t phase;       // the phase this wavefront belongs to
  std::uint8_t bank;
  std::uint32_t addr;   // byte address of the word (first word of the row on Kepler)
  std::uint32_t lanes;  // lanes that receive it (atomics: exactly one)
  std::uint8_t round;   // 0 for a bank's first word in its phase, 1 for the second, ...
};

inline constexpr int kMaxWavefronts = 256;
inline constexpr int kMaxSlots = 256;

// The explanation of a verdict: which lanes are served together, and what each bank
// delivers in each wavefront. A slot with round > 0 is a conflict: its bank had to deliver
// an earlier, different word of the same phase first.
struct Schedule {
  int phase_count = 0;
  std::uint32_t phase_lanes[kWarpSize] = {};  // lanes of each phase (active or not)
  int merge_distance = 0;  // 64/128-bit loads: 1 or 2 if lanes n and n^d share addresses
  int wavefront_count = 0;
  std::uint8_t wavefront_phase[kMaxWavefronts] = {};
  int slot_count = 0;
  Slot slots[kMaxSlots] = {};
};

namespace detail {

// Lanes n and n^d (both active) read the same address, for every such pair.
BANKCHECK_HD constexpr bool pairs_share(const WarpAccess& a, int d) {
  for (int i = 0; i < kWarpSize; ++i) {
    const int j = i ^ d;
    if (j < i || !a.lane_active(i) || !a.lane_active(j)) continue;
    if (a.addr[i] != a.addr[j]) return false;
  }
  return true;
}

BANKCHECK_HD constexpr std::uint32_t lanes_mask(int first, int count) {
  return (count >= 32 ? 0xFFFFFFFFu : ((1u << count) - 1u)) << first;
}

// Distinct cells per bank within one phase, optionally recorded as slots.
// A "cell" is what a bank delivers in one pass: a 4-byte word, or on Kepler an 8-byte row
// (8-byte mode) or the pair of words i, i+32 of one 64-word segment (4-byte mode).
// Only n[] is initialised: the fast path must not clear 12 KB per phase, and entries at
// or past n[bank] are never read.
struct BankTable {
  std::uint8_t n[32] = {};
  std::uint32_t key[32][32];
  std::uint32_t addr[32][32];
  std::uint32_t lanes[32][32];
};

template <bool Record>
BANKCHECK_HD constexpr void add_cell(BankTable& t, int bank, std::uint32_t key, std::uint32_t addr,
                                     int lane) {
  const int n = t.n[bank];
  for (int k = 0; k < n; ++k) {
    if (t.key[bank][k] == key) {
      if constexpr (Record) t.lanes[bank][k] |= 1u << lane;
      return;
    }
  }
  t.key[bank][n] = key;
  if constexpr (Record) {
    t.addr[bank][n] = addr;
    t.lanes[bank][n] = 1u << lane;
  }
  t.n[bank] = static_cast<std::uint8_t>(n + 1);
}

// Fills the table with every cell the phase's active lanes touch.
template <bool Record>
BANKCHECK_HD constexpr void fill_phase(BankTable& t, const Arch& arch, const WarpAccess& a,
                                       std::uint32_t phase) {
  const int w = a.width;
  // Bank counts are powers of two: a mask, not a divide, in the emulator's inner loop.
  const std::uint32_t bank_mask = static_cast<std::uint32_t>(arch.banks - 1);
  const bool kepler = arch.rule == BankRule::Kepler;
  const std::uint32_t lanes = phase & a.active;
  if (kepler && arch.kepler_8byte_mode) {
    const int rows = w > 8 ? w / 8 : 1;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!((lanes >> lane) & 1u)) continue;
      for (int r = 0; r < rows; ++r) {
        const std::uint32_t row = a.addr[lane] / 8 + static_cast<std::uint32_t>(r);
        add_cell<Record>(t, static_cast<int>(row & bank_mask), row, row * 8, lane);
      }
    }
    return;
  }
  const int words = w > 4 ? w / 4 : 1;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!((lanes >> lane) & 1u)) continue;
    for (int k = 0; k < words; ++k) {
      const std::uint32_t word = a.addr[lane] / 4 + static_cast<std::uint32_t>(k);
      add_cell<Record>(t, static_cast<int>(word & bank_mask), kepler ? word / 64 : word, word * 4,
                       lane);
    }
  }
}

BANKCHECK_HD constexpr int lowest_lane(std::uint32_t m) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(m)) - 1;
#else
  return __builtin_ctz(m);
#endif
}

BANKCHECK_HD constexpr int highest_lane(std::uint32_t m) {
#if defined(__CUDA_ARCH__)
  return 31 - __clz(static_cast<int>(m));
#else
  return 31 - __builtin_clz(m);
#endif
}

// The two most common requests, checked in one fixed-length pass before any counting:
// every active lane of the phase at one address (a broadcast), or lane i at
// base + i * width (consecutive elements) within 128 bytes. Either costs one wavefront.
// (The 128-byte bound matters: a paired 16-byte phase spans 16 lanes, and with inactive
// lanes allowing the pairing, "consecutive" can cover 256 bytes; the H100 corpus has
// such patterns.)
BANKCHECK_HD constexpr bool uniform_or_contiguous(const WarpAccess& a, int first, int size,
                                                  std::uint32_t lanes) {
  const int lead = lowest_lane(lanes);
  const std::uint32_t a0 = a.addr[lead];
  const std::uint32_t w = a.width;
  // Most other requests already differ at the second active lane: skip the pass then.
  const std::uint32_t rest = lanes & lanes_mask(first, size) & (lanes - 1);
  if (rest) {
    const int second = lowest_lane(rest);
    const std::uint32_t x = a.addr[second];
    if (x != a0 && x != a0 + static_cast<std::uint32_t>(second - lead) * w) return false;
  }
  std::uint32_t not_uniform = 0, not_contiguous = 0;
  if (first == 0 && size == kWarpSize && lanes == 0xFFFFFFFFu) {
    // Every lane active (the usual case): mask-free loops the compiler vectorizes.
    for (int i = 0; i < kWarpSize; ++i) {
      not_uniform |= a.addr[i] ^ a0;
      not_contiguous |= a.addr[i] ^ (a0 + static_cast<std::uint32_t>(i) * w);
    }
    return !not_uniform || (!not_contiguous && 32 * w <= 128);
  }
  for (int i = first; i < first + size; ++i) {
    const std::uint32_t on = (lanes >> i) & 1u;
    const std::uint32_t x = a.addr[i];
    not_uniform |= on & static_cast<std::uint32_t>(x != a0);
    not_contiguous |=
        on & static_cast<std::uint32_t>(x != a0 + static_cast<std::uint32_t>(i - lead) * w);
  }
  if (!not_uniform) return true;
  const int last = highest_lane(lanes & lanes_mask(first, size));
  return !not_contiguous && static_cast<std::uint32_t>(last - lead + 1) * w <= 128;
}

// Counts only (no schedule), without data-dependent branches: random requests made the
// table's per-bank search mispredict on every lane. The phase is the lane range
// [first, first + size). Inactive lanes take an active lane's address (a repeated cell
// changes no count), so every loop has a fixed length the compiler can vectorize. Each
// cell gets an id; a test-and-set bitset over the ids' span says whether a cell is new,
// and each new cell adds one to its bank. Returns -1 when the span is too wide for the
// bitset (the caller falls back to the table).
template <int PerLane>
BANKCHECK_HD constexpr int phase_cost_fast(const Arch& arch, const WarpAccess& a, int first,
                                           int size, std::uint32_t lanes) {
  constexpr std::uint32_t kSpan = 16384;  // ids: 64 KiB of 4-byte words
  constexpr int kMax = PerLane * kWarpSize;
  if (arch.rule != BankRule::Kepler && uniform_or_contiguous(a, first, size, lanes)) return 1;
  std::uint32_t id[kMax];
  std::uint32_t bank[kMax];
  const bool kepler = arch.rule == BankRule::Kepler;
  const bool rows8 = kepler && arch.kepler_8byte_mode;
  const int unit_shift = rows8 ? 3 : 2;  // cells are 8-byte rows or 4-byte words
  const std::uint32_t bank_mask = static_cast<std::uint32_t>(arch.banks - 1);
  const std::uint32_t fill = a.addr[lowest_lane(lanes)];
  const int n = size * PerLane;
  for (int i = 0; i < size; ++i) {
    const int lane = first + i;
    const std::uint32_t addr = ((lanes >> lane) & 1u) ? a.addr[lane] : fill;
    for (int k = 0; k < PerLane; ++k) {
      const std::uint32_t cell = (addr >> unit_shift) + static_cast<std::uint32_t>(k);
      // Kepler 4-byte mode: words i and i+32 of one 64-word segment are one cell.
      id[i * PerLane + k] = kepler && !rows8 ? ((cell >> 6) << 5) | (cell & 31u) : cell;
      bank[i * PerLane + k] = cell & bank_mask;
    }
  }
  std::uint32_t lo = id[0], hi = id[0];
  for (int i = 1; i < n; ++i) {
    lo = id[i] < lo ? id[i] : lo;
    hi = id[i] > hi ? id[i] : hi;
  }
  if (hi - lo >= kSpan) return -1;
  std::uint64_t bits[kSpan / 64];
  for (int i = 0; i < n; ++i) bits[(id[i] - lo) >> 6] = 0;
  std::uint32_t count[32] = {};
  for (int i = 0; i < n; ++i) {
    const std::uint32_t x = id[i] - lo;
    const std::uint64_t bit = std::uint64_t{1} << (x & 63u);
    const std::uint64_t word = bits[x >> 6];
    count[bank[i]] += (word & bit) == 0;
    bits[x >> 6] = word | bit;
  }
  std::uint32_t worst = 0;
  for (int b = 0; b < 32; ++b) worst = count[b] > worst ? count[b] : worst;
  return static_cast<int>(worst);
}

// The hot case of the fast path: 4-byte banks (Fermi, Maxwell), one word per lane
// (1/2/4-byte accesses), one whole-warp phase. Loops of fixed length with no branches.
// Shared memory is under 256 KiB on every GPU, so a word index below 65536 addresses a
// test-and-set bitset directly; a request with a larger address returns -1 (the caller
// falls back to the table).
BANKCHECK_HD constexpr int warp_cost_words(const WarpAccess& a, std::uint32_t lanes) {
  if (uniform_or_contiguous(a, 0, kWarpSize, lanes)) return 1;
  std::uint32_t word[kWarpSize];
  std::uint32_t wide = 0;
  if (lanes == 0xFFFFFFFFu) {
    for (int i = 0; i < kWarpSize; ++i) {
      word[i] = a.addr[i] >> 2;
      wide |= a.addr[i];
    }
  } else {
    const std::uint32_t fill = a.addr[lowest_lane(lanes)] >> 2;
    for (int i = 0; i < kWarpSize; ++i) {
      word[i] = ((lanes >> i) & 1u) ? a.addr[i] >> 2 : fill;
      wide |= word[i] << 2;
    }
  }
  if (wide >> 18) return -1;
  std::uint64_t bits[65536 / 64];  // only the entries the lanes touch are cleared and read
  BANKCHECK_UNROLL
  for (int i = 0; i < kWarpSize; ++i) bits[word[i] >> 6] = 0;
  std::uint8_t count[32] = {};
  BANKCHECK_UNROLL
  for (int i = 0; i < kWarpSize; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << (word[i] & 63u);
    const std::uint64_t seen = bits[word[i] >> 6];
    bits[word[i] >> 6] = seen | bit;
    count[word[i] & 31u] = static_cast<std::uint8_t>(count[word[i] & 31u] + ((seen & bit) == 0));
  }
  std::uint8_t worst = 0;
  for (int b = 0; b < 32; ++b) worst = count[b] > worst ? count[b] : worst;
  return worst;
}

BANKCHECK_HD constexpr int max_cells(const BankTable& t, int banks) {
  int m = 0;
  for (int b = 0; b < banks; ++b) m = t.n[b] > m ? t.n[b] : m;
  return m;
}

BANKCHECK_HD constexpr void push_slot(Schedule* s, int wavefront, int phase, int bank,
                                      std::uint32_t addr, std::uint32_t lanes, int round) {
  if (!s || s->slot_count >= kMaxSlots) return;
  s->slots[s->slot_count++] = {static_cast<std::uint16_t>(wavefront),
                               static_cast<std::uint8_t>(phase),
                               static_cast<std::uint8_t>(bank),
                               addr,
                               lanes,
                               static_cast<std::uint8_t>(round)};
}

BANKCHECK_HD constexpr void push_wavefronts(Schedule* s, int count, int phase) {
  if (!s) return;
  for (int i = 0; i < count && s->wavefront_count < kMaxWavefronts; ++i)
    s->wavefront_phase[s->wavefront_count++] = static_cast<std::uint8_t>(phase);
}

BANKCHECK_HD constexpr void push_phase(Schedule* s, std::uint32_t lanes) {
  if (s && s->phase_count < kWarpSize) s->phase_lanes[s->phase_count++] = lanes;
}

// Phases serve their cells bank by bank: the k-th distinct cell of a bank goes out in the
// phase's k-th wavefront. `offset` shifts a sub-phase inside a shared wavefront range.
BANKCHECK_HD constexpr void record_table(Schedule* s, const BankTable& t, int banks, int first_wf,
                                         int phase, int offset = 0) {
  for (int b = 0; b < banks; ++b)
    for (int k = 0; k < t.n[b]; ++k)
      push_slot(s, first_wf + k + offset, phase, b, t.addr[b][k], t.lanes[b][k], k);
}

// Phased distinct-cell rule (Fermi, Kepler, Maxwell loads and stores).
template <bool Record>
BANKCHECK_HD constexpr Verdict phased(const Arch& arch, const WarpAccess& a, int phase_size,
                                      Schedule* s) {
  Verdict v;
  for (int first = 0, p = 0; first < kWarpSize; first += phase_size, ++p) {
    const std::uint32_t lanes = lanes_mask(first, phase_size);
    if constexpr (Record) push_phase(s, lanes);
    if (!(lanes & a.active)) continue;
    int cost = -1;
    if constexpr (!Record) {
      const int unit = arch.rule == BankRule::Kepler && arch.kepler_8byte_mode ? 8 : 4;
      const int per_lane = a.width > unit ? a.width / unit : 1;
      const std::uint32_t on = lanes & a.active;
      if (per_lane == 1 && unit == 4 && phase_size == kWarpSize && arch.rule != BankRule::Kepler)
        cost = warp_cost_words(a, on);
      else if (per_lane == 1)
        cost = phase_cost_fast<1>(arch, a, first, phase_size, on);
      else if (per_lane == 2)
        cost = phase_cost_fast<2>(arch, a, first, phase_size, on);
      else
        cost = phase_cost_fast<4>(arch, a, first, phase_size, on);
    }
    if (cost < 0) {
      BankTable t;
      fill_phase<Record>(t, arch, a, lanes);
      cost = max_cells(t, arch.banks);
      if constexpr (Record) record_table(s, t, arch.banks, static_cast<int>(v.wavefronts), p);
    }
    if constexpr (Record) push_wavefronts(s, cost, p);
    v.wavefronts += static_cast<std::uint32_t>(cost);
    v.ideal_wavefronts += 1;
    v.ways = static_cast<std::uint32_t>(cost) > v.ways ? static_cast<std::uint32_t>(cost) : v.ways;
  }
  return v;
}

// Fermi 128-bit: half-warps, each costing one more pass than the worst bank of its
// quarter-warps (the Guide's "2-way even without collisions inside a quarter-warp").
template <bool Record>
BANKCHECK_HD constexpr Verdict fermi_128(const Arch& arch, const WarpAccess& a, Schedule* s) {
  Verdict v;
  for (int h = 0; h < 2; ++h) {
    const std::uint32_t half = lanes_mask(16 * h, 16);
    if constexpr (Record) push_phase(s, half);
    if (!(half & a.active)) continue;
    int worst = 0;
    for (int q = 0; q < 2; ++q) {
      BankTable t;
      fill_phase<Record>(t, arch, a, lanes_mask(16 * h + 8 * q, 8));
      const int c = max_cells(t, arch.banks);
      worst = c > worst ? c : worst;
      if constexpr (Record) record_table(s, t, arch.banks, static_cast<int>(v.wavefronts), h, q);
    }
    const int cost = 1 + worst;
    if constexpr (Record) push_wavefronts(s, cost, h);
    v.wavefronts += static_cast<std::uint32_t>(cost);
    v.ideal_wavefronts += 2;
    v.ways = static_cast<std::uint32_t>(cost) > v.ways ? static_cast<std::uint32_t>(cost) : v.ways;
  }
  return v;
}

// Tesla (cc 1.x): half-warps; wider accesses split into 4-byte sub-requests; each pass
// serves every lane reading the broadcast word (that of the lowest remaining lane) plus
// the lowest remaining lane of each other bank.
template <bool Record>
BANKCHECK_HD constexpr Verdict tesla(const Arch& arch, const WarpAccess& a, Schedule* s) {
  Verdict v;
  const int subs = a.width > 4 ? a.width / 4 : 1;
  int p = 0;
  for (int sub = 0; sub < subs; ++sub) {
    for (int h = 0; h < 2; ++h, ++p) {
      const std::uint32_t half = lanes_mask(16 * h, 16);
      if constexpr (Record) push_phase(s, half);
      std::uint32_t remaining = half & a.active;
      if (!remaining) continue;
      int steps = 0;
      while (remaining) {
        int lead = 0;
        while (!((remaining >> lead) & 1u)) ++lead;
        const std::uint32_t bword = a.addr[lead] / 4 + static_cast<std::uint32_t>(sub);
        const int bbank = static_cast<int>(bword % static_cast<std::uint32_t>(arch.banks));
        std::uint32_t broadcast = 0, served = 0, banks_used = 1u << bbank;
        int other_lane[16] = {};  // 1 + the lane a bank serves besides the broadcast word
        for (int lane = 0; lane < kWarpSize; ++lane) {
          if (!((remaining >> lane) & 1u)) continue;
          const std::uint32_t word = a.addr[lane] / 4 + static_cast<std::uint32_t>(sub);
          const int bank = static_cast<int>(word % static_cast<std::uint32_t>(arch.banks));
          if (word == bword) {
            broadcast |= 1u << lane;
          } else if (!((banks_used >> bank) & 1u)) {
            banks_used |= 1u << bank;
            served |= 1u << lane;
            other_lane[bank] = 1 + lane;
          }
        }
        served |= broadcast;
        if constexpr (Record) {
          const int wf = static_cast<int>(v.wavefronts) + steps;
          push_slot(s, wf, p, bbank, bword * 4, broadcast, steps);
          for (int b = 0; b < arch.banks; ++b) {
            if (!other_lane[b]) continue;
            const int lane = other_lane[b] - 1;
            push_slot(s, wf, p, b, (a.addr[lane] / 4 + static_cast<std::uint32_t>(sub)) * 4,
                      1u << lane, steps);
          }
        }
        remaining &= ~served;
        ++steps;
      }
      if constexpr (Record) push_wavefronts(s, steps, p);
      v.wavefronts += static_cast<std::uint32_t>(steps);
      v.ideal_wavefronts += 1;
      v.ways =
          static_cast<std::uint32_t>(steps) > v.ways ? static_cast<std::uint32_t>(steps) : v.ways;
    }
  }
  return v;
}

// Shared atomics (sm_50+): one lane per bank per wavefront, no broadcast even for one
// address; compare-and-swap moves two operands and takes two wavefronts per round.
template <bool Record>
BANKCHECK_HD constexpr Verdict atomic(const WarpAccess& a, Schedule* s) {
  Verdict v;
  if constexpr (Record) push_phase(s, 0xFFFFFFFFu);
  if (!a.active) return v;
  const int per_round = a.op == Op::AtomicCas ? 2 : 1;
  int count[32] = {};
  int worst = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!a.lane_active(lane)) continue;
    const int bank = static_cast<int>((a.addr[lane] / 4) % 32);
    const int round = count[bank]++;
    worst = count[bank] > worst ? count[bank] : worst;
    if constexpr (Record)
      for (int k = 0; k < per_round; ++k)
        push_slot(s, round * per_round + k, 0, bank, a.addr[lane] / 4 * 4, 1u << lane, round);
  }
  if constexpr (Record) push_wavefronts(s, worst * per_round, 0);
  v.wavefronts = static_cast<std::uint32_t>(worst * per_round);
  v.ideal_wavefronts = static_cast<std::uint32_t>(per_round);
  v.ways = static_cast<std::uint32_t>(worst);
  return v;
}

template <bool Record>
BANKCHECK_HD constexpr Verdict analyze_impl(const WarpAccess& a, const Arch& arch, Schedule* s) {
  Verdict v;
  const int w = a.width;
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16) {
    v.error = AccessError::BadWidth;
    return v;
  }
  const std::uint32_t align_mask = static_cast<std::uint32_t>(w - 1);  // w is a power of two
  std::uint32_t any = 0;  // fixed-length OR first: the common case has no misaligned lane
  for (int lane = 0; lane < kWarpSize; ++lane) any |= a.addr[lane] & align_mask;
  std::uint32_t misaligned = 0;
  if (any)
    for (int lane = 0; lane < kWarpSize; ++lane)
      misaligned |= static_cast<std::uint32_t>((a.addr[lane] & align_mask) != 0) << lane;
  misaligned &= a.active;
  if (misaligned) {
    v.error = AccessError::Misaligned;
    v.error_lane = static_cast<std::int8_t>(lowest_lane(misaligned));
    return v;
  }
  if (a.op == Op::Atomic || a.op == Op::AtomicCas) {
    // 64-bit shared atomics compile to a load plus a CAS loop (ATOMS.CAST.SPIN.64 on
    // sm_90: bench/hardware/measured/patterns_merge/sass.txt), not one request.
    if (!arch.atomics_modelled || w != 4) {
      v.error = AccessError::Unsupported;
      return v;
    }
    return atomic<Record>(a, s);
  }
  switch (arch.rule) {
    case BankRule::Tesla:
      return tesla<Record>(arch, a, s);
    case BankRule::Fermi:
      if (w == 16) return fermi_128<Record>(arch, a, s);
      return phased<Record>(arch, a, w == 8 ? 16 : 32, s);
    case BankRule::Kepler:
      return phased<Record>(arch, a, w == 16 ? 16 : 32, s);
    case BankRule::Maxwell: {
      int phase = w <= 4 ? 32 : (w == 8 ? 16 : 8);
      if (a.op == Op::Load && w >= 8 && arch.load_pair_merge) {
        const int d = pairs_share(a, 1) ? 1 : (pairs_share(a, 2) ? 2 : 0);
        if (d) {
          phase *= 2;
          if constexpr (Record) s->merge_distance = d;
        }
      }
      return phased<Record>(arch, a, phase, s);
    }
  }
  return v;
}

}  // namespace detail

// Costs one warp request on `arch`. If `schedule` is given, it is filled with the phases,
// the wavefronts and what each bank delivers in each (the fast path skips all of that).
// Pre: a.width in {1,2,4,8,16}, active lanes aligned to it (else the verdict's error says
// which). Post: wavefronts >= ideal_wavefronts; both 0 when no lane is active.
BANKCHECK_HD constexpr Verdict analyze(const WarpAccess& a, const Arch& arch,
                                       Schedule* schedule = nullptr) {
  if (schedule) {
    *schedule = Schedule{};
    return detail::analyze_impl<true>(a, arch, schedule);
  }
  return detail::analyze_impl<false>(a, arch, nullptr);
}

// On the default architecture (sm_90, where the rules were measured).
BANKCHECK_HD constexpr Verdict analyze(const WarpAccess& a) {
  const Arch arch = default_arch();
  return analyze(a, arch);
}

// Shared atomics as SASS issues them (sm_90), measured by the atomics corpus
// (bench/hardware/atomics, results in bench/hardware/measured/corpora/summary.txt.gz,
// replayed by tests/atomics_corpus_test.cpp). analyze() above costs a PTX-level 32-bit
// atomic as one ATOMS with every lane; ptxas may issue another request:

// ATOMS.POPC.INC (atomicAdd(p, 1), result unused): the lanes on one 32-bit word merge into
// one update, so only the lowest lane of each word is in the request; its cost is then
// analyze()'s, i.e. the most distinct words in one bank (inc_unused: 58 of 58 patterns).
BANKCHECK_HD constexpr std::uint32_t popc_inc_lanes(const WarpAccess& a) {
  std::uint32_t out = a.active;
  for (int l = 0; l < kWarpSize; ++l) {
    if (!((out >> l) & 1u)) continue;
    for (int o = 0; o < l; ++o)
      if (((out >> o) & 1u) && a.addr[o] / 4 == a.addr[l] / 4) {
        out &= ~(1u << l);
        break;
      }
  }
  return out;
}

// A warp-aggregated ATOMS: the lowest active lane does the warp's update
// (add_uniform_param_val: 1 wavefront, 28 of 28 patterns).
BANKCHECK_HD constexpr std::uint32_t aggregated_lane(std::uint32_t active) {
  return active & (~active + 1u);
}

// One 64-bit ATOMS (ATOMS.EXCH.64, ATOMS.CAS.64; the CAS loop is atomic64_spin below):
// the warp goes in two half-warp phases; in each, a bank pair (8-byte word mod 16) serves
// one lane per wavefront, CAS two wavefronts per lane (exch_b64, cas_b64: 63 + 63 of 63
// + 63 patterns, e.g. stride 8 bytes = 2 wavefronts, stride 16 = 4). analyze() keeps
// refusing 64-bit atomics: at PTX level most of them are CAS loops, not one request.
BANKCHECK_HD constexpr Verdict atomic64(const WarpAccess& a) {
  Verdict v;
  if (a.width != 8) {
    v.error = AccessError::BadWidth;
    return v;
  }
  const std::uint32_t per_round = a.op == Op::AtomicCas ? 2u : 1u;
  for (int half = 0; half < 2; ++half) {
    int count[16] = {};
    int worst = 0;
    for (int lane = half * 16; lane < half * 16 + 16; ++lane) {
      if (!a.lane_active(lane)) continue;
      if (a.addr[lane] % 8) {
        v.error = AccessError::Misaligned;
        v.error_lane = static_cast<std::int8_t>(lane);
        return v;
      }
      const int pair = static_cast<int>((a.addr[lane] / 8) % 16);
      worst = ++count[pair] > worst ? count[pair] : worst;
    }
    if (!worst) continue;
    v.wavefronts += per_round * static_cast<std::uint32_t>(worst);
    v.ideal_wavefronts += per_round;
    v.ways =
        static_cast<std::uint32_t>(worst) > v.ways ? static_cast<std::uint32_t>(worst) : v.ways;
  }
  return v;
}

// The update of a 64-bit shared atomic that ptxas issues as a CAS loop on sm_90
// (LDS.64, compute, ATOMS.CAST.SPIN.64, branch back on failure): add (integers and f64),
// and, or, xor, min and max, unsigned (U) or signed (S). ptxas 13.0's min and max leave
// the loop without a CAS when the operand would not change the word; the others always
// try (atomics_sass.txt: add_u64_used, min_u64; tests/data/sass/forms_ptxas.cubin:
// atoms_64, atoms_float).
enum class SpinOp : std::uint8_t { Add, AddF64, And, Or, Xor, MinU, MaxU, MinS, MaxS };

// One warp's 64-bit atomic as that loop needs it: besides the addresses, each lane's
// operand and the value its word holds before the instruction (lanes on one word give the
// same value).
struct SpinAccess {
  SpinOp op = SpinOp::Add;
  std::uint32_t active = 0;
  std::uint32_t addr[kWarpSize] = {};
  std::uint64_t operand[kWarpSize] = {};
  std::uint64_t word[kWarpSize] = {};
};

namespace detail {

// What the loop stores over `old` for operand `b`; false where it leaves without a CAS.
BANKCHECK_HD constexpr bool spin_update(SpinOp op, std::uint64_t old, std::uint64_t b,
                                        std::uint64_t& out) {
  const auto s = [](std::uint64_t x) { return static_cast<std::int64_t>(x); };
  switch (op) {
    case SpinOp::Add:
      out = old + b;
      return true;
    case SpinOp::AddF64:
      out = __builtin_bit_cast(std::uint64_t,
                               __builtin_bit_cast(double, old) + __builtin_bit_cast(double, b));
      return true;
    case SpinOp::And:
      out = old & b;
      return true;
    case SpinOp::Or:
      out = old | b;
      return true;
    case SpinOp::Xor:
      out = old ^ b;
      return true;
    case SpinOp::MinU:
      out = b;
      return b < old;
    case SpinOp::MaxU:
      out = b;
      return b > old;
    case SpinOp::MinS:
      out = b;
      return s(b) < s(old);
    case SpinOp::MaxS:
      out = b;
      return s(b) > s(old);
  }
  return false;
}

}  // namespace detail

// A 64-bit CAS loop (LDS.64 + ATOMS.CAST.SPIN.64, sm_90), pass by pass with the values.
// Each pass every lane still in the loop loads its word and computes its update (min and
// max leave here when it would not change the word); the ATOMS then goes in two half-warp
// phases, low half first, and in each phase a bank pair (8-byte word mod 16) serves its
// lowest lane, two wavefronts per phase with any lane, as one conflict-free CAS round. The
// other lanes spin without an access and retry. A served lane stores only if its word
// still holds what it loaded, so a high-half lane whose word the low half has just changed
// fails and retries: 32 lanes on one word take 32 passes, 16 of both halves (4) and 16 of
// the high half alone (2), 96 wavefronts (add_u64_used, min_u64: 90 of 90 patterns, and
// each pattern's ATOMS count). Without lanes of both halves on one word, and with no
// early exit, this is atomic64()'s CAS.
// Verdict: ideal_wavefronts is the first pass's cost (every lane's CAS in one round), ways
// the passes (Nsight Compute counts them as instructions and no bank conflict: each pass is
// conflict-free). `loads`, if given, gets the lanes of each pass's LDS.64, a load the
// caller costs with analyze() (a last pass may load and leave without a CAS).
struct SpinLoads {
  int count = 0;
  std::uint32_t lanes[kWarpSize] = {};
};

BANKCHECK_HD constexpr Verdict atomic64_spin(const SpinAccess& a, SpinLoads* loads = nullptr) {
  Verdict v;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (((a.active >> lane) & 1u) && a.addr[lane] % 8) {
      v.error = AccessError::Misaligned;
      v.error_lane = static_cast<std::int8_t>(lane);
      return v;
    }
  std::uint64_t word[kWarpSize] = {};
  for (int lane = 0; lane < kWarpSize; ++lane) word[lane] = a.word[lane];
  std::uint32_t left = a.active;
  // A pass with a CAS stores at least its first served lane's update, and a pass without
  // one ends the loop: at most 32 loads.
  while (left) {
    if (loads) loads->lanes[loads->count++] = left;
    std::uint64_t loaded[kWarpSize] = {}, update[kWarpSize] = {};
    std::uint32_t trying = 0;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!((left >> lane) & 1u)) continue;
      loaded[lane] = word[lane];
      if (detail::spin_update(a.op, loaded[lane], a.operand[lane], update[lane]))
        trying |= 1u << lane;
    }
    left = trying;
    if (!trying) break;
    for (int half = 0; half < 2; ++half) {
      const std::uint32_t lanes = trying & detail::lanes_mask(half * 16, 16);
      if (!lanes) continue;
      v.wavefronts += 2;
      if (!v.ways) v.ideal_wavefronts += 2;
      std::uint32_t served_pairs = 0;
      for (int lane = half * 16; lane < half * 16 + 16; ++lane) {
        const std::uint32_t pair = 1u << (a.addr[lane] / 8 % 16);
        if (!((lanes >> lane) & 1u) || (served_pairs & pair)) continue;
        served_pairs |= pair;
        if (word[lane] != loaded[lane]) continue;
        for (int other = 0; other < kWarpSize; ++other)
          if (((a.active >> other) & 1u) && a.addr[other] == a.addr[lane])
            word[other] = update[lane];
        left &= ~(1u << lane);
      }
    }
    ++v.ways;
  }
  return v;
}

BANKCHECK_HD constexpr const char* error_message(AccessError e) {
  switch (e) {
    case AccessError::None:
      return "no error";
    case AccessError::BadWidth:
      return "access width must be 1, 2, 4, 8 or 16 bytes";
    case AccessError::Misaligned:
      return "address is not a multiple of the access width";
    case AccessError::Unsupported:
      return "no bank rule for this operation here: shared atomics are modelled for 32-bit "
             "operands on sm_50 and later";
  }
  return "?";
}

}  // namespace bankcheck::model
