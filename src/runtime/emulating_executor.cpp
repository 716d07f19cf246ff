// The executor of `bankcheck run` on the CPU (emulating_executor.hpp): registrations kept,
// memory announced to the emulator, each launch executed (and analysed as the options say),
// one report at exit.
#include "emulating_executor.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/runtime/run_options.hpp"
#include "call_site.hpp"
#include "fault_report.hpp"
#include "run_modules.hpp"
#include "run_progress.hpp"
#include "run_report.hpp"

namespace bankcheck::runtime {
namespace {

void say(const std::string& sentence) {
  std::fprintf(stderr, "bankcheck: %s\n", sentence.c_str());
}

// One kernel over the program's launches.
struct KernelState {
  RunUnit* unit = nullptr;
  const ptx::Kernel* kernel = nullptr;
  std::unique_ptr<driver::KernelAnalysis> analysis;
  bool selected = true;     // --kernel names it (or no --kernel)
  bool analysed = false;    // some launch was analysed
  std::uint64_t first = 0;  // its first launch's number, for the report's order
  std::vector<analysis::LaunchSummary> configurations;
  // Per configuration: the argument bytes of launches already run (--repeats skip).
  std::vector<std::vector<std::vector<std::uint8_t>>> seen;
};

class EmulatingExecutor final : public Executor {
 public:
  explicit EmulatingExecutor(const ExecutorConfig& config) : device_(config.device) {
    std::string error;
    options_ = run_options_from_environment(error);
    if (!error.empty()) failure(error);
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

  void memory_allocated(void* address, std::size_t bytes, MemoryKind) override {
    memory_.add_external(fmt::format("allocation at {}", address), address, bytes);
  }
  void memory_freed(void* address) override {
    memory_.remove(reinterpret_cast<std::uint64_t>(address));
  }

  LaunchResult launch(const LaunchRequest& r) override;
  LaunchResult not_run(const LaunchRequest& r, RunUnit& unit, const std::string& name,
                       const std::string& shown);

  void device_reset() override { modules_->reset_variables(); }

  void finish() override {
    progress_->stop();
    // What the program printed so far comes first, as it would have on a terminal.
    std::fflush(stdout);
    // One report per translation unit with an analysed kernel, in the order of their first
    // launches; each unit's kernels in the order of theirs.
    std::map<RunUnit*, ModuleReport> by_unit;
    for (auto& [kernel, ks] : kernels_) {
      if (!ks.analysed) continue;
      ModuleReport& mr = by_unit[ks.unit];
      mr.unit = ks.unit;
      mr.first = mr.kernels.empty() ? ks.first : std::min(mr.first, ks.first);
      analysis::KernelReport k = ks.analysis->report();
      k.launches = ks.configurations;
      mr.kernels.emplace_back(ks.first, std::move(k));
    }
    // A library's kernels that did not run, in one section per library, whatever modules of
    // it they came from.
    std::map<std::string, RunUnit*> library_section;
    for (const auto& [key, n] : not_run_) {
      RunUnit* unit = library_section.try_emplace(n.library, key.first).first->second;
      ModuleReport& mr = by_unit[unit];
      if (!mr.unit) {
        mr.unit = unit;
        mr.first = ~0ull;
      }
      mr.not_run.push_back(n);
    }
    for (const auto& [key, refused] : refused_) {
      ModuleReport& mr = by_unit[key.first];
      if (!mr.unit) {
        mr.unit = key.first;
        mr.first = ~0ull;
      }
      mr.refused.push_back(refused);
    }
    std::vector<ModuleReport> reports;
    for (auto& [unit, mr] : by_unit) {
      std::stable_sort(mr.kernels.begin(), mr.kernels.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      reports.push_back(std::move(mr));
    }
    std::stable_sort(
        reports.begin(), reports.end(),
        [](const ModuleReport& a, const ModuleReport& b) { return a.first < b.first; });
    write_run_report(reports, options_, *find_arch_or_default(arch_), failures_);
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
  bool selected(const ptx::Kernel& k) const {
    if (options_.kernels.empty()) return true;
    for (const auto& name : options_.kernels)
      if (driver::kernel_matches(k.name, name)) return true;
    return false;
  }

  DeviceProfile device_;
  RunOptions options_;
  std::string arch_;
  emu::GlobalMemory memory_;
  std::unique_ptr<RunModules> modules_;
  std::unique_ptr<RunProgress> progress_;
  std::map<const ptx::Kernel*, KernelState> kernels_;
  // Kernels the emulator refused that the program launched: (unit, kernel), the sentence.
  std::map<std::pair<RunUnit*, std::string>, analysis::UnsupportedKernelReport> refused_;
  // Kernels with no code to run (a library's SASS-only ones): (unit, kernel), what became of
  // their launches; their units in the order their first launch came.
  std::map<std::pair<RunUnit*, std::string>, analysis::NotRunReport> not_run_;
  std::vector<RunUnit*> not_run_order_;
  std::vector<std::string> failures_;  // bankcheck's own errors during the run
  std::uint64_t launches_ = 0;         // the program's launches so far
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
  const std::uint64_t number = launches_++;
  const std::string name(r.function);
  std::string why;
  const Found f = modules_->kernel(r.module, name, why);
  const std::string shown = driver::base_name(driver::demangle(name));
  if (f.sass_only) return not_run(r, *f.unit, name, shown);
  if (f.unsupported) {
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
    ks.first = number;
    ks.selected = selected(k);
    ks.analysis = std::make_unique<driver::KernelAnalysis>(l, k, *find_arch_or_default(arch_),
                                                           f.unit->options);
  }
  // Its configuration, and whether this launch is analysed, executed only, or skipped.
  std::size_t c = 0;
  while (c < ks.configurations.size() &&
         !(ks.configurations[c].grid == r.grid && ks.configurations[c].block == r.block &&
           ks.configurations[c].dynamic_smem == r.dynamic_shared_bytes))
    ++c;
  if (c == ks.configurations.size()) {
    ks.configurations.push_back({r.grid, r.block, r.dynamic_shared_bytes, 0, 0, 0, {}});
    ks.seen.emplace_back();
  }
  analysis::LaunchSummary& summary = ks.configurations[c];
  ++summary.launches;
  std::vector<std::uint8_t> params = parameter_bytes(k, r.args);
  const bool analyse =
      ks.selected && (options_.launches == 0 || summary.analysed < options_.launches);
  if (options_.skip_repeats) {
    auto& seen = ks.seen[c];
    if (!analyse && std::find(seen.begin(), seen.end(), params) != seen.end()) {
      if (summary.skipped++ == 0)
        say(
            fmt::format("{}: launches identical to an earlier one (grid {},{},{}, block {},{},{}, "
                        "the same arguments) are not executed (--repeats skip): their results "
                        "are the earlier launch's",
                        shown, r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y, r.block.z));
      return {};
    }
    if (std::find(seen.begin(), seen.end(), params) == seen.end()) seen.push_back(params);
  }
  driver::KernelLaunch kl;
  kl.kernel = &k;
  kl.launch.grid = r.grid;
  kl.launch.block = r.block;
  kl.launch.dynamic_smem = r.dynamic_shared_bytes;
  kl.launch.budget = f.unit->options.budget;
  kl.blocks = "all";
  kl.memory = &memory_;
  kl.program_memory = true;
  kl.where = fmt::format("launch {}", number);
  describe_arguments(l, k, params, memory_, kl);
  kl.launch.params = std::move(params);
  f.unit->options.progress = progress_->start(shown, number, r.grid.count(), analyse);
  try {
    ks.analysis->run(kl, analyse);
  } catch (const driver::EmulationError& e) {
    progress_->stop();
    const LaunchResult result = fault_result(e, k, l, r, memory_, shown);
    if (result.status != LaunchStatus::Fault) failures_.push_back(result.message);
    return result;
  } catch (const std::exception& e) {
    progress_->stop();
    const std::string sentence = fmt::format("kernel {} was not run: {}", shown, e.what());
    failures_.push_back(sentence);
    return {LaunchStatus::NotSupported, FaultKind::IllegalAddress, sentence};
  }
  progress_->stop();
  if (analyse) {
    ++summary.analysed;
    summary.analysed_ids.push_back(number);
    ks.analysed = true;
  }
  return {};
}

// A kernel with no code the emulator runs (a library's SASS-only cubin): the launch gets the
// driver's error for a kernel image the device cannot run, and the report lists it.
LaunchResult EmulatingExecutor::not_run(const LaunchRequest& r, RunUnit& unit,
                                        const std::string& name, const std::string& shown) {
  auto [it, first] = not_run_.try_emplace({&unit, name});
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
    not_run_order_.push_back(&unit);
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
