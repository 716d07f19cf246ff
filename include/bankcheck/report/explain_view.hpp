// Views of `bankcheck explain`: text with the bank picture, and JSON. They render an
// analysis::ExplainResult and never call the model.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "bankcheck/analysis/explain.hpp"

namespace bankcheck::report {

using analysis::ExplainResult;

// One line of verdict, a sentence of why, and the picture of the worst warp's requests:
// banks across, wavefronts down, the lane each bank serves in each cell.
std::string render_text(const ExplainResult& r);

// The version of the JSON below (docs/schema/explain.schema.json): raised when a field is
// removed or changes meaning; fields may be added without a change.
inline constexpr int kExplainJsonSchemaVersion = 1;

// Fields: schema_version, tool, wavefronts, ideal_wavefronts, excess, ways (the worst warp),
// total_excess, total_wavefronts, total_ideal_wavefronts, worst_warp, and warps[] with each
// request's verdict and schedule.
nlohmann::json to_json(const ExplainResult& r);

// The bank picture of one analysed request: banks across, wavefronts down, the lowest
// lane each bank serves in each cell (+ broadcast, ! conflict, . idle), phases marked.
// When its rows are wider than `columns` (0: no limit), the banks are folded into groups
// (16 banks, else 8) drawn one after the other, each with its bank header and every
// wavefront's row.
std::string render_picture(const model::WarpAccess& access, const model::Verdict& verdict,
                           const model::Schedule& schedule, const model::Arch& arch,
                           int columns = 0);

// Columns of a picture row that shows `banks` banks ("  wf NNN " and 4 per bank).
inline constexpr int picture_columns(int banks) { return 9 + 4 * banks; }

// The text of `explain` with its pictures folded to `columns` (render_picture).
std::string render_text(const ExplainResult& r, int columns);

// "lanes 0 and 16 read different words of bank 0 (bytes 0 and 128)": the worst bank of
// one analysed request, in words. `site_op`: the operation the request stands for when its
// own is the phase rule's (ldmatrix's and wmma's rows are costed as stores, and read).
std::string why(const model::WarpAccess& a, const model::Verdict& v, const model::Schedule& s,
                const model::Arch& arch, std::optional<model::Op> site_op = std::nullopt);

}  // namespace bankcheck::report
