// A compilation database (compile_commands.json, `-p BUILD_DIR`): the entry that compiles a
// file, and the flags of that entry that change what nvcc makes of its device code.
// docs/check.md ("Flags from the build") lists what is taken and what is dropped.
#pragma once

#include <string>
#include <vector>

#include "bankcheck/driver/error.hpp"

namespace bankcheck::driver {

// One entry: `arguments` is the compiler's argument vector, argv[0] the compiler, from the
// entry's `arguments` or its `command` split the way a POSIX shell splits words.
struct CompileCommand {
  std::string directory;  // the entry's working directory (absolute)
  std::string file;       // the entry's file, absolute and lexically normal
  std::vector<std::string> arguments;
};

struct CompileDb {
  std::string path;  // the compile_commands.json read
  std::vector<CompileCommand> entries;
};

// Reads `path`: the directory holding compile_commands.json, or the file itself (clang-tidy's
// -p). Throws DriverError: "-p: ..." when there is no such file; "FILE:LINE:COL: malformed
// JSON: ..." when it does not parse; "FILE: entry N: ..." when an entry lacks `directory`,
// `file`, or both `command` and `arguments`, or its command has an unterminated quote.
CompileDb read_compile_db(const std::string& path);
// The same from text (`path` names it in messages and resolves nothing).
CompileDb parse_compile_db(const std::string& text, const std::string& path);

// The words a POSIX shell makes of `command` (no expansion): blanks separate words; '...'
// keeps everything; "..." keeps everything but \\ \" \$ \` and a backslash-newline; a
// backslash outside quotes keeps the next character. Throws DriverError on an unterminated
// quote or a trailing backslash.
std::vector<std::string> split_command(const std::string& command);

// The entry whose file is `file` (relative to the current directory; symbolic links
// resolved on both sides), the first one when several compile it; nullptr when none.
const CompileCommand* find_entry(const CompileDb& db, const std::string& file);

// The files of the entries that end in .cu, in the database's order, each once; relative to
// the current directory when they lie below it.
std::vector<std::string> cuda_files(const CompileDb& db);

// The words of the entry's command that run nvcc: {nvcc} when argv[0] is named nvcc...,
// {LAUNCHER, nvcc} when argv[1] is (ccache, sccache or another wrapper that CMake's
// CMAKE_CUDA_COMPILER_LAUNCHER puts first); a relative path is made absolute against the
// entry's directory, a bare name is kept (looked up on PATH). Empty for any other compiler
// (clang's CUDA: bankcheck compiles with nvcc, the entry's flags mapped).
std::vector<std::string> entry_compiler(const CompileCommand& entry);

// What of an entry matters to bankcheck's own `nvcc -ptx` of the file. Paths are made
// absolute against the entry's directory, so nvcc can run from anywhere.
struct DeviceFlags {
  std::vector<std::string> include_dirs;  // -I, --include-path, -iquote
  std::vector<std::string> defines;       // -D, --define-macro: NAME or NAME=VALUE
  // -U, -isystem, -include, -std=, -x cu, --expt-relaxed-constexpr, --extended-lambda,
  // -rdc=, --use_fast_math, --ftz= and the other precision flags, -ccbin,
  // --allow-unsupported-compiler, -Xcudafe; in nvcc's spelling (clang's mapped).
  std::vector<std::string> extra;
  // The real architectures the entry compiles for, "sm_80", "sm_90a", from -arch, -code,
  // -gencode/--generate-code and clang's --cuda-gpu-arch/--offload-arch (compute_NN as
  // sm_NN), each once, in order.
  std::vector<std::string> archs;
};

// Throws DriverError when an --options-file, -optf or @FILE the entry names cannot be read.
DeviceFlags device_flags(const CompileCommand& entry);

// The architecture to check when --arch is not given: sm_90 (or sm_90a) when listed (the
// architecture whose SASS bankcheck reads), else the highest listed; "" when none is.
std::string pick_arch(const std::vector<std::string>& archs);

}  // namespace bankcheck::driver
