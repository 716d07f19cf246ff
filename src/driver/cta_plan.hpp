// The CTA plan: which CTAs of the grid are emulated, in which order, and whether the run
// stops at the instruction budget (sampling) or runs the whole list.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/emu/emulator.hpp"

namespace bankcheck::driver {

struct CtaPlan {
  std::vector<std::uint64_t> order;  // linear CTA indices, in the order they are handed out
  bool adaptive = true;              // stop once the sample's instruction budget has run
  std::uint64_t grid_ctas = 0;       // the grid's CTAs (`order` lists all of them or fewer)
};

// Without --blocks: first, last, then the midpoints of the largest gaps (at most 4096), so
// that stopping anywhere leaves CTAs spread over the grid; adaptive. --blocks N: first,
// last and evenly spaced between; --blocks all: every CTA in order.
CtaPlan plan_ctas(std::uint64_t total, const std::optional<std::string>& blocks);

// How many CTAs plan_ctas(total, blocks) lists, known before the list is allocated.
std::uint64_t planned_ctas(std::uint64_t total, const std::optional<std::string>& blocks);

// The CTA id of a linear index (x fastest).
emu::Dim3 cta_id(std::uint64_t linear, const emu::Dim3& grid);

}  // namespace bankcheck::driver
