// SiteStatsListener: the model applied to every shared request the emulator reports.
#include "bankcheck/analysis/site_stats.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>

#include "bankcheck/model/hopper.hpp"
#include "bankcheck/model/matrix.hpp"

namespace bankcheck::analysis {

// Lanes' byte ranges sorted by address (usually already in order), then one pass that
// counts the distinct 32-byte sectors (the cost) and 128-byte lines.
SectorCount count_sectors(const emu::AccessEvent& e) {
  return count_sectors(e.addr, e.mask, e.width);
}

namespace {

// Ties go to the lowest (CTA, warp), then to the first seen in that warp: CTAs run on
// several threads in no fixed order, and the report must not depend on it.
bool earlier(std::uint64_t cta, int warp, std::uint64_t than_cta, int than_warp) {
  return cta < than_cta || (cta == than_cta && warp < than_warp);
}

// Keeps the global request with the most excess sectors.
void offer_worst_global(SiteStats& s, std::uint32_t mask, std::uint32_t sectors,
                        std::uint32_t ideal, const std::uint64_t* addr, std::uint64_t cta,
                        int warp) {
  if (s.has_worst_global) {
    const std::uint32_t excess = model::excess_of(sectors, ideal),
                        kept = model::excess_of(s.worst_global_sectors, s.worst_global_ideal);
    if (excess < kept ||
        (excess == kept && !earlier(cta, warp, s.worst_global_cta, s.worst_global_warp)))
      return;
  }
  s.has_worst_global = true;
  s.worst_global_mask = mask;
  s.worst_global_sectors = sectors;
  s.worst_global_ideal = ideal;
  s.worst_global_cta = cta;
  s.worst_global_warp = warp;
  std::copy(addr, addr + model::kWarpSize, std::begin(s.worst_global_addr));
}

// Keeps the shared request with the most excess wavefronts.
void offer_worst_shared(SiteStats& s, const model::WarpAccess& a, const model::Verdict& v,
                        emu::AccessKind kind, std::uint64_t cta, int warp) {
  if (s.has_worst &&
      (v.excess() < s.worst_verdict.excess() ||
       (v.excess() == s.worst_verdict.excess() && !earlier(cta, warp, s.worst_cta, s.worst_warp))))
    return;
  s.has_worst = true;
  s.worst = a;
  s.worst_verdict = v;
  s.worst_kind = kind;
  s.worst_cta = cta;
  s.worst_warp = warp;
}

// The update a 64-bit CAS loop computes, from the PTX's operation and type; false where
// ptxas has no such loop (inc, dec, exch and cas are not loops; f64 min and max do not exist).
bool spin_op(const emu::AtomicValues& x, model::SpinOp& op) {
  const bool s = ptx::ty_signed(x.type), f = ptx::ty_float(x.type);
  switch (x.op) {
    case ptx::AtomOp::Add:
      op = f ? model::SpinOp::AddF64 : model::SpinOp::Add;
      return true;
    case ptx::AtomOp::And:
      op = model::SpinOp::And;
      return !f;
    case ptx::AtomOp::Or:
      op = model::SpinOp::Or;
      return !f;
    case ptx::AtomOp::Xor:
      op = model::SpinOp::Xor;
      return !f;
    case ptx::AtomOp::Min:
      op = s ? model::SpinOp::MinS : model::SpinOp::MinU;
      return !f;
    case ptx::AtomOp::Max:
      op = s ? model::SpinOp::MaxS : model::SpinOp::MaxU;
      return !f;
    default:
      return false;
  }
}

// A 64-bit CAS loop (LDS.64 + ATOMS.CAST.SPIN.64) from the emulator's values: the passes'
// ATOMS (atomic64_spin) and each pass's LDS.64 (analyze()), which Nsight Compute counts on
// the same line. Its ideal is Nsight's too: every pass's ATOMS is a conflict-free request
// (the atomics corpus: no conflict in any of the 90 loop patterns), so only the loads'
// conflicts are excess, and `ways` is theirs.
model::Verdict cas_loop64(const emu::AccessEvent& e, const model::Arch& arch) {
  model::Verdict v;
  model::SpinAccess sa;
  if (!e.values || !spin_op(*e.values, sa.op) || !arch.atomics_modelled) {
    v.error = model::AccessError::Unsupported;
    return v;
  }
  sa.active = e.mask;
  for (int l = 0; l < model::kWarpSize; ++l) {
    sa.addr[l] = static_cast<std::uint32_t>(e.addr[l]);
    sa.operand[l] = e.values->operand[l];
    sa.word[l] = e.values->word[l];
  }
  model::SpinLoads loads;
  v = model::atomic64_spin(sa, &loads);
  if (!v.ok()) return v;
  v.ideal_wavefronts = v.wavefronts;
  v.ways = 1;
  model::WarpAccess ld;
  ld.op = model::Op::Load;
  ld.width = 8;
  std::copy(std::begin(sa.addr), std::end(sa.addr), std::begin(ld.addr));
  for (int p = 0; p < loads.count; ++p) {
    ld.active = loads.lanes[p];
    const model::Verdict l = model::analyze(ld, arch);
    v.wavefronts += l.wavefronts;
    v.ideal_wavefronts += l.ideal_wavefronts;
    v.ways = std::max(v.ways, l.ways);
  }
  return v;
}

}  // namespace

model::Verdict VerdictMemo::analyze(int site, int warp, const model::WarpAccess& a) {
  if (site < 0 || warp < 0 || warp >= model::kWarpSize) return model::analyze(a, arch_);
  Entry& m = entries_[static_cast<std::size_t>(warp * kSites + site % kSites)];
  // Inactive lanes are compared too: a difference there costs a run of the model, never
  // a wrong verdict. One loop the compiler vectorizes, not a call to memcmp.
  std::uint32_t differ = 0;
  for (int l = 0; l < model::kWarpSize; ++l) differ |= m.access.addr[l] ^ a.addr[l];
  if (m.site == site && !differ && m.access.op == a.op && m.access.width == a.width &&
      m.access.active == a.active)
    return m.verdict;
  m.site = site;
  m.access = a;
  m.verdict = model::analyze(a, arch_);
  return m.verdict;
}

model::SectorCount VerdictMemo::sectors(int site, const std::uint64_t* addr, std::uint32_t mask,
                                        int width) {
  if (site < 0 || mask == 0) return model::count_sectors(addr, mask, width);
  const std::uint64_t a0 = addr[std::countr_zero(mask)];
  const std::uint64_t residue = a0 % 128;
  SectorEntry& m = sector_entries_[static_cast<std::size_t>((site % kSites) * 32 + residue / 4) %
                                   kSectorEntries];
  // The distances, and whether they differ from the entry's: a whole warp's in 16-byte
  // vectors (SSE2), which the compiler does not make of the loop by itself.
  alignas(16) std::uint64_t delta[model::kWarpSize];
  std::uint64_t differ = 0;
  if (mask == 0xFFFFFFFFu) {
    using V2 = std::uint64_t __attribute__((vector_size(16)));
    const V2 base = {a0, a0};
    V2 d = {0, 0};
    for (int l = 0; l < model::kWarpSize; l += 2) {
      V2 a, had;
      std::memcpy(&a, addr + l, sizeof a);
      std::memcpy(&had, m.delta + l, sizeof had);
      a -= base;
      std::memcpy(delta + l, &a, sizeof a);
      d |= a ^ had;
    }
    differ = d[0] | d[1];
  } else {
    for (int l = 0; l < model::kWarpSize; ++l) {
      delta[l] = (mask >> l) & 1u ? addr[l] - a0 : 0;
      differ |= delta[l] ^ m.delta[l];
    }
  }
  if (!differ && m.site == site && m.mask == mask && m.width == width && m.residue == residue)
    return m.count;
  m.site = site;
  m.mask = mask;
  m.width = width;
  m.residue = residue;
  std::copy(std::begin(delta), std::end(delta), std::begin(m.delta));
  m.count = model::count_sectors(addr, mask, width);
  return m.count;
}

// The global side of a cp.async, counted where its shared side is costed: for .cg the
// sectors follow the shared side's wavefronts (model::ldgsts_sectors).
void SiteStatsListener::add_copy_sectors(const emu::AccessEvent& e, const model::AsyncCopy& cp) {
  const int g = e.global_site;
  if (g < 0 || static_cast<std::size_t>(g) >= sites_.size() || !(e.mask & e.reads)) return;
  SiteStats& s = sites_[static_cast<std::size_t>(g)];
  const model::SectorCount c = model::ldgsts_sectors(cp, e.global_addr);
  s.sectors += c.sectors;
  s.ideal_sectors += c.ideal;
  s.lines128 += c.lines128;
  offer_worst_global(s, e.mask & e.reads, c.sectors, c.ideal, e.global_addr, e.cta, e.warp);
}

namespace {

// Whether every active lane of `e` accesses an address of its own.
bool distinct_addresses(const emu::AccessEvent& e) {
  for (int a = 0; a < model::kWarpSize; ++a) {
    if (!((e.mask >> a) & 1u)) continue;
    for (int b = a + 1; b < model::kWarpSize; ++b)
      if (((e.mask >> b) & 1u) && e.addr[a] == e.addr[b]) return false;
  }
  return true;
}

}  // namespace

// The layout of a tensor copy's tile or a wgmma operand, for the fix advisor: its swizzle
// mode, row bytes and the shared bytes it covers (the executing CTA's).
void SiteStatsListener::note_layout(SiteStats& s, const emu::AccessEvent& e) {
  if (e.swizzle < 0) return;
  s.swizzle = e.swizzle;
  if (e.row_bytes) s.row_bytes = e.row_bytes;
  for (int l = 0; l < model::kWarpSize; ++l)
    if ((e.mask >> l) & 1u && (e.addr[l] >> ptx::kClusterRankShift) == 0) {
      s.shared_lo = std::min<std::uint64_t>(s.shared_lo, e.addr[l]);
      s.shared_hi = std::max<std::uint64_t>(s.shared_hi, e.addr[l] + e.width);
    }
}

// wgmma: each warp's execution is a request (counted above); the warpgroup's wavefronts
// come once, with its first warp's first event (model::wgmma_request, measured: every
// operand byte once, 128 bytes a wavefront, whatever the layout).
void SiteStatsListener::on_wgmma(SiteStats& s, const emu::AccessEvent& e) {
  note_layout(s, e);
  if (e.continues || (e.wgmma_a_bytes == 0 && e.wgmma_b_bytes == 0)) return;
  model::WgmmaOperands o;
  o.a_bytes = e.wgmma_a_bytes;
  o.b_bytes = e.wgmma_b_bytes;
  const model::Verdict v = model::wgmma_request(o);
  s.wavefronts += v.wavefronts;
  s.ideal_wavefronts += v.ideal_wavefronts;
  s.nsight_ideal_wavefronts += v.ideal_wavefronts;
  s.ways = std::max(s.ways, v.ways);
}

void SiteStatsListener::on_access(const emu::AccessEvent& e) {
  if (e.site < 0 || static_cast<std::size_t>(e.site) >= sites_.size()) return;
  SiteStats& s = sites_[static_cast<std::size_t>(e.site)];
  s.seen = true;
  s.space = e.space;
  s.op = e.op;
  s.width = e.width;
  if (!e.continues) ++s.requests;
  if (e.kind == emu::AccessKind::Wgmma) {
    on_wgmma(s, e);
    return;
  }
  if (e.space == ptx::Space::Global) {
    // A cp.async's global side: its sectors come with its shared side (below). The TMA
    // unit's copies list no sector (model::tma_copy_sectors, measured).
    if (e.kind == emu::AccessKind::Ldgsts || e.kind == emu::AccessKind::Bulk) return;
    const SectorCount c =
        memo_ ? memo_->sectors(e.site, e.addr, e.mask, e.width) : count_sectors(e);
    s.sectors += c.sectors;
    s.ideal_sectors += c.ideal;
    s.lines128 += c.lines128;
    offer_worst_global(s, e.mask, c.sectors, c.ideal, e.addr, e.cta, e.warp);
    return;
  }
  if (e.space != ptx::Space::Shared) return;
  model::WarpAccess a;
  a.op = e.op;
  a.width = e.width;
  a.active = e.mask;
  for (int l = 0; l < model::kWarpSize; ++l) {
    a.addr[l] = static_cast<std::uint32_t>(e.addr[l]);
    // Another CTA's shared memory (distributed shared memory): Nsight Compute lists such a
    // request with nothing (model::cluster_request_counted; a warp whose lanes go to both
    // was not measured: its own lanes are counted).
    if ((e.addr[l] >> ptx::kClusterRankShift) != 0) a.active &= ~(1u << l);
  }
  if (e.mask != 0 && a.active == 0) return;
  model::Verdict v;
  if (e.kind == emu::AccessKind::Matrix) {
    // ldmatrix/stmatrix (LDSM/STSM). The worst request is kept as the rows' request, which
    // analyze() charges as analyze_matrix does.
    model::MatrixAccess m;
    m.op = e.op == model::Op::Load ? model::MatrixOp::Load : model::MatrixOp::Store;
    m.matrices = e.matrices;
    m.trans = e.trans;
    std::copy(std::begin(a.addr), std::end(a.addr), std::begin(m.addr));
    v = model::analyze_matrix(m, arch_);
    a = model::detail::matrix_rows(m);
  } else if (e.kind == emu::AccessKind::Ldgsts) {
    // cp.async's shared side (LDGSTS): the worst request is kept as the plain store of
    // the same lanes, for the report's picture; its counts are analyze_ldgsts's.
    model::AsyncCopy cp;
    cp.width = e.width;
    cp.bypass = e.bypass;
    cp.src_size = e.src_size;
    cp.active = e.mask;
    for (int l = 0; l < model::kWarpSize; ++l) {
      cp.addr[l] = a.addr[l];
      cp.global_addr[l] = static_cast<std::uint32_t>(e.global_addr[l]);
    }
    cp.reads = e.reads;
    v = model::analyze_ldgsts(cp, arch_);
    a.op = model::Op::Store;
    add_copy_sectors(e, cp);
  } else if (e.kind == emu::AccessKind::Bulk) {
    // A copy's shared side: the TMA unit writes (or reads) shared memory outside the LSU
    // pipeline; no wavefront, no conflict (measured: model::tma_copy).
    v = model::tma_copy();
    note_layout(s, e);
  } else if (e.kind == emu::AccessKind::Atomic64) {
    if (arch_.atomics_modelled) {
      v = model::atomic64(a);
    } else {
      v.error = model::AccessError::Unsupported;
    }
  } else if (e.kind == emu::AccessKind::CasLoop64) {
    v = cas_loop64(e, arch_);
  } else {
    v = memo_ ? memo_->analyze(e.site, e.warp, a) : model::analyze(a, arch_);
  }
  if (!v.ok()) {
    if (std::find(refused_.begin(), refused_.end(), e.site) == refused_.end())
      refused_.push_back(e.site);
    return;
  }
  s.wavefronts += v.wavefronts;
  s.ideal_wavefronts += v.ideal_wavefronts;
  // Nsight's per-line ideal of a masked 8- or 16-byte request whose lanes each access their
  // own address packs their bytes into 128-byte wavefronts (measured: the bitonic sort's
  // STS.64, docs/model.md "Known differences"); elsewhere it is the ideal above (a full
  // warp, or lanes sharing addresses, agree with the H100 per line).
  if (e.kind == emu::AccessKind::Plain && e.width >= 8 && e.mask && e.mask != 0xFFFFFFFFu &&
      distinct_addresses(e))
    s.nsight_ideal_wavefronts += std::max<std::uint64_t>(
        1, (static_cast<std::uint64_t>(std::popcount(e.mask)) * e.width + 127) / 128);
  else
    s.nsight_ideal_wavefronts += v.ideal_wavefronts;
  s.ways = std::max(s.ways, v.ways);
  offer_worst_shared(s, a, v, e.kind, e.cta, e.warp);
}

void SiteStatsListener::clear() {
  for (SiteStats& s : sites_)
    if (s.seen) s = SiteStats{};
  refused_.clear();
}

void SiteStatsListener::merge(const SiteStatsListener& o) {
  for (std::size_t i = 0; i < sites_.size() && i < o.sites_.size(); ++i) {
    SiteStats& s = sites_[i];
    const SiteStats& t = o.sites_[i];
    if (!t.seen) continue;
    if (!s.seen) {
      s = t;
      continue;
    }
    s.requests += t.requests;
    s.wavefronts += t.wavefronts;
    s.ideal_wavefronts += t.ideal_wavefronts;
    s.nsight_ideal_wavefronts += t.nsight_ideal_wavefronts;
    if (t.swizzle >= 0) s.swizzle = t.swizzle;
    s.row_bytes = std::max(s.row_bytes, t.row_bytes);
    s.shared_lo = std::min(s.shared_lo, t.shared_lo);
    s.shared_hi = std::max(s.shared_hi, t.shared_hi);
    s.ways = std::max(s.ways, t.ways);
    s.sectors += t.sectors;
    s.ideal_sectors += t.ideal_sectors;
    s.lines128 += t.lines128;
    if (t.has_worst_global)
      offer_worst_global(s, t.worst_global_mask, t.worst_global_sectors, t.worst_global_ideal,
                         t.worst_global_addr, t.worst_global_cta, t.worst_global_warp);
    if (t.has_worst)
      offer_worst_shared(s, t.worst, t.worst_verdict, t.worst_kind, t.worst_cta, t.worst_warp);
  }
  for (int r : o.refused_)
    if (std::find(refused_.begin(), refused_.end(), r) == refused_.end()) refused_.push_back(r);
}

}  // namespace bankcheck::analysis

namespace bankcheck::analysis {

GlobalPattern describe_global(const std::uint64_t* addr, std::uint32_t mask, int width) {
  GlobalPattern p;
  int lanes[model::kWarpSize];
  int n = 0;
  for (int l = 0; l < model::kWarpSize; ++l)
    if ((mask >> l) & 1u) lanes[n++] = l;
  if (n < 2) return p;
  const auto at = [&](int i) { return static_cast<std::int64_t>(addr[lanes[i]]); };
  // One stride per lane index over all active lanes?
  const std::int64_t d = at(1) - at(0), dl = lanes[1] - lanes[0];
  bool progression = d % dl == 0;
  const std::int64_t stride = progression ? d / dl : 0;
  for (int i = 1; i < n && progression; ++i)
    progression = at(i) - at(0) == stride * (lanes[i] - lanes[0]);
  if (progression) {
    if (stride == width) {
      p.kind = GlobalPattern::Kind::Consecutive;
      p.offset =
          static_cast<std::uint64_t>(at(0) - static_cast<std::int64_t>(lanes[0]) * width) % 32;
    } else if (stride != 0) {
      p.kind = GlobalPattern::Kind::Strided;
      p.stride = stride;
    }
    return p;
  }
  // Runs of consecutive lanes reading consecutive elements, the runs a pitch apart.
  int run = 1;
  while (run < n && lanes[run] == lanes[run - 1] + 1 && at(run) == at(run - 1) + width) ++run;
  if (run < 2 || run >= n || n % run != 0) return p;
  const std::int64_t pitch = at(run) - at(0);
  for (int i = 0; i < n; ++i) {
    const int r = i / run, k = i % run;
    if (at(i) != at(0) + r * pitch + static_cast<std::int64_t>(k) * width) return p;
  }
  p.kind = GlobalPattern::Kind::Rows;
  p.run = run;
  p.pitch = pitch;
  return p;
}

}  // namespace bankcheck::analysis
