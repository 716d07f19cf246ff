// Views of `bankcheck check`: compiler-style diagnostics with the worst warp's bank
// picture, a per-line table and a kernel summary (text), and JSON (docs/json.md,
// docs/schema/check.schema.json).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "bankcheck/analysis/check.hpp"

namespace bankcheck::report {

struct TextOptions {
  bool color = false;  // ANSI colours in the style of GCC and Clang diagnostics
};

// GCC/Clang diagnostic lines (`file:line:col: warning: ...`, `...: note: ...`), each with
// the source line, a caret and, for bank conflicts, the worst request's bank picture;
// then per kernel a per-line table and totals.
std::string render_check_text(const analysis::CheckReport& r, const TextOptions& options = {});

// The version of the JSON report of check and run (files_view.hpp's files_to_json, the one
// shape for one file or several): raised when a field is removed or changes meaning; fields
// may be added without a change. 2: always `files`, one entry per file.
inline constexpr int kCheckJsonSchemaVersion = 2;

// One file's report: an entry of the JSON report's `files` (docs/json.md).
nlohmann::json check_to_json(const analysis::CheckReport& r);

// The version of bankcheck (the project's version), for reports that name their tool.
const char* tool_version();

}  // namespace bankcheck::report
