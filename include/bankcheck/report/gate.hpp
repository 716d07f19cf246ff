// The CI gate of `bankcheck check --fail-on`: a threshold over the report that, crossed,
// makes the command exit 1 with a one-line summary.
#pragma once

#include <optional>
#include <string>

#include "bankcheck/analysis/check.hpp"

namespace bankcheck::report {

struct Gate {
  enum class Metric {
    Ways,           // 'ways>N': some shared line has a conflict of more than N ways
    ExcessPercent,  // 'excess>P%': some kernel has more than P% of its shared wavefronts
                    // in excess (the text summary's "(94% excess)")
  };
  Metric metric = Metric::Ways;
  double limit = 0;
  std::string spec;  // as given
};

// Parses 'ways>N' (N a whole number) or 'excess>P%' (P from 0 to 100; the % may be left
// out), spaces allowed. Throws std::invalid_argument with a message that says what is
// accepted.
Gate parse_gate(const std::string& spec);

// The one-line summary when the report crosses the gate ("--fail-on 'ways>4': 32-way bank
// conflict at k.cu:51:5 in transposeShared; 2 lines over the limit"), else nullopt.
std::optional<std::string> gate_crossed(const analysis::CheckReport& r, const Gate& gate);

}  // namespace bankcheck::report
