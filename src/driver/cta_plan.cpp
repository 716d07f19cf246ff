// The CTA plan: the sampling order over the grid and --blocks.
#include "cta_plan.hpp"

#include <algorithm>
#include <utility>

#include "bankcheck/driver/launch.hpp"

namespace bankcheck::driver {
namespace {

// First, last, then the midpoints of the largest gaps.
std::vector<std::uint64_t> sample_order(std::uint64_t total) {
  std::vector<std::uint64_t> order;
  if (total == 0) return order;
  order.push_back(0);
  if (total > 1) order.push_back(total - 1);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> gaps = {{0, total - 1}};
  while (order.size() < total && order.size() < 4096) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> next;
    bool added = false;
    for (auto [a, b] : gaps) {
      if (b - a < 2) continue;
      const std::uint64_t m = a + (b - a) / 2;
      order.push_back(m);
      added = true;
      next.push_back({a, m});
      next.push_back({m, b});
      if (order.size() >= total || order.size() >= 4096) break;
    }
    if (!added) break;
    gaps = std::move(next);
  }
  return order;
}

// n CTAs: first, last and evenly spaced between.
std::vector<std::uint64_t> evenly_spaced(std::uint64_t n, std::uint64_t total) {
  std::vector<std::uint64_t> order;
  for (std::uint64_t i = 0; i < n; ++i)
    order.push_back(n == 1 ? 0
                           : static_cast<std::uint64_t>(static_cast<long double>(i) *
                                                        static_cast<long double>(total - 1) /
                                                        static_cast<long double>(n - 1)));
  return order;
}

}  // namespace

CtaPlan plan_ctas(std::uint64_t total, const std::optional<std::string>& blocks) {
  CtaPlan plan;
  plan.adaptive = !blocks;
  plan.grid_ctas = total;
  if (!blocks) {
    plan.order = sample_order(total);
    return plan;
  }
  const BlockSelection sel = parse_blocks(*blocks, "--blocks");
  if (!sel.all) {
    plan.order = evenly_spaced(std::min<std::uint64_t>(sel.count, total), total);
    return plan;
  }
  plan.order.resize(static_cast<size_t>(total));
  for (std::uint64_t i = 0; i < total; ++i) plan.order[static_cast<size_t>(i)] = i;
  return plan;
}

std::uint64_t planned_ctas(std::uint64_t total, const std::optional<std::string>& blocks) {
  if (!blocks) return std::min<std::uint64_t>(total, 4096);
  const BlockSelection sel = parse_blocks(*blocks, "--blocks");
  return sel.all ? total : std::min<std::uint64_t>(sel.count, total);
}

emu::Dim3 cta_id(std::uint64_t cta, const emu::Dim3& grid) {
  emu::Dim3 id;
  id.x = static_cast<std::uint32_t>(cta % grid.x);
  id.y = static_cast<std::uint32_t>((cta / grid.x) % grid.y);
  id.z = static_cast<std::uint32_t>(cta / (std::uint64_t{grid.x} * grid.y));
  return id;
}

}  // namespace bankcheck::driver
