// Views of `bankcheck check`: compiler-style diagnostics with the worst warp's bank
// picture, a per-line table and a kernel summary (text), and JSON per DESIGN.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "bankcheck/analysis/check.hpp"

namespace bankcheck::report {

std::string render_check_text(const analysis::CheckReport& r);
nlohmann::json check_to_json(const analysis::CheckReport& r);

}  // namespace bankcheck::report
