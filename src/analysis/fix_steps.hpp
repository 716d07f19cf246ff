// The steps of the fix advisor, in order (private to src/analysis): attribution of the
// recorded shared requests to arrays (fix_attribution.cpp), each array's geometry
// (fix_geometry.cpp), the candidate remaps (fix_candidates.cpp), their replay through the
// model and ranking (fix_rank.cpp), and the code each kept one means (fix_code.cpp).
// advise() in fix.cpp runs them; the words that describe a suggestion are the view's
// (report/fix_wording.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/analysis/address_taint.hpp"
#include "bankcheck/analysis/fix.hpp"

namespace bankcheck::analysis {

using Requests = std::vector<const RecordedRequest*>;

// One shared array of the kernel: its PTX symbol and bytes in the CTA's window.
struct ArrayRange {
  std::string symbol;
  std::uint64_t offset = 0, bytes = 0;
  bool is_extern = false;
};

// ---- attribution ----
struct Attribution {
  std::vector<ArrayRange> ranges;  // static arrays, then the dynamic window
  std::vector<Requests> requests;  // per range: the requests with a lane inside it
  std::uint64_t unattributed = 0;  // requests with a lane outside every array
};
Attribution attribute(const ptx::Kernel& k, const KernelReport& rep, const SharedRecorder& rec);

// The widths of an array's accesses, in bytes: the narrowest and the widest as the code
// states them (the PTX's: a load ptxas widened counts at its PTX width), and the widest as
// SASS issues them (an LDS.128 ptxas made of four scalar loads: 16).
struct Widths {
  int min = 16, code_max = 1, max = 1;
};

// The width each site's PTX states, per Kernel::sites index (0: not a memory access). A
// recorded request wider than its site's PTX width was widened by ptxas (SassPlan's
// Widened: several PTX accesses in one LDS.64/LDS.128), which ptxas can only do where the
// window is aligned; a remap that breaks the alignment gets the narrower accesses instead.
using PtxWidths = std::vector<int>;
PtxWidths ptx_widths(const ptx::Kernel& k);
// A request's width as the code states it: its site's PTX width when ptxas widened it.
int code_width(const RecordedRequest& r, const PtxWidths& ptx);

// ---- data dependence ----
// Per site, the input load reaching a shared address: address_origins (address_taint.hpp).
// Whether the site's recorded requests differ in their lanes or in their lanes' offsets from
// the first active lane: an index from the data that is the same for every request (a
// uniform offset) leaves the pattern, and what a layout does to it, the same.
bool pattern_varies(const Requests& reqs, int site);
// The array's data dependence, when its sites whose address comes from the input (and whose
// pattern varies) hold at least half of its `excess` wavefronts.
std::optional<DataDependence> data_dependence(const ptx::Kernel& k, const KernelReport& rep,
                                              const std::vector<int>& origins, const Requests& reqs,
                                              const std::vector<int>& sites, std::uint64_t excess);

// ---- geometry ----
// Whether a declaration of a scalar or CUDA vector type with evaluable dimensions has
// exactly the array's size (other types and unevaluable dimensions are given the benefit).
bool declaration_fits(const SharedDecl& d, std::uint64_t bytes);
// Bytes of a scalar or CUDA vector type named as the source writes it ("float", "int4"); 0
// for any other.
int scalar_bytes(const std::string& type);
// The member of `__shared__ struct { ... } VAR;` that every lane of `reqs` inside the array
// `ar` touches, with its own range (its offset from the members before it, each aligned to its
// element); nullopt when the requests span members or a member's size is unknown.
struct Member {
  const SharedDecl* decl = nullptr;
  ArrayRange range;
};
std::optional<Member> member_for(const std::vector<SharedDecl>& decls, const std::string& var,
                                 const ArrayRange& ar, const Requests& reqs);
// The array's rows and element: from its 2-D declaration, else the most common lane stride,
// else 128-byte bank rows. Sets af.error and returns nullopt when it has none.
// The byte distances between consecutive active lanes of the requests (ascending lanes,
// rising addresses), each counted by its requests' counts: the row strides the code uses.
std::map<std::uint64_t, std::uint64_t> lane_strides(const Requests& reqs);

std::optional<Geometry> find_geometry(ArrayFix& af, const ArrayRange& ar, const Requests& reqs,
                                      Widths w, const model::Arch& arch);

// ---- candidates ----
// Every remap worth replaying: paddings, XOR swizzles, rotations (each also at element
// granularity with wide accesses split), and narrower accesses per site.
std::vector<Remap> candidates(const Geometry& g, Widths w, const std::vector<int>& sites,
                              const Requests& reqs, const PtxWidths& ptx, const model::Arch& arch);

// ---- replay and ranking ----
struct Eval {
  bool ok = true;
  std::uint64_t wavefronts = 0, ideal = 0;
  std::uint64_t requests = 0;  // as SASS issues them
  std::map<int, std::uint64_t> per_site;
  std::map<int, int> resplit;  // ptxas-widened sites the remap unaligns: site -> SASS width
};
// Replays `reqs` (all touching array `ar`) with lanes inside it remapped (none: as they are),
// each as SASS would issue it: a ptxas-widened site whose remapped windows are no longer
// aligned (or no longer contiguous) is issued at the widest width they still allow, down to
// its PTX width.
Eval evaluate(const Requests& reqs, const ArrayRange& ar, const Geometry& g, const Remap* remap,
              const PtxWidths& ptx, const model::Arch& arch);
model::Occupancy occupancy_for(const model::Arch& arch, int threads, int regs, std::uint64_t st,
                               std::uint64_t dyn);
// The candidates that lower the wavefronts, with their costs, best first (fewest wavefronts,
// then fewest SASS requests, then fewest bytes, then most resident blocks), at most `top`,
// one per kind.
std::vector<Suggestion> rank(const std::vector<Remap>& cands, const Requests& reqs,
                             const ArrayRange& ar, const Geometry& g, const Eval& before,
                             const ArrayFix& af, const KernelFix& kf,
                             const std::function<int(int)>& site_line, const PtxWidths& ptx,
                             const model::Arch& arch, int top);

// ---- code ----
// Lines of the main file that subscript the array: the sites' lines, and every line of
// the kernel after the declaration up to the next __global__.
std::vector<int> lines_using(const SharedSource& src, const ArrayFix& af,
                             const std::vector<int>& site_lines);
// The new declaration and the rewritten lines of suggestion `s`.
void write_code(Suggestion& s, const ArrayFix& af, const ArrayRange& ar, const Geometry& g,
                const SharedSource& src, const std::vector<int>& use_lines);

}  // namespace bankcheck::analysis
