// The check engine step by step, for the commands and tests that take the steps one at a
// time: load a module (PTX, its program, its SASS and each kernel's signature, once),
// launches from a launch source, and the analysis of each kernel over its launches.
//
//   module (load) ──▶ launch source ──▶ KernelLaunch ──▶ KernelAnalysis::run ──▶ report
//   (.cu/.ptx; a program's    (flags, comments, host      (grid, block, shared,  (collectors
//    fat binary)               code; the running program)  bytes, buffers, where)  of the
//                                                                                   pipeline)
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/collector.hpp"
#include "bankcheck/analysis/recorder.hpp"
#include "bankcheck/analysis/sass_requests.hpp"
#include "bankcheck/driver/check.hpp"
#include "bankcheck/emu/emulator.hpp"
#include "bankcheck/ptx/ast.hpp"
#include "bankcheck/ptx/ir.hpp"
#include "bankcheck/sass/module.hpp"

namespace bankcheck::analysis {
class Pipeline;
}

namespace bankcheck::driver {

// What a kernel's name and signature say, resolved once per module.
struct KernelSignature {
  std::string mangled;
  std::string signature;  // demangled: "reduce(float const*, float*, int)"
  std::string name;       // its base name: "reduce"
  // The declared parameter names from the .cu or the local headers it includes ("" for an
  // unnamed one); empty when no declaration with the kernel's parameter count was found.
  std::vector<std::string> param_names;
  std::vector<std::string> param_types;  // from the demangled signature
};

// A loaded module: the PTX, its program, its SASS, and what was read of its source.
struct Loaded {
  // What reports call the module: the .cu or .ptx given, or for a binary the source file
  // its PTX names (binary_input.hpp).
  std::string input;
  // The executable, object file or fat binary the PTX came from; empty for a .cu or .ptx.
  std::string binary;
  std::string source_text;  // the .cu text (empty for .ptx input)
  std::string ptx_text;
  std::vector<LaunchSettings> comments;
  ptx::Module module;
  ptx::Program program;
  // Parallel to program.kernels.
  std::vector<KernelSignature> signatures;
  // The SASS ptxas builds from ptx_text, when it could be read; otherwise why not (counts
  // are then PTX-level, and the report says so once).
  std::shared_ptr<const sass::Module> sass;
  std::string ptx_level_reason;
  // The program's file index of each of the cubin's .debug_line files (-1: none), matched
  // by real path; empty without SASS.
  std::vector<int> sass_files;
  // Registers per thread of each kernel (mangled name), from the same cubin; read when
  // SASS is or when shared requests are recorded (fix); else why not.
  std::map<std::string, int> registers;
  std::string registers_note;

  const KernelSignature& signature(const ptx::Kernel& k) const;
  // Every kernel name of the program, the refused ones included (they can be named too).
  std::vector<std::string> kernel_names() const;
};

// Loads and decodes. Throws DriverError, ptx::ParseError, ptx::DecodeError.
Loaded load(const CheckOptions& options);

// PTX that comes without nvcc: a running program's, from its fat binary.
struct PtxSource {
  std::string input;        // what reports call it (the source file nvcc compiled, if known)
  std::string ptx_text;
  std::string source_text;  // the main source file's text, when known
  std::string main_file;    // its path, for the program's file table (empty: unknown)
  // Without source_text: read the main file the PTX's file table names, when it exists, and
  // name the module after it.
  bool read_source = false;
  std::vector<std::uint8_t> cubin;  // the program's own cubin for the architecture, if any
  // Where its module variables go, given the bytes they take (ptx::globals_extent); none:
  // at ptx::kGlobalVarBase.
  std::function<std::uint64_t(std::uint64_t bytes)> place_globals;
  // ptx_text already parsed (and linked: ptx::link_functions), when the caller did it.
  std::optional<ptx::Module> module;
  // Module variables other modules define, at their addresses (ptx::decode's `external`).
  std::map<std::string, std::uint64_t> external_globals;
};
// Parses and decodes `source.ptx_text` and reads its SASS. Throws as load() does.
Loaded load_ptx(const PtxSource& source, const CheckOptions& options);

// The architecture --arch names; throws DriverError.
const model::Arch& find_arch(const CheckOptions& options);

// One launch of one kernel, from whichever launch source: the shape, the parameter bytes,
// the memory its buffers live in, and where each value came from.
struct KernelLaunch {
  const ptx::Kernel* kernel = nullptr;
  emu::Launch launch;                 // grid, block, dynamic shared bytes, parameter bytes
  std::optional<std::string> blocks;  // --blocks: "all" or a count; nullopt: a sample
  std::vector<analysis::ArgReport> args;
  std::vector<std::uint64_t> buffers;  // per parameter: buffer base, 0 for scalars
  std::vector<analysis::SettingSource> sources;
  std::string where;                   // "FILE:LINE" of its comment, or "flags"
  emu::GlobalMemory* memory = nullptr;  // where the buffers are
  std::unique_ptr<emu::GlobalMemory> own_memory;  // when the source made one for it
  // The buffers are a running program's own allocations (bankcheck run): memory it reserved,
  // of which only what it touches costs, and none of bankcheck's memory budget.
  bool program_memory = false;
};

// Where launches come from: flags and launch comments, the host code's launches, or the
// running program. Yields them in order.
class LaunchSource {
 public:
  virtual ~LaunchSource() = default;
  // The next launch; nullopt after the last. Throws DriverError for one that cannot be made
  // (a missing setting, an argument that does not fit).
  virtual std::optional<KernelLaunch> next() = 0;
  // How many launches it will yield, when known before the first.
  virtual std::optional<std::size_t> count() const { return std::nullopt; }
};

// The kernels to check and their settings (flags over comments over the host code's launch,
// host_launch.hpp): --kernel (every kernel it names, instantiations of a template too), else
// every kernel with a launch comment, else every kernel the host code launches (each with
// its first launch, or the one --launch picks), else the only kernel. Throws DriverError
// listing the kernels when ambiguous, or when --kernel names none of them (an empty list
// instead with CheckOptions::kernel_may_be_absent).
std::vector<std::pair<const ptx::Kernel*, LaunchSettings>> select_kernels(
    const Loaded& loaded, const CheckOptions& options);

// Whether the run asks for this kernel (mangled): --kernel names it, or a launch comment
// does, or it is the file's only kernel.
bool selected(const Loaded& loaded, const CheckOptions& options, const std::string& mangled);

// The launch source of `check`: one launch per selected kernel, with its arguments bound
// (scalars from the settings, buffers filled in a memory of its own), made when asked for.
std::unique_ptr<LaunchSource> settings_launches(const Loaded& loaded, const CheckOptions& options,
                                                const model::Arch& arch);

// The same for settings already chosen. Throws DriverError naming every missing setting.
KernelLaunch bind_launch(const Loaded& loaded, const ptx::Kernel& kernel,
                         const LaunchSettings& settings, const model::Arch& arch,
                         const CheckOptions& options);

// An analysis beyond the built-in ones, made per kernel; CheckOptions::analyses names it.
using AnalysisFactory =
    std::function<std::unique_ptr<analysis::Collector>(const analysis::KernelContext&)>;
// Registers `name` for every later run (not thread-safe; call before any run, e.g. from a
// static initialiser).
void register_analysis(const std::string& name, AnalysisFactory make);

// One kernel's analysis over its launches: its SASS plan, its collectors (assembled from
// the options), what the emulator noted.
class Repeats;  // repeats.hpp

class KernelAnalysis {
 public:
  KernelAnalysis(const Loaded& loaded, const ptx::Kernel& kernel, const model::Arch& arch,
                 const CheckOptions& options);
  ~KernelAnalysis();
  // Runs the CTAs the launch's --blocks plans (every CTA executes into the launch's memory;
  // the counted ones go through the analyses). With `analyse` false, every CTA executes and
  // nothing is counted, or, with CheckOptions::skip_repeats, nothing runs when the launch's
  // results are provably in memory already (repeats.hpp): then it returns false. Throws
  // DriverError for a launch beyond the architecture's limits and EmulationError located at
  // the instruction.
  bool run(const KernelLaunch& launch, bool analyse = true);
  // The report of every launch run so far: the first launch's shape and arguments, the
  // counts of all.
  analysis::KernelReport report();
  const std::vector<std::unique_ptr<analysis::Collector>>& collectors() const;

 private:
  const Loaded& loaded_;
  const ptx::Kernel& kernel_;
  const model::Arch& arch_;
  const CheckOptions& options_;
  analysis::SassPlan plan_;
  std::unique_ptr<analysis::KernelContext> context_;
  std::unique_ptr<analysis::Pipeline> pipeline_;
  std::unique_ptr<analysis::Pipeline> execute_only_;
  analysis::KernelReport report_;
  std::vector<emu::Note> notes_;
  std::vector<int> unwritten_shared_reads_;
  // The kernel's native code plan, kept from one launch's emulators to the next.
  std::shared_ptr<emu::detail::NativeMemo> native_memo_ = emu::make_native_memo();
  std::vector<emu::SurvivedFault> faults_;  // every launch's, one per instruction and kind
  bool launched_ = false;
  std::unique_ptr<Repeats> repeats_;  // with CheckOptions::skip_repeats
  std::uint64_t launches_ = 0, skipped_ = 0;
};

// One kernel's run: the report, and the memory it ran in (for functional tests).
struct KernelRun {
  analysis::KernelReport report;
  std::unique_ptr<emu::GlobalMemory> memory;
  std::vector<std::uint64_t> arg_buffers;  // per kernel parameter: buffer base, 0 for scalars
  std::unique_ptr<analysis::SharedRecorder> recorder;  // with CheckOptions::record_shared
};

// Binds `settings` (already merged) for `kernel` and runs its one launch. Throws
// DriverError or a located emulation error (EmulationError).
KernelRun run_kernel(const Loaded& loaded, const ptx::Kernel& kernel,
                     const LaunchSettings& settings, const model::Arch& arch,
                     const CheckOptions& options);

// An emulation error with the source location of the instruction, and what the kernel did.
struct EmulationError : DriverError {
  EmulationError(const std::string& message, const emu::EmuError& e, emu::Dim3 cta)
      : DriverError(message),
        kind(e.kind),
        access(e.access),
        instr(e.instr),
        cta(cta),
        device_text(e.device_text) {}
  // The same error with another message.
  EmulationError(const std::string& message, const EmulationError& like)
      : DriverError(message),
        kind(like.kind),
        access(like.access),
        instr(like.instr),
        cta(like.cta),
        device_text(like.device_text) {}
  emu::EmuError::Kind kind;
  emu::EmuError::Access access;  // the access that faulted, when one did
  int instr = -1;                // the instruction (Kernel::code), -1 if none
  emu::Dim3 cta;                 // the CTA it ran in
  std::string device_text;       // what the GPU's driver prints of it (emu::EmuError)
};

// A report with the run's input, files, architecture and source lines, and no kernels yet.
analysis::CheckReport start_report(const Loaded& loaded, const CheckOptions& options,
                                   const model::Arch& arch);

// Takes `check`'s launches one by one (settings_launches), shares the default sample budget
// among them, runs each (with progress) and hands its run to `each`.
void run_selected(const Loaded& loaded, const CheckOptions& options, const model::Arch& arch,
                  const std::function<void(const ptx::Kernel&, KernelRun&)>& each);

}  // namespace bankcheck::driver
