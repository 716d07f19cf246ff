// The code of the global advice (analysis/global_fix.hpp), written from the kernel's source
// where its shape is one the rewrite can keep exact:
//   - Vector: a loop `for (int k = 0; k < N; ++k)` whose unconditional body reads p[E + k]:
//     one N-element load of a vector type before it (uchar4, float4, ...), the loop reading
//     its elements;
//   - Stage: a statement `[if (COND)] dst[I] = src[J];` at the top of a kernel launched with
//     2-D blocks: the block's tile read into shared memory as before, then each thread stores
//     the element of the thread whose store falls next to its neighbours' (the thread indices
//     swapped through threadIdx.y * bx + threadIdx.x), the guard and the index variables
//     re-derived for that thread; the tile padded so that its transposed read is free of bank
//     conflicts.
// Anything else is described, not written, and `code_note` says why.
#pragma once

#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/global_fix.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/model/arch.hpp"

namespace bankcheck::driver {

// Fills g.pointer, g.edits, g.code_note, g.shared_bytes and g.applicable from the main file's
// lines (`source_lines`, as the report quotes them) for kernel `k` (its base name and
// parameters in `sig`). Nothing is written for a line outside the main file.
void write_global_code(analysis::GlobalFix& g, const std::vector<std::string>& source_lines,
                       int main_file, const analysis::KernelReport& k, const KernelSignature& sig,
                       const model::Arch& arch);

}  // namespace bankcheck::driver
