// Where Nsight Compute lists a SASS instruction: under the cubin's .debug_line rows at its
// address, all of them when several share it (bench/check/measured/h100_run_new/tuned: block_sum's
// LDS.128 under rows 146 and 143; cg_tile_sum's LDS under reduce.h:194 alone, though its
// inline chain reaches classic.cu:168).
#pragma once

#include <cstdint>
#include <vector>

#include "bankcheck/ptx/ir.hpp"
#include "bankcheck/sass/module.hpp"

namespace bankcheck::analysis {

// The lines of the instructions at `offsets` (byte offsets in the kernel's code) as
// (program file, line), without repeats. A site ptxas issued as several copies (a loop
// peeled, a path duplicated) gets the lines every copy has: which copy ran is not known,
// and a copy that never runs shows its other lines with no executions. `file_of` maps the
// cubin's .debug_line files to the program's (-1: none); rows in other files are left out.
std::vector<ptx::SourcePos> nsight_lines(const sass::Kernel& kernel, const std::vector<int>& file_of,
                                         const std::vector<std::uint32_t>& offsets);

}  // namespace bankcheck::analysis
