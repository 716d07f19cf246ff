// The words of a fix suggestion: the one-line change and the remap formula, written from
// the advisor's data (remap, geometry, code) for every view that shows suggestions.
#pragma once

#include <string>

#include "bankcheck/analysis/fix.hpp"

namespace bankcheck::report {

// One line: "pad each 128-byte row by 1 element: __shared__ float tile[BS][BS + 1];",
// "XOR the column with the row (Swizzle<5,0,5>): tile[threadIdx.y][threadIdx.x ^ threadIdx.y]".
// `af` must have a geometry (every array with suggestions has one).
std::string suggestion_change(const analysis::ArrayFix& af, const analysis::Suggestion& s);

// The remap on (row, column) or on byte offsets: "column -> column ^ (row & 31) (CuTe
// Swizzle<5,0,5> on element offsets)".
std::string suggestion_formula(const analysis::ArrayFix& af, const analysis::Suggestion& s);

}  // namespace bankcheck::report
