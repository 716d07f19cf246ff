// `bankcheck check`: flags to options, the check engine, a view.
#include "check_cmd.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/report/check_view.hpp"
#include "bankcheck/report/gate.hpp"
#include "bankcheck/driver/fix.hpp"
#include "bankcheck/report/fix_view.hpp"
#include "bankcheck/report/html_view.hpp"
#include "bankcheck/report/sarif_view.hpp"
#include "cli.hpp"
#include "progress.hpp"
#include "output.hpp"

namespace bankcheck::tools {

void add_check(CLI::App& app, CheckCmdOptions& o) {
  CLI::App* c = app.add_subcommand(
      "check",
      "Emulate a kernel on the CPU and report every shared-memory bank conflict per source line.\n"
      "Usually no flags are needed: `bankcheck check app.cu` reads the launch the file's host\n"
      "code makes (k<<<grid, block, smem, stream>>>(...), cudaLaunchKernel, launcher functions)\n"
      "with its grid, block, shared memory, scalar arguments and cudaMalloc sizes. What it\n"
      "cannot determine is listed at once with the flags to give; flags and\n"
      "`// bankcheck: key=value` comments override the host code.");
  add_launch_options(c, o);
  c->add_option("--format", o.format,
                "text (compiler-style diagnostics), json (docs/json.md), sarif (SARIF 2.1.0) or "
                "html (one self-contained page)")
      ->check(CLI::IsMember({"text", "json", "sarif", "html"}))
      ->capture_default_str();
  c->add_option("-o,--output", o.output,
                "write the report to this file instead of standard output");
  add_color_option(c, o.color);
  add_fail_on_option(c, o.fail_on, "");
  add_progress_flag(c, o.progress);
}

namespace {

std::string render(const analysis::CheckReport& r, const CheckCmdOptions& o,
                   const std::vector<report::SarifFix>* fixes) {
  if (o.format == "json") return json_text(report::check_to_json(r));
  if (o.format == "sarif") return json_text(report::check_to_sarif(r, fixes));
  if (o.format == "html") return report::render_check_html(r);
  return report::render_check_text(r, {.color = use_color(o.color, o.output)});
}

}  // namespace

int run_check(const CheckCmdOptions& o) {
  const std::vector<report::Gate> gates = parse_gates(o.fail_on);
  refuse_input_as_output(o.output, o.input);
  driver::CheckOptions co = to_check_options(o);
  analysis::CheckReport r;
  std::vector<report::SarifFix> sarif_fixes;
  {
    const RunProgress progress(o.progress, co);
    if (o.format == "sarif") {
      // SARIF carries `bankcheck fix`'s best suggestion for each conflicting array.
      driver::FixOptions fo;
      fo.check = co;
      driver::FixReport fr = driver::fix(fo);
      sarif_fixes = report::sarif_fixes(fr);
      r = std::move(fr.check);
    } else {
      r = driver::check(co);
    }
  }
  const std::string text = render(r, o, &sarif_fixes);
  write_output(text, o.output);
  // Kernels of the file that were not analysed are named on stderr too. One the run asked
  // for (--kernel, a launch comment, the only kernel) makes it fail as any unsupported
  // construct does, after the report of the others: a CI gate must not pass on a kernel
  // that was never checked. The file's other refused kernels do not change the exit code.
  bool asked_refused = false;
  for (const auto& u : r.unsupported) {
    std::fprintf(stderr, "bankcheck: %s: kernel %s not analysed: %s (PTX line %d: %s)\n",
                 u.line ? fmt::format("{}:{}", r.input, u.line).c_str() : r.input.c_str(),
                 u.name.c_str(), u.reason.c_str(), u.ptx_line, u.ptx.c_str());
    asked_refused = asked_refused || u.selected;
  }
  const bool crossed = gates_crossed(r, gates);
  if (asked_refused) return 2;
  return crossed ? 1 : 0;
}

}  // namespace bankcheck::tools
