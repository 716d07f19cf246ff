// Launch settings for `bankcheck check`: grid, block, shared bytes, kernel arguments and
// block selection, read from flags or from `// bankcheck: key=value ...` comments in the
// source, merged (flags win); and kernel names: demangling PTX entry names and matching
// them against what a user types.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bankcheck/analysis/provenance.hpp"
#include "bankcheck/driver/error.hpp"
#include "bankcheck/model/dims.hpp"

namespace bankcheck::driver {

using Dim3 = model::Dim3;

// "X[,Y[,Z]]": one to three positive integers separated by commas; missing ones are 1.
// Syntax only (no hardware limits; see check_grid / check_block).
// Example: parse_dim3("32,8", "--block") == Dim3{32, 8, 1}.
// Errors: "WHERE: ..." naming the offending component.
Dim3 parse_dim3(std::string_view text, std::string_view where);

// The CUDA launch limits (all architectures this tool knows, sm_50 and later):
// grid x <= 2^31-1, y,z <= 65535; block x,y <= 1024, z <= 64, x*y*z <= 1024.
// Throw DriverError "WHERE: ..." when exceeded. parse_launch_comments applies them;
// callers apply them to --grid / --block.
void check_grid(const Dim3& grid, std::string_view where);
void check_block(const Dim3& block, std::string_view where);

// A byte count: decimal digits with an optional K, M or G suffix (1024-based, either
// case), e.g. "4096", "48K", "1M". Zero is allowed (callers that need a positive count
// check). Errors "WHERE: ..." on anything else or on overflow.
std::uint64_t parse_bytes(std::string_view text, std::string_view where);

// --blocks N|all: which CTAs of the grid are emulated.
struct BlockSelection {
  bool all = false;         // every CTA of the grid
  std::uint64_t count = 0;  // otherwise this many (positive; the caller picks which)
  friend bool operator==(const BlockSelection&, const BlockSelection&) = default;
};
// "all" or a positive decimal count.
BlockSelection parse_blocks(std::string_view text, std::string_view where);

// One kernel argument value, as the user wrote it (--arg NAME=VALUE, arg=NAME=VALUE).
struct ArgValue {
  enum class Kind { Integer, Float, Buffer } kind = Kind::Integer;
  std::int64_t i = 0;  // Integer
  double f = 0;        // Float
  // Buffer: contents and optional size in bytes (nullopt: the caller picks a size).
  enum class Fill { Zeros, Random, Iota, File, Null } fill = Fill::Zeros;
  std::optional<std::uint64_t> bytes;
  std::string path;  // Fill::File: the raw binary file (existence is checked later)
};

// Integer: decimal or 0x hex, optionally negative ("42", "-1", "0x1F", "-0x10"), or decimal
//   with a K, M or G suffix (1024-based: "16M" == 16777216); decimal
//   must fit int64; hex may use all 64 bits (0xFFFFFFFFFFFFFFFF is kept as the bit
//   pattern, i == -1).
// Float: "1.5", ".5", "1e-3", "2.0f", "2f", "-inf", "nan".
// Buffer: "zeros", "random", "iota", each with optional ":BYTES" (parse_bytes, positive);
//   "@path" a raw binary file; "null" a null pointer.
// Errors "WHERE: ..." say what is expected.
ArgValue parse_arg_value(std::string_view text, std::string_view where);

// "NAME=VALUE" as given to --arg / arg=: NAME a C identifier, VALUE checked with
// parse_arg_value; or a struct parameter's field, "NAME.FIELD=VALUE" (FIELD a path of
// members and element indices as the struct spells them: in, inner.n, ptrs[1]), whose VALUE
// may list an array field's elements separated by commas ("p.w=1,2,3,4"). Returns {NAME,
// VALUE} as written.
std::pair<std::string, std::string> parse_arg_assignment(std::string_view text,
                                                         std::string_view where);

// "NAME=VALUE" as given to --var / var=: a module variable (__constant__, __device__), its
// name as the source spells it (ns::table for one in a namespace; NAME.FIELD for a struct
// variable's field), VALUE one value or buffer as for --arg or, for an array, its elements
// separated by commas. Returns {NAME, VALUE} as written.
std::pair<std::string, std::string> parse_var_assignment(std::string_view text,
                                                         std::string_view where);

// A value the source gives a name of the host code where the value it uses is not a constant:
// an earlier assignment or initialiser, a branch of `?:`, a default argument; offered in the
// message that asks for the name, never used on its own.
struct HostDefault {
  std::int64_t value = 0;
  std::string where;  // "line 29", "kernels.cu:12"
};

struct LaunchSettings {
  std::optional<std::string> kernel;
  std::optional<Dim3> grid, block;
  std::optional<std::uint64_t> smem;                      // dynamic shared memory, bytes
  std::vector<std::pair<std::string, std::string>> args;  // NAME, VALUE as written
  std::vector<std::pair<std::string, std::string>> vars;  // module variables: NAME, VALUE
  std::optional<std::string> blocks;  // "all" or a positive count, normalised (no sign,
                                      // no leading zeros)
  std::optional<Dim3> cluster;        // the cluster shape (cudaLaunchAttributeClusterDimension)
  std::optional<bool> cooperative;    // a cooperative launch (cudaLaunchCooperativeKernel)
  int line = 0;                       // of the comment, 0 for flags
  int col = 0;                        // of the comment's "//", 0 for flags
  int kernel_col = 0;                 // of the kernel= value, 0 when none
  // Filled by settle (host_launch.hpp): where each setting came from, and what the host
  // code had for a setting it did not determine (setting, expression).
  std::vector<analysis::SettingSource> sources;
  std::vector<std::pair<std::string, std::string>> unresolved;
  // For an unresolved setting, the names of the host code whose values it lacks, and for
  // each name why (HostLaunch::needs, ::why): a --host-arg NAME=VALUE gives one.
  std::map<std::string, std::vector<std::string>> unresolved_needs;
  std::map<std::string, std::string> host_why;
  std::map<std::string, HostDefault> host_defaults;  // for names of host_why that have one
};

// The command that checks the same input again, for a message that says what to add: its
// words up to the file (the user's -p, -I, -D, --arch, --nvcc and the file) and nvcc's
// words after `--`, each shell-quoted when printed. Empty words: `bankcheck check INPUT`.
struct Rerun {
  std::string input;
  std::vector<std::string> words, nvcc;
  std::string kernel;  // the run's --kernel ("": none), not among `words`
};


// Every `// bankcheck: key=value ...` comment in a .cu source, in file order. A comment is
// `//`, optional blanks, `bankcheck:`, then blank-separated key=value items:
//   kernel=NAME  grid=X[,Y[,Z]]  block=X[,Y[,Z]]  smem=BYTES  arg=NAME=VALUE (repeatable)
//   var=NAME=VALUE (repeatable)  blocks=N|all
// Values are checked here (parse_dim3 + check_grid/check_block, parse_bytes,
// parse_arg_assignment, parse_blocks) so that errors point into the file.
// Errors "FILE:LINE:COL: ..." (1-based, COL in bytes at the offending key or value): unknown
// key, missing '=', bad value, a key given twice in one comment (arg: the same NAME twice),
// an empty comment, two comments for the same kernel, two comments without kernel=.
std::vector<LaunchSettings> parse_launch_comments(std::string_view source_text,
                                                  std::string_view file);

// The comment that applies to one kernel of the file: the one whose kernel= matches
// (kernel_matches), else the one without kernel= when the file has exactly one kernel.
// nullopt when none applies. Errors "FILE:LINE:COL: ...": a comment without kernel= in a
// file of several kernels (it would be silently ignored otherwise); two comments that both
// match this kernel.
std::optional<LaunchSettings> comment_for_kernel(const std::vector<LaunchSettings>& comments,
                                                 const std::string& mangled_kernel,
                                                 std::size_t kernels_in_file,
                                                 std::string_view file);
// A comment whose kernel= matches none of the file's kernels (mangled PTX entry names) is
// an error "FILE:LINE:COL: ..." at the name, listing the kernels there are (a typo would
// otherwise drop the comment silently).
void check_comment_kernels(const std::vector<LaunchSettings>& comments,
                           const std::vector<std::string>& mangled_kernels, std::string_view file);

// Flags win field by field. Args (and vars) merge by name: a flag's value replaces the comment's
// value in place; the comment's other args are kept; flag args not in the comment follow
// in flag order. `line`, `col`, `kernel_col` are the comment's.
LaunchSettings merge(const LaunchSettings& flags, const LaunchSettings& comment);

}  // namespace bankcheck::driver
