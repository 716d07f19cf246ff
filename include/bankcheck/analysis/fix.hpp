// The fix advisor: which shared array each request touches, that array's geometry, and
// candidate remappings (row padding, XOR swizzles, rotation, a narrower access) judged by
// replaying every recorded request of the array through the model, ranked by
// wavefronts, then shared bytes, then occupancy.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/global_fix.hpp"
#include "bankcheck/analysis/recorder.hpp"
#include "bankcheck/analysis/shared_source.hpp"
#include "bankcheck/model/arch.hpp"
#include "bankcheck/model/occupancy.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::analysis {

// How the array is laid out: rows of `row_bytes`, `elem_bytes` per element.
struct Geometry {
  int elem_bytes = 0;
  std::uint64_t row_bytes = 0;
  std::uint64_t rows = 0;
  int unit = 1;  // elements the widest access moves (kept together by every remap)
  // Record: an array of a class type (`__shared__ Particle p[256]`), each row one element of
  // `record` (its stride in bytes is row_bytes).
  enum class Source { Declaration, Accesses, BankRows, Record } source = Source::BankRows;
  std::string record;
  std::string describe() const;  // "4096 B, 32 rows of 128 B"
};

// TmaSwizzle: a tile a tensor copy writes (or wgmma reads) in another of the TMA unit's
// swizzle modes (model/swizzle.hpp): the tensor map's, the descriptors' and the readers'.
enum class FixKind { Pad, Swizzle, Rotate, Width, TmaSwizzle };
const char* fix_kind_name(FixKind k);

// A remap of byte offsets within the array (Pad, Swizzle, Rotate), or a narrower access
// at one site (Width).
struct Remap {
  FixKind kind = FixKind::Pad;
  int pad = 0;    // Pad: elements added to each row
  int bits = 0;   // Swizzle: B (row bits XORed into the column)
  int base = 0;   // Swizzle: M (log2 of the unit kept together)
  int shift = 0;  // Swizzle: S (column bits between the two fields)
  int site = -1;  // Width: the site accessed narrower
  int width = 0;  // Width: the new access width in bytes
  int unit = 1;   // Rotate: elements moved together (the widest access, in elements)
  int split = 0;  // Pad/Swizzle/Rotate: wider accesses become accesses of this many bytes
  // Swizzle of padded rows: the rows are `stride` bytes apart in the array and hold
  // `stride - unpad` bytes of data; the swizzle acts on the rows without their padding
  // (rows of stride - unpad bytes: a 144-byte padded row of 64 halves becomes 128 bytes).
  int unpad = 0, stride = 0;
  // TmaSwizzle: the mode to use (`bits`, 1-3: 32B, 64B, 128B) and the one the tile has now
  // (`from`, 0-3); the modes act on shared addresses, the array's starting at `origin`.
  int from = 0;
  std::uint32_t origin = 0;
};

// Whether a Swizzle's XORed bits all lie within a row of `g` (a tile inside a wide row:
// Swizzle<3,3,3> of a 64-half-wide tile in rows of 4096 halves), rather than coming from
// the row index.
bool swizzles_within_row(const Remap& r, const Geometry& g);

// Applies a Pad/Swizzle/Rotate remap to a byte offset within the array.
std::uint32_t remap_offset(const Remap& r, const Geometry& g, std::uint32_t offset);

struct CodeEdit {
  int line = 0;
  std::string before, after;
};

struct SiteChange {
  int site = -1;  // Kernel::sites index
  int line = 0;
  model::Op op = model::Op::Load;
  int width = 0;  // bytes per lane of its requests as SASS issues them (LDS.128: 16)
  std::uint64_t requests = 0, wavefronts_before = 0, wavefronts_after = 0;
  // A site ptxas widened (its PTX accesses are narrower than `width`) whose windows the
  // remap leaves unaligned: the narrower width SASS would issue it at (LDS.128 -> 4 x LDS:
  // 4); 0 when SASS issues it as before.
  int sass_width_after = 0;
};

struct Suggestion {
  Remap remap;              // its words (change, formula) are the views': report/fix_wording.hpp
  std::string declaration;  // the new declaration line, when the declaration changes
  std::string subscript;    // the first rewritten subscript, when subscripts change
  // Each rewritten line's first rewritten subscript (a finding's own line shows its own).
  std::vector<std::pair<int, std::string>> line_subscripts;
  std::vector<CodeEdit> edits;  // source lines rewritten (index expressions)
  std::uint64_t wavefronts_before = 0, wavefronts_after = 0, ideal_wavefronts = 0;
  // Shared requests as SASS issues them (an LDS.128 ptxas can no longer issue is 4 x LDS).
  std::uint64_t requests_before = 0, requests_after = 0;
  std::uint64_t bytes_before = 0, bytes_after = 0;
  model::Occupancy occupancy_before, occupancy_after;
  bool occupancy_known = false;
  std::vector<SiteChange> sites;
  bool applicable = false;  // --apply can write it (declaration padding)
};

// Conflicts that follow the input data: the array's sites whose shared address comes from a
// value the kernel loaded (a histogram's `bins[data[i]]`) hold most of its excess, so a
// layout only moves which keys collide.
struct DataDependence {
  int site = -1;  // Kernel::sites index: the one of them with the most excess
  int line = 0;
  model::Op op = model::Op::Load;
  int load_file = 0, load_line = 0;  // the load the index comes from
  bool load_global = true;           // ld.global (else a load through a generic pointer)
  // Lanes with equal keys already merged: by ptxas (ATOMS.POPC.INC) or by the code
  // (__match_any_sync); none for loads, stores and plain atomics.
  enum class Merged { None, PopcInc, Match } merged = Merged::None;
  std::uint64_t excess = 0;  // those sites' excess wavefronts
};

struct ArrayFix {
  std::string name;    // "tile"
  std::string symbol;  // the PTX symbol
  std::uint64_t offset = 0, bytes = 0;
  bool is_extern = false;
  std::optional<SharedDecl> decl;
  std::optional<Geometry> geometry;
  std::vector<int> sites;  // Kernel::sites indices that touch it
  int widest_access = 0;   // bytes: the widest access of its requests
  std::uint64_t requests = 0, wavefronts = 0, ideal_wavefronts = 0;
  std::string error;  // why nothing is suggested (attribution or geometry), empty if none
  // A tile a tensor copy (cp.async.bulk.tensor) writes or wgmma reads: the swizzle mode it
  // has now (model::TmaSwizzle), the copy's box row in bytes (0: none), and the lines of the
  // copy and of the wgmma. Its suggestions are the other swizzle modes (TmaSwizzle).
  struct Tile {
    int mode = 0;
    std::uint32_t row_bytes = 0;
    int copy_line = 0, wgmma_line = 0;
  };
  std::optional<Tile> tile;
  std::optional<DataDependence> data_dependent;  // set: nothing suggested, this is why
  std::vector<Suggestion> suggestions;           // best first
};

// A suggestion must save at least this share of the array's wavefronts: below it, the
// difference is within what another input or another sample of CTAs changes.
inline constexpr double kMinSaving = 0.01;

struct KernelFix {
  std::string kernel;
  int threads = 0;
  int registers = -1;  // from ptxas -v; -1 when unknown
  std::uint64_t static_smem = 0, dynamic_smem = 0;
  model::Occupancy occupancy;
  bool occupancy_known = false;
  std::string occupancy_note;  // why occupancy is unknown
  std::uint64_t recorded_requests = 0, dropped_requests = 0;
  std::vector<ArrayFix> arrays;
  std::uint64_t unattributed_requests = 0;  // requests with a lane outside every array
  std::vector<GlobalFix> globals;  // the global lines with sectors in excess (global_fix.hpp)
};

struct AdviseInput {
  const ptx::Kernel* kernel = nullptr;
  const KernelReport* report = nullptr;
  const SharedRecorder* recorder = nullptr;
  const model::Arch* arch = nullptr;
  const SharedSource* source = nullptr;  // the .cu's declarations and subscripts; null: none
  int main_file = 0;
  int registers = -1;
  std::string registers_note;
  int top = 4;  // suggestions kept per array
};

KernelFix advise(const AdviseInput& in);

// What `bankcheck fix` found: the check, the advice per kernel, and what --apply did.
struct FixReport {
  CheckReport check;
  std::vector<KernelFix> kernels;  // parallel to check.kernels
  bool applied = false;
  std::string patched_path;
  std::vector<std::string> applied_changes;
  std::string apply_note;  // why nothing was applied
  std::vector<std::string> apply_skipped;  // applied: the conflicting arrays left, and why
  std::optional<CheckReport> recheck;
};

// The source with each array's best padding applied to its declaration; `applied`
// receives "name: new declaration" per change. Empty optional when there is none.
std::optional<std::string> apply_padding(const std::string& source,
                                         const std::vector<KernelFix>& fixes,
                                         std::vector<std::string>* applied);

// apply_padding, then each global line's code that can be written (GlobalFix::applicable),
// where its lines are still as the advice read them; `applied` gets one entry per change.
std::optional<std::string> apply_fixes(const std::string& source,
                                       const std::vector<KernelFix>& fixes,
                                       std::vector<std::string>* applied);

// Why --apply writes nothing for the conflicting arrays it leaves as they are: one line per
// array with more wavefronts than ideal and no applicable suggestion, "'tile' of k (line 7):
// REASON" (its error, the data dependence, a padding --apply cannot write alone, or
// suggestions that rewrite index expressions only), and one per global line whose code is not
// written.
std::vector<std::string> not_applied(const std::vector<KernelFix>& fixes);

}  // namespace bankcheck::analysis
