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

// Why nothing is suggested for an array whose conflicts follow the input data, and what
// does help: "this array's conflicts depend on the input data (the index on line 42 comes
// from a global load at k.cu:42); padding cannot remove them ...". `af.data_dependent`
// must be set; `load_path` is the path of its load's file.
std::string data_dependence_text(const analysis::ArrayFix& af, const std::string& load_path);

// The change a global line's advice makes, in one sentence: "read each thread's 4 neighbouring
// elements of 'data' with one 4-byte access instead of 4 accesses of 1 B".
std::string global_change(const analysis::GlobalFix& g);

}  // namespace bankcheck::report
