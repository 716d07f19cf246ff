// The emulator's report of `bankcheck run` at exit: one CheckReport per translation unit
// whose kernels were analysed (or refused), in the order of their first launches, written by
// write_run_reports (bankcheck/runtime/run_report.hpp).
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
  // The shared requests each analysed kernel (mangled name) recorded, for fix's advisor.
  std::map<std::string, std::unique_ptr<analysis::SharedRecorder>> recorded;
};

// The reports of `modules`, written (and the gates applied) by write_run_reports.
void write_run_report(std::vector<ModuleReport>& modules, const RunOptions& options,
                      const model::Arch& arch, const std::vector<std::string>& failures);

}  // namespace bankcheck::runtime
