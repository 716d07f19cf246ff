// Views of `bankcheck check`: compiler-style diagnostics with the worst warp's bank
// picture, a per-line table and a kernel summary (text), and JSON (docs/json.md,
// docs/schema/check.schema.json).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/fix.hpp"

namespace bankcheck::report {

// How a report is rendered, for the views that read it (the name is the text view's, the
// first to have options).
struct TextOptions {
  bool color = false;  // ANSI colours in the style of GCC and Clang diagnostics
  // Columns the text may take (0: no limit): a bank picture wider than this is folded
  // into groups of banks (render_picture).
  int columns = 0;
  // Only findings (warnings) and what is wrong: no kernel summaries, per-line tables or
  // notes (text).
  bool quiet = false;
  // SARIF: where paths are rooted (SarifOptions::source_root; empty: none).
  std::string source_root{};
  // Text: the directory paths are shown relative to (display_path; empty: the current one).
  std::string working_dir{};
  // Text with fix's report: the command that applies the suggestions (bankcheck run names
  // `bankcheck fix --apply PROGRAM ARGS`); empty: `bankcheck fix` with the same options.
  std::string fix_command{};
  // Text: end with the summary line (a report of several files has one for the run; with
  // --quiet, no file's own).
  bool summary = true;
};

// A path as the text report shows it: below `working_dir` (empty: the current directory),
// relative to it ("src/k.cu"); elsewhere, or already relative, as it is. A relative path that
// has to climb out ("../../x.cu") would be longer to read than the absolute one, and would
// move with the reader's directory, so it is never written.
std::string display_path(const std::string& path, const std::string& working_dir = {});
// What a report of `bankcheck run` leaves out, one sentence each, for every view: the
// process's reasons (it was killed, it ended while a launch ran), the launches that did not
// run (analysis::not_run_text, in the order of CheckReport::not_run) and each kernel's
// analysed launches not counted whole ("kernel k: launches 3 and 8 are not counted whole:
// REASON"). Empty for a complete report.
std::vector<std::string> incompleteness(const analysis::CheckReport& r);

// The process of a report in words: "process 4242 (rank 1): ./app --size 8; killed by SIGKILL".
std::string process_line(const analysis::ProcessInfo& p);

// GCC/Clang diagnostic lines (`file:line:col: warning: ...`, `...: note: ...`), each with
// the source line, a caret and, for bank conflicts, the worst request's bank picture;
// then per kernel a per-line table and totals.
std::string render_check_text(const analysis::CheckReport& r, const TextOptions& options = {},
                              const analysis::FixReport* fix = nullptr);

// The closing line of a text report: "3 kernels: 2 errors, 1 warning" (the findings by
// severity, those suppressed in the source counted apart; "no findings" when there are none).
std::string summary_line(const analysis::CheckReport& r);
// Whether --quiet prints a finding of `r` (one at warning or above, not suppressed): a quiet
// report ends with the summary line only then.
bool quiet_has_findings(const analysis::CheckReport& r);
// The same over several files' reports: "2 files, 3 kernels: 1 error".
std::string summary_line(const std::vector<const analysis::CheckReport*>& reports);

// The version of the JSON report of check and run (files_view.hpp's files_to_json, the one
// shape for one file or several): raised when a field is removed or changes meaning; fields
// may be added without a change. 2: always `files`, one entry per file.
inline constexpr int kCheckJsonSchemaVersion = 2;

// One file's report: an entry of the JSON report's `files` (docs/json.md).
nlohmann::json check_to_json(const analysis::CheckReport& r);

// The version of bankcheck (the project's version), for reports that name their tool.
const char* tool_version();

}  // namespace bankcheck::report
