// Per-site statistics of an emulated kernel: every shared request through the bank
// model (wavefronts, ideal, worst N-way, the worst request kept for explanation), and
// for global requests the 32-byte sectors touched against the ideal.
#pragma once

#include <cstdint>
#include <vector>

#include "bankcheck/emu/events.hpp"
#include "bankcheck/model/analyze.hpp"
#include "bankcheck/model/matrix.hpp"
#include "bankcheck/model/sectors.hpp"

namespace bankcheck::analysis {

struct SiteStats {
  bool seen = false;
  ptx::Space space = ptx::Space::Shared;
  model::Op op = model::Op::Load;
  int width = 0;
  std::uint64_t requests = 0;
  // shared
  std::uint64_t wavefronts = 0, ideal_wavefronts = 0;
  std::uint32_t ways = 0;
  // The ideal Nsight Compute's Source Counters list: the active lanes' bytes packed into
  // 128-byte wavefronts, one at least (differs from ideal_wavefronts for masked 8- and
  // 16-byte accesses: analysis/known_differences.hpp).
  std::uint64_t nsight_ideal_wavefronts = 0;
  // A tensor copy's shared side or wgmma's operand reads: the layout's swizzle mode
  // (model::TmaSwizzle, -1: none known), a copy's box row bytes, and the shared bytes
  // [shared_lo, shared_hi) they touch.
  std::int8_t swizzle = -1;
  std::uint32_t row_bytes = 0;
  std::uint64_t shared_lo = ~std::uint64_t{0}, shared_hi = 0;
  // global
  std::uint64_t sectors = 0, ideal_sectors = 0, lines128 = 0;
  // The global request with the most excess sectors (on ties: the lowest CTA, then warp,
  // then the first seen).
  bool has_worst_global = false;
  std::uint32_t worst_global_mask = 0;
  std::uint32_t worst_global_sectors = 0, worst_global_ideal = 0;
  std::uint64_t worst_global_addr[model::kWarpSize] = {};
  std::uint64_t worst_global_cta = 0;
  int worst_global_warp = 0;
  // The request with the most excess (on ties: the lowest CTA, then warp, then the first
  // seen), for explanation.
  bool has_worst = false;
  model::WarpAccess worst;
  model::Verdict worst_verdict;
  // Atomic64 and CasLoop64: worst_verdict is model::atomic64's or the whole loop's, which
  // no one request's schedule pictures (analyze() refuses `worst`).
  emu::AccessKind worst_kind = emu::AccessKind::Plain;
  std::uint64_t worst_cta = 0;
  int worst_warp = 0;
};

// The model's verdict on the last plain shared request of each (site, warp). A warp's
// request at one site is usually the same in every CTA and every iteration of a loop
// (shared addresses are offsets into the CTA's own window, and tiles are indexed the same
// way each time), so one comparison of the lanes replaces the model. One per thread and
// listener role: the listeners change with the CTAs a thread runs, the memo stays warm.
class VerdictMemo {
 public:
  explicit VerdictMemo(const model::Arch& arch) : arch_(arch) {}
  // model::analyze(a, arch), from the memo when (site, warp) last saw the same request.
  model::Verdict analyze(int site, int warp, const model::WarpAccess& a);
  // model::count_sectors(addr, mask, width), from the memo when `site` last saw the same
  // request at its address modulo 128 (below).
  model::SectorCount sectors(int site, const std::uint64_t* addr, std::uint32_t mask, int width);

 private:
  struct Entry {
    int site = -1;  // none yet
    model::WarpAccess access;
    model::Verdict verdict;
  };
  // A global request's counts are those of any request whose active lanes' addresses are
  // the same but for one multiple of 128 added to all (sectors and lines are aligned to 32
  // and 128 bytes): its lowest active lane's address modulo 128 and every active lane's
  // distance from that address (inactive lanes 0) identify the counts. A loop over a row
  // walks a site through at most 32 such residues, the same in every warp and CTA (a
  // strided column read: one lane per row, 3 KB apart, sorted by address per request
  // until now). Entries by (site, residue), sites past kSites sharing them.
  struct SectorEntry {
    int site = -1;  // none yet
    std::uint32_t mask = 0;
    int width = 0;
    std::uint64_t residue = 0;
    std::uint64_t delta[model::kWarpSize] = {};
    model::SectorCount count;
  };
  static constexpr int kSectorEntries = 1024;
  // Entry of (site, warp): by warp first, since a warp runs until a barrier and so reads
  // its sites in turn (by site first, one warp's entries lay KBs apart and missed the
  // cache); sites past kSites share entries, so a kernel of many sites costs a few misses
  // more, never more memory.
  static constexpr int kSites = 128;
  const model::Arch& arch_;
  std::vector<Entry> entries_ = std::vector<Entry>(model::kWarpSize * kSites);
  std::vector<SectorEntry> sector_entries_ = std::vector<SectorEntry>(kSectorEntries);
};

// Whether analyze() on the site's worst request gives the schedule the reports picture:
// not for 64-bit atomics, costed by rules of their own (model::atomic64, atomic64_spin).
inline bool worst_pictured(const SiteStats& s) {
  return s.worst_kind != emu::AccessKind::Atomic64 && s.worst_kind != emu::AccessKind::CasLoop64;
}

class SiteStatsListener : public emu::Listener {
 public:
  SiteStatsListener(const model::Arch& arch, std::size_t sites) : arch_(arch), sites_(sites) {}
  void on_access(const emu::AccessEvent& e) override;
  // Where plain shared requests take their verdicts from (null: the model every time).
  // Pre: the memo's arch is this listener's.
  void set_memo(VerdictMemo* memo) { memo_ = memo; }
  // Adds another listener's counts (CTAs run on other threads).
  void merge(const SiteStatsListener& other);
  // Forgets every count, as newly constructed (a listener reused for the next CTAs).
  void clear();
  const std::vector<SiteStats>& sites() const { return sites_; }
  // Set when a shared request could not be analysed (e.g. a width the model refuses).
  const std::vector<int>& refused_sites() const { return refused_; }

 private:
  void add_copy_sectors(const emu::AccessEvent& e, const model::AsyncCopy& cp);
  void note_layout(SiteStats& s, const emu::AccessEvent& e);
  void on_wgmma(SiteStats& s, const emu::AccessEvent& e);
  const model::Arch& arch_;
  VerdictMemo* memo_ = nullptr;
  std::vector<SiteStats> sites_;
  std::vector<int> refused_;
};

// 32-byte sectors a global request touches, the fewest it could touch, and the 128-byte
// lines it touches (model/sectors.hpp: Nsight Compute's "L2 Theoretical Sectors Global" and
// its "Ideal").
using SectorCount = model::SectorCount;
SectorCount count_sectors(const emu::AccessEvent& e);
inline SectorCount count_sectors(const std::uint64_t* addr, std::uint32_t mask, int width) {
  return model::count_sectors(addr, mask, width);
}

// What a global request's lanes do, for the hint that goes with an uncoalesced line.
struct GlobalPattern {
  enum class Kind {
    Unknown,
    Consecutive,  // lane i at base + i * width: excess only from a misaligned base
    Strided,      // lane i at base + i * stride, stride > width (array of structures, column)
    Rows,         // runs of consecutive lanes; the runs `pitch` bytes apart
  };
  Kind kind = Kind::Unknown;
  std::int64_t stride = 0;   // Strided: bytes between consecutive lanes
  std::uint64_t offset = 0;  // Consecutive: first address modulo 32
  int run = 0;               // Rows: lanes per run
  std::int64_t pitch = 0;    // Rows: bytes between runs
};
GlobalPattern describe_global(const std::uint64_t* addr, std::uint32_t mask, int width);

}  // namespace bankcheck::analysis
