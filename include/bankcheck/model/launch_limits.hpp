// Launch limits per architecture: the most shared memory one block may use (with the opt-in,
// cudaFuncAttributeMaxDynamicSharedMemorySize), for every architecture in kArchs.
#pragma once

#include <cstdint>
#include <string_view>

#include "bankcheck/model/arch.hpp"
#include "bankcheck/model/dims.hpp"
#include "bankcheck/model/occupancy.hpp"

namespace bankcheck::model {

// Bytes of shared memory (static + dynamic) one block may use on `arch`.
// Sources: for the architectures the occupancy calculator knows (kOccupancyArchs) its own
// sharedMemPerBlockOptin (sm_limits(), which names its sources); for the others the CUDA C++
// Programming Guide, "Technical Specifications per Compute Capability", row "Maximum amount
// of shared memory per thread block": 16 KB on 1.x, 48 KB on 2.x to 6.x, 96 KB on 7.2 (as
// 7.0), 227 KB on 10.x and 11.0 (as 9.0), 99 KB on 12.x (as 8.6/8.9).
// Example: max_shared_per_block(kDefaultArch) == 232448 (227 KB, H100).
constexpr int max_shared_per_block(const Arch& arch) {
  const SmLimits sm = sm_limits(arch.cc);
  if (sm.known()) return sm.shared_per_block_optin;
  if (arch.cc < 20) return 16 * 1024;
  if (arch.cc < 70) return 48 * 1024;
  if (arch.cc < 80) return 96 * 1024;  // 7.2 (Xavier)
  if (arch.cc >= 120) return 99 * 1024;
  return 227 * 1024;  // 10.0, 10.1, 10.3, 11.0
}

static_assert(max_shared_per_block(kDefaultArch) == 232448,
              "sm_90 allows 227 KB per block (sharedMemPerBlockOptin of an H100)");

}  // namespace bankcheck::model
