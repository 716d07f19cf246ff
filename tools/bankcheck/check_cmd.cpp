// `bankcheck check`: flags to options, the check engine, a view.
#include "check_cmd.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/report/check_view.hpp"
#include "cli.hpp"

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
  c->add_option("--format", o.format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  c->add_option("-o,--output", o.output,
                "write the report to this file instead of standard output");
  c->add_option("--threads", o.threads, "worker threads (default: all cores)");
  c->add_option("--budget", o.budget,
                "warp instructions one CTA may execute before it is stopped (default 200000000)");
  c->add_option("nvcc_flags", o.nvcc_flags, "after --: more nvcc flags");
}

int run_check(const CheckCmdOptions& o) {
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
  const analysis::CheckReport r = driver::check(co);
  const std::string text =
      o.format == "json" ? report::check_to_json(r).dump(2) + "\n" : report::render_check_text(r);
  if (o.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream f(o.output, std::ios::binary);
    if (!f) throw UserError(fmt::format("-o: cannot write '{}'", o.output));
    f << text;
  }
  return 0;
}

}  // namespace bankcheck::tools
