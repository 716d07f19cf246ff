// The flags `check` and `fix` share: the input, nvcc, the launch and the emulation budget.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/driver/compile_db.hpp"

namespace CLI {
class App;
}

namespace bankcheck::tools {

struct LaunchCmdOptions {
  std::string input;                // fix: the one file
  std::vector<std::string> inputs;  // check: the files (none with -p: the database's .cu files)
  std::string compile_db;           // -p: a build directory or its compile_commands.json
  std::string kernel, grid, block, smem, blocks, cluster;
  bool cooperative = false;
  std::vector<std::string> args;
  std::vector<std::string> vars;  // --var NAME=VALUE
  std::vector<std::string> host_args;  // --host-arg NAME=VALUE
  std::string arch;  // empty: from -p's compile command, else sm_90
  std::string nvcc;
  std::vector<std::string> include_dirs, defines;
  std::vector<std::string> nvcc_flags;  // after `--` (take_nvcc_flags)
  unsigned threads = 0;
  std::uint64_t budget = 0;
  bool ptx_level = false;
  bool no_cache = false;  // --no-cache
  bool stop_on_fault = false;  // --stop-on-fault
  std::string max_memory;
  unsigned nvcc_timeout = driver::kDefaultNvccTimeout;
  int launch = 0;  // --launch N
};

// Adds the input (positional: one file, or with `several_files` any number), -p, the launch
// and nvcc flags.
void add_launch_options(CLI::App* c, LaunchCmdOptions& o, bool several_files = false);

// For `check` and `fix`: the words after the first `--` that follows the subcommand, nvcc's
// flags, wherever the `--` stands; `argc` is cut before it so that the parser never sees
// them (`check f.cu --arg p=zeros -- -std=c++17`). Other subcommands keep their `--`.
std::vector<std::string> take_nvcc_flags(int& argc, char** argv);

// The files a run checks: the positional files, else with -p every .cu file of the
// database. Throws UserError when there are none, or (with -p) when a file given is not in it.
std::vector<std::string> input_files(const LaunchCmdOptions& o, const driver::CompileDb* db);

// The check engine's options for `input`: with `db` (-p), the device flags of its entry
// first and the command line's after them (the command line wins: a -D, -std or -rdc it
// gives replaces the entry's), and the entry's architecture unless --arch is given. Throws
// DriverError (via the parsers) on a bad value.
driver::CheckOptions to_check_options(const LaunchCmdOptions& o, const std::string& input,
                                      const driver::CompileDb* db);
// The same for o.input, reading -p's database when given.
driver::CheckOptions to_check_options(const LaunchCmdOptions& o);

}  // namespace bankcheck::tools
