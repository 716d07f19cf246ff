// HTML view of `bankcheck check`: one self-contained page (no scripts, no fetches; a
// Content-Security-Policy forbids both) with the kernel summary, the source annotated line
// by line with a heat colour by excess wavefronts, and for each conflicting line the worst
// request drawn as an SVG bank picture.
#pragma once

#include <string>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/model/analyze.hpp"

namespace bankcheck::report {

std::string render_check_html(const analysis::CheckReport& r);

// The bank picture of one analysed request as an SVG element: the warp's lanes along the
// top joined to the banks they touch, then one row per wavefront with what each bank
// delivers (the lowest lane it serves); words a bank delivers after another word of the
// same phase (the conflicts) and the lanes that wait for them are red.
std::string render_bank_svg(const model::WarpAccess& access, const model::Verdict& verdict,
                            const model::Schedule& schedule, const model::Arch& arch);

// Text made safe for HTML element content and attribute values (& < > " ').
std::string html_escape(const std::string& s);

}  // namespace bankcheck::report
