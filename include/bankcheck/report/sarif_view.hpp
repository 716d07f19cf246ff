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
  std::string rule;  // the finding's rule id; empty: bank-conflict
  std::string finding_file;
  int finding_line = 0;
  std::string description;  // "Pad each row of tile by one float: float tile[32][33]"
  std::string file;         // the file edited (usually where the array is declared)
  std::vector<SarifReplacement> replacements;
};

// The base id of the source root in `run.originalUriBaseIds`.
inline constexpr const char* kSourceRootId = "SRCROOT";

// Where the log's paths are rooted. `source_root` (absolute; empty: none) becomes
// `run.originalUriBaseIds.SRCROOT`, and every artifact location below it a relative `uri`
// with `"uriBaseId": "SRCROOT"`; a file outside it keeps an absolute file:// URI. Relative
// report paths are taken relative to `working_dir` (absolute; empty: the current directory).
struct SarifOptions {
  std::string source_root;
  std::string working_dir;
};

// The SARIF log. `fixes` (nullptr: none) become `result.fixes` of the results they name;
// a result gets no `fixes` property when none names it.
nlohmann::json check_to_sarif(const analysis::CheckReport& r,
                              const std::vector<SarifFix>* fixes = nullptr,
                              const SarifOptions& options = {});

// bankcheck run: the invocation of a report's process (processId, commandLine, arguments,
// exitCode or exitSignalNumber and exitSignalName), with a warning notification for each
// sentence of incompleteness() (the run's counts are not the whole of what it did; a launch
// that did not run also has the descriptor "not-run" and its library, kernel, mangled name,
// launches, callSite and error as properties); only {"executionSuccessful": true} and those
// notifications for a report without a process.
nlohmann::json sarif_invocation(const analysis::CheckReport& r);
// Those notifications alone.
nlohmann::json sarif_incompleteness(const analysis::CheckReport& r);

// A file path as a SARIF URI: a relative reference for a relative path (percent-encoded),
// file:// for an absolute one.
std::string path_to_uri(const std::string& path);

// A file's artifactLocation: {"uri": relative, "uriBaseId": "SRCROOT"} when the file lies
// under options.source_root, else {"uri": path_to_uri(path)}.
nlohmann::json artifact_location(const std::string& path, const SarifOptions& options);

// originalUriBaseIds of the log ({"SRCROOT": {"uri": "file:///root/"}}); null when
// options.source_root is empty.
nlohmann::json uri_base_ids(const SarifOptions& options);

}  // namespace bankcheck::report
