// What `bankcheck run` asks of the executor inside the program: the report's format and
// destination, which kernels and launches to analyse, the gates, where to leave the status.
// `bankcheck run` passes them in the environment (BANKCHECK_RUN_*, set_run_environment);
// a program started under the library without it gets the defaults (a text report on
// standard error).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace bankcheck::runtime {

struct RunOptions {
  std::string format = "text";  // a format's name (report/views.hpp)
  std::string output;           // the report's file; empty: standard error
  std::string color = "auto";   // auto, always or never (text on standard error)
  int columns = 0;              // text: columns a bank picture may take (0: no limit)
  bool quiet = false;           // text: the findings only (report::TextOptions::quiet)
  // --kernel: analyse only the kernels these name (as `check --kernel` matches); the others
  // still execute. Empty: every kernel.
  std::vector<std::string> kernels;
  // Launches analysed per kernel and configuration (grid, block, dynamic shared memory),
  // the first ones; 0: all.
  std::uint64_t launches = 1;
  // A launch beyond those analysed whose results are provably in memory already (it repeats
  // an earlier execution whose reads are unchanged and whose writes still hold:
  // src/driver/repeats.hpp) is not executed; false: every launch runs.
  bool skip_repeats = true;
  // Launches not analysed run on the fast tier (driver CheckOptions::fast_tier).
  bool fast_tier = true;
  std::vector<std::string> fail_on;  // --fail-on specifications
  std::string baseline;              // --baseline: an earlier JSON report (absolute path)
  std::string status;                // the file `bankcheck run` reads back (empty: none)
  unsigned threads = 0;              // 0: every core
  bool progress = true;              // a progress line on a terminal
  bool sass = true;                  // false: --ptx-level
  bool stop_on_fault = false;        // --stop-on-fault
  std::string nvcc;                  // for ptxas, when a cubin must be built
  std::string program;               // the program as the user named it
};

// The environment variables that carry `options` (for `bankcheck run` to set).
std::map<std::string, std::string> run_environment(const RunOptions& options);

// The options from this process's environment; a bad value is an error message in `error`
// (the defaults are kept for it).
RunOptions run_options_from_environment(std::string& error);

}  // namespace bankcheck::runtime
