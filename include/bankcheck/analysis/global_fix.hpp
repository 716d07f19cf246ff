// Advice for global lines whose requests touch more 32-byte sectors than their bytes need,
// from the lanes' pattern the analysis recorded (SiteStats' worst request per site): one
// access of a vector type where each lane reads neighbouring elements through several
// accesses, staging a block's tile through shared memory where the lanes walk a column, a row
// pitch that keeps rows on 32-byte sectors, an aligned base. Each says what it changes, what
// it should cost after (predicted), and, where the front end could write it from the source
// (driver/global_code.hpp), the code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/model/arch.hpp"

namespace bankcheck::analysis {

enum class GlobalFixKind {
  Vector,  // each lane's neighbouring elements, read by several accesses: one wider access
  Stage,   // lanes a row apart (a column walk): stage the block's tile through shared memory
  Pitch,   // rows of consecutive lanes that straddle sectors: a pitch of whole 128-byte lines
  Align,   // consecutive elements from a base off a 32-byte boundary: align the base
  Layout,  // an array of structures read a field at a time: a structure of arrays
};
const char* global_fix_kind_name(GlobalFixKind k);  // "vector", "stage", "pitch", ...

// A source line to rewrite: `before` is the line as it is, `after` its replacement (several
// lines where code is added).
struct GlobalEdit {
  int line = 0;
  std::string before, after;
};

struct GlobalFix {
  GlobalFixKind kind = GlobalFixKind::Layout;
  int file = 0, line = 0;
  model::Op op = model::Op::Load;
  int width = 0;           // bytes per lane of the line's accesses
  std::vector<int> sites;  // the KernelReport::sites (indices) it changes
  std::uint64_t requests = 0, sectors = 0, ideal_sectors = 0;  // now, over those sites
  // Predicted: the requests and sectors after the change (the ideal where the change leaves
  // every request on whole sectors).
  std::uint64_t requests_after = 0, sectors_after = 0;
  std::int64_t stride = 0;                  // bytes between consecutive lanes now
  int vector_bytes = 0;                     // Vector: bytes per lane of the one access
  int elements = 0;                         // Vector: the accesses it replaces (elements per lane)
  std::int64_t pitch = 0, pitch_after = 0;  // Pitch: bytes between rows now, and suggested
  std::uint64_t misalign = 0;               // Align: bytes past a 32-byte boundary
  emu::Dim3 block;                          // Stage: the block the tile is written for
  std::string why_not_code;                 // the advisor's own reason the code cannot be written
  // Filled by the front end from the source (driver/global_code.hpp):
  std::string pointer;             // the pointer the line subscripts ("out")
  std::vector<GlobalEdit> edits;   // the code; empty: the change is described only
  std::string code_note;           // why no code was written, or what the code assumes
  std::uint64_t shared_bytes = 0;  // Stage: the tile's bytes per block
  bool applicable = false;         // --apply writes the edits
};

// The advice for each global line of `k` with sectors in excess, in source order: one per line
// and kind of access. `k` is a report of check or run (per-line sums, each site's worst
// request).
std::vector<GlobalFix> advise_global(const KernelReport& k);

}  // namespace bankcheck::analysis
