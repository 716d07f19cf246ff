// The flags `check` and `fix` share: the input, nvcc, the launch and the emulation budget.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/driver/check.hpp"

namespace CLI {
class App;
}

namespace bankcheck::tools {

struct LaunchCmdOptions {
  std::string input;
  std::string kernel, grid, block, smem, blocks;
  std::vector<std::string> args;
  std::string arch = "sm_90";
  std::string nvcc;
  std::vector<std::string> include_dirs, defines, nvcc_flags;
  unsigned threads = 0;
  std::uint64_t budget = 0;
  bool ptx_level = false;
  std::string max_memory;
  unsigned nvcc_timeout = driver::kDefaultNvccTimeout;
  int launch = 0;  // --launch N
};

// Adds the input (positional), the launch and nvcc flags, and `-- NVCC_FLAGS...`.
void add_launch_options(CLI::App* c, LaunchCmdOptions& o);
// The check engine's options; throws DriverError (via the parsers) on a bad value.
driver::CheckOptions to_check_options(const LaunchCmdOptions& o);

}  // namespace bankcheck::tools
