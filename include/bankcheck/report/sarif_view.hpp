// SARIF 2.1.0 view of `bankcheck check`: the log that code-scanning services and editors'
// SARIF viewers read. One result per finding (report/findings.hpp), a rule per finding
// kind, the level from the finding's severity, the source region, related locations (the
// other lines that touch the same shared array) and, where given, a fix.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"

namespace bankcheck::report {

// One edit of a source file: the region [start, end) replaced by `inserted_text`. Lines
// and columns are 1-based; end_column is the column just past the last replaced
// character (SARIF's endColumn). An insertion has end equal to start.
struct SarifReplacement {
  int start_line = 0, start_column = 0;
  int end_line = 0, end_column = 0;
  std::string inserted_text;
};

// A fix for one finding, as `bankcheck fix` suggests it (its best candidate). It is
// attached to the bank-conflict result of kernel `kernel` (empty: any kernel) whose
// primary location is `finding_file`:`finding_line` (the path as the report shows it).
struct SarifFix {
  std::string kernel;
  std::string finding_file;
  int finding_line = 0;
  std::string description;  // "Pad each row of tile by one float: float tile[32][33]"
  std::string file;         // the file edited (usually where the array is declared)
  std::vector<SarifReplacement> replacements;
};

// The SARIF log. `fixes` (nullptr: none) become `result.fixes` of the results they name;
// a result gets no `fixes` property when none names it.
nlohmann::json check_to_sarif(const analysis::CheckReport& r,
                              const std::vector<SarifFix>* fixes = nullptr);

// A file path as a SARIF URI: a relative reference for a relative path (percent-encoded),
// file:// for an absolute one.
std::string path_to_uri(const std::string& path);

}  // namespace bankcheck::report
