// A report as data, whole, and back: every field of analysis::CheckReport (its kernels, sites,
// lines, worst requests, notes, launches, completeness, process) in JSON, so that a report
// made in one process can be rendered by another with every view, exactly as the first would
// have (`bankcheck run`: the program's side writes its reports into the job, bankcheck renders
// the job's). This is bankcheck's own format, not the JSON view's (docs/json.md), and it is
// read by the same bankcheck that wrote it; `report_data_version` changes with it.
//
// report_from_data(report_to_data(r)) renders as r does in every view: tests/report_data_test.cpp.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/fix.hpp"

namespace bankcheck::report {

inline constexpr int kReportDataVersion = 1;

nlohmann::json report_to_data(const analysis::CheckReport& report);

// Throws std::invalid_argument naming `what` and the field when `data` is not a report of
// this version. The worst requests' schedules are the model's again (model::analyze), and the
// architecture is found by name.
analysis::CheckReport report_from_data(const nlohmann::json& data, const std::string& what);

// fix's advice for the kernels of one report (analysis::KernelFix, parallel to its kernels) as
// data and back, in the same format: a running program's side makes it at its exit, bankcheck
// renders it with the report. Throws as report_from_data does.
nlohmann::json fixes_to_data(const std::vector<analysis::KernelFix>& fixes);
std::vector<analysis::KernelFix> fixes_from_data(const nlohmann::json& data,
                                                 const std::string& what);

}  // namespace bankcheck::report
