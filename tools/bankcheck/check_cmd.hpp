// `bankcheck check`: every shared-memory bank conflict of a kernel, per source line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/report/views.hpp"
#include "launch_options.hpp"

namespace CLI {
class App;
}

namespace bankcheck::tools {

struct CheckCmdOptions : LaunchCmdOptions {
  report::Format format = report::Format::Text;
  std::string output;
  std::string color = "auto";        // text: auto (a terminal), always, never
  std::vector<std::string> fail_on;  // 'ways>N', 'excess>P%', 'global-waste>P%', 'warning'
  std::string baseline;              // --baseline: an earlier JSON report
  bool progress = true;              // a progress line on a terminal's standard error
  int columns = 0;                   // --columns (0: not given)
  bool quiet = false;                // --quiet
  std::string source_root;           // --source-root (sarif)
};

void add_check(CLI::App& app, CheckCmdOptions& opts);
int run_check(const CheckCmdOptions& opts);

}  // namespace bankcheck::tools
