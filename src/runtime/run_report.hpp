// The report of `bankcheck run`, written once at exit: one CheckReport per translation unit
// whose kernels were analysed (or refused), in the order of their first launches, rendered by
// the same views as `check` (one section per unit when there are several), the --fail-on
// gates applied, and the status `bankcheck run` reads back.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "run_modules.hpp"
#include "bankcheck/runtime/run_options.hpp"

namespace bankcheck::runtime {

struct ModuleReport {
  RunUnit* unit = nullptr;
  std::uint64_t first = 0;  // its first analysed launch
  // Its analysed kernels with their first launches' numbers.
  std::vector<std::pair<std::uint64_t, analysis::KernelReport>> kernels;
  std::vector<analysis::UnsupportedKernelReport> refused;  // launched, not emulated
};

// The status file's lines: "gate" when a --fail-on gate was crossed, "error: SENTENCE" for
// each of bankcheck's own failures.
void write_run_report(std::vector<ModuleReport>& modules, const RunOptions& options,
                      const model::Arch& arch, const std::vector<std::string>& failures);

}  // namespace bankcheck::runtime
