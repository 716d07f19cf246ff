// analyze_block(): the model applied to every warp of an `explain` block.
#include "bankcheck/analysis/explain.hpp"

namespace bankcheck::analysis {

InvalidAccess analyze_block(ExplainResult& r) {
  r.total_wavefronts = r.total_ideal_wavefronts = r.total_excess = 0;
  r.worst_warp = 0;
  for (size_t w = 0; w < r.warps.size(); ++w) {
    WarpResult& warp = r.warps[w];
    warp.wavefronts = warp.ideal_wavefronts = warp.ways = 0;
    for (size_t q = 0; q < warp.requests.size(); ++q) {
      WarpRequest& req = warp.requests[q];
      req.verdict = model::analyze(req.access, *r.arch, &req.schedule);
      if (!req.verdict.ok()) return {static_cast<int>(q), static_cast<int>(w)};
      warp.wavefronts += req.verdict.wavefronts;
      warp.ideal_wavefronts += req.verdict.ideal_wavefronts;
      warp.ways = std::max(warp.ways, req.verdict.ways);
    }
    r.total_wavefronts += warp.wavefronts;
    r.total_ideal_wavefronts += warp.ideal_wavefronts;
    r.total_excess += warp.excess();
    const WarpResult& best = r.warps[static_cast<size_t>(r.worst_warp)];
    if (warp.excess() > best.excess() ||
        (warp.excess() == best.excess() && warp.wavefronts > best.wavefronts))
      r.worst_warp = static_cast<int>(w);
  }
  return {};
}

}  // namespace bankcheck::analysis
