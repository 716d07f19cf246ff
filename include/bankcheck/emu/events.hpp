// What the emulator tells the analysis: one AccessEvent per warp-wide execution of a
// memory instruction, sent to Listeners, and the launch shape (Dim3) the events belong
// to. The analysis depends on this header only, never on the emulator itself.
#pragma once

#include <cstdint>

#include "bankcheck/model/access.hpp"
#include "bankcheck/model/launch_limits.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::emu {

using Dim3 = model::Dim3;

// One warp-wide execution of one memory instruction.
struct AccessEvent {
  int site = -1;                          // index into Kernel::sites
  std::uint64_t cta = 0;                  // linear CTA index in the grid
  int warp = 0;                           // warp index in the CTA
  ptx::Space space = ptx::Space::Shared;  // resolved: Shared, Global or Local
  model::Op op = model::Op::Load;
  std::uint8_t width = 4;                     // bytes per lane (vector accesses: the whole vector)
  std::uint32_t mask = 0;                     // lanes that access
  std::uint64_t addr[model::kWarpSize] = {};  // shared: window offset; else emulated address
};

class Listener {
 public:
  virtual ~Listener() = default;
  virtual void on_access(const AccessEvent& e) = 0;
};

}  // namespace bankcheck::emu
