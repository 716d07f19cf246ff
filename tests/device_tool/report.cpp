// The one report of a job, as `bankcheck run` writes it from the processes' parts once the
// program ended (runtime/run_job.hpp): for the GPU tool's test, whose driver runs in a job
// without `bankcheck run`.
//   device_tool_report   (BANKCHECK_RUN_JOB names the job; its options say where and how)
#include <cstdio>
#include <string>

#include "bankcheck/runtime/run_job.hpp"
#include "bankcheck/runtime/run_options.hpp"
#include "bankcheck/runtime/run_report.hpp"

int main() {
  namespace rt = bankcheck::runtime;
  std::string error;
  const rt::RunOptions options = rt::run_options_from_environment(error);
  if (!error.empty() || options.job.empty()) {
    std::fprintf(stderr, "device_tool_report: %s\n", error.empty() ? "no job" : error.c_str());
    return 2;
  }
  const rt::JobReports job = rt::job_reports(rt::read_job(options.job), {});
  for (const auto& f : job.failures) std::fprintf(stderr, "failure: %s\n", f.c_str());
  for (const auto& p : job.problems) std::fprintf(stderr, "problem: %s\n", p.c_str());
  const rt::RunReportOutcome out = rt::write_run_reports(job.reports, options, job.processes > 1);
  return out.errors.empty() ? 0 : 1;
}
