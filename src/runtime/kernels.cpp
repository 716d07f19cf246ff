// The launch rules and occupancy of a kernel (kernels.hpp).
#include "kernels.hpp"

#include <algorithm>

#include "bankcheck/driver/kernel_names.hpp"

namespace bankcheck::runtime {

FunctionAttributes attributes_of(const Function& f) {
  return f.info.attributes ? *f.info.attributes : FunctionAttributes{};
}

int max_dynamic_shared(const Driver& d, const Function& f) {
  if (f.max_dynamic_shared >= 0) return f.max_dynamic_shared;
  const long long rest = static_cast<long long>(d.device.sm.shared_per_block) -
                         static_cast<long long>(attributes_of(f).static_shared_bytes);
  return rest > 0 ? static_cast<int>(rest) : 0;
}

int max_threads_per_block(const Driver& d, const Function& f) {
  const FunctionAttributes a = attributes_of(f);
  const model::SmLimits& sm = d.device.sm;
  int most = std::min(a.max_threads_per_block, sm.max_threads_per_block);
  if (a.registers_per_thread > 0) {
    // Warps are given registers in units of register_alloc_unit, counted in groups of
    // warp_alloc_granularity warps against the block's register limit.
    const long long per_warp = (static_cast<long long>(a.registers_per_thread) * sm.warp_size +
                                sm.register_alloc_unit - 1) /
                               sm.register_alloc_unit * sm.register_alloc_unit;
    const long long warps = sm.max_registers_per_block / per_warp / sm.warp_alloc_granularity *
                            sm.warp_alloc_granularity;
    most = std::min<long long>(most, warps * sm.warp_size);
  }
  return most;
}

model::Occupancy occupancy(const Driver& d, const Function& f, int threads,
                           std::size_t dynamic_shared) {
  const FunctionAttributes a = attributes_of(f);
  model::OccupancyInput in;
  in.threads_per_block = threads;
  in.registers_per_thread = a.registers_per_thread;
  in.static_shared_bytes = static_cast<int>(a.static_shared_bytes);
  in.dynamic_shared_bytes = static_cast<int>(dynamic_shared);
  in.carveout_percent = f.carveout;
  in.opt_in = true;  // the dynamic limit is checked on its own (max_dynamic_shared)
  return model::compute_occupancy(d.device.sm, in);
}

CUresult check_launch(const Driver& d, const Function& f, const LaunchShape& s) {
  const model::SmLimits& sm = d.device.sm;
  const Dim3 b = s.block, g = s.grid;
  if (b.x == 0 || b.y == 0 || b.z == 0 || b.x > 1024 || b.y > 1024 || b.z > 64 ||
      b.count() > static_cast<std::uint64_t>(sm.max_threads_per_block))
    return kInvalidConfiguration;
  if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 2147483647u || g.y > 65535 || g.z > 65535)
    return kInvalidConfiguration;
  const int threads = static_cast<int>(b.count());
  if (threads > max_threads_per_block(d, f)) return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  if (s.dynamic_shared > static_cast<std::size_t>(max_dynamic_shared(d, f)))
    return CUDA_ERROR_INVALID_VALUE;
  const model::Occupancy occ = occupancy(d, f, threads, s.dynamic_shared);
  switch (occ.error) {
    case model::OccupancyError::None:
      break;
    case model::OccupancyError::TooManyRegistersPerThread:
    case model::OccupancyError::TooManyRegistersPerBlock:
      return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  if (s.cooperative && g.count() > static_cast<std::uint64_t>(occ.blocks_per_sm) *
                                       static_cast<std::uint64_t>(d.device.board.sm_count))
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  const Dim3 c = s.cluster;
  if (c.count() > 1) {
    // Clusters of at most 8 blocks (16 with the non-portable opt-in), from cc 9.0.
    const std::uint64_t most = f.non_portable_cluster ? 16 : 8;
    if (sm.cc < 90 || c.count() > most || g.x % c.x || g.y % c.y || g.z % c.z)
      return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  return CUDA_SUCCESS;
}

std::string readable_name(const std::string& mangled) { return driver::demangle(mangled); }

}  // namespace bankcheck::runtime
