// Running nvcc: finding it, and compiling one .cu to PTX with line info. No shell: the
// command is an argument vector given to posix_spawn.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/driver/error.hpp"

namespace bankcheck::driver {

// Seconds nvcc (and then ptxas) may run (--nvcc-timeout): a hung host compiler, a wrapper
// that never returns or a network file system otherwise hangs the run. Ten minutes: the
// largest template-heavy translation units (attention kernels with every head size) take
// several minutes for one architecture.
inline constexpr unsigned kDefaultNvccTimeout = 600;

struct NvccOptions {
  // --nvcc: nvcc, or a command that runs it ("ccache nvcc", "/opt/wrap.sh nvcc -ccbin g++"),
  // split into words as a POSIX shell splits them (no shell runs it). Empty: not given.
  std::string nvcc;
  // The compiler command of the build's entry (-p: entry_compiler), used when `nvcc` is
  // empty and its first word can be run; otherwise find_nvcc("") picks one.
  std::vector<std::string> compiler;
  unsigned timeout_seconds = kDefaultNvccTimeout;  // 0: no limit
  std::string input;
  std::string arch = "sm_90";
  std::vector<std::string> include_dirs, defines, extra;
  // The compile cache (compile_cache.hpp): an unchanged source and command reuse the PTX
  // and the cubin of an earlier run. --no-cache: false.
  bool cache = true;
};

// The macros nvcc's command line defines (-D NAME[=VALUE], in --, -D and -p's entry; -U
// removes one), NAME -> VALUE ("1" for a bare -D NAME). The readers of the source (host
// launches, fix's __shared__ declarations) see them over the file's own #defines, as an
// `#ifndef`-guarded default would (`-D BLOCK=128` over `#ifndef BLOCK / #define BLOCK 256`).
std::map<std::string, std::string> command_line_defines(const NvccOptions& options);

// The directories nvcc searches for a quoted #include, in its order: include_dirs, then the
// -I, --include-path and -isystem of `extra` (flags after `--`, bankcheck_add_check's
// target flags). The host-launch reader looks for local headers there too.
std::vector<std::string> include_search_dirs(const NvccOptions& options);

// The nvcc to run:
// 1. `flag_value` when not empty: a path (it must be an executable file), or a bare
//    name ("nvcc-12") looked up on PATH; otherwise DriverError "--nvcc: ...";
// 2. `nvcc` on PATH;
// 3. $CUDA_HOME/bin/nvcc, then $CUDA_PATH/bin/nvcc, when those variables are set;
// 4. /usr/local/cuda/bin/nvcc;
// else DriverError saying how to point at one (--nvcc, PATH, or give a .ptx file).
std::string find_nvcc(const std::string& flag_value);

// The words that run nvcc, before its arguments: --nvcc's words with the first resolved as
// find_nvcc resolves one (DriverError "--nvcc: ..." for an empty command, an unterminated
// quote, or a first word that cannot be run); else the build's compiler when its first word
// can be run (a bare name on PATH, or an executable file); else {find_nvcc("")}.
std::vector<std::string> nvcc_command(const NvccOptions& options);

// The nvcc of a command (its ptxas is the one `check` assembles with): the first word named
// nvcc... (a bare name looked up on PATH), else the first word.
std::string nvcc_of(const std::vector<std::string>& command);

// The argument vector compile_to_ptx runs: `command` (nvcc_command), then
//   -ptx -lineinfo -arch=ARCH [-I DIR]... [-D DEF]... [EXTRA...] INPUT -o OUTPUT
std::vector<std::string> nvcc_argv(const NvccOptions& options,
                                   const std::vector<std::string>& command,
                                   const std::string& output);

// The argument vector compile_to_ptx runs (argv[0] is `nvcc_path`):
//   nvcc -ptx -lineinfo -arch=ARCH [-I DIR]... [-D DEF]... [EXTRA...] INPUT -o OUTPUT
std::vector<std::string> nvcc_argv(const NvccOptions& options, const std::string& nvcc_path,
                                   const std::string& output);

// Compiles options.input to PTX in a private temporary directory (removed afterwards) and
// returns the PTX text. With options.cache, the compile cache's entry when the source, every
// file it includes (nvcc -MD lists them) and the command are unchanged, nvcc not run; a
// compile that runs is stored there (not when `extra` has -M flags of its own). nvcc's stdout and stderr go to files there, so any amount of
// output is safe. `diagnostics`, when given, receives what nvcc printed on success
// (warnings; usually empty).
// Errors (DriverError): "INPUT: cannot read ..." when the input is missing or unreadable
// (checked before nvcc runs); "--nvcc: ..." from find_nvcc; "cannot run nvcc 'PATH': ...";
// "nvcc failed (exit N):\n" + nvcc's stderr unchanged (its stdout when stderr is empty);
// "nvcc killed by signal N:\n" + stderr.
std::string compile_to_ptx(const NvccOptions& options, std::string* diagnostics = nullptr);

// What ptxas made of a PTX text: the cubin (machine code, with the SASS-to-PTX line table
// of -lineinfo) and what ptxas printed (warnings).
struct Assembled {
  std::vector<std::uint8_t> cubin;
  std::string log;
};

// Assembles `ptx` with `ptxas -lineinfo -arch=ARCH`, the ptxas beside the nvcc
// find_nvcc picks, so the cubin is what that toolkit would run; with `entries` (mangled
// kernel names), `--entry NAME,...`: those kernels only, the others not compiled. Throws
// DriverError ("ptxas ...") when it cannot run, fails or runs past `timeout_seconds` (0: no
// limit; its process group is killed). With `cache`, the compile cache's cubin of the same
// PTX, architecture, entries and ptxas, ptxas not run.
Assembled assemble(const std::string& ptx, const std::string& arch, const std::string& nvcc_flag,
                   const std::vector<std::string>& entries = {}, bool cache = true,
                   unsigned timeout_seconds = kDefaultNvccTimeout);

}  // namespace bankcheck::driver
