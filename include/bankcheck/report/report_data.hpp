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

#include "bankcheck/analysis/check.hpp"

namespace bankcheck::report {

inline constexpr int kReportDataVersion = 1;

nlohmann::json report_to_data(const analysis::CheckReport& report);

// Throws std::invalid_argument naming `what` and the field when `data` is not a report of
// this version. The worst requests' schedules are the model's again (model::analyze), and the
// architecture is found by name.
analysis::CheckReport report_from_data(const nlohmann::json& data, const std::string& what);

}  // namespace bankcheck::report
