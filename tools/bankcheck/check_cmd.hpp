// `bankcheck check`: every shared-memory bank conflict of a kernel, per source line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace bankcheck::tools {

struct CheckCmdOptions {
  std::string input;
  std::string kernel, grid, block, smem, blocks;
  std::vector<std::string> args;
  std::string arch = "sm_90";
  std::string nvcc;
  std::vector<std::string> include_dirs, defines, nvcc_flags;
  std::string format = "text";  // text, json, sarif, html
  std::string output;
  std::string color = "auto";        // text: auto (a terminal), always, never
  std::vector<std::string> fail_on;  // 'ways>N', 'excess>P%'
  bool progress = true;              // a progress line on a terminal's standard error
  unsigned threads = 0;
  std::uint64_t budget = 0;
};

void add_check(CLI::App& app, CheckCmdOptions& opts);
int run_check(const CheckCmdOptions& opts);

}  // namespace bankcheck::tools
