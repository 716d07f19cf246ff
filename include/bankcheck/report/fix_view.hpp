// Views of `bankcheck fix`: per kernel, each shared array's geometry and the ranked
// suggestions (text), and JSON (`arrays`, each with `suggestions`).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "bankcheck/analysis/fix.hpp"
#include "bankcheck/report/check_view.hpp"  // TextOptions
#include "bankcheck/report/sarif_view.hpp"

namespace bankcheck::report {

// With options.color, the locations, notes and warnings coloured as check's are.
std::string render_fix_text(const analysis::FixReport& r, const TextOptions& options = {});
nlohmann::json fix_to_json(const analysis::FixReport& r);

// The `fixes` of kernel `kernel` in check's JSON when fix's report comes with it (bankcheck
// run): each conflicting array's best suggestion and each global line's advice, with its
// edits, what it saves and whether --apply writes it.
nlohmann::json kernel_fixes_json(const analysis::FixReport& r, std::size_t kernel);

// Each conflicting array's best suggestion as a SARIF fix, attached to every conflicting
// line of the array: the declaration and the rewritten lines, each replaced whole.
std::vector<SarifFix> sarif_fixes(const analysis::FixReport& r);

// `bankcheck occupancy`: the result and its limiting factor, as text or JSON
// (docs/schema/occupancy.schema.json, this version: raised when a field is removed or
// changes meaning).
inline constexpr int kOccupancyJsonSchemaVersion = 1;
std::string render_occupancy_text(const model::Arch& arch, const model::OccupancyInput& in,
                                  const model::Occupancy& o);
nlohmann::json occupancy_to_json(const model::Arch& arch, const model::OccupancyInput& in,
                                 const model::Occupancy& o);

}  // namespace bankcheck::report
