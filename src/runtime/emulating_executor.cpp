// The executor of `bankcheck run` on the CPU (emulating_executor.hpp): registrations kept,
// memory announced to the emulator, each launch executed (and analysed as the launch ledger
// decides), the process's part of the job written as it goes (or, without a job, one report
// at exit).
#include "emulating_executor.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/runtime/launch_ledger.hpp"
#include "bankcheck/runtime/nvtx_ranges.hpp"
#include "bankcheck/runtime/program_side.hpp"
#include "bankcheck/runtime/run_options.hpp"
#include "call_site.hpp"
#include "fault_report.hpp"
#include "run_fix.hpp"
#include "run_modules.hpp"
#include "run_progress.hpp"
#include "run_report.hpp"

namespace bankcheck::runtime {
namespace {

void say(const std::string& sentence) {
  std::fprintf(stderr, "bankcheck: %s\n", sentence.c_str());
}

// One kernel over the program's launches (the ledger keeps its launches and selection).
struct KernelState {
  RunUnit* unit = nullptr;
  const ptx::Kernel* kernel = nullptr;
  std::unique_ptr<driver::KernelAnalysis> analysis;
  LaunchLedger::Kernel ledger = 0;
};

// The ledger of the options' selection; a selection that does not parse (bankcheck run checked
// it) is said, and the default taken.
LaunchLedger make_ledger(const LaunchSelection& s, std::string& error) {
  try {
    return LaunchLedger(s);
  } catch (const std::invalid_argument& e) {
    if (error.empty()) error = std::string("--kernel: ") + e.what();
    return LaunchLedger(LaunchSelection{});
  }
}

// BANKCHECK_LAUNCH_TIMES=FILE: a line per launch that ran to its end appended to FILE,
// `KERNEL analysed|executed|skipped SECONDS`, the wall time of its execution alone (without
// the program's host work, loading modules or writing the report): bench/run/throughput.sh
// compares tiers by it.
class LaunchTimes {
 public:
  LaunchTimes() {
    if (const char* p = std::getenv("BANKCHECK_LAUNCH_TIMES"); p && *p) f_ = std::fopen(p, "a");
  }
  ~LaunchTimes() {
    if (f_) std::fclose(f_);
  }
  LaunchTimes(const LaunchTimes&) = delete;
  LaunchTimes& operator=(const LaunchTimes&) = delete;
  void add(const std::string& kernel, const char* how,
           std::chrono::steady_clock::time_point began) {
    if (!f_) return;
    const std::chrono::duration<double> s = std::chrono::steady_clock::now() - began;
    std::fprintf(f_, "%s %s %.9f\n", kernel.c_str(), how, s.count());
    std::fflush(f_);  // the process may end without destroying the executor
  }

 private:
  std::FILE* f_ = nullptr;
};

class EmulatingExecutor final : public Executor {
 public:
  explicit EmulatingExecutor(const ExecutorConfig& config)
      : device_(config.device),
        options_(run_options_from_environment(error_)),
        ledger_(make_ledger(options_.selection, error_)),
        side_(options_, "emulator",
              [this](ProcessPart& part, SnapshotFrom from) { return snapshot(part, from); }) {
    memory_.writes_reported = config.reports_writes;
    memory_.program_objects = true;  // the program makes its texture and surface objects
    if (!error_.empty()) failure(error_);
    if (const std::string why = connect_nvtx(options_.selection); !why.empty()) failure(why);
    arch_ = device_.board.arch;
    modules_ = std::make_unique<RunModules>(options_, arch_, static_cast<std::uint32_t>(device_.sm.cc),
                                            memory_);
    progress_ = std::make_unique<RunProgress>(options_.progress);
  }

  bool register_module(ModuleId module, const ModuleImage& image) override {
    modules_->add(module, image);
    return true;
  }
  void unregister_module(ModuleId module) override { modules_->remove(module); }

  std::optional<FunctionInfo> function(ModuleId module, std::string_view name) override {
    std::string why;
    const Found f = modules_->kernel(module, std::string(name), why);
    FunctionInfo info;
    if (f.kernel) {
      info.attributes = attributes(*f.unit, f.kernel->name, f.kernel);
      std::vector<ParamSlot> slots;
      for (const ptx::KernelParam& p : f.kernel->params)
        slots.push_back({static_cast<std::size_t>(p.offset), static_cast<std::size_t>(p.size)});
      info.params = std::move(slots);
      return info;
    }
    if (f.unsupported) {
      info.attributes = attributes(*f.unit, f.unsupported->name, nullptr);
      return info;
    }
    if (f.sass_only) {
      FunctionAttributes a;
      a.registers_per_thread = static_cast<int>(f.registers);
      a.ptx_version = device_.sm.cc;
      a.binary_version = device_.sm.cc;
      info.attributes = a;
      return info;
    }
    // A module that could not be read may define it: its launch says why it cannot run.
    if (!why.empty()) return info;
    return std::nullopt;
  }
  std::vector<std::string> functions(ModuleId module) override {
    return modules_->kernel_names(module);
  }

  std::span<std::byte> variable_storage(ModuleId module, std::string_view name) override {
    std::string why;
    const Found f = modules_->variable(module, std::string(name), why);
    if (!f.variable) return {};
    return {reinterpret_cast<std::byte*>(f.variable->address), f.variable->bytes};
  }

  void memory_allocated(void* address, std::size_t bytes, MemoryKind kind) override {
    memory_.add_external(fmt::format("allocation at {}", address), address, bytes);
    // Only the runtime's calls and kernels write device memory; the host writes the others
    // through its own pointers too.
    memory_.buffers().back()->host_writable = kind != MemoryKind::Device;
  }
  void texture_created(std::uint64_t handle, const emu::Texture& texture) override {
    memory_.textures[handle] = texture;
  }
  void texture_destroyed(std::uint64_t handle) override { memory_.textures.erase(handle); }
  void surface_created(std::uint64_t handle, const emu::Texture& surface) override {
    memory_.surfaces[handle] = surface;
  }
  void surface_destroyed(std::uint64_t handle) override { memory_.surfaces.erase(handle); }
  void memory_written(const void* address, std::size_t bytes) override {
    memory_.written(reinterpret_cast<std::uint64_t>(address), bytes);
  }
  void memory_freed(void* address) override {
    memory_.remove(reinterpret_cast<std::uint64_t>(address));
  }

  LaunchResult launch(const LaunchRequest& r) override;
  LaunchResult no_binary(const LaunchRequest& r, RunUnit& unit, const std::string& name,
                         const std::string& shown);

  void device_reset() override {
    modules_->reset_variables();
    ++memory_.epoch;  // the variables' bytes, restored
  }

  void flush_device_output() override {
    const std::string text = modules_->take_device_output();
    if (!text.empty()) std::fwrite(text.data(), 1, text.size(), stdout);
  }

  void finish() override {
    progress_->stop();
    flush_device_output();
    // What the program printed so far comes first, as it would have on a terminal.
    std::fflush(stdout);
    if (side_.in_job()) {
      side_.exited();  // bankcheck writes the report from the job
      return;
    }
    std::lock_guard<std::mutex> lock(state_);
    std::vector<ReportFixes> fixes;
    std::vector<analysis::CheckReport> r = reports(kNotReadBack, &fixes);
    write_run_reports(r, options_, false, fixes);
  }

  void not_run(std::string_view function, std::string_view caller) override {
    std::lock_guard<std::mutex> lock(state_);
    if (side_.forked_child()) forget_parent();
    ledger_.launch_unknown();
    const std::string library = caller.empty() ? options_.program : std::string(caller);
    const NotRunKey key{nullptr, std::string(function) + '\n' + library};
    auto [it, first] = not_run_.try_emplace(key);
    analysis::NotRunReport& n = it->second;
    ++n.launches;
    if (!first) return;
    n.library = library;
    n.reason =
        fmt::format("it called {}, which bankcheck's CUDA driver does not implement", function);
    n.error = "CUDA_ERROR_NOT_SUPPORTED";
    // The first frame of the program's own code: the caller's, unless it is NVIDIA's.
    n.call_site = program_call_site({});
    not_run_order_.push_back(key);
  }

 private:
  void failure(const std::string& sentence) {
    say(sentence);
    failures_.push_back(sentence);
  }
  // A kernel's resources as its unit's cubin and PTX give them.
  FunctionAttributes attributes(const RunUnit& u, const std::string& name,
                                const ptx::Kernel* k) const {
    FunctionAttributes a;
    if (u.loaded)
      if (const auto r = u.loaded->registers.find(name); r != u.loaded->registers.end())
        a.registers_per_thread = r->second;
    if (k) {
      a.static_shared_bytes = k->static_shared_bytes;
      a.local_bytes = k->local_bytes;
    }
    a.ptx_version = device_.sm.cc;
    a.binary_version = device_.sm.cc;
    return a;
  }
  static const model::Arch* find_arch_or_default(const std::string& arch) {
    const model::Arch* a = model::find_arch(arch);
    return a ? a : &model::kDefaultArch;
  }
  // The reports so far, one per translation unit with an analysed (or refused) kernel, in the
  // order of their first analysed launches, then one per library with kernels that did not
  // run; analysed launches not counted whole are each kernel's `incomplete` (those pending with
  // `pending`). With `fixes`, fix's advice for each report's kernels from the requests they
  // recorded (the suggestions the report carries, or fix's own report), one per report or none:
  // made at exit only, the advisor's replay being no part of a running part. The caller holds
  // state_.
  std::vector<analysis::CheckReport> reports(const std::string& pending,
                                             std::vector<ReportFixes>* fixes = nullptr) {
    std::vector<ModuleReport> modules;
    std::map<RunUnit*, std::size_t> index;
    for (const auto& group : ledger_.report_order())
      for (const LaunchLedger::Kernel lk : group) {
        KernelState* ks = by_ledger_.at(lk);
        const auto [it, fresh] = index.emplace(ks->unit, modules.size());
        if (fresh) modules.push_back({ks->unit, 0, {}, {}, {}, {}});
        const LaunchLedger::Entry e = ledger_.entry(lk);
        analysis::KernelReport k = ks->analysis->report();
        k.launches = e.configurations;
        k.incomplete = ledger_.incomplete(lk, pending);
        modules[it->second].kernels.emplace_back(e.first_analysed, std::move(k));
        modules[it->second].recorded[ks->kernel->name] = recorded(*ks->analysis);
      }
    for (const auto& [key, refused] : refused_) {
      const auto [it, fresh] = index.emplace(key.first, modules.size());
      if (fresh) modules.push_back({key.first, ~0ull, {}, {}, {}, {}});
      modules[it->second].refused.push_back(refused);
    }
    // Kernels that did not run, in the order of their first launches: a library's in one
    // section, whatever modules of it they came from; calls the driver does not implement in
    // the first report (or one of the program's own).
    std::map<std::string, RunUnit*> library_unit;
    std::vector<analysis::NotRunReport> calls;
    for (const NotRunKey& key : not_run_order_) {
      const analysis::NotRunReport& n = not_run_.at(key);
      if (!key.first) {
        calls.push_back(n);
        continue;
      }
      RunUnit* unit = library_unit.try_emplace(n.library, key.first).first->second;
      const auto [it, fresh] = index.emplace(unit, modules.size());
      if (fresh) modules.push_back({unit, ~0ull, {}, {}, {}, {}});
      modules[it->second].not_run.push_back(n);
    }
    std::vector<analysis::CheckReport> out =
        module_reports(modules, options_, *find_arch_or_default(arch_));
    // A failure of the advisor costs the suggestions, never the report.
    if (fixes && (options_.fix.suggest || options_.fix.report)) try {
        *fixes = module_fixes(modules, out, options_, *find_arch_or_default(arch_));
      } catch (const std::exception& e) {
        fixes->clear();
        say(fmt::format("no fix suggestions: {}", e.what()));
      }
    if (!calls.empty()) {
      if (out.empty())
        out.emplace_back().input = options_.program.empty() ? "the program" : options_.program;
      out.front().not_run.insert(out.front().not_run.end(), calls.begin(), calls.end());
    }
    if (fixes && fixes->size() != out.size()) fixes->clear();
    return out;
  }

  // The process's part of the job (ProgramSide's snapshot).
  bool snapshot(ProcessPart& part, SnapshotFrom from) {
    std::unique_lock<std::mutex> lock(state_, std::defer_lock);
    if (from == SnapshotFrom::Outside) lock.lock();
    if (from == SnapshotFrom::Ending && !lock.try_lock()) return false;
    part.reports = reports(kPendingLaunch, part.state == PartState::Exited ? &part.fixes : nullptr);
    part.failures = failures_;
    part.launches = ledger_.launches();
    part.analysed = ledger_.analysed();
    return true;
  }

  // A forked child's executor starts its own ledger: the parent's launches are the parent's.
  void forget_parent() {
    ledger_.reset();
    kernels_.clear();
    by_ledger_.clear();
    refused_.clear();
    failures_.clear();
    not_run_.clear();
    not_run_order_.clear();
  }

  DeviceProfile device_;
  std::string error_;  // a problem with the options, said once made
  RunOptions options_;
  LaunchLedger ledger_;
  // The executor's state for snapshots taken outside a launch (exit, a fatal signal): launch()
  // holds it throughout.
  std::mutex state_;
  ProgramSide side_;
  std::string arch_;
  emu::GlobalMemory memory_;
  std::unique_ptr<RunModules> modules_;
  std::unique_ptr<RunProgress> progress_;
  LaunchTimes times_;
  std::map<const ptx::Kernel*, KernelState> kernels_;
  std::map<LaunchLedger::Kernel, KernelState*> by_ledger_;
  std::set<RunUnit*> said_no_lines_;  // units named for their missing line information
  // Kernels the emulator refused that the program launched: (unit, kernel), the sentence.
  std::map<std::pair<RunUnit*, std::string>, analysis::UnsupportedKernelReport> refused_;
  // Launches that did not run, and what became of them: kernels with no code to run (a
  // library's SASS-only ones) by (unit, kernel); calls the driver does not implement through
  // which kernels would have run by (null, function and caller). In the order of their first
  // launches.
  using NotRunKey = std::pair<RunUnit*, std::string>;
  std::map<NotRunKey, analysis::NotRunReport> not_run_;
  std::vector<NotRunKey> not_run_order_;
  std::vector<std::string> failures_;  // bankcheck's own errors during the run
};

// The bytes of the kernel's parameters, from the program's argument array.
std::vector<std::uint8_t> parameter_bytes(const ptx::Kernel& k, void** args) {
  std::vector<std::uint8_t> params(static_cast<std::size_t>(k.param_bytes), 0);
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const ptx::KernelParam& p = k.params[i];
    if (!args || !args[i]) continue;
    std::memcpy(params.data() + p.offset, args[i], static_cast<std::size_t>(p.size));
  }
  return params;
}

// Each argument as the report shows it: a pointer into an allocation as a buffer, a scalar
// as its value.
void describe_arguments(const driver::Loaded& l, const ptx::Kernel& k,
                        const std::vector<std::uint8_t>& params, emu::GlobalMemory& memory,
                        driver::KernelLaunch& kl) {
  const driver::KernelSignature& sig = l.signature(k);
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const ptx::KernelParam& p = k.params[i];
    analysis::ArgReport a;
    a.name = i < sig.param_names.size() && !sig.param_names[i].empty() ? sig.param_names[i]
                                                                       : fmt::format("p{}", i);
    const std::uint8_t* at = params.data() + p.offset;
    std::uint64_t base = 0;
    if (p.size == 8) {
      std::uint64_t v = 0;
      std::memcpy(&v, at, 8);
      if (emu::GlobalMemory::Buffer* b = memory.find(v, 1)) {
        a.is_buffer = true;
        a.bytes = b->size - (v - b->base);
        a.value = fmt::format("0x{:x}", v);
        base = b->base == v ? v : 0;
      }
    }
    if (!a.is_buffer) {
      const std::string type = i < sig.param_types.size() ? sig.param_types[i] : p.type;
      if (p.size == 4 && (p.type == ".f32" || type == "float")) {
        float f;
        std::memcpy(&f, at, 4);
        a.value = fmt::format("{}", f);
      } else if (p.size == 8 && (p.type == ".f64" || type == "double")) {
        double d;
        std::memcpy(&d, at, 8);
        a.value = fmt::format("{}", d);
      } else if (p.size == 1 || p.size == 2 || p.size == 4 || p.size == 8) {
        std::int64_t v = 0;
        std::memcpy(&v, at, static_cast<std::size_t>(p.size));
        if (p.size < 8 && type.find("unsigned") == std::string::npos && !p.type.starts_with(".u") &&
            !p.type.starts_with(".b")) {
          const int shift = 64 - 8 * p.size;
          v = (v << shift) >> shift;  // sign-extended
        }
        a.value = fmt::format("{}", v);
      } else {
        a.value = fmt::format("{} bytes", p.size);
      }
    }
    kl.args.push_back(std::move(a));
    kl.buffers.push_back(base);
  }
}

LaunchResult EmulatingExecutor::launch(const LaunchRequest& r) {
  std::lock_guard<std::mutex> lock(state_);
  if (side_.forked_child()) forget_parent();
  const std::string name(r.function);
  std::string why;
  const Found f = modules_->kernel(r.module, name, why);
  const std::string shown = driver::base_name(driver::demangle(name));
  if (f.sass_only) return no_binary(r, *f.unit, name, shown);
  if (f.unsupported) {
    ledger_.launch_unknown();
    const ptx::UnsupportedKernel& u = *f.unsupported;
    const auto& files = f.unit->loaded->program.files;
    const auto path = [&](int file) {
      return file >= 0 && static_cast<std::size_t>(file) < files.size() &&
                     !files[static_cast<std::size_t>(file)].empty()
                 ? files[static_cast<std::size_t>(file)]
                 : f.unit->loaded->input;
    };
    const std::string sentence =
        fmt::format("kernel {} cannot be emulated: {}", shown,
                    analysis::refusal_text(u.reason, u.ptx_line, u.ptx, u.families, path));
    refused_.try_emplace({f.unit, u.name}, analysis::UnsupportedKernelReport{
                                               shown, u.reason, u.pos.file, u.pos.line, u.ptx_line,
                                               u.ptx, true, u.pos.col, u.families});
    failures_.push_back(sentence);
    return {LaunchStatus::NotSupported, FaultKind::IllegalAddress, sentence};
  }
  if (!f.kernel) {
    ledger_.launch_unknown();
    const std::string sentence = fmt::format("kernel {} cannot be emulated: {}", shown,
                                             why.empty() ? "its module does not define it" : why);
    failures_.push_back(sentence);
    return {LaunchStatus::NotSupported, FaultKind::IllegalAddress, sentence};
  }
  const ptx::Kernel& k = *f.kernel;
  const driver::Loaded& l = *f.unit->loaded;
  KernelState& ks = kernels_[&k];
  if (!ks.analysis) {
    ks.unit = f.unit;
    ks.kernel = &k;
    ks.ledger = ledger_.kernel(&k, k.name, reinterpret_cast<std::uintptr_t>(f.unit));
    by_ledger_[ks.ledger] = &ks;
    ks.analysis = std::make_unique<driver::KernelAnalysis>(l, k, *find_arch_or_default(arch_),
                                                           f.unit->options);
  }
  // Whether this launch is analysed, executed only, or skipped.
  const LaunchLedger::Decision d =
      ledger_.launch(ks.ledger, {r.grid, r.block, r.dynamic_shared_bytes});
  std::vector<std::uint8_t> params = parameter_bytes(k, r.args);
  if (d.analyse) {
    side_.began(d.id, k.name);
    // Without -lineinfo the PTX has no .loc: sites can be placed by PTX line only.
    if (l.program.files.empty() && said_no_lines_.insert(f.unit).second)
      say(
          fmt::format("{} has no line information: build it with -lineinfo to see its source "
                      "lines (the report places each access at line 0)",
                      l.input));
  }
  driver::KernelLaunch kl;
  kl.kernel = &k;
  kl.launch.grid = r.grid;
  kl.launch.block = r.block;
  kl.launch.cluster = r.cluster;
  kl.launch.cooperative = r.cooperative;
  kl.launch.dynamic_smem = r.dynamic_shared_bytes;
  kl.launch.budget = f.unit->options.budget;
  kl.blocks = "all";
  kl.memory = &memory_;
  kl.program_memory = true;
  kl.where = fmt::format("launch {}", d.id);
  describe_arguments(l, k, params, memory_, kl);
  kl.launch.params = std::move(params);
  f.unit->options.progress = progress_->start(shown, d.id, r.grid.count(), d.analyse);
  // An analysed launch that does not finish is lost: its counts are partial.
  auto lose = [&](const std::string& reason) {
    if (!d.analyse) return;
    ledger_.lost(d.id, reason);
    side_.lost(d.id, reason);
  };
  const auto began = std::chrono::steady_clock::now();
  try {
    // Not run when its results are provably in memory already (driver/repeats.hpp).
    const bool ran = ks.analysis->run(kl, d.analyse);
    if (!ran) ledger_.skipped(ks.ledger, d.config);
    times_.add(k.name, !ran ? "skipped" : d.analyse ? "analysed" : "executed", began);
  } catch (const driver::EmulationError& e) {
    progress_->stop();
    const LaunchResult result = fault_result(e, k, l, r, memory_, shown);
    if (result.status != LaunchStatus::Fault) failures_.push_back(result.message);
    lose(result.status == LaunchStatus::Fault
             ? fmt::format("the kernel faulted ({}): the GPU would have ended it there",
                           result.message.substr(0, result.message.find('\n')))
             : "it could not be emulated");
    return result;
  } catch (const std::exception& e) {
    progress_->stop();
    const std::string sentence = fmt::format("kernel {} was not run: {}", shown, e.what());
    failures_.push_back(sentence);
    lose("it could not be emulated");
    return {LaunchStatus::NotSupported, FaultKind::IllegalAddress, sentence};
  }
  progress_->stop();
  if (d.analyse) {
    ledger_.counted(d.id);
    side_.counted(d.id);
  }
  return {};
}

// A kernel with no code the emulator runs (a library's SASS-only cubin): the launch gets the
// driver's error for a kernel image the device cannot run, and the report lists it. The
// launch is numbered, as Nsight Compute would count it on a GPU that runs it. The caller holds
// state_.
LaunchResult EmulatingExecutor::no_binary(const LaunchRequest& r, RunUnit& unit,
                                          const std::string& name, const std::string& shown) {
  ledger_.launch_unknown();
  const NotRunKey key{&unit, name};
  auto [it, first] = not_run_.try_emplace(key);
  analysis::NotRunReport& n = it->second;
  ++n.launches;
  if (first) {
    const RunModule* m = modules_->get(r.module);
    n.library = m && m->library ? m->origin : options_.program;
    n.name = shown;
    n.mangled = name;
    n.reason = unit.why_not;
    n.error = "CUDA_ERROR_NO_BINARY_FOR_GPU";
    const std::vector<std::string> skip{n.library};
    n.call_site = program_call_site(skip);
    not_run_order_.push_back(key);
  }
  // Said once per kernel by the driver, at its first launch; the report counts them all.
  const std::string sentence = fmt::format(
      "{}: kernel {} did not run{}: {}; the launch returned {} and the program goes on", n.library,
      n.name, n.call_site.empty() ? "" : " (called from " + n.call_site + ")", n.reason, n.error);
  return {LaunchStatus::NoBinary, FaultKind::IllegalAddress, sentence};
}

}  // namespace

std::unique_ptr<Executor> make_emulating_executor(const ExecutorConfig& config) {
  return std::make_unique<EmulatingExecutor>(config);
}

}  // namespace bankcheck::runtime
