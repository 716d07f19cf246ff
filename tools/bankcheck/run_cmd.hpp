// `bankcheck run`: the user's own program, its kernels analysed where they run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/report/views.hpp"
#include "bankcheck/runtime/run_options.hpp"

namespace CLI {
class App;
}

namespace bankcheck::tools {

struct RunCmdOptions {
  std::string backend = "auto";
  std::vector<std::string> kernels;
  std::string arch = "sm_90";
  report::Format format = report::Format::Text;
  std::string output;
  std::string color = "auto";
  int columns = 0;      // --columns (0: not given)
  bool quiet = false;   // --quiet
  std::vector<std::string> fail_on;
  std::string baseline;
  std::string kernel_name_base = "function";
  std::string launches;  // N or all; empty: not given (1, or all with --filter-mode global)
  std::uint64_t launch_skip = 0;
  std::string launch_count;  // empty: not given
  std::string filter_mode = "per-launch-config";
  std::vector<std::string> nvtx_include, nvtx_exclude;
  std::string repeats = "skip";
  std::string tier = "fast";  // hidden --tier: the throughput benchmark's baseline
  std::string native = "on";  // --native
  unsigned threads = 0;
  bool progress = true;
  bool ptx_level = false;
  bool stop_on_fault = false;
  std::string nvcc;
  std::vector<std::string> command;  // the program and its arguments
  runtime::RunFixOptions fix;        // bankcheck fix PROGRAM: fix's report and --apply
};

void add_run(CLI::App& app, RunCmdOptions& options);
// Runs the program; returns bankcheck's exit code (the program's own, 1 for a crossed gate, 2
// for bankcheck's own failure; 128 + N when the program was killed by signal N).
int run_program(const RunCmdOptions& options);

}  // namespace bankcheck::tools
