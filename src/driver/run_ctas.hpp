// Running: the planned CTAs on every core, one emulator and one pipeline chain per thread,
// the first emulation error located in the source, the parts merged in the plan's order.
// The scheduler knows the emulator and the pipeline's interface, and no analysis.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bankcheck/analysis/pipeline.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/emu/emulator.hpp"
#include "cta_plan.hpp"

namespace bankcheck::driver {

struct RunOptions {
  unsigned threads = 0;                         // 0: all cores
  std::uint64_t sample_instructions = 4'000'000;  // an adaptive plan stops after about this many
  // An adaptive plan over the whole grid whose CTAs are estimated to cost at most this many
  // in all runs whole (CheckOptions::whole_grid_instructions); 0: no such raise.
  std::uint64_t whole_grid_instructions = 0;
  Progress* progress = nullptr;
  emu::EmulatorOptions emulator;
  // With emulator.printf: device printf's text, handed over as CTAs are committed (in plan
  // order, so that neither the threads nor the timing change it), an error's CTAs included
  // up to the error.
  std::function<void(const std::string&)> printed;
};

// What the emulator said besides its events.
struct CtaRun {
  std::vector<emu::Note> notes;  // every thread's, in plan order
  // Sites whose loads read shared bytes no thread of the CTA had written (sorted, once).
  std::vector<int> unwritten_shared_reads;
  // Global faults the run went on after (EmulatorOptions::stop_on_fault off), in the
  // committed CTAs: one per instruction and kind, its first lane the lowest CTA's.
  std::vector<emu::SurvivedFault> faults;
  std::uint64_t ctas_done = 0;
  std::uint64_t warp_instructions = 0;
  double seconds = 0;
};

// Runs `plan` for `launch` of `kernel` in `mem`, its events through `pipeline` (which may
// have no collector: the CTAs then only execute). `input` and `name` (the kernel's base
// name) place errors. Throws EmulationError "FILE:LINE:COL: message (PTX line N: text) in
// CTA (x,y,z) of kernel K".
CtaRun run_ctas(const ptx::Program& program, const ptx::Kernel& kernel, const emu::Launch& launch,
                const CtaPlan& plan, analysis::Pipeline& pipeline, emu::GlobalMemory& mem,
                const RunOptions& options, const std::string& input, const std::string& name);

}  // namespace bankcheck::driver
