// `bankcheck fix`: what to change in each shared array, what it buys, what it costs; and
// `bankcheck occupancy`: resident blocks per SM and what limits them.
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

struct FixCmdOptions : LaunchCmdOptions {
  report::Format format = report::Format::Text;
  std::string output;
  std::string color = "auto";        // text: auto (a terminal), always, never
  std::vector<std::string> fail_on;  // 'ways>N', 'excess>P%': on the input as given
  bool progress = true;              // a progress line on a terminal's standard error
  int columns = 0;                   // --columns (0: not given)
  bool quiet = false;                // --quiet
  std::string source_root;           // --source-root (sarif)
  int top = 4;
  bool apply = false;
  std::string apply_to;
  bool force = false;
  // bankcheck fix [OPTIONS] PROGRAM [ARGS...] (or -- PROGRAM): the program run as `run` runs
  // it, its kernels' recorded shared requests fed to the advisor.
  std::vector<std::string> program;
  bool no_run = false;         // --no-run: an executable is read as a binary input, not run
  std::string launches = "1";  // with a program: as run's --launches
};

void add_fix(CLI::App& app, FixCmdOptions& opts);
int run_fix(const FixCmdOptions& opts);

struct OccupancyCmdOptions {
  std::string arch = "sm_90";
  int threads = 0;
  int regs = 0;
  std::string smem = "0", dynamic_smem = "0";
  int carveout = -1;
  report::Format format = report::Format::Text;
};

void add_occupancy(CLI::App& app, OccupancyCmdOptions& opts);
int run_occupancy(const OccupancyCmdOptions& opts);

}  // namespace bankcheck::tools
