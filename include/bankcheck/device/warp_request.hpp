// One warp request of a patched instruction, costed on the GPU by the same rules the CPU
// applies (model/): the shared-memory wavefronts of the request as its SASS form issues it,
// or the global sectors it touches. Host-and-device: tests/device_test.cpp runs it on the
// CPU against the H100 corpora, src/device/patches.cu on the GPU.
#pragma once

#include <cstdint>

#include "bankcheck/device/records.hpp"
#include "bankcheck/model/analyze.hpp"
#include "bankcheck/model/sectors.hpp"

namespace bankcheck::device {

struct RequestCost {
  std::uint32_t wavefronts = 0, ideal = 0, ways = 0;  // shared
  std::uint32_t sectors = 0, ideal_sectors = 0;       // global
};

// A shared verdict's counts (an error verdict's: none).
BANKCHECK_HD constexpr RequestCost shared_cost(const model::Verdict& v) {
  RequestCost c;
  c.wavefronts = v.wavefronts;
  c.ideal = v.ideal_wavefronts;
  c.ways = v.ways;
  return c;
}

// The model's view of a shared request: lane l of `active` accessed `width` bytes at shared
// offset addr[l], as its SASS form issues it (ATOMS.POPC.INC: one update per word, by its
// lowest lane, costed as analyze() costs those lanes, as the emulator's SASS step does; an
// elected-lane atomic: that lane alone).
BANKCHECK_HD constexpr model::WarpAccess shared_access(const std::uint32_t* addr,
                                                       std::uint32_t active, int width,
                                                       Access access, Form form) {
  model::WarpAccess a;
  a.width = static_cast<std::uint8_t>(width);
  a.active = active;
  for (int l = 0; l < model::kWarpSize; ++l) a.addr[l] = addr[l];
  a.op = access == Access::Load    ? model::Op::Load
         : access == Access::Store ? model::Op::Store
         : form == Form::Cas       ? model::Op::AtomicCas
                                   : model::Op::Atomic;
  if (access == Access::Atomic && form == Form::PopcInc)
    a.active = model::popc_inc_lanes(a);
  else if (access == Access::Atomic && form == Form::Aggregated)
    a.active = model::aggregated_lane(active);
  return a;
}

// A shared request: lane l of `active` accessed `width` bytes at shared offset addr[l].
// Pre: width in {1, 2, 4, 8, 16}. Post: wavefronts >= ideal (both 0 when nothing is active).
BANKCHECK_HD constexpr RequestCost shared_request(const std::uint32_t* addr, std::uint32_t active,
                                                  int width, Access access, Form form,
                                                  const model::Arch& arch) {
  const model::WarpAccess a = shared_access(addr, active, width, access, form);
  // 64-bit atomics are their own rule (one ATOMS.EXCH.64 or CAS.64; a CAS loop's pass is
  // spin_pass below).
  return shared_cost(width == 8 && access == Access::Atomic ? model::atomic64(a)
                                                            : model::analyze(a, arch));
}

// The shared requests the warp's fast path (patches.cu) leaves to one lane on the Maxwell rule
// with 32 banks (sm_90's): atomics, and requests with an active lane off its width's
// alignment. Costed as shared_request() costs them, without the phased rules' bank tables
// (12 KB): a patch's frame is the stack of every thread of a patched kernel on the GPU, and
// with those tables in it (27 KB) a GPU shared by three processes refused their launches for
// want of memory. Pre: arch.rule is Maxwell; an aligned request that is not atomic is never
// given (the fast path costs it) and costs nothing here.
BANKCHECK_HD constexpr RequestCost shared_request_left(const std::uint32_t* addr,
                                                       std::uint32_t active, int width,
                                                       Access access, Form form,
                                                       const model::Arch& arch) {
  const model::WarpAccess a = shared_access(addr, active, width, access, form);
  if (width == 8 && access == Access::Atomic) return shared_cost(model::atomic64(a));
  const std::uint32_t align = static_cast<std::uint32_t>(width - 1);
  for (int l = 0; l < model::kWarpSize; ++l)
    if (a.lane_active(l) && (a.addr[l] & align)) return {};  // the model's error: no cost
  if (access != Access::Atomic || !arch.atomics_modelled || width != 4) return {};
  return shared_cost(model::detail::atomic<false>(a, nullptr));
}

// One pass of a 64-bit CAS loop (ATOMS.CAST.SPIN.64): the lanes still trying, costed as one
// ATOMS.CAS.64 of theirs (model::atomic64: two wavefronts per lane of the busiest bank pair
// of each half-warp; ideal two per half-warp with a lane). On the GPU every pass is its own
// execution, made by the lanes that run it, so contention between warps is what it was.
BANKCHECK_HD constexpr RequestCost spin_pass(const std::uint32_t* addr, std::uint32_t active) {
  model::WarpAccess a;
  a.width = 8;
  a.op = model::Op::AtomicCas;
  a.active = active;
  for (int l = 0; l < model::kWarpSize; ++l) a.addr[l] = addr[l];
  return shared_cost(model::atomic64(a));
}

// The bytes an access moves as its instruction's width: the sanitizer gives the bytes used
// (12 for a float3 loaded by LDG.E.128), the hardware's ideal counts the instruction's.
BANKCHECK_HD constexpr int instruction_width(std::uint32_t size) {
  return size <= 1 ? 1 : size <= 2 ? 2 : size <= 4 ? 4 : size <= 8 ? 8 : 16;
}

// A global request: lane l of `active` accessed `width` bytes at addr[l].
BANKCHECK_HD constexpr RequestCost global_request(const std::uint64_t* addr, std::uint32_t active,
                                                  int width) {
  const model::SectorCount s = model::count_sectors(addr, active, width);
  RequestCost c;
  c.sectors = s.sectors;
  c.ideal_sectors = s.ideal;
  return c;
}

}  // namespace bankcheck::device
