// total(): kernel-level sums and the explanation of each site's worst request.
#include "bankcheck/analysis/check.hpp"

#include <algorithm>

namespace bankcheck::analysis {

void total(KernelReport& k, const model::Arch& arch) {
  k.shared_wavefronts = k.shared_ideal_wavefronts = 0;
  for (auto& s : k.sites) {
    if (s.stats.space != ptx::Space::Shared) continue;
    k.shared_wavefronts += s.stats.wavefronts;
    k.shared_ideal_wavefronts += s.stats.ideal_wavefronts;
    if (s.stats.has_worst) model::analyze(s.stats.worst, arch, &s.worst_schedule);
  }
  k.lines.clear();
  for (size_t i = 0; i < k.sites.size(); ++i) {
    const SiteReport& s = k.sites[i];
    const SiteStats& st = s.stats;
    LineReport* l = nullptr;
    for (auto& x : k.lines)
      if (x.file == s.file && x.line == s.line && x.space == st.space && x.op == st.op &&
          x.width == st.width)
        l = &x;
    if (!l) {
      k.lines.push_back({});
      l = &k.lines.back();
      l->file = s.file;
      l->line = s.line;
      l->col = s.col;
      l->space = st.space;
      l->op = st.op;
      l->width = st.width;
    }
    l->col = std::min(l->col, s.col);
    ++l->sites;
    l->requests += st.requests;
    l->wavefronts += st.wavefronts;
    l->ideal_wavefronts += st.ideal_wavefronts;
    l->sectors += st.sectors;
    l->ideal_sectors += st.ideal_sectors;
    l->lines128 += st.lines128;
    if (st.has_worst_global) {
      const auto excess = [&](const SiteStats& x) {
        return x.worst_global_sectors - x.worst_global_ideal;
      };
      if (l->worst_global_site < 0 ||
          excess(st) > excess(k.sites[static_cast<size_t>(l->worst_global_site)].stats)) {
        l->worst_global_site = static_cast<int>(i);
        l->pattern = describe_global(st.worst_global_addr, st.worst_global_mask, st.width);
      }
    }
    l->ways = std::max(l->ways, st.ways);
    if (st.has_worst &&
        (l->worst_site < 0 ||
         st.worst_verdict.excess() >
             k.sites[static_cast<size_t>(l->worst_site)].stats.worst_verdict.excess()))
      l->worst_site = static_cast<int>(i);
  }
}

}  // namespace bankcheck::analysis
