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

namespace bankcheck::tools {

void add_check(CLI::App& app, CheckCmdOptions& o) {
  CLI::App* c = app.add_subcommand(
      "check",
      "Emulate a kernel on the CPU and report every shared-memory bank conflict per source line.");
  c->add_option("file", o.input, "FILE.cu (compiled with nvcc) or FILE.ptx")->required();
  c->add_option("--kernel", o.kernel,
                "kernel to check (name or signature); default: those with a launch comment");
  c->add_option("--grid", o.grid, "grid size X[,Y[,Z]]");
  c->add_option("--block", o.block, "block size X[,Y[,Z]]");
  c->add_option("--smem", o.smem, "dynamic shared memory in bytes (K/M suffixes)");
  c->add_option("--arg", o.args,
                "NAME=VALUE: a scalar, or for pointers zeros|random|iota[:BYTES] or @FILE");
  c->add_option("--blocks", o.blocks,
                "CTAs to analyse: a count (first, last, spread between) or all");
  c->add_option("--arch", o.arch, "architecture for nvcc and the bank model")
      ->capture_default_str();
  c->add_option("--nvcc", o.nvcc, "the nvcc to use (default: PATH, then /usr/local/cuda/bin/nvcc)");
  c->add_option("-I", o.include_dirs, "include directory for nvcc");
  c->add_option("-D", o.defines, "NAME[=VALUE] for nvcc");
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
  c->add_option("--threads", o.threads, "worker threads (default: all cores)");
  c->add_option("--budget", o.budget,
                "warp instructions one CTA may execute before it is stopped (default 200000000)");
  c->add_option("nvcc_flags", o.nvcc_flags, "after --: more nvcc flags");
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
  if (o.format == "json") return report::check_to_json(r).dump(2) + "\n";
  if (o.format == "sarif") return report::check_to_sarif(r, fixes).dump(2) + "\n";
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
  driver::CheckOptions co;
  co.input = o.input;
  co.arch = o.arch;
  co.threads = o.threads;
  if (o.budget) co.budget = o.budget;
  co.nvcc.nvcc = o.nvcc;
  co.nvcc.include_dirs = o.include_dirs;
  co.nvcc.defines = o.defines;
  co.nvcc.extra = o.nvcc_flags;
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
  if (o.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream f(o.output, std::ios::binary);
    if (!f) throw UserError(fmt::format("-o: cannot write '{}'", o.output));
    f << text;
    if (!f.flush()) throw UserError(fmt::format("-o: cannot write '{}'", o.output));
  }
  std::fflush(stdout);
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
    return 1;
  }
  return 0;
}

}  // namespace bankcheck::tools
