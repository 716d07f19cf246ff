// Launches read from the host code of a .cu: `k<<<grid, block, smem, stream>>>(args)`,
// `cudaLaunchKernel` and `cudaLaunchKernelEx`, in main() or in launcher functions called with
// constant arguments, with grid, block, dynamic shared memory and arguments evaluated where
// the host code determines them (macros, constexpr, const and plain locals, dim3 variables,
// template arguments, cudaMalloc sizes). A hand-written reader over explain/cuda_source; what
// it reads and what it cannot is in docs/host_launch.md.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/driver/launch.hpp"

namespace bankcheck::driver {

// One argument of a launch, as written and as bankcheck would pass it.
struct HostArg {
  std::string expr;                  // as written in the launch
  std::optional<std::string> value;  // an --arg VALUE ("7", "1.5f", "zeros:4096", "null")
  std::vector<std::string> needs;    // unset: the host values it lacks (HostLaunch::why)
};

// One launch as the host code makes it; a launch in a launcher function is one HostLaunch
// per call of that function.
struct HostLaunch {
  int index = 0;       // 1-based, in the order find_host_launches returns
  std::string kernel;  // the name as written, without template arguments ("ns::k")
  std::vector<std::string> template_args;  // evaluated: "256", "float"; empty when none
  bool template_args_known = true;         // every template argument evaluated
  int line = 0, col = 0;                   // of the launch in the file
  std::string file;  // "": the input; else the included .cu the launch is in (HostSource)
  std::string form;                        // "<<<>>>", "cudaLaunchKernel", "cudaLaunchKernelEx"
  std::string via;                         // "main", "run (called from main at line 80)"
  std::optional<Dim3> grid, block;
  std::optional<std::uint64_t> smem;  // 0 when the launch gives none
  std::string grid_expr, block_expr, smem_expr;
  std::vector<HostArg> args;
  // Where a setting is unset: the names of the host code whose values it lacks (a parameter
  // of a launcher no function calls, a variable set at run time), per setting ("grid",
  // "block", "smem"), and for each name why the host code does not determine it. A
  // --host-arg NAME=VALUE (HostValues) gives one.
  std::map<std::string, std::vector<std::string>> needs;
  std::map<std::string, std::string> why;
  std::map<std::string, HostDefault> defaults;  // for names in `why` that have one
  std::vector<std::string> host_values_used;  // the HostValues names its settings used
  // Kernel name with the evaluated template arguments: "reduce<256>".
  std::string written() const;
};

// Every launch in `source` (the .cu text); `headers` is the text of the local headers it
// includes (their macros and constants count); `defines` the macros nvcc's command line
// defines (-D NAME[=VALUE]; a NAME(a, b) too), defined before the headers and the file. Never
// throws: what cannot be read is left unset.
// `host_values` are the user's values for names of the host code (--host-arg NAME=VALUE):
// they win over what the host code assigns to those names. The source and the headers are
// read as the preprocessor leaves them with `defines` (explain::taken_branches): only the
// taken #if branches' code and #defines count.
using HostValues = std::map<std::string, std::int64_t>;
std::vector<HostLaunch> find_host_launches(std::string_view source, std::string_view headers,
                                           const std::map<std::string, std::string>& defines = {},
                                           const HostValues& host_values = {});

// A .cu's text as its host code is read: the .cu files it includes with quotes (`#include
// "kernels.cu"`, found beside the including file or in `include_dirs`) put in place of their
// #include lines, once each, as the preprocessor does, so that their launches and launchers
// are read with the file's; and where each line comes from.
struct HostSource {
  std::string text;
  // Per line of `text` (0-based): the included file ("" for the input) and its line (1-based);
  // empty: every line is the input's own.
  std::vector<std::pair<std::string, int>> origin;
};
HostSource with_included_cu(std::string_view source, const std::string& input,
                            const std::vector<std::string>& include_dirs);
std::vector<HostLaunch> find_host_launches(const HostSource& source, std::string_view headers,
                                           const std::map<std::string, std::string>& defines = {},
                                           const HostValues& host_values = {});

// Whether `launch` launches the kernel `mangled` (a PTX entry name): the same name, and the
// same template arguments when the launch gives them.
bool launch_matches(const HostLaunch& launch, const std::string& mangled);

// The text of the headers `source` includes with quotes (#include "x.cuh"), found beside
// `input` or in `include_dirs`, and of the headers they include, once each; "" when none.
std::string local_headers_text(std::string_view source, const std::string& input,
                               const std::vector<std::string>& include_dirs);

// Flags over the comment over the host launch, field by field, with where each setting came
// from in `sources` (setting, from, detail). `params` are the kernel's parameter names in
// order ("" when unknown: the launch's arguments then go by position as p0, p1, ...).
LaunchSettings settle(const LaunchSettings& flags, const std::optional<LaunchSettings>& comment,
                      const HostLaunch* launch, const std::vector<std::string>& params,
                      std::string_view file);

// Whether `s` gives the argument `name` (by name or as pINDEX).
bool gives_arg(const LaunchSettings& s, const std::string& name, std::size_t index);

// The words as a line to paste into a POSIX shell: each quoted where it needs it
// ('k<16, 8>', 'a b', 'it'\''s'), `extra` between the words and `-- NVCC...`.
std::string rerun_line(const Rerun& r, const std::vector<std::string>& extra);
// One word as a POSIX shell reads it back unchanged: as is when it has only letters, digits
// and _ @ % + = : , . / -, else in single quotes (a ' as '\'').
std::string shell_quote(const std::string& word);

// One kernel whose missing settings are to be said: its name as reports show it, its settled
// settings, its parameters' names and types (from the demangled signature; may be empty) and
// which parameters take buffers (no value needed).
struct KernelSettings {
  std::string kernel;
  const LaunchSettings* settings = nullptr;
  std::vector<std::string> params, types;
  std::vector<bool> is_pointer;
  std::string flag_name;  // what --kernel takes for it alone ("" : `kernel`)
};

// Where missing_settings' command and hints point.
struct MissingContext {
  Rerun rerun;  // the run's own command, repeated with what to add
  // Set when the input is a binary (binary_input.hpp), whose host code is not read: the
  // source file its PTX names when that exists, else "".
  std::optional<std::string> binary_source;
  // The program `bankcheck run` would take ("PROGRAM" for a .cu, the path of an executable);
  // "" when there is none (a .ptx, an object file).
  std::string program;
  std::size_t kernels_selected = 0;  // of the run (0: as many as `kernels`)
};

// Every setting the kernels still lack (grid, block, each scalar argument), at once, in one
// message: per kernel (kernels that lack the same said once) what the host code had there;
// the host code's names they lack, merged across kernels, each with why and the source's own
// default when it has one (an initialiser, a branch of `?:`, a default argument); one command
// to paste (`rerun` with --host-arg NAME=DEFAULT or NAME=VALUE; with --kernel and --grid,
// --block, --arg per kernel where a setting lacks no host name); and `bankcheck run`, which
// needs none of it. nullopt when nothing is missing.
std::optional<std::string> missing_settings(const MissingContext& context,
                                            const std::vector<KernelSettings>& kernels);

// The same for one kernel.
std::optional<std::string> missing_settings(
    const Rerun& rerun, const std::string& kernel, const LaunchSettings& s,
    const std::vector<std::string>& params, const std::vector<std::string>& types,
    const std::vector<bool>& is_pointer,
    const std::optional<std::string>& binary_source = std::nullopt);

}  // namespace bankcheck::driver
