// fix's advice over a running program's kernels: the shared requests each kernel's analysed
// launches recorded, replayed by the advisor as `bankcheck fix FILE.cu` replays check's, and
// the global lines' advice, for `bankcheck fix PROGRAM` and for the suggestions run's reports
// carry; and --apply, each source with its fixes written beside it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/fix.hpp"
#include "bankcheck/analysis/recorder.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/runtime/run_options.hpp"
#include "run_modules.hpp"
#include "run_report.hpp"

namespace bankcheck::runtime {

// The shared requests `analysis` recorded (its RecorderCollector's); null when it records
// none.
const analysis::SharedRecorder* recorded(const driver::KernelAnalysis& analysis);

// fix's advice for each kernel of each module (parallel to `reports`, module_reports of the
// same modules, and to each one's kernels), from the requests each kernel recorded: every
// kernel's arrays with options.fix.report (fix's own report), otherwise (the suggestions
// run's findings carry) only those of kernels with bank conflicts; the global lines' always.
std::vector<ReportFixes> module_fixes(const std::vector<ModuleReport>& modules,
                                      const std::vector<analysis::CheckReport>& reports,
                                      const RunOptions& options, const model::Arch& arch);

// --apply over a run: each unit's source, with the fixes bankcheck can write, written beside it
// (FILE.fixed.cu, or options.apply_to when one source has any), never over an existing file
// without options.force. Fills each report's applied, patched_path, applied_changes,
// apply_note and apply_skipped; errors (a file it may not write) go to `errors`.
void apply_run_fixes(std::vector<analysis::FixReport>& reports, const RunFixOptions& options,
                     std::vector<std::string>& errors);

}  // namespace bankcheck::runtime
