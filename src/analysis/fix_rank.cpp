// Replay and ranking: each candidate's requests replayed through the bank model, its shared
// bytes and occupancy, and the kept suggestions best first.
#include <algorithm>
#include <set>
#include <tuple>

#include "bankcheck/model/analyze.hpp"
#include "fix_steps.hpp"

namespace bankcheck::analysis {

model::Occupancy occupancy_for(const model::Arch& arch, int threads, int regs, std::uint64_t st,
                               std::uint64_t dyn) {
  model::OccupancyInput in;
  in.threads_per_block = threads;
  in.registers_per_thread = regs;
  in.static_shared_bytes = static_cast<int>(st);
  in.dynamic_shared_bytes = static_cast<int>(dyn);
  return model::compute_occupancy(arch.cc, in);
}

// Replays `reqs` (all touching array `ar`) with lanes inside it remapped.
Eval evaluate(const Requests& reqs, const ArrayRange& ar, const Geometry& g, const Remap* remap,
              const model::Arch& arch) {
  Eval ev;
  for (const RecordedRequest* rr : reqs) {
    auto inside = [&](std::uint32_t x) { return x >= ar.offset && x < ar.offset + ar.bytes; };
    // The request as the remapped code would issue it: split when narrower, then moved.
    int parts_width = rr->access.width;
    if (remap && remap->kind == FixKind::Width && remap->site == rr->site &&
        remap->width < parts_width)
      parts_width = remap->width;
    if (remap && remap->kind != FixKind::Width && remap->split > 0 && remap->split < parts_width)
      parts_width = remap->split;
    std::uint64_t wf = 0, ideal = 0;
    for (int p = 0; p < rr->access.width / parts_width; ++p) {
      model::WarpAccess a = rr->access;
      a.width = static_cast<std::uint8_t>(parts_width);
      for (int l = 0; l < model::kWarpSize; ++l) {
        if (!a.lane_active(l)) continue;
        a.addr[l] += static_cast<std::uint32_t>(p * parts_width);
        if (remap && remap->kind != FixKind::Width && inside(a.addr[l]))
          a.addr[l] = static_cast<std::uint32_t>(ar.offset) +
                      remap_offset(*remap, g, a.addr[l] - static_cast<std::uint32_t>(ar.offset));
      }
      const model::Verdict v = model::analyze(a, arch);
      if (!v.ok()) return Eval{false, 0, 0, {}};
      wf += v.wavefronts;
      ideal += v.ideal_wavefronts;
    }
    ev.wavefronts += wf * rr->count;
    ev.ideal += ideal * rr->count;
    ev.per_site[rr->site] += wf * rr->count;
  }
  return ev;
}

std::vector<Suggestion> rank(const std::vector<Remap>& cands, const Requests& reqs,
                             const ArrayRange& ar, const Geometry& g, const Eval& before,
                             const ArrayFix& af, const KernelFix& kf,
                             const std::function<int(int)>& site_line, const model::Arch& arch,
                             int top) {
  const int elem = g.elem_bytes;
  std::vector<Suggestion> kept;
  std::vector<Suggestion> found;
  for (const Remap& r : cands) {
    const Eval after = evaluate(reqs, ar, g, &r, arch);
    if (!after.ok || after.wavefronts >= before.wavefronts) continue;
    Suggestion s;
    s.remap = r;
    s.wavefronts_before = before.wavefronts;
    s.wavefronts_after = after.wavefronts;
    s.ideal_wavefronts = after.ideal;
    s.bytes_before = ar.bytes;
    s.bytes_after = ar.bytes;
    if (r.kind == FixKind::Pad)
      s.bytes_after = ar.bytes + (ar.bytes / g.row_bytes) * static_cast<std::uint64_t>(r.pad) *
                                     static_cast<std::uint64_t>(elem);
    for (int site : af.sites) {
      SiteChange c;
      c.site = site;
      c.line = site_line(site);
      for (const auto* q : reqs)
        if (q->site == site) {
          c.op = q->access.op;
          c.width = q->access.width;
          c.requests += q->count;
        }
      c.wavefronts_before = before.per_site.count(site) ? before.per_site.at(site) : 0;
      c.wavefronts_after = after.per_site.count(site) ? after.per_site.at(site) : 0;
      s.sites.push_back(c);
    }
    if (kf.occupancy_known) {
      s.occupancy_known = true;
      s.occupancy_before = kf.occupancy;
      const std::uint64_t extra = s.bytes_after - s.bytes_before;
      s.occupancy_after =
          occupancy_for(arch, kf.threads, kf.registers, kf.static_smem + (ar.is_extern ? 0 : extra),
                        kf.dynamic_smem + (ar.is_extern ? extra : 0));
    }
    found.push_back(std::move(s));
  }
  auto key = [](const Suggestion& s) {
    const int blocks = s.occupancy_known ? s.occupancy_after.blocks_per_sm : 0;
    return std::make_tuple(s.wavefronts_after, s.bytes_after, -blocks,
                           static_cast<int>(s.remap.kind), s.remap.pad + s.remap.bits);
  };
  std::stable_sort(found.begin(), found.end(),
                   [&](const Suggestion& a, const Suggestion& b) { return key(a) < key(b); });
  std::set<FixKind> kinds;
  for (auto& s : found) {
    if (!kinds.insert(s.remap.kind).second) continue;
    kept.push_back(std::move(s));
    if (static_cast<int>(kept.size()) >= top) break;
  }

  return kept;
}

}  // namespace bankcheck::analysis
