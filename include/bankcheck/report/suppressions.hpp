// Suppressions in the source: `// bankcheck: ignore REASON` on a finding's line, or
// `// bankcheck: ignore-next-line REASON` on the line before it, optionally for some rules
// only (`ignore[bank-conflict] REASON`, rule ids comma-separated). A suppressed finding is
// still reported (listed as suppressed, with its reason) but no --fail-on gate counts it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/report/findings.hpp"

namespace bankcheck::report {

struct Suppression {
  int file = 0;              // the report's file index
  int line = 0, col = 0;     // the comment ("//") itself
  int target = 0;            // the line whose findings it accepts
  std::vector<std::string> rules;  // rule ids; empty: every rule
  std::string reason;        // the text after the marker (empty: none given)
  int used = 0;              // the findings it suppressed
};

// A problem with a suppression comment, reported at the comment: one that matches no finding
// (a note), one without a reason or naming an unknown rule, or a misspelt marker (warnings).
struct SuppressionNote {
  int file = 0, line = 0, col = 0;
  Severity severity = Severity::Note;
  std::string message;
};

// The suppressions of one source text's lines (file index `file`), and problems found while
// reading them (a misspelt marker, an unknown rule, no reason).
void parse_suppressions(const std::vector<std::string>& lines, int file,
                        std::vector<Suppression>& out, std::vector<SuppressionNote>& notes);

// Whether a `// bankcheck:` comment's text after the marker is a suppression rather than
// launch settings (it starts with "ignore").
bool is_suppression(std::string_view after_marker);

// Every finding of `r` (findings()), those a suppression accepts marked so; `suppressions`
// receives the comments read (the main file's source, and each other file holding a line of
// the report, read from disk), with their use counts, and `notes` the problems with them.
std::vector<Finding> findings(const analysis::CheckReport& r, std::vector<Suppression>& suppressions,
                              std::vector<SuppressionNote>& notes);

// The problems with `r`'s suppression comments, unused ones included.
std::vector<SuppressionNote> suppression_notes(const analysis::CheckReport& r);

}  // namespace bankcheck::report
