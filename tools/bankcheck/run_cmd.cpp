// `bankcheck run`: its options, and one call into the launcher (launch/launcher.hpp), which
// starts the program under bankcheck and gives the exit code: the program's own (or 1 for a
// crossed gate, 2 for bankcheck's own failure, 128+N when the program was killed by signal N).
#include "run_cmd.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/driver/limits.hpp"
#include "bankcheck/install_dirs.hpp"
#include "bankcheck/launch/launcher.hpp"
#include "cli.hpp"
#include "program_args.hpp"

namespace bankcheck::tools {

void add_run(CLI::App& app, RunCmdOptions& o) {
  CLI::App* c = app.add_subcommand(
      "run",
      "Run a CUDA program and report every shared-memory bank conflict and uncoalesced global\n"
      "access of the kernels it launches, per source line, when it exits.\n"
      "\n"
      "  bankcheck run ./app --size 4096\n"
      "  bankcheck run --format json -o report.json ./app --size 4096\n"
      "\n"
      "The program runs on the CPU: its CUDA runtime (static or shared, and those inside\n"
      "libraries such as cuBLAS) runs on bankcheck's own CUDA driver, and its kernels in the\n"
      "emulator, with the program's own launches, arguments and data. Build it as usual, with\n"
      "line information and PTX for the architecture:\n"
      "  nvcc -lineinfo -gencode arch=compute_90,code=[sm_90,compute_90] ...\n"
      "  (CMake: CUDA_ARCHITECTURES 90-real;90-virtual)\n"
      "\n"
      "The first --launches of each kernel and configuration (grid, block, dynamic shared\n"
      "memory) are analysed on every CTA; later ones only execute, or do not run at all when\n"
      "their results are provably in memory already (--repeats). --kernel, --launch-skip,\n"
      "--launch-count, --filter-mode and --nvtx-include select launches as Nsight Compute's\n"
      "options of the same names do. The program's standard output is untouched: the text\n"
      "report goes to standard error, or to -o FILE.\n"
      "\n"
      "The report is written whatever the program does: when it dies (a signal, _exit, a\n"
      "fatal CUDA error), what was analysed is reported and marked incomplete. Processes it\n"
      "starts are part of the run (one report, a section per process), and none outlives\n"
      "bankcheck; signals sent to bankcheck reach the program.\n"
      "\n" +
          exit_codes("the program's own exit code (0 when it succeeded)",
                     "a --fail-on threshold was crossed (and the program succeeded)",
                     "bankcheck's own failure: a program it cannot run (no PTX), a kernel it "
                     "could not emulate") +
          "\n  128+N  the program was killed by signal N\n");
  c->add_option("--backend", o.backend,
                "where kernels run: emulator (the CPU, any machine), gpu (the real run, "
                "instrumented; needs a GPU and bankcheck built with the GPU backend) or auto")
      ->check(CLI::IsMember({"auto", "emulator", "gpu"}))
      ->capture_default_str();
  c->add_option("--kernel,-k", o.kernels,
                "analyse only the kernels this names: NAME, or regex:RE matched anywhere in the "
                "name --kernel-name-base says (repeatable; the others still execute)");
  c->add_option("--kernel-name-base", o.kernel_name_base,
                "the name --kernel matches: function (the base name, as ncu's default), "
                "demangled (the whole signature) or mangled")
      ->check(CLI::IsMember({"function", "demangled", "mangled"}))
      ->capture_default_str();
  c->add_option("--arch", o.arch, "the device the program sees and the bank model's")
      ->capture_default_str();
  add_format_option(c, o.format, report::ReportKind::Check,
                    "text, json (@DOCDIR@/json.md), sarif or html");
  c->add_option("-o,--output", o.output, "write the report to this file (default: standard error)");
  add_color_option(c, o.color);
  add_layout_options(c, o.columns, o.quiet);
  add_fail_on_option(c, o.fail_on, " over the whole run");
  add_baseline_option(c, o.baseline);
  c->add_option("--launches", o.launches,
                "launches analysed per kernel and configuration: N or all (the others only "
                "execute; default 1, and all with --filter-mode global)");
  c->add_option("--launch-skip,-s", o.launch_skip,
                "skip this many launches the filters match before analysing (per kernel and "
                "configuration, or over all launches with --filter-mode global)")
      ->capture_default_str();
  c->add_option("--launch-count,-c", o.launch_count,
                "analyse this many launches the filters match (per kernel and configuration, as "
                "--launches; or in all with --filter-mode global)");
  c->add_option("--filter-mode", o.filter_mode,
                "per-launch-config (skip and count per kernel and configuration: grid, block, "
                "dynamic shared memory) or global (over all launches in program order), as "
                "Nsight Compute's")
      ->check(CLI::IsMember({"per-launch-config", "global"}))
      ->capture_default_str();
  c->add_option("--nvtx-include", o.nvtx_include,
                "analyse only launches inside these NVTX ranges (Nsight Compute's syntax: "
                "RANGE/ for push/pop ranges, RANGE for start/end ones, DOMAIN@..., A/*/B, "
                "[A/B], regex:...; repeatable: any of them)");
  c->add_option("--nvtx-exclude", o.nvtx_exclude,
                "and not inside these (the same syntax; repeatable)");
  c->add_option("--repeats", o.repeats,
                "skip (a launch beyond those analysed does not run when it repeats an earlier "
                "one, the same arguments, on inputs unchanged since, whose results are still in "
                "memory: invisible to the program) or execute (every launch runs)")
      ->check(CLI::IsMember({"execute", "skip"}))
      ->capture_default_str();
  c->add_option("--threads", o.threads, "worker threads (default: all cores; at most 256)");
  // Hidden: the tier of launches not analysed, `today` the one before the fast tier
  // (bench/run/throughput.sh compares them in one run).
  c->add_option("--tier", o.tier, "launches not analysed: fast, or today (the tier before it)")
      ->check(CLI::IsMember({"fast", "today"}))
      ->group("");
  c->add_option("--native", o.native,
                "on: launches not analysed run straight-line integer and f32 arithmetic as "
                "native code, compiled by the host C++ compiler and kept in "
                "$BANKCHECK_CACHE_DIR (default ~/.cache/bankcheck); off: interpreted")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  add_progress_flag(c, o.progress);
  c->add_flag("!--no-fix", o.fix.suggest,
              "no fix suggestions under the findings (the shared requests are then not "
              "recorded; bankcheck fix PROGRAM gives them in full)");
  c->add_flag("--stop-on-fault", o.stop_on_fault,
              "end the analysis at a kernel's first global access outside every buffer "
              "(emulator; the program stops as on a GPU fault) instead of reporting it and "
              "going on with the lanes reading zeros and their writes dropped");
  c->add_flag("--ptx-level", o.ptx_level,
              "count shared requests as the PTX states them, not as the cubin's SASS issues them");
  c->add_option("--nvcc", o.nvcc, "the nvcc whose ptxas builds a cubin when the program has none");
  // The program and its arguments: the first word that is neither an option nor an option's
  // value, and everything after it (or everything after `--`), taken apart before parsing
  // (program_args.hpp); listed here for the help.
  c->add_option("command", o.command,
                "PROGRAM [ARGS...]: everything from the first word that is not an option of "
                "bankcheck's is the program's (its own -h or --quiet included); -- also ends "
                "bankcheck's options");
}

namespace {

std::optional<std::uint64_t> count_of(const std::string& option, const std::string& text,
                                      bool all) {
  if (text.empty()) return std::nullopt;
  if (all && text == "all") return 0;
  if (text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19 ||
      std::strtoull(text.c_str(), nullptr, 10) == 0)
    throw UserError(
        fmt::format("{}: '{}' is not a positive count{}", option, text, all ? " or all" : ""));
  return std::strtoull(text.c_str(), nullptr, 10);
}

}  // namespace

int run_program(const RunCmdOptions& o) {
  if (o.threads) driver::check_threads(o.threads);
  parse_gates(o.fail_on);  // a bad gate or baseline stops the run before the program starts
  read_baseline(o.baseline);
  launch::Request r;
  r.command = o.command;
  r.backend = o.backend == "gpu"        ? launch::Backend::Gpu
              : o.backend == "emulator" ? launch::Backend::Emulator
                                        : launch::Backend::Auto;
  r.arch = o.arch;
  runtime::RunOptions& ro = r.options;
  ro.format = std::string(report::format_name(o.format));
  ro.output = o.output;
  ro.color = o.color;
  // The report goes to standard error unless -o names a file.
  ro.columns = text_columns(o.columns, o.output, STDERR_FILENO);
  ro.quiet = o.quiet;
  runtime::LaunchSelection& sel = ro.selection;
  sel.kernels = o.kernels;
  sel.name_base = *runtime::parse_kernel_name_base(o.kernel_name_base);
  sel.mode = *runtime::parse_filter_mode(o.filter_mode);
  sel.skip = o.launch_skip;
  sel.count = count_of("--launch-count", o.launch_count, false);
  sel.launches = count_of("--launches", o.launches, true);
  sel.nvtx_include = o.nvtx_include;
  sel.nvtx_exclude = o.nvtx_exclude;
  ro.skip_repeats = o.repeats == "skip";
  ro.fast_tier = o.tier == "fast";
  ro.native = o.native == "on";
  ro.fail_on = o.fail_on;
  ro.baseline = o.baseline;
  ro.threads = o.threads;
  ro.progress = o.progress && !o.quiet;
  ro.sass = !o.ptx_level;
  ro.stop_on_fault = o.stop_on_fault;
  ro.nvcc = o.nvcc;
  if (!o.command.empty()) {
    ro.fix = o.fix;
    if (ro.fix.command.empty()) {
      std::vector<std::string> fix_cmd = {"bankcheck", "fix"};
      fix_cmd.insert(fix_cmd.end(), o.command.begin(), o.command.end());
      ro.fix.command = shell_words(fix_cmd);
    }
  }
  ro.working_dir = std::filesystem::current_path().string();
  try {
    return launch::run(r);
  } catch (const launch::LaunchError& e) {
    throw UserError(e.what());
  }
}

}  // namespace bankcheck::tools
