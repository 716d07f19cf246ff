// Views of `bankcheck check` over several files: each file's own report put together. Text:
// one section per file; JSON: `files`, an array of single-file reports (docs/json.md), the
// one JSON shape (one file too is a `files` of one); SARIF: one run with every file's
// results. One file keeps the single-file text, SARIF and HTML views.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/fix.hpp"
#include "bankcheck/report/check_view.hpp"
#include "bankcheck/report/sarif_view.hpp"

namespace bankcheck::report {

// One file of the run: its report, or the error that stopped it.
struct FileResult {
  std::string input;                              // as given, or from -p's database
  const analysis::CheckReport* report = nullptr;  // null when the file failed
  std::string error;                              // why it failed (the message on stderr)
  std::string note;                               // a line about the file ("no kernel named ...")
  const analysis::FixReport* fix = nullptr;       // fix's report, for views that need it
};

// "== FILE (I of N) ==" before each file's text report; a failed file gets
// "bankcheck: error: MESSAGE" instead, as standard error had it.
std::string render_files_text(const std::vector<FileResult>& files,
                              const TextOptions& options = {});

// {"schema_version", "tool", "files": [check_to_json of each file, or {"input", "error"}]}.
nlohmann::json files_to_json(const std::vector<FileResult>& files);

// One SARIF run: every file's results (with fix's suggestions where FileResult::fix is
// set) and artifacts (indices renumbered), the run's properties naming the inputs; a
// failed file is a tool execution notification of level error, and the invocation is
// then not successful.
// Paths are rooted as `options` says (check_to_sarif).
nlohmann::json files_to_sarif(const std::vector<FileResult>& files,
                              const SarifOptions& options = {});

}  // namespace bankcheck::report
