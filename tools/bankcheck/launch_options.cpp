// The flags `check` and `fix` share, and their translation to the check engine's options.
#include "launch_options.hpp"

#include <CLI/CLI.hpp>

namespace bankcheck::tools {

void add_launch_options(CLI::App* c, LaunchCmdOptions& o) {
  c->add_option("file", o.input, "FILE.cu (compiled with nvcc) or FILE.ptx")->required();
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
                "type; given twice, the last wins (and a flag wins over the launch comment)");
  c->add_option("--blocks", o.blocks,
                "CTAs to analyse: a count (first, last, spread between) or all");
  c->add_option("--arch", o.arch, "architecture for nvcc and the bank model")
      ->capture_default_str();
  c->add_option("--nvcc", o.nvcc, "the nvcc to use (default: PATH, then /usr/local/cuda/bin/nvcc)");
  c->add_option("-I", o.include_dirs, "include directory for nvcc");
  c->add_option("-D", o.defines, "NAME[=VALUE] for nvcc");
  c->add_option("--threads", o.threads, "worker threads (default: all cores; at most 256)");
  c->add_option("--max-memory", o.max_memory,
                "memory budget for buffers, the CTA plan and the emulators (default 3G; K/M/G "
                "suffixes; docs/limits.md)");
  c->add_option("--nvcc-timeout", o.nvcc_timeout,
                "seconds nvcc may run before it is stopped (default 300; 0: no limit)")
      ->capture_default_str();
  c->add_option("--budget", o.budget,
                "warp instructions one CTA may execute before it is stopped (default 200000000)");
  c->add_flag("--ptx-level", o.ptx_level,
              "count shared requests as the PTX states them, not as the cubin's SASS issues "
              "them (ptxas on the same PTX; read for sm_90)");
  c->add_option("nvcc_flags", o.nvcc_flags, "after --: more nvcc flags");
}

driver::CheckOptions to_check_options(const LaunchCmdOptions& o) {
  driver::CheckOptions co;
  co.input = o.input;
  co.arch = o.arch;
  driver::check_threads(o.threads);
  co.threads = o.threads;
  co.sass = !o.ptx_level;
  if (!o.max_memory.empty()) co.max_memory = driver::parse_bytes(o.max_memory, "--max-memory");
  co.nvcc.timeout_seconds = o.nvcc_timeout;
  co.launch = o.launch;
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
  return co;
}

}  // namespace bankcheck::tools
