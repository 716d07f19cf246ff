// What the GPU issues for a kernel's shared accesses: ptxas rewrites them between PTX and
// SASS (adjacent scalar loads become one LDS.64/LDS.128, `atomicAdd(p, 1)` with an unused
// result becomes ATOMS.POPC.INC, a warp-uniform atomic becomes one lane's ATOMS.ADD). A
// SassPlan says, per PTX site, which SASS instruction serves it and in what form; the
// SassRequests listener turns the emulator's PTX-level events into the requests that SASS
// makes, so that the bank model counts what the hardware counts.
//
//   PTX events   ld.shared.f32 [r+0]  [r+4]  [r+8]  [r+12]     (4 requests, 4 B per lane)
//                        \       |      |      /
//   SASS request           LDS.128 [R+0]                       (1 request, 16 B per lane)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/emu/emulator.hpp"
#include "bankcheck/ptx/ir.hpp"
#include "bankcheck/sass/module.hpp"

namespace bankcheck::analysis {

// One shared-memory instruction of the cubin, as the sass layer decodes it.
struct SassAccess {
  enum class Form : std::uint8_t {
    Plain,          // LDS / STS / ATOMS with the lanes' own addresses
    AtomPopcInc,    // ATOMS.POPC.INC: lanes on one 32-bit word merge into one update
    AtomAggregated  // the warp's updates were folded into one lane's ATOMS
  };
  int ptx_line = 0;          // line of the PTX text the cubin was built from
  std::uint32_t offset = 0;  // byte offset of the instruction in the kernel's code
  model::Op op = model::Op::Load;
  int width = 4;  // bytes per lane
  Form form = Form::Plain;
  std::string opcode;  // as a disassembler prints it: "LDS.128", "ATOMS.POPC.INC.32"
};

// The kernel's LDS, STS and ATOMS as SassAccess (in SASS order), from the decoded cubin.
// ldmatrix, stmatrix and LDGSTS are not among them yet: the emulator does not run them.
std::vector<SassAccess> sass_accesses(const sass::Kernel& kernel);

// How one group of PTX sites is issued.
struct SassGroup {
  enum class Kind : std::uint8_t {
    Same,        // one PTX site, one SASS instruction of its width
    Widened,     // several PTX sites, one wider SASS request (sites in address order)
    PopcInc,     // an atomic whose lanes on one word merge
    Aggregated,  // an atomic issued by one lane for the warp
  };
  Kind kind = Kind::Same;
  std::vector<int> sites;            // PTX sites; Widened: member k covers bytes [k*w, (k+1)*w)
  int width = 4;                     // bytes per lane of the SASS request
  int issued_at = -1;                // the site whose PTX line the SASS instruction carries
  std::vector<std::string> opcodes;  // the SASS instructions (several if ptxas duplicated)
};

// The PTX-to-SASS mapping of one kernel's shared sites.
struct SassPlan {
  std::vector<SassGroup> groups;
  std::vector<int> group_of_site;  // per PTX site: index into groups, -1 = no SASS known
  // Shared PTX sites whose SASS instruction was not found (counted at PTX level).
  std::vector<int> unmatched_sites;
  bool empty() const { return groups.empty(); }
};

// Builds the plan from the kernel's decoded PTX and its SASS shared instructions.
// Pre: `sass` lists every shared-memory instruction of the kernel's SASS, with PTX lines
// of the same PTX text `kernel` was decoded from.
// Post: every PTX shared site is in at most one group; a site that SASS widened into a
// neighbour's request belongs to that neighbour's Widened group.
SassPlan plan_sass(const ptx::Kernel& kernel, const std::vector<SassAccess>& sass);

// A listener between the emulator and the analysis: forwards non-shared events and sites
// the plan does not know unchanged; rewrites the others into the requests SASS issues.
// A Widened group is emitted once all its members have arrived for a warp with the same
// lanes and contiguous addresses; otherwise (a member missing, lanes differing, addresses
// not contiguous or not aligned to the SASS width) its members go on as they came, as
// ptxas could not have merged them. One instance per thread; `finish()` flushes.
class SassRequests : public emu::Listener {
 public:
  SassRequests(const SassPlan& plan, emu::Listener& next);
  void on_access(const emu::AccessEvent& e) override;
  void finish();  // flushes members still waiting (end of a run)
  // Widened groups whose members arrived but could not be merged (counted per request).
  std::uint64_t unmerged() const { return unmerged_; }

 private:
  struct Pending {
    std::uint32_t have = 0;  // members present (bit k)
    std::vector<emu::AccessEvent> events;
  };
  void flush(Pending& p, int group);
  void flush_all();
  Pending& pending(int warp, int group);

  const SassPlan& plan_;
  emu::Listener& next_;
  std::uint64_t cta_ = ~0ull;
  std::vector<std::vector<Pending>> pending_;  // [warp][group]
  std::vector<int> member_of_site_;            // index of the site within its group
  std::uint64_t unmerged_ = 0;
};

}  // namespace bankcheck::analysis
