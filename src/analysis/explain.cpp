// analyze_block(): the model applied to every warp of an `explain` block; the TMA swizzle
// modes applied to it.
#include "bankcheck/analysis/explain.hpp"

#include <algorithm>

#include "bankcheck/model/swizzle.hpp"

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

void apply_swizzle(ExplainResult& r, int mode) {
  r.swizzle = mode;
  for (WarpResult& w : r.warps)
    for (WarpRequest& q : w.requests)
      for (int l = 0; l < model::kWarpSize; ++l)
        if (q.access.lane_active(l))
          q.access.addr[l] =
              model::tma_swizzle(q.access.addr[l], static_cast<model::TmaSwizzle>(mode));
}

void swizzle_options(ExplainResult& r) {
  r.swizzle_options.clear();
  if (r.total_excess == 0) return;
  const int now = std::max(r.swizzle, 0);
  for (int mode = 0; mode <= 3; ++mode) {
    if (mode == now) continue;
    ExplainResult t = r;
    for (WarpResult& w : t.warps)
      for (WarpRequest& q : w.requests)
        for (int l = 0; l < model::kWarpSize; ++l)
          if (q.access.lane_active(l))
            q.access.addr[l] = model::tma_swizzle(
                model::tma_swizzle(q.access.addr[l], static_cast<model::TmaSwizzle>(now)),
                static_cast<model::TmaSwizzle>(mode));
    if (analyze_block(t).request >= 0) continue;
    if (t.total_wavefronts < r.total_wavefronts)
      r.swizzle_options.push_back({mode, t.total_wavefronts, t.total_ideal_wavefronts});
  }
  std::stable_sort(
      r.swizzle_options.begin(), r.swizzle_options.end(),
      [](const ExplainResult::SwizzleOption& a, const ExplainResult::SwizzleOption& b) {
        return a.wavefronts < b.wavefronts;
      });
}

}  // namespace bankcheck::analysis
