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
#include "fault_report.hpp"
#include "run_modules.hpp"
#include "bankcheck/runtime/run_options.hpp"
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
};

class EmulatingExecutor final : public Executor {
 public:
  explicit EmulatingExecutor(const ExecutorConfig& config) : device_(config.device) {
    memory_.writes_reported = config.reports_writes;
    std::string error;
    options_ = run_options_from_environment(error);
    if (!error.empty()) failure(error);
    arch_ = device_.board.arch;
    modules_ = std::make_unique<RunModules>(options_, arch_, static_cast<std::uint32_t>(device_.sm.cc),
                                            memory_);
    progress_ = std::make_unique<RunProgress>(options_.progress);
  }

  void register_module(ModuleId module, const ModuleImage& image) override {
    modules_->add(module, image);
  }
  void register_function(ModuleId module, const void* host, std::string_view name) override {
    functions_[host] = {module, std::string(name)};
  }
  void register_variable(ModuleId module, const void* host, std::string_view name,
                         std::size_t bytes, VariableKind) override {
    variables_[host] = {module, std::string(name), bytes};
  }
  void module_complete(ModuleId) override {}
  void unregister_module(ModuleId) override {}

  std::span<std::byte> variable_storage(const void* host) override {
    const auto it = variables_.find(host);
    if (it == variables_.end()) return {};
    std::string why;
    const Found f = modules_->variable(it->second.module, it->second.name, why);
    if (!f.variable) {
      say(fmt::format("variable {} cannot be placed: {}", it->second.name,
                      why.empty() ? "its module does not define it" : why));
      return {};
    }
    return {reinterpret_cast<std::byte*>(f.variable->address), f.variable->bytes};
  }

  void memory_allocated(void* address, std::size_t bytes, MemoryKind kind) override {
    memory_.add_external(fmt::format("allocation at {}", address), address, bytes);
    // Only the runtime's calls and kernels write device memory; the host writes the others
    // through its own pointers too.
    memory_.buffers().back()->host_writable = kind != MemoryKind::Device;
  }
  void memory_written(const void* address, std::size_t bytes) override {
    memory_.written(reinterpret_cast<std::uint64_t>(address), bytes);
  }
  void memory_freed(void* address) override {
    memory_.remove(reinterpret_cast<std::uint64_t>(address));
  }

  std::optional<FunctionAttributes> function_attributes(const void* host) override {
    const auto it = functions_.find(host);
    if (it == functions_.end()) return std::nullopt;
    std::string why;
    const Found f = modules_->kernel(it->second.module, it->second.name, why);
    if (!f.unit || !f.unit->loaded) return std::nullopt;
    FunctionAttributes a;
    const driver::Loaded& l = *f.unit->loaded;
    if (const auto r = l.registers.find(it->second.name); r != l.registers.end())
      a.registers_per_thread = r->second;
    if (f.kernel) {
      a.static_shared_bytes = f.kernel->static_shared_bytes;
      a.local_bytes = f.kernel->local_bytes;
    }
    a.ptx_version = device_.sm.cc;
    a.binary_version = device_.sm.cc;
    return a;
  }

  LaunchResult launch(const LaunchRequest& r) override;

  void device_reset() override {
    modules_->reset_variables();
    ++memory_.epoch;  // the variables' bytes, restored
  }

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
    std::stable_sort(reports.begin(), reports.end(),
                     [](const ModuleReport& a, const ModuleReport& b) { return a.first < b.first; });
    write_run_report(reports, options_, *find_arch_or_default(arch_), failures_);
  }

 private:
  struct Function {
    ModuleId module = 0;
    std::string name;
  };
  struct Variable {
    ModuleId module = 0;
    std::string name;
    std::size_t bytes = 0;
  };

  void failure(const std::string& sentence) {
    say(sentence);
    failures_.push_back(sentence);
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
  std::map<const void*, Function> functions_;
  std::map<const void*, Variable> variables_;
  std::map<const ptx::Kernel*, KernelState> kernels_;
  // Kernels the emulator refused that the program launched: (unit, kernel), the sentence.
  std::map<std::pair<RunUnit*, std::string>, analysis::UnsupportedKernelReport> refused_;
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
  const auto fn = functions_.find(r.function);
  if (fn == functions_.end())
    return {LaunchStatus::NotSupported, FaultKind::IllegalAddress,
            "the program launched a function it never registered"};
  std::string why;
  const Found f = modules_->kernel(fn->second.module, fn->second.name, why);
  const std::string shown = driver::base_name(driver::demangle(fn->second.name));
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
                                               shown, u.reason, u.pos.file, u.pos.line,
                                               u.ptx_line, u.ptx, true, u.pos.col, u.families});
    failures_.push_back(sentence);
    return {LaunchStatus::NotSupported, FaultKind::IllegalAddress, sentence};
  }
  if (!f.kernel) {
    const std::string sentence =
        fmt::format("kernel {} cannot be emulated: {}", shown,
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
    ks.analysis = std::make_unique<driver::KernelAnalysis>(
        l, k, *find_arch_or_default(arch_), f.unit->options);
  }
  // Its configuration, and whether this launch is analysed, executed only, or skipped.
  std::size_t c = 0;
  while (c < ks.configurations.size() &&
         !(ks.configurations[c].grid == r.grid && ks.configurations[c].block == r.block &&
           ks.configurations[c].dynamic_smem == r.dynamic_shared_bytes))
    ++c;
  if (c == ks.configurations.size())
    ks.configurations.push_back({r.grid, r.block, r.dynamic_shared_bytes, 0, 0, 0, {}});
  analysis::LaunchSummary& summary = ks.configurations[c];
  ++summary.launches;
  std::vector<std::uint8_t> params = parameter_bytes(k, r.args);
  const bool analyse =
      ks.selected && (options_.launches == 0 || summary.analysed < options_.launches);
  driver::KernelLaunch kl;
  kl.kernel = &k;
  kl.launch.grid = r.grid;
  kl.launch.block = r.block;
  kl.launch.dynamic_smem = r.dynamic_shared_bytes;
  kl.launch.budget = f.unit->options.budget;
  kl.blocks = "all";
  kl.memory = &memory_;
  kl.where = fmt::format("launch {}", number);
  describe_arguments(l, k, params, memory_, kl);
  kl.launch.params = std::move(params);
  f.unit->options.progress = progress_->start(shown, number, r.grid.count(), analyse);
  try {
    if (!ks.analysis->run(kl, analyse)) ++summary.skipped;  // its results were in memory
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

}  // namespace

std::unique_ptr<Executor> make_emulating_executor(const ExecutorConfig& config) {
  return std::make_unique<EmulatingExecutor>(config);
}

}  // namespace bankcheck::runtime
