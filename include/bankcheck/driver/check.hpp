// `bankcheck check` as a library: load a .cu (through nvcc) or a .ptx, pick kernels and
// launch settings (flags over source comments over the host code), bind arguments, choose
// CTAs, run them on the emulator (on all cores) through the analyses the options ask for,
// and gather the per-site report. The steps one at a time are in engine.hpp.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/driver/error.hpp"
#include "bankcheck/driver/launch.hpp"
#include "bankcheck/driver/limits.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/emu/options.hpp"

namespace bankcheck::analysis {
struct CheckReport;
}

namespace bankcheck::driver {

// What a run is doing, for a progress display on another thread: the engine stores, the
// display reads (relaxed atomics, no locks on the emulation path).
struct Progress {
  std::atomic<int> kernel{0};   // the kernel being emulated, 1-based; 0 while loading
  std::atomic<int> kernels{0};  // how many the run checks
  std::atomic<std::uint64_t> ctas_done{0};
  std::atomic<std::uint64_t> ctas_planned{0};  // 0 when sampling until the instruction budget
  // A buffer being filled (`random`): bytes done of the total; total 0 when none is.
  std::atomic<std::uint64_t> fill_done{0}, fill_total{0};
};

struct CheckOptions {
  std::string input;     // FILE.cu or FILE.ptx
  LaunchSettings flags;  // --kernel --grid --block --smem --arg --blocks
  int launch = 0;        // --launch N: the N-th launch of the host code (1-based); 0: the first
  // --host-arg NAME=VALUE: values of the host code's names (a launcher's parameter nobody
  // passes, a size read at run time), over what the host code assigns them.
  std::map<std::string, std::int64_t> host_values;
  // The words that check this input again (messages that say which flags to add).
  Rerun rerun;
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
  // A kernel's sample may grow to this many when its whole grid is estimated to cost no more
  // (a small grid is analysed whole even when the run's kernels share sample_instructions);
  // run_selected sets it to the run's budget. 0: never.
  std::uint64_t whole_grid_instructions = 0;
  // Without --blocks, for the kernels named here (mangled): exactly the first N CTAs of the
  // sample order instead of an instruction budget. `fix --apply` re-checks its copy on the
  // CTAs its prediction counted: the copy's kernels run other instructions, and a budget
  // would stop them at another CTA.
  std::map<std::string, std::uint64_t> sampled_ctas;
  // Keep every distinct shared request (for the fix advisor) in KernelRun::recorder.
  bool record_shared = false;
  // Analyses beyond the per-site statistics (and the recorder), by the names they are
  // registered under (engine.hpp, register_analysis).
  std::vector<std::string> analyses;
  // Count shared requests as the cubin's SASS issues them (ptxas on the same PTX); false:
  // as the PTX states them (--ptx-level).
  bool sass = true;
  // How the emulators run (the differential tests turn the fast tier off).
  emu::EmulatorOptions emulator;
  // A launch that is not analysed and whose results are provably in memory already (it
  // repeats an earlier execution whose reads are unchanged and whose writes still hold:
  // src/driver/repeats.hpp) is not run (bankcheck run --repeats skip).
  bool skip_repeats = false;
  // Launches that are not analysed run on the fast tier: EmulatorOptions::execute_only (no
  // record only analyses read) and lanes. False: as analysed launches execute, without the
  // analyses and without the per-lane micro-ops, as before the fast tier existed (the
  // throughput benchmark's baseline, bench/run/throughput.sh). The memory is the same.
  bool fast_tier = true;
  // Runs of micro-ops as native code (emu EmulatorOptions::native), analysed launches or
  // not: bankcheck run's --native (on by default there).
  bool native = false;
  Progress* progress = nullptr;  // updated while the run goes, when given
  // With --kernel: a file without a kernel of that name gives a report with no kernels
  // instead of an error (a run over several files, where the name need match in one only);
  // so does a file without any kernel (host code only).
  bool kernel_may_be_absent = false;
  // Receives what nvcc printed when it succeeded (its warnings: a redefined macro changes
  // what is analysed), when given and not empty. The library itself never prints.
  std::function<void(const std::string&)> nvcc_output;
  // With emulator.printf: receives device printf's text as each launch's CTAs are committed,
  // in CTA order (bankcheck run writes it to the program's standard output).
  std::function<void(const std::string&)> device_output;
};

// The whole command. Throws DriverError (and the PTX layer's ParseError, DecodeError).
analysis::CheckReport check(const CheckOptions& options);

// The lines the report's sites stand on in files other than the main one (a header's), read
// from those files where they can be (CheckReport::quoted_lines), so that a finding there is
// quoted as one in the main file.
void quote_other_files(analysis::CheckReport& r);

}  // namespace bankcheck::driver
