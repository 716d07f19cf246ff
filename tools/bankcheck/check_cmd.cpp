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
#include "bankcheck/report/check_view.hpp"
#include "bankcheck/report/files_view.hpp"
#include "bankcheck/report/fix_view.hpp"
#include "bankcheck/report/gate.hpp"
#include "bankcheck/report/html_view.hpp"
#include "bankcheck/report/sarif_view.hpp"
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
      "\n"
      "A build's flags (include directories, definitions, -std, architecture) come from its\n"
      "compile_commands.json with -p (CMake: -DCMAKE_EXPORT_COMPILE_COMMANDS=ON):\n"
      "  bankcheck check -p build src/a.cu     the entry of src/a.cu\n"
      "  bankcheck check -p build              every .cu file of the build\n"
      "Several files are checked one after the other into one report (text: a section per\n"
      "file; json: `files`; sarif: one run); flags such as --kernel apply to each.\n"
      "\n"
      "Exit codes: 0 checked; 1 a --fail-on threshold was crossed; 2 bad input, an nvcc or\n"
      "emulation error, or a kernel the run asked for that could not be analysed. Over several\n"
      "files, the worst of them (the others are still checked and reported).");
  add_launch_options(c, o, /*several_files=*/true);
  c->add_option("--format", o.format,
                "text (compiler-style diagnostics), json (docs/json.md), sarif (SARIF 2.1.0) or "
                "html (one self-contained page)")
      ->check(CLI::IsMember({"text", "json", "sarif", "html"}))
      ->capture_default_str();
  c->add_option("-o,--output", o.output,
                "write the report to this file instead of standard output");
  c->add_option("--color", o.color,
                "colour the text report: auto (when standard output is a terminal), always or "
                "never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  c->add_option("--fail-on", o.fail_on,
                "exit 1 with a one-line summary when the report crosses a threshold: 'ways>N' "
                "(a shared line with more than N ways) or 'excess>P%' (a kernel with more than "
                "P% of its shared wavefronts in excess); may be repeated");
  c->add_flag("!--no-progress", o.progress,
              "no progress line on standard error (shown only on a terminal, after a second)");
}

namespace {

bool use_color(const CheckCmdOptions& o) {
  if (o.color == "always") return true;
  if (o.color == "never" || !o.output.empty()) return false;
  const char* term = std::getenv("TERM");
  return std::getenv("NO_COLOR") == nullptr && isatty(STDOUT_FILENO) &&
         !(term && std::strcmp(term, "dumb") == 0);
}

std::string render(const analysis::CheckReport& r, const CheckCmdOptions& o,
                   const std::vector<report::SarifFix>* fixes) {
  if (o.format == "json") return json_text(report::check_to_json(r));
  if (o.format == "sarif") return json_text(report::check_to_sarif(r, fixes));
  if (o.format == "html") return report::render_check_html(r);
  return report::render_check_text(r, {.color = use_color(o)});
}

}  // namespace

namespace {

// One file's run: its report (and for SARIF, fix's suggestions), or why it failed.
struct FileRun {
  std::string input;
  std::optional<analysis::CheckReport> report;
  std::vector<report::SarifFix> fixes;
  std::string error;
  std::string note;
};

void run_one(FileRun& f, driver::CheckOptions co, const CheckCmdOptions& o) {
  std::string nvcc_said;
  co.nvcc_output = [&](const std::string& text) { nvcc_said += text; };
  driver::Progress progress;
  {
    std::optional<ProgressLine> line;
    if (o.progress && ProgressLine::wanted()) {
      co.progress = &progress;
      line.emplace(progress);
    }
    try {
      if (o.format == "sarif") {
        // SARIF carries `bankcheck fix`'s best suggestion for each conflicting array.
        driver::FixOptions fo;
        fo.check = co;
        driver::FixReport fr = driver::fix(fo);
        f.fixes = report::sarif_fixes(fr);
        f.report = std::move(fr.check);
      } else {
        f.report = driver::check(co);
      }
    } catch (...) {
      // nvcc's warnings explain many a failure after it: shown first all the same.
      line.reset();
      if (!nvcc_said.empty())
        std::fprintf(stderr, "bankcheck: %s: nvcc printed:\n%s", f.input.c_str(),
                     nvcc_said.c_str());
      throw;
    }
  }
  // What nvcc printed when it succeeded (a redefined macro changes what was analysed), as is,
  // once the progress line is gone.
  if (!nvcc_said.empty()) {
    if (nvcc_said.back() != '\n') nvcc_said += '\n';
    std::fprintf(stderr, "bankcheck: %s: nvcc printed:\n%s", f.input.c_str(), nvcc_said.c_str());
  }
}

}  // namespace

int run_check(const CheckCmdOptions& o) {
  std::vector<report::Gate> gates;
  for (const auto& spec : o.fail_on) try {
      gates.push_back(report::parse_gate(spec));
    } catch (const std::invalid_argument& e) {
      throw UserError(e.what());
    }
  std::optional<driver::CompileDb> db;
  if (!o.compile_db.empty()) db = driver::read_compile_db(o.compile_db);
  const std::vector<std::string> files = input_files(o, db ? &*db : nullptr);
  const bool several = files.size() > 1;
  if (several && o.format == "html")
    throw UserError(fmt::format(
        "--format html: one page per file; check the {} files one at a time (or use text, json "
        "or sarif)",
        files.size()));
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
      run_one(runs[i], options[i], o);  // an error is the run's
      continue;
    }
    // Over several files, one file's error is reported and the others are still checked.
    try {
      run_one(runs[i], options[i], o);
    } catch (...) {
      std::string msg = error_message(std::current_exception());
      if (!msg.starts_with(files[i])) msg = files[i] + ": " + msg;
      std::fprintf(stderr, "bankcheck: error: %s\n", msg.c_str());
      runs[i].error = msg;
      runs[i].report.reset();
    }
  }
  bool failed = false, matched = false;
  for (auto& f : runs) {
    failed = failed || !f.report;
    if (f.report && !f.report->kernels.empty()) matched = true;
    if (several && f.report && f.report->kernels.empty() && !o.kernel.empty())
      f.note = fmt::format("no kernel named '{}' here (--kernel)", o.kernel);
  }
  if (several && !o.kernel.empty() && !matched && !failed)
    throw UserError(fmt::format("--kernel: no kernel named '{}' in any of the {} files", o.kernel,
                                files.size()));

  std::string text;
  if (!several) {
    text = render(*runs[0].report, o, &runs[0].fixes);
  } else {
    std::vector<report::FileResult> results;
    for (const auto& f : runs)
      results.push_back({f.input, f.report ? &*f.report : nullptr, f.error, f.note, &f.fixes});
    if (o.format == "json")
      text = json_text(report::files_to_json(results));
    else if (o.format == "sarif")
      text = json_text(report::files_to_sarif(results));
    else
      text = report::render_files_text(results, {.color = use_color(o)});
  }
  write_output(text, o.output);

  int status = failed ? 2 : 0;
  for (const auto& f : runs) {
    if (!f.report) continue;
    const analysis::CheckReport& r = *f.report;
    // Kernels of the file that were not analysed are named on stderr too. One the run asked
    // for (--kernel, a launch comment, the only kernel) makes it fail as any unsupported
    // construct does, after the report of the others: a CI gate must not pass on a kernel
    // that was never checked. The file's other refused kernels do not change the exit code.
    for (const auto& u : r.unsupported) {
      std::fprintf(stderr, "bankcheck: %s: kernel %s not analysed: %s (PTX line %d: %s)\n",
                   u.line ? fmt::format("{}:{}", r.input, u.line).c_str() : r.input.c_str(),
                   u.name.c_str(), u.reason.c_str(), u.ptx_line, u.ptx.c_str());
      if (u.selected) status = 2;
    }
    // The gates: the first crossed one is the summary; the others are named after it.
    std::string summary;
    int crossed = 0;
    for (const auto& g : gates)
      if (auto line = report::gate_crossed(r, g)) {
        if (crossed++ == 0)
          summary = *line;
        else
          summary += fmt::format("; also '{}'", g.spec);
      }
    if (crossed) {
      std::fprintf(stderr, "bankcheck: %s\n", summary.c_str());
      status = std::max(status, 1);
    }
  }
  return status;
}

}  // namespace bankcheck::tools
