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

namespace bankcheck::runtime {

// The shared requests `analysis` recorded (its RecorderCollector's), taken from it; null when
// it recorded none.
std::unique_ptr<analysis::SharedRecorder> take_recorded(driver::KernelAnalysis& analysis);

// fix's report of one translation unit: `check` (its kernels in the report's order) with each
// kernel's advice, from the requests recorded per kernel (mangled name).
// With `all` (fix's own report) every kernel's arrays are advised; otherwise (the suggestions
// run's findings carry) only those of kernels with bank conflicts.
analysis::FixReport advise_unit(
    const RunUnit& unit, analysis::CheckReport check,
    std::map<std::string, std::unique_ptr<analysis::SharedRecorder>>& recorded, int top,
    const model::Arch& arch, bool all);

// --apply over a run: each unit's source, with the fixes bankcheck can write, written beside it
// (FILE.fixed.cu, or options.apply_to when one source has any), never over an existing file
// without options.force. Fills each report's applied, patched_path, applied_changes,
// apply_note and apply_skipped; errors (a file it may not write) go to `errors`.
void apply_run_fixes(std::vector<analysis::FixReport>& reports, const RunFixOptions& options,
                     std::vector<std::string>& errors);

}  // namespace bankcheck::runtime
