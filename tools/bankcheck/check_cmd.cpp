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

int run_check(const CheckCmdOptions& o) {
  std::vector<report::Gate> gates;
  for (const auto& spec : o.fail_on) try {
      gates.push_back(report::parse_gate(spec));
    } catch (const std::invalid_argument& e) {
      throw UserError(e.what());
    }
  refuse_input_as_output(o.output, o.input);
  driver::CheckOptions co = to_check_options(o);
  driver::Progress progress;
  analysis::CheckReport r;
  std::vector<report::SarifFix> sarif_fixes;
  {
    std::optional<ProgressLine> line;
    if (o.progress && ProgressLine::wanted()) {
      co.progress = &progress;
      line.emplace(progress);
    }
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
  if (crossed) std::fprintf(stderr, "bankcheck: %s\n", summary.c_str());
  if (asked_refused) return 2;
  return crossed ? 1 : 0;
}

}  // namespace bankcheck::tools
