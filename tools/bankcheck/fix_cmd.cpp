// `bankcheck fix` and `bankcheck occupancy`: flags to options, the engines, a view.
#include "fix_cmd.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>

#include "bankcheck/driver/fix.hpp"
#include "bankcheck/model/occupancy.hpp"
#include "bankcheck/report/fix_view.hpp"
#include "cli.hpp"

namespace bankcheck::tools {
namespace {

void write_output(const std::string& text, const std::string& path) {
  if (path.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  std::ofstream f(path, std::ios::binary);
  if (!f) throw UserError(fmt::format("-o: cannot write '{}'", path));
  f << text;
}

}  // namespace

void add_fix(CLI::App& app, FixCmdOptions& o) {
  CLI::App* c = app.add_subcommand(
      "fix",
      "Suggest padding, XOR swizzles, rotations or narrower accesses for each conflicting "
      "shared array, judged by replaying its accesses, with their shared-memory and occupancy "
      "cost.");
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
  c->add_option("--arch", o.arch, "architecture for nvcc, ptxas, the bank model and occupancy")
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
  c->add_option("--top", o.top, "suggestions shown per array")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  c->add_flag("--apply", o.apply,
              "write a copy of the source with each array's best declaration padding "
              "(FILE.fixed.cu) and check it");
  c->add_option("--apply-to", o.apply_to, "with --apply: the path of the patched copy");
  c->add_option("nvcc_flags", o.nvcc_flags, "after --: more nvcc flags");
}

int run_fix(const FixCmdOptions& o) {
  driver::FixOptions fo;
  driver::CheckOptions& co = fo.check;
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
  fo.top = o.top;
  fo.apply = o.apply || !o.apply_to.empty();
  fo.apply_to = o.apply_to;
  const driver::FixReport r = driver::fix(fo);
  write_output(o.format == "json" ? report::fix_to_json(r).dump(2) + "\n" : report::render_fix_text(r),
               o.output);
  return 0;
}

void add_occupancy(CLI::App& app, OccupancyCmdOptions& o) {
  CLI::App* c = app.add_subcommand(
      "occupancy", "Resident blocks and warps per SM for a launch, and what limits them.");
  c->add_option("--arch", o.arch, "architecture (sm_70 ... sm_90)")->capture_default_str();
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
  c->add_option("--format", o.format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

int run_occupancy(const OccupancyCmdOptions& o) {
  const model::Arch* arch = model::find_arch(o.arch);
  if (!arch) throw UserError(fmt::format("--arch: unknown architecture '{}'", o.arch));
  if (!model::sm_limits(arch->cc).known())
    throw UserError(fmt::format("--arch: no occupancy limits for {} (known: sm_70, sm_75, sm_80, "
                                "sm_86, sm_87, sm_89, sm_90)",
                                o.arch));
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
  write_output(o.format == "json" ? report::occupancy_to_json(*arch, in, occ).dump(2) + "\n"
                                  : report::render_occupancy_text(*arch, in, occ),
               "");
  return occ.ok() ? 0 : 2;
}

}  // namespace bankcheck::tools
