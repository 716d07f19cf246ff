// The one report of `bankcheck run`, rendered by the same views as `check` (one section per
// source file when there are several; with several processes, each file's section names its
// process), the --fail-on gates applied over it. bankcheck writes it from the job's parts
// (job_reports); a program run under bankcheck's library without `bankcheck run` writes its
// own at exit.
#pragma once

#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/fix.hpp"
#include "bankcheck/runtime/run_options.hpp"

namespace bankcheck::runtime {

// What writing the report came to: whether a --fail-on gate (or --baseline alone) was
// crossed, whether fix --apply had nothing to write, and bankcheck's own errors in writing it
// (each also said on standard error).
struct RunReportOutcome {
  bool gate = false;
  bool nothing_applied = false;  // fix --apply PROGRAM wrote no source (bankcheck exits 3)
  std::vector<std::string> errors;
};

// fix's advice for each kernel of one report, in the report's order (run_fix.hpp).
using ReportFixes = std::vector<analysis::KernelFix>;

// `name_processes`: the reports come from several processes; each section names its own.
// `fixes` (parallel to `reports`, or empty): the advice the views carry under each finding,
// or, for `bankcheck fix PROGRAM` (RunFixOptions::report), the report itself; with
// RunFixOptions::apply, each source's changes are written beside it.
RunReportOutcome write_run_reports(const std::vector<analysis::CheckReport>& reports,
                                   const RunOptions& options, bool name_processes = false,
                                   const std::vector<ReportFixes>& fixes = {});

}  // namespace bankcheck::runtime
