// `bankcheck check`: flags to options, the check engine, a view.
#include "check_cmd.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/driver/compile_db.hpp"
#include "bankcheck/driver/fix.hpp"
#include "bankcheck/install_dirs.hpp"
#include "bankcheck/report/findings.hpp"
#include "bankcheck/report/gate.hpp"
#include "bankcheck/report/views.hpp"
#include "cli.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace bankcheck::tools {

void add_check(CLI::App& app, CheckCmdOptions& o) {
  CLI::App* c = app.add_subcommand(
      "check",
      "Emulate kernels on the CPU and report every shared-memory bank conflict per source line.\n"
      "\n"
      "Usually no flags are needed:\n"
      "  bankcheck check app.cu\n"
      "reads the launches the file's host code makes (k<<<grid, block, smem, stream>>>(...),\n"
      "cudaLaunchKernel, launcher functions called from main) with their grid, block, shared\n"
      "memory, scalar arguments and cudaMalloc sizes. What it cannot determine is listed at once\n"
      "with the flags to give. A comment in the file overrides the host code, and flags\n"
      "override both:\n"
      "  // bankcheck: kernel=transpose grid=64,64 block=32,8 arg=n=4096 arg=in=random:64M\n"
      "A struct passed by value takes its fields (--arg p.n=4096 --arg p.in=random) or its bytes\n"
      "(--arg p=@p.bin); __constant__ and __device__ variables take --var (--var strides=1,33,2,4,\n"
      "--var table=random:4K; var= in the comment). A kernel with extern __shared__ needs --smem\n"
      "(or smem=, or the host launch's) and is refused without it.\n"
      "\n"
      "A built program, object file or fat binary is read for the PTX and cubin it carries\n"
      "(nvcc -gencode arch=compute_90,code=[sm_90,compute_90] -lineinfo); its host code is not\n"
      "read, so the launch comes from flags, or from comments in its source when that is found:\n"
      "  bankcheck check app --kernel transpose --grid 64,64 --block 32,8 --arg n=4096\n"
      "\n"
      "A build's flags (include directories, definitions, -std, architecture) come from its\n"
      "compile_commands.json with -p (CMake: -DCMAKE_EXPORT_COMPILE_COMMANDS=ON):\n"
      "  bankcheck check -p build src/a.cu     the entry of src/a.cu\n"
      "  bankcheck check -p build              every .cu file of the build\n"
      "Several files are checked one after the other into one report (text: a section per\n"
      "file; json: `files`; sarif: one run); flags such as --kernel apply to each.\n"
      "\n"
      "Findings are notes, warnings or errors by their share of the kernel's cost (5% and 25%;\n"
      "@DOCDIR@/reports.md). A finding is accepted by a comment on its line, or on the line before:\n"
      "  x = tile[tid][0];  // bankcheck: ignore[bank-conflict] REASON\n"
      "  // bankcheck: ignore-next-line REASON\n"
      "it is listed as suppressed and no gate counts it. --baseline OLD.json gates only on\n"
      "findings that are new or worse than in OLD.json (bankcheck diff lists them).\n"
      "\n"
      "Exit codes: 0 checked; 1 a --fail-on threshold was crossed (or, with --baseline alone, a\n"
      "finding is new or worse); 2 bad input, an nvcc or emulation error, or a kernel the run\n"
      "asked for that could not be analysed. Over several files, the worst of them (the others\n"
      "are still checked and reported).\n");
  add_launch_options(c, o, /*several_files=*/true);
  add_format_option(c, o.format, report::ReportKind::Check,
                    "text (compiler-style diagnostics), json (@DOCDIR@"
                    "/json.md), sarif (SARIF 2.1.0) "
                    "or html (one self-contained page)");
  c->add_option("-o,--output", o.output,
                "write the report to this file instead of standard output");
  add_color_option(c, o.color);
  add_layout_options(c, o.columns, o.quiet);
  add_source_root_option(c, o.source_root);
  add_fail_on_option(c, o.fail_on, "");
  add_baseline_option(c, o.baseline);
  add_progress_flag(c, o.progress);
}

namespace {

// One file's run: the analyses its view needs (the check's report; fix's too where the view
// says so, whose check is then the report), or why it failed.
struct FileRun {
  std::string input;
  std::optional<analysis::CheckReport> checked;
  std::optional<analysis::FixReport> fixed;
  std::string error;
  std::string note;

  const analysis::CheckReport* check() const {
    return fixed ? &fixed->check : checked ? &*checked : nullptr;
  }
  void forget() {
    checked.reset();
    fixed.reset();
  }
};

void run_one(FileRun& f, driver::CheckOptions co, const report::Needs& needs, bool show_progress,
             bool quiet) {
  std::string nvcc_said;
  co.nvcc_output = [&](const std::string& text) { nvcc_said += text; };
  {
    RunProgress progress(show_progress, co);
    try {
      if (needs.fix) {  // the view shows fix's suggestions: fix's run, its check included
        driver::FixOptions fo;
        fo.check = co;
        f.fixed = driver::fix(fo);
      } else {
        f.checked = driver::check(co);
      }
    } catch (...) {
      // nvcc's warnings explain many a failure after it: shown first all the same.
      progress.stop();
      if (!nvcc_said.empty())
        std::fprintf(stderr, "bankcheck: %s: nvcc printed:\n%s", f.input.c_str(),
                     nvcc_said.c_str());
      throw;
    }
  }
  // What nvcc printed when it succeeded (a redefined macro changes what was analysed), as is,
  // once the progress line is gone; not with --quiet.
  if (!nvcc_said.empty() && !quiet) {
    if (nvcc_said.back() != '\n') nvcc_said += '\n';
    std::fprintf(stderr, "bankcheck: %s: nvcc printed:\n%s", f.input.c_str(), nvcc_said.c_str());
  }
}

}  // namespace

int run_check(const CheckCmdOptions& o) {
  const std::vector<report::Gate> gates = parse_gates(o.fail_on);
  const std::optional<report::DiffReport> baseline = read_baseline(o.baseline);
  std::optional<driver::CompileDb> db;
  if (!o.compile_db.empty()) db = driver::read_compile_db(o.compile_db);
  const std::vector<std::string> files = input_files(o, db ? &*db : nullptr);
  // Every .cu file of a build (-p without files) is a run over several files, even when the
  // build has one: a file there without kernels is a note, not an error.
  const bool several = files.size() > 1 || (db && o.inputs.empty() && o.input.empty());
  const report::View& view = report::view(o.format);
  if (several && !view.files)
    throw UserError(
        fmt::format("--format {}: {}", view.name, report::refuse_files(view, files.size())));
  // Every file's options before any nvcc runs: a bad flag or a file the database lacks
  // stops the run at once.
  std::vector<driver::CheckOptions> options;
  for (const auto& f : files) {
    refuse_input_as_output(o.output, f);
    options.push_back(to_check_options(o, f, db ? &*db : nullptr));
    options.back().kernel_may_be_absent = several;
  }
  std::vector<FileRun> runs(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    runs[i].input = files[i];
    if (!several) {
      run_one(runs[i], options[i], view.needs, o.progress && !o.quiet, o.quiet);  // an error is the run's
      continue;
    }
    // Over several files, one file's error is reported and the others are still checked.
    try {
      run_one(runs[i], options[i], view.needs, o.progress && !o.quiet, o.quiet);
    } catch (...) {
      std::string msg = error_message(std::current_exception());
      if (!msg.starts_with(files[i])) msg = files[i] + ": " + msg;
      std::fprintf(stderr, "bankcheck: error: %s\n", msg.c_str());
      runs[i].error = msg;
      runs[i].forget();
    }
  }
  bool failed = false, matched = false;
  for (auto& f : runs) {
    failed = failed || !f.check();
    if (f.check() && !f.check()->kernels.empty()) matched = true;
    if (several && f.check() && f.check()->kernels.empty() && !o.kernel.empty())
      f.note = fmt::format("no kernel named '{}' here (--kernel)", o.kernel);
    else if (several && f.check() && f.check()->kernels.empty() &&
             f.check()->unsupported.empty())
      f.note = "no kernels (no __global__ function here)";
  }
  if (several && !o.kernel.empty() && !matched && !failed)
    throw UserError(fmt::format("--kernel: no kernel named '{}' in any of the {} files", o.kernel,
                                files.size()));

  const report::TextOptions text_options{
      .color = use_color(o.color, o.output),
      .columns = text_columns(o.columns, o.output, STDOUT_FILENO),
      .quiet = o.quiet,
      .source_root = view.format == report::Format::Sarif ? source_root(o.source_root, files) : ""};
  std::string text;
  if (!several) {
    text = view.check(*runs[0].check(), runs[0].fixed ? &*runs[0].fixed : nullptr, text_options);
  } else {
    std::vector<report::FileResult> results;
    for (const auto& f : runs)
      results.push_back({f.input, f.check(), f.error, f.note, f.fixed ? &*f.fixed : nullptr});
    text = view.files(results, text_options);
  }
  write_output(text, o.output);

  int status = failed ? 2 : 0;
  for (const auto& f : runs) {
    if (!f.check()) continue;
    const analysis::CheckReport& r = *f.check();
    // Kernels of the file that were not analysed are named on stderr too. One the run asked
    // for (--kernel, a launch comment, the only kernel) makes it fail as any unsupported
    // construct does, after the report of the others: a CI gate must not pass on a kernel
    // that was never checked. The file's other refused kernels do not change the exit code.
    for (const auto& u : r.unsupported) {
      const auto path = [&](int file) { return report::source_path(r, file); };
      const std::string where =
          u.line ? fmt::format("{}:{}:{}", path(u.file), u.line, std::max(u.col, 1)) : r.input;
      std::fprintf(stderr, "bankcheck: %s: kernel %s not analysed: %s\n", where.c_str(),
                   u.name.c_str(),
                   analysis::refusal_text(u.reason, u.ptx_line, u.ptx, u.families, path).c_str());
      if (u.selected) status = 2;
    }
    if (gates_crossed(r, gates, baseline ? &*baseline : nullptr, o.baseline))
      status = std::max(status, 1);
  }
  return status;
}

}  // namespace bankcheck::tools
