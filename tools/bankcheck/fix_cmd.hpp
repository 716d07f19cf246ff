// `bankcheck fix`: what to change in each shared array, what it buys, what it costs; and
// `bankcheck occupancy`: resident blocks per SM and what limits them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace bankcheck::tools {

struct FixCmdOptions {
  std::string input;
  std::string kernel, grid, block, smem, blocks;
  std::vector<std::string> args;
  std::string arch = "sm_90";
  std::string nvcc;
  std::vector<std::string> include_dirs, defines, nvcc_flags;
  std::string format = "text";
  std::string output;
  unsigned threads = 0;
  std::uint64_t budget = 0;
  int top = 4;
  bool apply = false;
  std::string apply_to;
};

void add_fix(CLI::App& app, FixCmdOptions& opts);
int run_fix(const FixCmdOptions& opts);

struct OccupancyCmdOptions {
  std::string arch = "sm_90";
  int threads = 0;
  int regs = 0;
  std::string smem = "0", dynamic_smem = "0";
  int carveout = -1;
  std::string format = "text";
};

void add_occupancy(CLI::App& app, OccupancyCmdOptions& opts);
int run_occupancy(const OccupancyCmdOptions& opts);

}  // namespace bankcheck::tools
