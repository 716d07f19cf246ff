// The flags `check` and `fix` share, and their translation to the check engine's options,
// with a compilation database's flags (-p) under the command line's.
#include "launch_options.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <set>

#include "bankcheck/driver/binary_input.hpp"
#include "bankcheck/install_dirs.hpp"
#include "cli.hpp"

namespace bankcheck::tools {

void add_launch_options(CLI::App* c, LaunchCmdOptions& o, bool several_files) {
  if (several_files)
    c->add_option("files", o.inputs,
                  "FILE.cu (compiled with nvcc), FILE.ptx, or a binary: an executable, object "
                  "file, fat binary (@DOCDIR@/check.md); several are checked one after the other into "
                  "one report; none with -p: every .cu file of the build");
  else
    c->add_option("file", o.input,
                  "FILE.cu (compiled with nvcc), FILE.ptx, or an executable, object file or fat "
                  "binary")
        ->required();
  c->add_option("-p", o.compile_db,
                "BUILD_DIR (or its compile_commands.json): compile each .cu with the include "
                "directories, definitions, -std and architecture of its entry there");
  c->add_option("--kernel", o.kernel,
                "kernel to check: its name (every instantiation of a template), base name with "
                "template arguments, or signature; default: those the file's host code launches");
  c->add_option("--launch", o.launch,
                "use the N-th launch the host code makes (1-based, in file order; default: each "
                "kernel's first)")
      ->check(CLI::PositiveNumber);
  c->add_option("--grid", o.grid, "grid size X[,Y[,Z]]");
  c->add_option("--block", o.block, "block size X[,Y[,Z]]");
  c->add_option("--smem", o.smem, "dynamic shared memory in bytes (K/M suffixes)");
  c->add_option("--arg", o.args,
                "NAME=VALUE: a scalar (K/M/G suffixes), or for pointers zeros|random|iota[:BYTES], "
                "@FILE (a regular, non-empty file) or null; a scalar must fit its parameter's "
                "type; given twice, the last wins (and a flag wins over the launch comment). A "
                "struct passed by value: NAME=@FILE (its bytes) or NAME.FIELD=VALUE per field "
                "(an array field: VALUE,VALUE,...; fields not given are 0, pointers zeros)");
  c->add_option("--var", o.vars,
                "NAME=VALUES: a __constant__ or __device__ variable: comma-separated values of "
                "its element type (an array: all of them, in order), zeros, random, iota or "
                "@FILE (exactly its bytes); a pointer variable: a buffer as for --arg "
                "(zeros|random|iota[:BYTES], @FILE, null); NAME.FIELD for a struct's field");
  c->add_option("--host-arg", o.host_args,
                "NAME=VALUE: an integer for a name of the host code that its launches use and "
                "it does not determine (a parameter of a launcher no function calls, a size "
                "read at run time); it wins over what the host code assigns NAME");
  c->add_option("--blocks", o.blocks,
                "CTAs to analyse: a count (first, last, spread between) or all");
  c->add_option("--arch", o.arch,
                "architecture for nvcc and the bank model (default: with -p, sm_90 when the "
                "compile command builds for it, else the highest it builds for; otherwise sm_90)");
  c->add_option("--nvcc", o.nvcc,
                "the nvcc to use, or a command that runs it (\"ccache nvcc\": split as a shell "
                "splits words, no shell runs it); default: with -p, the compiler of the file's "
                "entry when it is nvcc or a wrapper of nvcc; else nvcc on PATH, then "
                "/usr/local/cuda/bin/nvcc");
  c->add_option("-I", o.include_dirs, "include directory for nvcc");
  c->add_option("-D", o.defines, "NAME[=VALUE] for nvcc");
  c->add_option("--threads", o.threads, "worker threads (default: all cores; at most 256)");
  c->add_option("--max-memory", o.max_memory,
                "memory budget for buffers, the CTA plan and the emulators (default 3G; K/M/G "
                "suffixes; @DOCDIR@/limits.md)");
  c->add_option("--nvcc-timeout", o.nvcc_timeout,
                "seconds nvcc may run before it is stopped (default 300; 0: no limit)")
      ->capture_default_str();
  c->add_flag("--stop-on-fault", o.stop_on_fault,
              "stop at the first global access outside every buffer (exit 2), instead of "
              "reporting it as compute-sanitizer does and going on with the lanes reading zeros "
              "and their writes dropped");
  c->add_flag("--no-cache", o.no_cache,
              "run nvcc and ptxas even when the compile cache has their output "
              "($BANKCHECK_CACHE_DIR, else $XDG_CACHE_HOME/bankcheck or ~/.cache/bankcheck), "
              "and store nothing");
  c->add_option("--budget", o.budget,
                "warp instructions one CTA may execute before it is stopped (default 200000000)");
  c->add_flag("--ptx-level", o.ptx_level,
              "count shared requests as the PTX states them, not as the cubin's SASS issues "
              "them (ptxas on the same PTX; read for sm_90)");
  c->footer(
      "After --, everything goes to nvcc as is, wherever the -- stands:\n"
      "  bankcheck " +
      c->get_name() + " k.cu --arg p=zeros -- -std=c++17 --expt-relaxed-constexpr");
}

std::vector<std::string> take_nvcc_flags(int& argc, char** argv) {
  std::vector<std::string> flags;
  if (argc < 3 || (std::strcmp(argv[1], "check") != 0 && std::strcmp(argv[1], "fix") != 0))
    return flags;
  for (int i = 2; i < argc; ++i)
    if (std::strcmp(argv[i], "--") == 0) {
      flags.assign(argv + i + 1, argv + argc);
      argc = i;
      break;
    }
  return flags;
}

namespace {

// PTX and binaries (by content) need no nvcc, so no compile command either.
bool not_source(const std::string& file) {
  return driver::input_kind(file) != driver::InputKind::Source;
}

}  // namespace

std::vector<std::string> input_files(const LaunchCmdOptions& o, const driver::CompileDb* db) {
  std::vector<std::string> files = o.inputs;
  if (!o.input.empty()) files.insert(files.begin(), o.input);
  if (files.empty() && db) {
    files = driver::cuda_files(*db);
    if (files.empty())
      throw UserError(
          fmt::format("-p: {} has no .cu file ({} entries)", db->path, db->entries.size()));
  }
  if (files.empty())
    throw UserError(
        "no input: give FILE.cu (or several), FILE.ptx, or -p BUILD_DIR for every .cu file of "
        "a build's compile_commands.json");
  if (db)
    for (const auto& f : files)
      if (!not_source(f) && !driver::find_entry(*db, f)) {
        std::string some;
        const auto cu = driver::cuda_files(*db);
        for (std::size_t i = 0; i < cu.size() && i < 8; ++i) some += "\n  " + cu[i];
        if (cu.size() > 8) some += fmt::format("\n  ... ({} in all)", cu.size());
        throw UserError(fmt::format(
            "{}: not in {} (a file its build does not compile){}", f, db->path,
            cu.empty() ? std::string(" (it has no .cu file)") : "; its .cu files:" + some));
      }
  return files;
}

namespace {

// The nvcc option a flag sets once ("-std=c++17", "--std c++17", "-rdc=true", "-x cu"), by one
// name for its spellings; "" for the repeatable ones (-I, -D, -isystem, ...).
std::string set_once(const std::string& flag) {
  if (flag.size() < 2 || flag[0] != '-') return {};
  std::string name = flag.substr(flag.find_first_not_of('-'));
  name = name.substr(0, name.find('='));
  if (name == "relocatable-device-code") return "rdc";
  if (name == "compiler-bindir") return "ccbin";
  for (const char* n : {"std", "rdc", "ccbin", "x", "ftz", "prec-div", "prec-sqrt", "fmad"})
    if (name == n) return name;
  return {};
}

// A definition's name: "N=1" -> "N".
std::string macro_name(const std::string& def) { return def.substr(0, def.find('=')); }

// The entry's device flags under the command line's: the entry's first (so -I from the
// command line is searched first, and its -D comes last), without what the command line
// sets again.
void add_entry_flags(const driver::DeviceFlags& f, const LaunchCmdOptions& o,
                     driver::NvccOptions& n) {
  std::set<std::string> given, defined;
  for (const auto& d : o.defines) defined.insert(macro_name(d));
  for (std::size_t i = 0; i < o.nvcc_flags.size(); ++i) {
    const std::string& t = o.nvcc_flags[i];
    if (std::string k = set_once(t); !k.empty()) given.insert(k);
    if (t == "-D" && i + 1 < o.nvcc_flags.size()) defined.insert(macro_name(o.nvcc_flags[i + 1]));
    if (t.starts_with("-D") && t.size() > 2) defined.insert(macro_name(t.substr(2)));
  }
  n.include_dirs = o.include_dirs;
  n.include_dirs.insert(n.include_dirs.end(), f.include_dirs.begin(), f.include_dirs.end());
  n.defines.clear();
  for (const auto& d : f.defines)
    if (!defined.count(macro_name(d))) n.defines.push_back(d);
  n.defines.insert(n.defines.end(), o.defines.begin(), o.defines.end());
  n.extra.clear();
  static const std::set<std::string> with_value = {"-isystem", "-include", "-U",
                                                   "-x",       "-ccbin",   "-Xcudafe"};
  for (std::size_t i = 0; i < f.extra.size(); ++i) {
    const bool pair = with_value.count(f.extra[i]) && i + 1 < f.extra.size();
    const std::string k = set_once(f.extra[i]);
    if (k.empty() || !given.count(k)) {
      n.extra.push_back(f.extra[i]);
      if (pair) n.extra.push_back(f.extra[i + 1]);
    }
    if (pair) ++i;
  }
  n.extra.insert(n.extra.end(), o.nvcc_flags.begin(), o.nvcc_flags.end());
}

}  // namespace

driver::CheckOptions to_check_options(const LaunchCmdOptions& o, const std::string& input,
                                      const driver::CompileDb* db) {
  driver::CheckOptions co;
  co.input = input;
  co.arch = o.arch.empty() ? "sm_90" : o.arch;
  driver::check_threads(o.threads);
  co.threads = o.threads;
  co.sass = !o.ptx_level;
  if (!o.max_memory.empty()) co.max_memory = driver::parse_bytes(o.max_memory, "--max-memory");
  co.nvcc.timeout_seconds = o.nvcc_timeout;
  co.nvcc.cache = !o.no_cache;
  co.emulator.stop_on_fault = o.stop_on_fault;
  co.launch = o.launch;
  if (o.budget) co.budget = o.budget;
  co.nvcc.nvcc = o.nvcc;
  co.nvcc.include_dirs = o.include_dirs;
  co.nvcc.defines = o.defines;
  co.nvcc.extra = o.nvcc_flags;
  // What nvcc prints when it succeeds (its warnings), at once; `check` shows it after its
  // progress line instead.
  co.nvcc_output = [input](const std::string& text) {
    std::fprintf(stderr, "bankcheck: %s: nvcc printed:\n%s%s", input.c_str(), text.c_str(),
                 text.ends_with('\n') ? "" : "\n");
  };
  if (db && !not_source(input)) {
    const driver::CompileCommand* entry = driver::find_entry(*db, input);
    if (!entry) throw UserError(fmt::format("{}: not in {}", input, db->path));
    const driver::DeviceFlags f = driver::device_flags(*entry);
    add_entry_flags(f, o, co.nvcc);
    co.nvcc.compiler = driver::entry_compiler(*entry);  // --nvcc, when given, comes first
    if (o.arch.empty())
      if (std::string a = driver::pick_arch(f.archs); !a.empty()) co.arch = a;
  }
  if (!o.kernel.empty()) co.flags.kernel = o.kernel;
  if (!o.grid.empty()) {
    co.flags.grid = driver::parse_dim3(o.grid, "--grid");
    driver::check_grid(*co.flags.grid, "--grid");
  }
  if (!o.block.empty()) {
    co.flags.block = driver::parse_dim3(o.block, "--block");
    driver::check_block(*co.flags.block, "--block");
  }
  if (!o.smem.empty()) co.flags.smem = driver::parse_bytes(o.smem, "--smem");
  if (!o.blocks.empty()) {
    driver::parse_blocks(o.blocks, "--blocks");
    co.flags.blocks = o.blocks;
  }
  for (const auto& a : o.args) co.flags.args.push_back(driver::parse_arg_assignment(a, "--arg"));
  for (const auto& v : o.vars) co.flags.vars.push_back(driver::parse_var_assignment(v, "--var"));
  for (const auto& a : o.host_args) {
    const auto [name, value] = driver::parse_arg_assignment(a, "--host-arg");
    const driver::ArgValue v = driver::parse_arg_value(value, "--host-arg " + name);
    if (v.kind != driver::ArgValue::Kind::Integer)
      throw UserError(fmt::format("--host-arg {}: '{}' is not an integer", name, value));
    co.host_values[name] = v.i;
  }
  // The words that check this input again, for messages that say which flags to add.
  co.rerun.input = input;
  co.rerun.words = {"bankcheck", "check"};
  auto add = [&](const char* flag, const std::string& value) {
    if (!value.empty()) co.rerun.words.insert(co.rerun.words.end(), {flag, value});
  };
  add("-p", o.compile_db);
  add("--arch", o.arch);
  add("--nvcc", o.nvcc);
  for (const auto& d : o.include_dirs) add("-I", d);
  for (const auto& d : o.defines) add("-D", d);
  for (const auto& a : o.host_args) add("--host-arg", a);
  add("--grid", o.grid);
  add("--block", o.block);
  add("--smem", o.smem);
  for (const auto& a : o.args) add("--arg", a);
  for (const auto& v : o.vars) add("--var", v);
  if (o.launch) add("--launch", std::to_string(o.launch));
  co.rerun.words.push_back(input);
  co.rerun.nvcc = o.nvcc_flags;
  return co;
}

driver::CheckOptions to_check_options(const LaunchCmdOptions& o) {
  if (o.compile_db.empty()) return to_check_options(o, o.input, nullptr);
  const driver::CompileDb db = driver::read_compile_db(o.compile_db);
  input_files(o, &db);  // the file must be in it
  return to_check_options(o, o.input, &db);
}

}  // namespace bankcheck::tools
