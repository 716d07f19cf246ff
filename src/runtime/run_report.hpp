// The emulator's reports of `bankcheck run`: one CheckReport per translation unit whose
// kernels were analysed (or refused), in the order of their first analysed launches: the
// process's part of the job, or at exit its own report (bankcheck/runtime/run_report.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/recorder.hpp"
#include "bankcheck/runtime/run_options.hpp"
#include "bankcheck/runtime/run_report.hpp"
#include "run_modules.hpp"

namespace bankcheck::runtime {

struct ModuleReport {
  RunUnit* unit = nullptr;
  std::uint64_t first = 0;  // its first analysed launch
  // Its analysed kernels with their first launches' numbers.
  std::vector<std::pair<std::uint64_t, analysis::KernelReport>> kernels;
  std::vector<analysis::UnsupportedKernelReport> refused;  // launched, not emulated
  // The shared requests each analysed kernel (mangled name) recorded, for fix's advisor (the
  // kernels' analyses own them).
  std::map<std::string, const analysis::SharedRecorder*> recorded;
  std::vector<analysis::NotRunReport> not_run;  // launched, no code to run
};

// One CheckReport per module, with its input, files, level and source lines (the kernels'
// reports moved into it).
std::vector<analysis::CheckReport> module_reports(std::vector<ModuleReport>& modules,
                                                  const RunOptions& options,
                                                  const model::Arch& arch);

}  // namespace bankcheck::runtime
