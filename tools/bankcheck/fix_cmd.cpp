// `bankcheck fix` and `bankcheck occupancy`: flags to options, the engines, a view.
#include "fix_cmd.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "bankcheck/driver/fix.hpp"
#include "bankcheck/install_dirs.hpp"
#include "bankcheck/model/occupancy.hpp"
#include "bankcheck/report/views.hpp"
#include "cli.hpp"
#include "output.hpp"
#include "program_args.hpp"
#include "progress.hpp"
#include "run_cmd.hpp"

namespace bankcheck::tools {
namespace {
// fix --apply found nothing it could write (docs/fix.md, the help's exit codes).
constexpr int kExitNothingApplied = 3;
}  // namespace

void add_fix(CLI::App& app, FixCmdOptions& o) {
  CLI::App* c = app.add_subcommand(
      "fix",
      "Suggest padding, XOR swizzles, rotations or narrower accesses for each conflicting "
      "shared array, judged by replaying its accesses, with their shared-memory and occupancy "
      "cost; and for uncoalesced global lines, vector accesses, staging through shared memory "
      "or a row pitch.\n"
      "\n"
      "  bankcheck fix k.cu --kernel transpose --grid 64,64 --block 32,8   (as check)\n"
      "  bankcheck fix ./app --size 4096            (runs the program, as run does)\n"
      "  bankcheck fix --apply -- ./app --size 4096\n"
      "\n"
      "A program (an executable, or anything after -- when no file comes before it) runs as\n"
      "under bankcheck run, with its own launches and data; everything after it is its own.\n"
      "--apply then writes each of its sources with the fixes bankcheck can write beside it\n"
      "(FILE.fixed.cu): rebuild with it and run again. --no-run before an executable reads it\n"
      "as check reads a binary instead of running it.");
  add_launch_options(c, o);
  // A program takes the place of the file (cli.cpp takes it apart before parsing).
  c->get_option("file")->required(false)->description(
      "FILE.cu (compiled with nvcc), FILE.ptx, an object file or fat binary; or a program "
      "and its arguments, run as bankcheck run runs it");
  c->add_flag("--no-run", o.no_run,
              "read an executable named as the file as check reads a binary (its fat binary's "
              "PTX, launches from the flags) instead of running it; before the file");
  c->add_option("--launches", o.launches,
                "with a program: launches analysed per kernel and configuration, N or all (as "
                "run's --launches)")
      ->capture_default_str();
  add_format_option(c, o.format, report::ReportKind::Fix,
                    "text, json (@DOCDIR@"
                    "/fix.md) or sarif (check's SARIF 2.1.0 with each conflicting "
                    "array's best suggestion as a fix)");
  c->add_option("-o,--output", o.output,
                "write the report to this file instead of standard output");
  c->add_option("--top", o.top, "suggestions shown per array")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  c->add_flag("--apply", o.apply,
              "write a copy of the source with each array's best declaration padding "
              "(FILE.fixed.cu) and check it");
  c->add_option("--apply-to", o.apply_to, "with --apply: the path of the patched copy");
  c->add_flag("--force", o.force,
              "with --apply: replace an existing file or symbolic link at that path (without "
              "it, either is refused)");
  add_color_option(c, o.color);
  add_layout_options(c, o.columns, o.quiet);
  add_source_root_option(c, o.source_root);
  add_fail_on_option(c, o.fail_on,
                     ". It tests the source as given, as check does (with --apply too: a CI job "
                     "fails until the fix is in the source)");
  add_progress_flag(c, o.progress);
  c->footer(exit_codes("done (suggestions, if any, printed; --apply: the copy written and checked)",
                       "a --fail-on threshold was crossed",
                       "bad input, an unsupported construct, or --apply refused (what and where "
                       "on standard error)") +
            "\n  3  --apply wrote nothing: no conflicting array has a declaration padding it "
            "can write (why, per array, on standard error)");
}

namespace {

// bankcheck fix PROGRAM: the program run as `run` runs it, with fix's report and --apply.
int fix_program(const FixCmdOptions& o) {
  // Settings that make check's launch have no place here: the program makes its own.
  const std::vector<std::pair<const char*, bool>> check_only = {
      {"--grid", !o.grid.empty()},
      {"--block", !o.block.empty()},
      {"--smem", !o.smem.empty()},
      {"--arg", !o.args.empty()},
      {"--var", !o.vars.empty()},
      {"--host-arg", !o.host_args.empty()},
      {"--launch", o.launch != 0},
      {"--blocks", !o.blocks.empty()},
      {"-p", !o.compile_db.empty()},
      {"-I", !o.include_dirs.empty()},
      {"-D", !o.defines.empty()},
      {"--budget", o.budget != 0},
      {"--max-memory", !o.max_memory.empty()}};
  for (const auto& [flag, given] : check_only)
    if (given)
      throw UserError(fmt::format(
          "fix: {} sets a launch for a file; the program {} makes its own launches (give "
          "options before the program, or --no-run to read it as a binary)",
          flag, o.program[0]));
  RunCmdOptions r;
  r.backend = "emulator";  // the advisor replays the emulator's recorded requests
  if (!o.kernel.empty()) r.kernels = {o.kernel};
  if (!o.arch.empty()) r.arch = o.arch;
  r.format = o.format;
  r.output = o.output;
  r.color = o.color;
  r.columns = o.columns;
  r.quiet = o.quiet;
  r.fail_on = o.fail_on;
  r.launches = o.launches;
  r.threads = o.threads;
  r.progress = o.progress;
  r.ptx_level = o.ptx_level;
  r.stop_on_fault = o.stop_on_fault;
  r.nvcc = o.nvcc;
  r.command = o.program;
  r.fix.report = true;
  r.fix.top = o.top;
  r.fix.apply = o.apply || !o.apply_to.empty();
  r.fix.apply_to = o.apply_to.empty() ? "" : std::filesystem::absolute(o.apply_to).string();
  r.fix.force = o.force;
  std::vector<std::string> again = {"bankcheck", "fix"};
  again.insert(again.end(), o.program.begin(), o.program.end());
  r.fix.command = shell_words(again);
  return run_program(r);
}

}  // namespace

int run_fix(const FixCmdOptions& o) {
  if (!o.program.empty()) return fix_program(o);
  if (o.input.empty())
    throw UserError(
        "fix: no input: give FILE.cu (or .ptx, an object file, a fat binary), or a program "
        "and its arguments (bankcheck fix ./app ARGS, or bankcheck fix -- ./app ARGS)");
  const std::vector<report::Gate> gates = parse_gates(o.fail_on);
  refuse_input_as_output(o.output, o.input);
  driver::FixOptions fo;
  fo.check = to_check_options(o);
  fo.top = o.top;
  fo.apply = o.apply || !o.apply_to.empty();
  fo.apply_to = o.apply_to;
  fo.force = o.force;
  driver::FixReport r;
  if (o.quiet) fo.check.nvcc_output = [](const std::string&) {};
  {
    const RunProgress progress(o.progress && !o.quiet, fo.check);
    r = driver::fix(fo);
  }
  const report::View& view = report::view(o.format);
  write_output(
      view.fix(r, {.color = use_color(o.color, o.output),
                   .columns = text_columns(o.columns, o.output, STDOUT_FILENO),
                   .quiet = o.quiet,
                   .source_root = view.format == report::Format::Sarif
                                      ? source_root(o.source_root, {o.input})
                                      : ""}),
      o.output);
  // --apply that wrote nothing says why and fails (a script must not take the old file for
  // the fixed one); arrays it left beside those it padded are named too.
  if (fo.apply && !r.applied) {
    std::fprintf(stderr, "bankcheck: --apply: nothing written: %s\n", r.apply_note.c_str());
    return kExitNothingApplied;
  }
  for (const auto& why : r.apply_skipped)
    std::fprintf(stderr, "bankcheck: --apply: not written: %s\n", why.c_str());
  // The gate tests the source as given (fix's check report), not the patched copy.
  return gates_crossed(r.check, gates) ? 1 : 0;
}

void add_occupancy(CLI::App& app, OccupancyCmdOptions& o) {
  CLI::App* c = app.add_subcommand(
      "occupancy", "Resident blocks and warps per SM for a launch, and what limits them.");
  c->add_option("--arch", o.arch,
                "architecture: sm_70, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_100, sm_103, "
                "sm_120 or sm_121")
      ->capture_default_str();
  c->add_option("--threads", o.threads, "threads per block")->required();
  c->add_option("--regs", o.regs, "registers per thread (as ptxas -v reports)")
      ->capture_default_str();
  c->add_option("--smem", o.smem, "static shared memory per block in bytes (K suffix)")
      ->capture_default_str();
  c->add_option("--dynamic-smem", o.dynamic_smem, "dynamic shared memory per block in bytes")
      ->capture_default_str();
  c->add_option("--carveout", o.carveout,
                "preferred shared-memory carveout in percent (-1: the default)")
      ->capture_default_str();
  add_format_option(c, o.format, report::ReportKind::Occupancy, "text or json (@DOCDIR@/json.md)");
  c->footer(exit_codes("the configuration launches (its occupancy printed)", "",
                       "bad input, an unknown architecture, or a configuration that cannot launch "
                       "(the reason printed; JSON: error)"));
}

int run_occupancy(const OccupancyCmdOptions& o) {
  const model::Arch* arch = model::find_arch(o.arch);
  if (!arch) throw UserError(fmt::format("--arch: unknown architecture '{}'", o.arch));
  if (!model::sm_limits(arch->cc).known()) {
    std::string known;
    for (const int cc : model::kOccupancyArchs)
      known += fmt::format("{}{}", known.empty() ? "" : ", ", model::sm_limits(cc).name);
    throw UserError(fmt::format("--arch: no occupancy limits for {} (known: {})", o.arch, known));
  }
  if (o.threads <= 0) throw UserError(fmt::format("--threads: {} is not a positive count", o.threads));
  if (o.regs < 0) throw UserError(fmt::format("--regs: {} is negative", o.regs));
  model::OccupancyInput in;
  in.threads_per_block = o.threads;
  in.registers_per_thread = o.regs;
  const std::uint64_t st = driver::parse_bytes(o.smem, "--smem");
  const std::uint64_t dyn = driver::parse_bytes(o.dynamic_smem, "--dynamic-smem");
  if (st > (1u << 30) || dyn > (1u << 30))
    throw UserError("--smem: more shared memory than any GPU has");
  in.static_shared_bytes = static_cast<int>(st);
  in.dynamic_shared_bytes = static_cast<int>(dyn);
  in.carveout_percent = o.carveout;
  const model::Occupancy occ = model::compute_occupancy(arch->cc, in);
  write_output(report::view(o.format).occupancy(*arch, in, occ), "");
  return occ.ok() ? 0 : 2;
}

}  // namespace bankcheck::tools
