// The CI gate of `bankcheck check --fail-on`: a threshold over the report that, crossed,
// makes the command exit 1 with a one-line summary. A gate counts only the findings that
// count: not suppressed in the source, and, with a baseline, new or worse than there.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/report/findings.hpp"

namespace bankcheck::report {

struct Gate {
  enum class Metric {
    Ways,                // 'ways>N': some shared line has a conflict of more than N ways
    ExcessPercent,       // 'excess>P%': some kernel has more than P% of its shared wavefronts
                         // in excess (the text summary's "(94% excess)")
    GlobalWastePercent,  // 'global-waste>P%': some kernel moves more than P% of its global
                         // 32-byte sectors in excess of its ideal (the text summary's
                         // "global memory: ... (17% excess)")
    Severity,            // 'severity>=LEVEL' (or just LEVEL): some finding has that severity
                         // or a higher one
  };
  Metric metric = Metric::Ways;
  double limit = 0;
  Severity level = Severity::Note;  // Metric::Severity
  std::string spec;                 // as given
};

// Parses 'ways>N' (N a whole number), 'excess>P%' or 'global-waste>P%' (P from 0 to 100; the
// % may be left out), 'severity>=LEVEL', 'severity>LEVEL' or 'LEVEL' (note, warning, error),
// spaces allowed. Throws std::invalid_argument with a message that says what is accepted.
Gate parse_gate(const std::string& spec);

// What a gate tests: the findings it counts and the totals of their kernels, from a report
// (gate_input) or from the new side of a diff (diff.hpp).
struct GateInput {
  struct Item {
    std::string where;   // "k.cu:51:5"
    std::string kernel;  // a key of `kernels`
    FindingKind kind = FindingKind::BankConflict;
    Severity severity = Severity::Note;
    std::uint32_t ways = 0;
    std::uint64_t excess = 0;
    double share = 0;
  };
  struct Kernel {
    std::string name;
    std::uint64_t shared_wavefronts = 0, global_sectors = 0;
  };
  std::vector<Item> items;
  std::map<std::string, Kernel> kernels;
};

// The gate's view of `counted`, findings of `r`.
GateInput gate_input(const analysis::CheckReport& r, const std::vector<Finding>& counted);

// The one-line summary when the counted findings cross the gate ("--fail-on 'ways>4' crossed:
// 32-way bank conflict at k.cu:51:5 in transposeShared (2 lines over the limit)"), else
// nullopt. A kernel's excess (or global waste) is that of its counted findings over its
// total; `scope` follows the figures ("new or worse than the baseline").
std::optional<std::string> gate_crossed(const GateInput& in, const Gate& gate,
                                        const std::string& scope = "");
// Over every finding of `r` not suppressed.
std::optional<std::string> gate_crossed(const analysis::CheckReport& r, const Gate& gate);

// The findings of `r` that are not suppressed.
std::vector<Finding> unsuppressed(std::vector<Finding> all);

}  // namespace bankcheck::report
