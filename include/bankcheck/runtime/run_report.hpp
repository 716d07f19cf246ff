// The one report of `bankcheck run`, written in the program at its exit by whichever backend
// ran the kernels (the emulator's executor, the GPU tool): the reports rendered by the same
// views as `check` (one section per source file when there are several), the --fail-on
// gates applied, and the status `bankcheck run` reads back for its exit code.
#pragma once

#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/fix.hpp"
#include "bankcheck/runtime/run_options.hpp"

namespace bankcheck::runtime {

// The status file's lines: "gate" when a --fail-on gate (or --baseline alone) was crossed, "error:
// SENTENCE" for each of `failures` (bankcheck's own) and each failure to write, then "done". With
// `fixes` (parallel to `reports`, or empty): fix's report of each, whose suggestions the views
// carry, or which is the report itself for `bankcheck fix PROGRAM` (RunFixOptions::report).
// `status_lines` go to the status file before "done" ("apply: nothing written").
void write_run_reports(const std::vector<analysis::CheckReport>& reports, const RunOptions& options,
                       const std::vector<std::string>& failures,
                       const std::vector<const analysis::FixReport*>& fixes = {},
                       const std::vector<std::string>& status_lines = {});

}  // namespace bankcheck::runtime
