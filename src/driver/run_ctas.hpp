// Running: the planned CTAs on every core, one emulator and one set of listeners per
// thread, the first emulation error located in the source, the threads' counts merged.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/analysis/recorder.hpp"
#include "bankcheck/analysis/sass_requests.hpp"
#include "bankcheck/analysis/site_stats.hpp"
#include "bankcheck/driver/check.hpp"
#include "cta_plan.hpp"

namespace bankcheck::driver {

struct CtaResults {
  std::unique_ptr<analysis::SiteStatsListener> stats;  // merged over the threads
  // The same sites counted as the PTX states them, for the sites SASS rewrites (`plan`).
  std::unique_ptr<analysis::SiteStatsListener> ptx_stats;
  analysis::SassPlan plan;  // empty when the counts are PTX-level
  std::unique_ptr<analysis::SharedRecorder> recorder;  // with CheckOptions::record_shared
  std::vector<emu::Note> notes;                        // every thread's, in thread order
  // Sites whose loads read shared bytes no thread of the CTA had written (sorted, once).
  std::vector<int> unwritten_shared_reads;
  std::uint64_t ctas_done = 0;
  std::uint64_t warp_instructions = 0;
  double seconds = 0;
};

// Runs `plan` for `launch` in `mem`. `name` is the kernel's base name, for errors.
// Throws EmulationError "FILE:LINE:COL: message (PTX line N: text) in CTA (x,y,z) of kernel K".
CtaResults run_ctas(const Loaded& l, const ptx::Kernel& k, const emu::Launch& launch,
                    const CtaPlan& plan, const model::Arch& arch, const CheckOptions& o,
                    const std::string& name, emu::GlobalMemory& mem);

}  // namespace bankcheck::driver
