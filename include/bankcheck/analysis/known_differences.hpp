// The differences between bankcheck's counts and Nsight Compute's that are understood and
// measured but not removed: each recognised on the lines it applies to and printed there as
// a note with its reason and its measurement, in every report format. docs/model.md ("Known
// differences") lists them with the benches that measured them.
#pragma once

#include <cstdint>
#include <string>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/sass_requests.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::analysis {

enum class KnownDifference : std::uint8_t {
  // A shared access of 8 or 16 bytes per lane with half a warp or fewer active: Nsight's
  // per-line ideal packs the lanes' bytes into 128-byte wavefronts (1), bankcheck's is one
  // per phase with an active lane (2), the ideal its bank-conflict counter subtracts.
  MaskedWideIdeal,
  // Evict-first global loads and stores (__ldcs, __stcs: ld/st.global.cs): Nsight lists 0
  // sectors (loads with an ideal, stores without); bankcheck counts what they touch.
  EvictFirstSectors,
  // A float atomic on shared memory (an LDS + ATOMS.CAST.SPIN loop): the H100's warps make
  // each other retry; bankcheck costs each warp's passes alone.
  SharedAtomicRetries,
  // cp.async.cg issued as an LDGSTS.E.BYPASS.128 predicated on P0: Nsight reads 0.
  PredicatedBypassCopy,
  // wmma.load/store of global memory: Nsight lists their requests on the lines of <mma.h>'s
  // inlined helper and some or none of the caller's.
  WmmaGlobalLines,
};

// Its name in reports (JSON notes' `known_difference`): "masked-wide-ideal", ...
const char* known_difference_id(KnownDifference d);

// The note for a line where `d` applies: the reason, the line's own figures, and where it was
// measured.
std::string known_difference_note(KnownDifference d, const SiteStats& line);

// The emulator backend's: for each site of `rep` that one applies to, its note on the site's
// line (once per line and difference; NoteReport::known names it).
void note_known_differences(const ptx::Kernel& k, const SassPlan& plan, KernelReport& rep);

}  // namespace bankcheck::analysis
