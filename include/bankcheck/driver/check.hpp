// `bankcheck check` as a library: load a .cu (through nvcc) or a .ptx, pick kernels and
// launch settings (flags over source comments), bind arguments, choose CTAs, run them
// on the emulator (on all cores) and gather the per-site report.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/recorder.hpp"
#include "bankcheck/driver/launch.hpp"
#include "bankcheck/driver/limits.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/emu/emulator.hpp"
#include "bankcheck/model/arch.hpp"
#include "bankcheck/ptx/ast.hpp"
#include "bankcheck/ptx/ir.hpp"
#include "bankcheck/sass/module.hpp"

namespace bankcheck::driver {

// What a run is doing, for a progress display on another thread: the engine stores, the
// display reads (relaxed atomics, no locks on the emulation path).
struct Progress {
  std::atomic<int> kernel{0};   // the kernel being emulated, 1-based; 0 while loading
  std::atomic<int> kernels{0};  // how many the run checks
  std::atomic<std::uint64_t> ctas_done{0};
  std::atomic<std::uint64_t> ctas_planned{0};  // 0 when sampling until the instruction budget
};

struct CheckOptions {
  std::string input;     // FILE.cu or FILE.ptx
  LaunchSettings flags;  // --kernel --grid --block --smem --arg --blocks
  int launch = 0;        // --launch N: the N-th launch of the host code (1-based); 0: the first
  std::string arch = "sm_90";
  NvccOptions nvcc;                    // nvcc path, -I, -D, extra flags (input/arch filled in)
  unsigned threads = 0;                // 0: all cores
  std::uint64_t budget = 200'000'000;  // warp instructions per CTA
  // Buffers, the CTA plan and the emulators' state together (--max-memory; limits.hpp).
  std::uint64_t max_memory = kDefaultMaxMemory;
  // Without --blocks: sample CTAs (first, last, then spread) until about this many warp
  // instructions have run, shared among the run's kernels: deterministic, unlike a time
  // limit, and about a second of emulation.
  std::uint64_t sample_instructions = 4'000'000;
  // Without --blocks, for the kernels named here (mangled): exactly the first N CTAs of the
  // sample order instead of an instruction budget. `fix --apply` re-checks its copy on the
  // CTAs its prediction counted: the copy's kernels run other instructions, and a budget
  // would stop them at another CTA.
  std::map<std::string, std::uint64_t> sampled_ctas;
  // Keep every distinct shared request (for the fix advisor) in KernelRun::recorder.
  bool record_shared = false;
  // Count shared requests as the cubin's SASS issues them (ptxas on the same PTX); false:
  // as the PTX states them (--ptx-level).
  bool sass = true;
  Progress* progress = nullptr;  // updated while the run goes, when given
  // With --kernel: a file without a kernel of that name gives a report with no kernels
  // instead of an error (a run over several files, where the name need match in one only).
  bool kernel_may_be_absent = false;
  // Receives what nvcc printed when it succeeded (its warnings: a redefined macro changes
  // what is analysed), when given and not empty. The library itself never prints.
  std::function<void(const std::string&)> nvcc_output;
};

struct Loaded {
  std::string input;
  std::string source_text;  // the .cu text (empty for .ptx input)
  std::string ptx_text;
  std::vector<LaunchSettings> comments;
  ptx::Module module;
  ptx::Program program;
  // The SASS ptxas builds from ptx_text, when it could be read; otherwise why not (counts
  // are then PTX-level, and the report says so once).
  std::shared_ptr<const sass::Module> sass;
  std::string ptx_level_reason;
  // Registers per thread of each kernel (mangled name), from the same cubin; read when
  // SASS is or when shared requests are recorded (fix); else why not.
  std::map<std::string, int> registers;
  std::string registers_note;
};

// Loads and decodes. Throws DriverError, ptx::ParseError, ptx::DecodeError.
Loaded load(const CheckOptions& options);

// One kernel's run: the report, and the memory it ran in (for functional tests).
struct KernelRun {
  analysis::KernelReport report;
  std::unique_ptr<emu::GlobalMemory> memory;
  std::vector<std::uint64_t> arg_buffers;  // per kernel parameter: buffer base, 0 for scalars
  std::unique_ptr<analysis::SharedRecorder> recorder;  // with CheckOptions::record_shared
};

// Runs `kernel` with `settings` (already merged). Throws DriverError or a located
// emulation error (EmulationError).
KernelRun run_kernel(const Loaded& loaded, const ptx::Kernel& kernel,
                     const LaunchSettings& settings, const model::Arch& arch,
                     const CheckOptions& options);

// An emulation error with the source location of the instruction.
struct EmulationError : DriverError {
  using DriverError::DriverError;
};

// The kernels to check and their settings (flags over comments over the host code's launch,
// host_launch.hpp): --kernel (every kernel it names, instantiations of a template too), else
// every kernel with a launch comment, else every kernel the host code launches (each with
// its first launch, or the one --launch picks), else the only kernel. Throws DriverError
// listing the kernels when ambiguous, or when --kernel names none of them (an empty list
// instead with CheckOptions::kernel_may_be_absent).
std::vector<std::pair<const ptx::Kernel*, LaunchSettings>> select_kernels(
    const Loaded& loaded, const CheckOptions& options);

// The architecture --arch names; throws DriverError.
const model::Arch& find_arch(const CheckOptions& options);

// A report with the run's input, files, architecture and source lines, and no kernels yet.
analysis::CheckReport start_report(const Loaded& loaded, const CheckOptions& options,
                                   const model::Arch& arch);

// Selects the kernels (select_kernels), shares the default sample budget among them,
// runs each (run_kernel, with progress) and hands its run to `each`.
void run_selected(const Loaded& loaded, const CheckOptions& options, const model::Arch& arch,
                  const std::function<void(const ptx::Kernel&, KernelRun&)>& each);

// The whole command.
analysis::CheckReport check(const CheckOptions& options);

}  // namespace bankcheck::driver
