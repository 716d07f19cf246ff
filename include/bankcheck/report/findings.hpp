// What `bankcheck check` reports, as a list every view shares: one finding per source line
// with conflicting shared accesses (its kinds summed, as the text diagnostic shows them) and
// one per uncoalesced global line. Text, JSON, SARIF, HTML and the --fail-on gate render
// or test this list; none of them recounts the analysis.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/model/analyze.hpp"

namespace bankcheck::report {

enum class FindingKind {
  BankConflict,       // a shared line costs more wavefronts than its ideal
  UncoalescedGlobal,  // a global line touches more 32-byte sectors than its bytes need
  MisalignedGlobal,   // the same, where the lanes read consecutive elements from a base
                      // that is not 32-byte aligned (only the base is wrong)
};

// The one severity scale of every view (text, JSON, SARIF, HTML) and of --fail-on
// 'severity>=LEVEL': from the finding's share of its kernel's memory cost (its excess over the
// kernel's shared wavefronts, or over its global sectors): Error from 25%, Warning from 5%,
// else Note (docs/reports.md).
enum class Severity { Note, Warning, Error };

inline constexpr double kErrorShare = 0.25;
inline constexpr double kWarningShare = 0.05;

// The rule: the severity of a finding whose excess is `share` of its kernel's cost.
Severity severity_of(double share);

struct Finding {
  FindingKind kind = FindingKind::BankConflict;
  Severity severity = Severity::Note;
  std::size_t kernel = 0;  // index into CheckReport::kernels
  int file = 0, line = 0, col = 0;
  std::vector<std::size_t> lines;  // indices into KernelReport::lines summed here
  std::string what;                // "load of 4 bytes", "load of 4 bytes and store of 8 bytes"
  std::uint64_t requests = 0;
  // Shared: wavefronts and their ideal; global: 32-byte sectors and their ideal.
  std::uint64_t cost = 0, ideal = 0;
  std::uint32_t ways = 0;  // shared: the worst N-way of the line
  int worst_site = -1;     // shared: KernelReport::sites index of the worst request
  double share = 0;        // excess / the kernel's shared wavefronts (or global sectors)
  std::string message;     // the diagnostic, without location or kernel name
  std::string hint;        // global: what to change
  // A `// bankcheck: ignore REASON` comment on the line (or ignore-next-line above it)
  // accepts the finding: still reported, listed as suppressed, never counted by a gate.
  bool suppressed = false;
  std::string justification;  // the comment's REASON (may be empty)

  std::uint64_t excess() const { return model::excess_of(cost, ideal); }
};

// Every finding, kernel by kernel; within a kernel, shared lines then global lines, each in
// source order (the order of the text report); those a source comment accepts marked
// `suppressed` (suppressions.hpp).
std::vector<Finding> findings(const analysis::CheckReport& r);
// The same, before the source's suppression comments are read.
std::vector<Finding> raw_findings(const analysis::CheckReport& r);

// "bank-conflict", "uncoalesced-global-access", "misaligned-global-access": stable ids
// (SARIF rule ids, JSON `rule`).
const char* rule_id(FindingKind kind);
const char* severity_name(Severity s);  // "note", "warning", "error"
// The severity named `name` ("note", "warning", "error"); false for any other word.
bool parse_severity(const std::string& name, Severity& out);

// The path a report shows for a file index: as the user gave it for the main file.
std::string source_path(const analysis::CheckReport& r, int file);

// What to change about an uncoalesced global line, from its worst request's lane pattern.
std::string global_hint(const analysis::LineReport& l);

// The kernel's shared-memory excess in percent of its wavefronts (0 without shared
// accesses): the figure of the text summary and of --fail-on 'excess>P%'.
double shared_excess_percent(const analysis::KernelReport& k);
// The kernel's global sectors in excess of their ideal, in percent of its global sectors (0
// without global accesses): the text summary's "global memory: ... (P% excess)" and
// --fail-on 'global-waste>P%'.
double global_waste_percent(const analysis::KernelReport& k);

// Why a site's worst request costs what it does where the reports have no picture of it
// (analysis::worst_pictured() is false: a 64-bit atomic), in one sentence.
std::string why_unpictured(const analysis::SiteStats& st);

// The shared variable a shared byte offset falls in, or nullptr. An extern (dynamic)
// array reaches to the end of the kernel's dynamic shared memory.
const ptx::SharedVar* shared_var_at(const analysis::KernelReport& k, std::uint64_t offset);

// The shared variables the active lanes of a request touch, in the kernel's order.
std::vector<const ptx::SharedVar*> shared_vars_touched(const analysis::KernelReport& k,
                                                       const model::WarpAccess& a);

// "tile" for "_ZZ15transposeSharedvE4tile": a C++ name from a PTX shared variable's.
std::string shared_var_display_name(const std::string& ptx_name);

// The 1-based column of a site's access on its source line: the `.loc` column is the
// statement's, so the access is found in the line's text, by the shared array its worst
// request touches (`tile` in `out[i] = tile[tx][ty]`) or, for a global site, the pointer
// parameter it subscripts (a store's on the left of `=`, a load's on the right, the n-th load
// for the line's n-th load site); 0 when the line is not known or names none of them.
int access_column(const analysis::CheckReport& r, const analysis::KernelReport& k,
                  const analysis::SiteReport& site);

// The source line `line` (1-based) of `file`: the main file's, or another file's the report
// quoted (CheckReport::quoted_lines); nullptr when it is not known.
const std::string* source_line(const analysis::CheckReport& r, int file, int line);

}  // namespace bankcheck::report
