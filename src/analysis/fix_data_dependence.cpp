// Data dependence: which shared sites index their array with a value the kernel loaded
// from memory (a histogram's `bins[data[i]]`), found by the taint over the PTX's registers
// (address_taint.hpp) and confirmed on the recorded requests (their lane pattern varies from
// request to request). Such a site's conflicts follow the input: a layout only moves which keys
// collide.
#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "fix_steps.hpp"

namespace bankcheck::analysis {

bool pattern_varies(const Requests& reqs, int site) {
  // A request's pattern: its lanes, and each lane's address from the first active lane's.
  std::set<std::vector<std::int64_t>> seen;
  for (const RecordedRequest* r : reqs) {
    if (r->site != site) continue;
    std::vector<std::int64_t> p = {r->access.active};
    int first = -1;
    for (int l = 0; l < model::kWarpSize; ++l) {
      if (!r->access.lane_active(l)) continue;
      if (first < 0) first = l;
      p.push_back(static_cast<std::int64_t>(r->access.addr[l]) - r->access.addr[first]);
    }
    seen.insert(std::move(p));
    if (seen.size() > 1) return true;
  }
  return false;
}

std::optional<DataDependence> data_dependence(const ptx::Kernel& k, const KernelReport& rep,
                                              const std::vector<int>& origins, const Requests& reqs,
                                              const std::vector<int>& sites, std::uint64_t excess) {
  DataDependence dd;
  std::uint64_t worst = 0;
  for (int site : sites) {
    const auto s = static_cast<std::size_t>(site);
    if (s >= origins.size() || origins[s] < 0 || !pattern_varies(reqs, site)) continue;
    const auto it = std::find_if(rep.sites.begin(), rep.sites.end(),
                                 [&](const SiteReport& r) { return r.site == site; });
    if (it == rep.sites.end()) continue;
    const std::uint64_t e = model::excess_of(it->stats.wavefronts, it->stats.ideal_wavefronts);
    dd.excess += e;
    if (dd.site >= 0 && e <= worst) continue;
    worst = e;
    dd.site = site;
    dd.line = it->line;
    dd.op = it->stats.op;
    const ptx::Site& load = k.sites[static_cast<std::size_t>(origins[s])];
    dd.load_file = load.file;
    dd.load_line = load.line;
    dd.load_global = k.code[load.instr].space == ptx::Space::Global;
    dd.merged = DataDependence::Merged::None;
    for (const std::string& op : it->sass)
      if (op.find("POPC.INC") != std::string::npos) dd.merged = DataDependence::Merged::PopcInc;
  }
  if (dd.site < 0 || dd.excess == 0 || 2 * dd.excess < excess) return std::nullopt;
  if (dd.merged == DataDependence::Merged::None &&
      (dd.op == model::Op::Atomic || dd.op == model::Op::AtomicCas) &&
      std::any_of(k.code.begin(), k.code.end(), [](const ptx::Instr& in) {
        return in.op == ptx::Opc::Match && in.mod.match == ptx::MatchMode::Any;
      }))
    dd.merged = DataDependence::Merged::Match;
  return dd;
}

}  // namespace bankcheck::analysis
