// What the GPU issues for a kernel's shared accesses: ptxas rewrites them between PTX and
// SASS (adjacent scalar loads become one LDS.64/LDS.128, also across iterations of a loop
// it unrolls; `atomicAdd(p, 1)` with an unused result becomes ATOMS.POPC.INC; a
// warp-uniform atomic becomes one lane's ATOMS). A SassPlan says, per PTX site, how SASS
// issues it; the SassRequests listener turns the emulator's PTX-level events into the
// requests that SASS makes, so that the bank model counts what the hardware counts.
//
//   PTX events   ld.shared.f32 [r-128]  [r-124]   (loop)   [r-128]  [r-124]   r += 8
//                 iteration i: -128, -124     iteration i+1: -120, -116
//                          \        \               /        /
//   SASS request                LDS.128 [R3]    (ptxas unrolled the loop twice)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/emu/events.hpp"
#include "bankcheck/ptx/ir.hpp"
#include "bankcheck/sass/module.hpp"

namespace bankcheck::analysis {

// One shared-memory instruction of the cubin, as the sass layer decodes it.
struct SassAccess {
  enum class Form : std::uint8_t {
    Plain,           // LDS / STS / ATOMS with the lanes' own addresses
    AtomPopcInc,     // ATOMS.POPC.INC: lanes on one 32-bit word merge into one update
    AtomAggregated,  // the warp's updates were folded into one lane's ATOMS
    AtomSpinLoop     // ATOMS.CAST.SPIN: the update is a load and a CAS loop
  };
  int ptx_line = 0;          // line of the PTX text the cubin was built from
  std::uint32_t offset = 0;  // byte offset of the instruction in the kernel's code
  model::Op op = model::Op::Load;
  int width = 4;  // bytes per lane
  Form form = Form::Plain;
  std::string opcode;  // as a disassembler prints it: "LDS.128", "ATOMS.POPC.INC.32"
  // LDSM, STSM and LDGSTS: requests the emulator issues as the PTX does (ldmatrix,
  // stmatrix, cp.async); they only name their site's SASS. None for LDS, STS, ATOMS.
  sass::SharedOp unit = sass::SharedOp::None;
  // An LDGSTS.E.BYPASS.128 (no ZFILL) guarded by @P0, which Nsight Compute reads as 0
  // (analysis/known_differences.hpp).
  bool predicated_bypass = false;
  bool zfill = false;  // an LDGSTS with .ZFILL (its src-size kept by ptxas)
};

// The kernel's shared-memory instructions as SassAccess (in SASS order), from the decoded
// cubin: LDS, STS and ATOMS, and the LDSM, STSM and LDGSTS that name their sites' SASS;
// ptx_line 0 for those the line table ties to no PTX line.
std::vector<SassAccess> sass_accesses(const sass::Kernel& kernel);

// How SASS issues one PTX site.
struct SassSite {
  enum class Kind : std::uint8_t {
    Ptx,         // no SASS instruction known for it: counted as PTX issues it
    Same,        // its own SASS instruction(s) of its width
    Widened,     // part of wider SASS requests (it may have none of its own)
    PopcInc,     // an atomic whose lanes on one word merge
    Aggregated,  // an atomic issued by one lane for the warp
    SpinLoop,    // an atomic issued as a CAS loop: its lanes' requests are CAS
    // A 64-bit atomic issued as LDS.64 + ATOMS.CAST.SPIN.64 in a loop, whose passes depend
    // on the values (model::atomic64_spin); its LDS.64 counts on the same site. Neither it
    // nor Atomic64 is rewritten: the PTX level has no rule for 64-bit atomics to compare.
    SpinLoop64,
    Atomic64,  // a 64-bit atomic's own ATOMS.EXCH.64 or ATOMS.CAS.64 (model::atomic64)
    // Stores to one address that ptxas issues as one STS on another PTX line (it selects the
    // value: `s[i] = 0; if (c) s[i] = v;`). The carrier, the first of them in the PTX, counts
    // one request per warp execution, on the STS's line (`placed`); the others none.
    Merged,
    // No SASS instruction, none on its PTX line, and no SASS instruction left over that it
    // could have become: ptxas removed it (an unrolled loop's unused last ldmatrix). The
    // hardware never issues it, so its requests are not counted.
    Removed,
  };
  Kind kind = Kind::Ptx;
  int width = 0;    // bytes per lane of the SASS request (Widened: of the merged request)
  int family = -1;  // Widened: sites that merge with each other (same op and base register)
  std::vector<std::string> opcodes;    // its own SASS instructions ("LDS.128"), in SASS order
  std::vector<std::uint32_t> offsets;  // and their byte offsets in the kernel's code
  bool carrier = false;                // Merged: the member whose executions the STS's are
  bool predicated_bypass = false;      // one of its instructions is SassAccess::predicated_bypass
  // cp.async: the form of its LDGSTS. A PTX src-size operand does not say it: ptxas drops a
  // literal one equal to the copy size (plain LDGSTS) and turns one selected between the
  // size and 0 into the zero-fill predicate (no .ZFILL); only a src-size it cannot resolve
  // stays .ZFILL. Unknown without SASS, or where its LDGSTS disagree.
  enum class CopyFill : std::uint8_t { Unknown, Plain, ZeroFill };
  CopyFill copy_fill = CopyFill::Unknown;
  // A site whose PTX has no source line (`.loc 1 0 0`): where Nsight Compute lists its
  // SASS (place_lineless_sites); Merged: the source line of the STS's PTX line; line 0
  // otherwise.
  ptx::SourcePos placed;
};

// The PTX-to-SASS mapping of one kernel's shared sites.
struct SassPlan {
  std::vector<SassSite> sites;  // per PTX site (non-shared sites stay Kind::Ptx)
  int families = 0;
  // Shared PTX sites without a SASS instruction and no wider neighbour to merge into, that
  // the line table does not show removed or merged: counted at PTX level.
  std::vector<int> unmatched_sites;
  bool empty() const { return families == 0 && unmatched_sites.empty() && sites.empty(); }
};

// Builds the plan from the kernel's decoded PTX and its SASS shared instructions.
// Pre: `sass` lists every shared-memory instruction of the kernel's SASS, with PTX lines
// of the same PTX text `kernel` was decoded from; `code_lines`, when not empty, the PTX
// line of every SASS instruction (sass::Kernel::ptx_lines), what the line table says.
// Post: a site whose SASS instruction is wider than the site, and every site with no SASS
// instruction of its own that accesses shared memory through the same base register with
// the same operation, are Widened in one family of that width. Of the other shared sites
// with no SASS instruction of their own and no SASS at all on their PTX line: stores of one
// width to one address (register and offset) are Merged into a plain STS of that width
// that no store site claims (the nearest such group before it in the PTX, else the
// nearest), and the rest, where no instruction of their kind is left unclaimed, Removed.
// Without `code_lines` nothing is Merged or Removed.
SassPlan plan_sass(const ptx::Kernel& kernel, const std::vector<SassAccess>& sass,
                   const std::vector<std::uint32_t>& code_lines = {});

// The cubin's line table has no row for an instruction whose PTX has no source line, so
// Nsight Compute lists it on the line of the nearest instruction before it in the code
// that has one (bench/check/measured/h100_run_new/tuned: scan_count's unrolled loads). Sets
// SassSite::placed of each such site that has SASS instructions, from its first one.
void place_lineless_sites(const ptx::Kernel& kernel, const sass::Kernel& sass, SassPlan& plan);

// wgmma.mma_async's SASS (HGMMA, QGMMA, IGMMA), whose row holds its operand reads: the line
// table often ties a GMMA to the PTX of the code around it (its descriptors, a neighbouring
// statement), not to the wgmma's own PTX line, but ptxas keeps a kernel's wgmmas in their
// order. When the kernel has as many GMMA instructions (@!PT fillers aside) as wgmma.mma_async
// sites, the k-th site in PTX order takes the k-th GMMA in SASS order (SassSite::offsets and
// opcodes, kind Same); otherwise each site takes the GMMAs the line table ties to its own
// PTX line, if any.
void place_wgmma_sites(const ptx::Kernel& kernel, const sass::Kernel& sass, SassPlan& plan);

// A listener between the emulator and the analysis: forwards non-shared events and sites
// the plan does not change unchanged, and rewrites the others into the requests SASS
// issues. A cp.async whose LDGSTS form is known (SassSite::copy_fill) goes on in that form
// (AccessEvent::src_size: .ZFILL or not), whatever its PTX's src-size operand. Widened: per warp, a
// site's request fills part of each lane's aligned window of the family's width (the same part in
// every lane); once other requests of the family with the same lanes have filled the rest, one
// request of the full width goes on, tied to a member that has its own SASS instruction. Requests
// that cannot complete a window go on as they came. One instance per thread; `finish()` flushes.
class SassRequests : public emu::Listener {
 public:
  SassRequests(const SassPlan& plan, emu::Listener& next);
  void on_access(const emu::AccessEvent& e) override;
  void finish();  // flushes partial windows (the end of a run)
  // Member requests that went on unmerged (their window never completed).
  std::uint64_t unmerged() const { return unmerged_; }
  std::uint64_t merged() const { return merged_; }

 private:
  // A request that filled part of a window: what differs between the requests of one
  // window when every lane accesses (each lane's address is its start plus `offset`).
  struct Part {
    int site = -1;
    model::Op op = model::Op::Load;
    std::uint8_t width = 0;
    std::uint64_t offset = 0;  // in each lane's window
  };
  struct Window {
    std::uint32_t mask = 0;
    std::uint32_t covered = 0;  // bytes of the window filled (bit i = byte i)
    std::uint64_t start[model::kWarpSize] = {};
    std::vector<Part> parts;
    // Every lane accessing: the first request only, which the others differ from in their
    // Part alone (copying each 600-byte event was most of the cost of a merged request).
    // Otherwise every request as it came: the addresses of the lanes that do not access
    // differ too.
    std::vector<emu::AccessEvent> events;
  };
  void flush(Window& w);
  void close(std::vector<Window>& ws, std::size_t i);
  void flush_all();
  std::vector<Window>& windows(int warp, int family);
  void widened(const emu::AccessEvent& e, const SassSite& s);

  const SassPlan& plan_;
  emu::Listener& next_;
  std::uint64_t cta_ = ~0ull;
  std::vector<std::vector<std::vector<Window>>> windows_;  // [warp][family]
  std::vector<Window> spare_;  // closed windows, whose storage the next ones reuse
  std::uint64_t unmerged_ = 0, merged_ = 0;
};

// Whether SASS issues the site's requests differently from the PTX (widened, merged lanes).
inline bool rewritten(const SassPlan& plan, int site) {
  if (site < 0 || static_cast<std::size_t>(site) >= plan.sites.size()) return false;
  const SassSite::Kind k = plan.sites[static_cast<std::size_t>(site)].kind;
  return k == SassSite::Kind::Widened || k == SassSite::Kind::PopcInc ||
         k == SassSite::Kind::Aggregated || k == SassSite::Kind::SpinLoop ||
         k == SassSite::Kind::Merged || k == SassSite::Kind::Removed;
}

// Forwards the PTX-level events of rewritten sites only: the report shows both levels
// where they differ, at the cost of a second analysis of those requests alone.
class RewrittenOnly : public emu::Listener {
 public:
  RewrittenOnly(const SassPlan& plan, emu::Listener& next) : plan_(plan), next_(next) {}
  void on_access(const emu::AccessEvent& e) override {
    if (e.space == ptx::Space::Shared && rewritten(plan_, e.site)) next_.on_access(e);
  }

 private:
  const SassPlan& plan_;
  emu::Listener& next_;
};

// One event to several listeners, in order.
class Tee : public emu::Listener {
 public:
  void add(emu::Listener* l) { to_.push_back(l); }
  void on_access(const emu::AccessEvent& e) override {
    for (emu::Listener* l : to_) l->on_access(e);
  }

 private:
  std::vector<emu::Listener*> to_;
};

}  // namespace bankcheck::analysis
