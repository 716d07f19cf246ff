// The one report of `bankcheck run`, rendered by the same views as `check` (one section per
// source file when there are several; with several processes, each file's section names its
// process), the --fail-on gates applied over it. bankcheck writes it from the job's parts
// (job_reports); a program run under bankcheck's library without `bankcheck run` writes its
// own at exit.
#pragma once

#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/runtime/run_options.hpp"

namespace bankcheck::runtime {

// What writing the report came to: whether a --fail-on gate (or --baseline alone) was
// crossed, and bankcheck's own errors in writing it (each also said on standard error).
struct RunReportOutcome {
  bool gate = false;
  std::vector<std::string> errors;
};

// `name_processes`: the reports come from several processes; each section names its own.
RunReportOutcome write_run_reports(const std::vector<analysis::CheckReport>& reports,
                                   const RunOptions& options, bool name_processes = false);

}  // namespace bankcheck::runtime
