// Two reports of `check` or `run` compared finding by finding: what a change added, fixed,
// made better or worse. `bankcheck diff OLD.json NEW.json` prints it; `--baseline OLD.json`
// gates only on what is new or worse.
//
// A finding of the new report is matched to one of the old with the same file (as the
// reports name it), kernel and rule, in four passes: the same line number and source text;
// else the same source text on the nearest other line (code moved); else the line number
// less the shift of the nearest finding above it that its text matched (code moved and the
// line edited); else the same line number (the line was edited, as a fix does). Unmatched new findings are new, unmatched old
// ones fixed. A matched finding is worse when its excess or its ways grew, better when
// neither grew and one shrank, else unchanged.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/report/findings.hpp"
#include "bankcheck/report/gate.hpp"

namespace bankcheck::report {

// A finding as a report records it.
struct DiffFinding {
  std::string file, kernel, source;  // source: the line's text ("" when not known)
  std::string input;                 // the report's input file the kernel is in
  FindingKind kind = FindingKind::BankConflict;
  Severity severity = Severity::Note;
  int line = 0, col = 0;
  std::uint64_t requests = 0, cost = 0, ideal = 0, excess = 0;
  std::uint32_t ways = 0;
  double share = 0;
  bool suppressed = false;
  std::string justification;
};

// A kernel's totals, for gates over a diff.
struct DiffKernel {
  std::string file, name;
  std::uint64_t shared_wavefronts = 0, global_sectors = 0;
};

struct DiffReport {
  std::vector<DiffFinding> findings;
  std::vector<DiffKernel> kernels;
};

// The findings of a JSON report of `check` or `run` (schema_version 2, or 1 in either of its
// shapes). Throws std::invalid_argument naming `what` (the file) and the field when `j` is
// not such a report.
DiffReport diff_report(const nlohmann::json& j, const std::string& what);
// The same of a report in memory.
DiffReport diff_report(const analysis::CheckReport& r);

enum class Change { New, Fixed, Worse, Better, Same };
const char* change_name(Change c);  // "new", "fixed", "worse", "better", "unchanged"

struct DiffEntry {
  Change change = Change::Same;
  std::optional<DiffFinding> before, after;
  const DiffFinding& any() const { return after ? *after : *before; }
};

struct Diff {
  std::vector<DiffEntry> entries;  // by file, line, kernel, rule of the finding
  std::vector<DiffKernel> kernels;  // the new report's
  int count(Change c) const;
};

Diff diff(const DiffReport& before, const DiffReport& after);

// Which findings of `after` are new or worse than in `before` (one flag per finding).
std::vector<bool> new_or_worse(const DiffReport& before, const DiffReport& after);

// "k.cu:51:5: worse: bank-conflict in transposeShared: excess 448 -> 960 wavefronts, 8-way ->
// 16-way" per change (unchanged findings left out), then a summary line.
std::string render_diff_text(const Diff& d, const std::string& before_name,
                             const std::string& after_name);
nlohmann::json diff_to_json(const Diff& d, const std::string& before_name,
                            const std::string& after_name);
inline constexpr int kDiffJsonSchemaVersion = 1;

// A JSON report read from `path` (diff_report); std::invalid_argument "PATH: ..." when it
// cannot be read or is not one.
DiffReport read_report_file(const std::string& path);

// The gates over `r`'s counted findings: not suppressed, and, with a baseline (the report
// read from `baseline_name`), new or worse than there. One line per crossed gate; with a
// baseline and no gate, one line when any counted finding is new or worse. Empty: passed.
std::vector<std::string> crossed_gates(const analysis::CheckReport& r,
                                       const std::vector<Gate>& gates, const DiffReport* baseline,
                                       const std::string& baseline_name);

// The gates' view of the new or worse findings of a diff that are not suppressed.
GateInput gate_input(const Diff& d);

}  // namespace bankcheck::report
