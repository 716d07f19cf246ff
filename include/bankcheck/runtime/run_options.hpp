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

// What `bankcheck fix PROGRAM` asks of the run, and how `run`'s reports name that command.
struct RunFixOptions {
  // Record every shared request and give each finding fix's suggestion (run --no-fix: not).
  bool suggest = true;
  bool report = false;   // the report is fix's (each array's suggestions), not check's
  int top = 4;           // suggestions per array (fix --top)
  bool apply = false;    // write each source with its applicable fixes (FILE.fixed.cu)
  std::string apply_to;  // --apply-to: the one patched copy's path
  bool force = false;    // --force: replace an existing file there
  // The command that shows the suggestions of this run ("bankcheck fix ./app -n 4"; with
  // --apply after `fix`, writes them), for the reports to name.
  std::string command;
};

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
  // A launch identical to an earlier one of its kernel (configuration and argument bytes)
  // beyond those analysed is not executed at all.
  bool skip_repeats = false;
  std::vector<std::string> fail_on;  // --fail-on specifications
  std::string baseline;              // --baseline: an earlier JSON report (absolute path)
  std::string status;                // the file `bankcheck run` reads back (empty: none)
  unsigned threads = 0;              // 0: every core
  bool progress = true;              // a progress line on a terminal
  bool sass = true;                  // false: --ptx-level
  bool stop_on_fault = false;        // --stop-on-fault
  std::string nvcc;                  // for ptxas, when a cubin must be built
  std::string program;               // the program as the user named it
  RunFixOptions fix;                 // fix's suggestions and --apply
  std::string working_dir;           // text: paths below it are shown relative to it
};

// The environment variables that carry `options` (for `bankcheck run` to set).
std::map<std::string, std::string> run_environment(const RunOptions& options);

// The options from this process's environment; a bad value is an error message in `error`
// (the defaults are kept for it).
RunOptions run_options_from_environment(std::string& error);

}  // namespace bankcheck::runtime
