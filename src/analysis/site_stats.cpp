// SiteStatsListener: the model applied to every shared request the emulator reports.
#include "bankcheck/analysis/site_stats.hpp"

#include <algorithm>

namespace bankcheck::analysis {

// Lanes' byte ranges sorted by address (usually already in order), then one pass that
// merges overlaps: distinct bytes give the ideal, distinct 32-byte sectors the cost.
SectorCount count_sectors(const emu::AccessEvent& e) {
  std::uint64_t start[model::kWarpSize];
  int n = 0;
  bool sorted = true;
  for (int l = 0; l < model::kWarpSize; ++l) {
    if (!((e.mask >> l) & 1u)) continue;
    start[n] = e.addr[l];
    if (n > 0 && start[n] < start[n - 1]) sorted = false;
    ++n;
  }
  SectorCount c;
  if (n == 0) return c;
  if (sorted) {  // coalesced: consecutive elements, the usual case, in closed form
    bool consecutive = true;
    for (int i = 1; i < n; ++i) consecutive &= start[i] == start[i - 1] + e.width;
    if (consecutive) {
      const std::uint64_t end = start[n - 1] + e.width;
      c.sectors = static_cast<std::uint32_t>((end - 1) / 32 - start[0] / 32 + 1);
      c.ideal = static_cast<std::uint32_t>((end - start[0] + 31) / 32);
      return c;
    }
  } else {
    std::sort(start, start + n);
  }
  std::uint64_t bytes = 0, covered_end = 0, last_sector = ~0ull;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t a = start[i], b = a + e.width;  // [a, b)
    const std::uint64_t from = std::max(a, covered_end);
    if (b > from) bytes += b - from;
    covered_end = std::max(covered_end, b);
    for (std::uint64_t sct = a / 32; sct <= (b - 1) / 32; ++sct) {
      if (sct == last_sector) continue;
      if (last_sector != ~0ull && sct < last_sector) continue;  // within an earlier lane's range
      ++c.sectors;
      last_sector = sct;
    }
  }
  c.ideal = static_cast<std::uint32_t>((bytes + 31) / 32);
  return c;
}

void SiteStatsListener::on_access(const emu::AccessEvent& e) {
  if (e.site < 0 || static_cast<std::size_t>(e.site) >= sites_.size()) return;
  SiteStats& s = sites_[static_cast<std::size_t>(e.site)];
  s.seen = true;
  s.space = e.space;
  s.op = e.op;
  s.width = e.width;
  ++s.requests;
  if (e.space == ptx::Space::Global) {
    const SectorCount c = count_sectors(e);
    s.sectors += c.sectors;
    s.ideal_sectors += c.ideal;
    return;
  }
  if (e.space != ptx::Space::Shared) return;
  model::WarpAccess a;
  a.op = e.op;
  a.width = e.width;
  a.active = e.mask;
  for (int l = 0; l < model::kWarpSize; ++l) a.addr[l] = static_cast<std::uint32_t>(e.addr[l]);
  const model::Verdict v = model::analyze(a, arch_);
  if (!v.ok()) {
    if (std::find(refused_.begin(), refused_.end(), e.site) == refused_.end()) refused_.push_back(e.site);
    return;
  }
  s.wavefronts += v.wavefronts;
  s.ideal_wavefronts += v.ideal_wavefronts;
  s.ways = std::max(s.ways, v.ways);
  if (!s.has_worst || v.excess() > s.worst_verdict.excess()) {
    s.has_worst = true;
    s.worst = a;
    s.worst_verdict = v;
    s.worst_cta = e.cta;
    s.worst_warp = e.warp;
  }
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
    s.ways = std::max(s.ways, t.ways);
    s.sectors += t.sectors;
    s.ideal_sectors += t.ideal_sectors;
    if (t.has_worst && (!s.has_worst || t.worst_verdict.excess() > s.worst_verdict.excess())) {
      s.has_worst = true;
      s.worst = t.worst;
      s.worst_verdict = t.worst_verdict;
      s.worst_cta = t.worst_cta;
      s.worst_warp = t.worst_warp;
    }
  }
  for (int r : o.refused_)
    if (std::find(refused_.begin(), refused_.end(), r) == refused_.end()) refused_.push_back(r);
}

}  // namespace bankcheck::analysis
