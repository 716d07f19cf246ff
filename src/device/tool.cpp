// The GPU backend's tool: a library `bankcheck run --backend gpu` preloads into the program.
// Through the compute-sanitizer API (libsanitizer-public.so, opened at load time) it learns of
// the modules, launches, synchronizations and graph launches of the program, and patches its
// shared, global, ldmatrix/stmatrix, cp.async, wgmma, bulk-copy and cluster instructions to call
// bankcheck's device functions (patches.cu); which launches are analysed is decided here, and
// how (which modules carry bankcheck's patches when, the analysed kernels' counter tables on the
// GPU, when those are read back) by the instrumentation (instrumentation.hpp): a launch that is
// not analysed runs the program's own code. At the program's exit the report is written
// through the views `check` uses (write_run_reports).
//
// Lines come from the cubin the module callback hands over, read by the project's own reader
// (sass::read_module): the same .debug_line rows Nsight Compute lists each SASS instruction
// under. Nothing but the counters leaves the GPU.
//
// BANKCHECK_GPU_TRACE=FILE appends a line per callback and per instrumentation decision to
// FILE (what the tool saw, in order, with times: for finding why a count is incomplete).
#include <dlfcn.h>
#include <fmt/format.h>
#include <sanitizer.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bankcheck/device/instrumentation.hpp"
#include "bankcheck/device/pc_report.hpp"
#include "bankcheck/device/records.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/model/arch.hpp"
#include "bankcheck/runtime/run_options.hpp"
#include "bankcheck/runtime/run_report.hpp"
#include "bankcheck/sass/decoder.hpp"
#include "bankcheck/sass/elf.hpp"
#include "bankcheck/sass/module.hpp"
#include "sanitizer_device.hpp"

namespace bankcheck::device {
namespace {

// The parameters of the launch calls, laid out as the toolkit's generated_cuda_meta.h has
// them (cuLaunchKernel_params, cuLaunchCooperativeKernel_params, cuLaunchKernelEx_params);
// that header needs the driver API's legacy types, so only what is read is restated here.
struct LaunchKernelParams {
  CUfunction f;
  unsigned int grid_x, grid_y, grid_z, block_x, block_y, block_z;
  unsigned int shared_bytes;
};
struct LaunchKernelExParams {
  const CUlaunchConfig* config;
  CUfunction f;
};

using CuDeviceGetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);

// A module the program loaded: its cubin as the callback handed it over, read on first use.
struct LoadedModule {
  CUcontext context = nullptr;
  std::vector<std::uint8_t> cubin;
  std::shared_ptr<const sass::Module> sass;
  std::string unreadable;  // why the cubin could not be read
  bool read = false;
  std::vector<std::string> names;  // its kernels' mangled names, sorted (when asked for)
  bool named = false;
};

// One kernel of one module in one context, over the program's launches.
struct KernelState {
  std::size_t module = 0;
  CUmodule handle = nullptr;
  std::string mangled;
  const sass::Kernel* kernel = nullptr;  // in the module's sass (null: not found)
  bool selected = true;
  KernelTable* table = nullptr;  // its counters on the GPU, from its first analysed launch
  std::vector<analysis::LaunchSummary> configurations;
  std::uint64_t first = ~0ull;  // the program's launch number of its first analysed launch
  std::uint64_t ctas = 0;       // of its analysed launches (every CTA of each is counted)
  bool analysed = false;
};

// A launch as its launch call gives it, for the launch callback that follows on this thread.
struct LaunchCall {
  bool valid = false;
  CUfunction function = nullptr;
  emu::Dim3 grid{}, block{};
  std::uint64_t smem = 0;
};

unsigned next_power_of_two(std::size_t n) {
  unsigned p = 64;
  while (p < n && p < (1u << 24)) p <<= 1;
  return p;
}

// BANKCHECK_GPU_TRACE: one line per event, with the seconds since the tool started (launches
// that are not analysed only with BANKCHECK_GPU_TRACE_LAUNCHES=1: a timed loop's thousands of
// lines would slow the run they describe).
class Trace {
 public:
  Trace() {
    const char* path = std::getenv("BANKCHECK_GPU_TRACE");
    if (path && *path) file_ = std::fopen(path, "a");
    const char* all = std::getenv("BANKCHECK_GPU_TRACE_LAUNCHES");
    launches_ = file_ && all && std::strcmp(all, "1") == 0;
    start_ = std::chrono::steady_clock::now();
  }
  explicit operator bool() const { return file_ != nullptr; }
  bool launches() const { return launches_; }
  void operator()(const std::string& line) {
    if (!file_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    const double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(file_, "%.6f [%d] %s\n", t, static_cast<int>(::gettid()), line.c_str());
    std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
  bool launches_ = false;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_;
};

// The tool's lock. A callback that comes on the thread holding it comes from the tool's own
// sanitizer calls (a synchronization it waits for, say), not from the program: it is passed
// over, which also keeps the lock from being taken twice.
class Lock {
 public:
  explicit Lock(std::mutex& m) : lock_(m) { held_ = true; }
  ~Lock() { held_ = false; }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;
  static bool held() { return held_; }

 private:
  std::lock_guard<std::mutex> lock_;
  static thread_local bool held_;
};
thread_local bool Lock::held_ = false;

class Tool {
 public:
  Tool() {
    // The program's children inherit the tool: only the program itself (or a child that runs
    // kernels) speaks and reports.
    const char* root = std::getenv("BANKCHECK_RUN_ROOT");
    root_ = !root || std::strtoll(root, nullptr, 10) == ::getpid();
    std::string error;
    options_ = runtime::run_options_from_environment(error);
    if (!error.empty()) failures_.push_back(error);
    const std::string why = api_.load();
    if (!why.empty()) {
      fail(why + "; no kernel is analysed");
      return;
    }
    device_ = std::make_unique<SanitizerDevice>(api_, patches_file());
    instrumentation_ = std::make_unique<Instrumentation>(
        *device_, Instrumentation::Options{},
        trace_
            ? std::function<void(const std::string&)>([this](const std::string& s) { trace_(s); })
            : std::function<void(const std::string&)>());
    Sanitizer_SubscriberHandle handle = nullptr;
    if (const SanitizerResult r = api_.subscribe(&handle, &Tool::callback, this);
        r != SANITIZER_SUCCESS) {
      fail("the sanitizer API refused a subscriber: " + api_.why(r));
      return;
    }
    for (const Sanitizer_CallbackDomain domain :
         {SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CB_DOMAIN_SYNCHRONIZE,
          SANITIZER_CB_DOMAIN_GRAPHS})
      api_.enable_domain(1, handle, domain);
    // The launch calls: the dynamic shared memory a launch callback does not carry, and the
    // launch known before it begins (the module's code made right there).
    for (const Sanitizer_CallbackId id :
         {SANITIZER_CBID_DRIVER_API_cuLaunchKernel, SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz,
          SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx,
          SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz,
          SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel,
          SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz})
      api_.enable_callback(1, handle, SANITIZER_CB_DOMAIN_DRIVER_API, id);
    active_ = true;
  }

  // At the program's exit: the tables read a last time, the report.
  void finish() {
    Lock lock(mutex_);
    if (!root_ && launches_ == 0) return;
    if (!root_)
      for (const auto& f : failures_) std::fprintf(stderr, "bankcheck: error: %s\n", f.c_str());
    if (instrumentation_) {
      instrumentation_->finish();
      const InstrumentationStats& s = instrumentation_->stats();
      trace_(
          fmt::format("stats: {} patches ({:.3f} s), {} unpatches ({:.3f} s), {} waits ({:.3f} s), "
                      "{} reads ({:.3f} s), {} launches, {} made right only as they began",
                      s.patches, s.patch_s, s.unpatches, s.unpatch_s, s.waits, s.wait_s, s.reads,
                      s.read_s, launches_, late_));
    }
    std::fflush(stdout);
    const model::Arch& arch = arch_ ? *arch_ : model::kDefaultArch;
    // One report per module with an analysed kernel, in the order of their first launches.
    std::map<std::size_t, std::vector<KernelState*>> by_module;
    for (auto& [fn, k] : kernels_)
      if (k.analysed && k.kernel) by_module[k.module].push_back(&k);
    for (KernelState& k : retired_)
      if (k.analysed && k.kernel) by_module[k.module].push_back(&k);
    std::vector<std::pair<std::uint64_t, analysis::CheckReport>> ordered;
    std::uint64_t unplaced = 0, overflowed = 0;
    for (auto& [m, ks] : by_module) {
      std::stable_sort(ks.begin(), ks.end(), [](const KernelState* a, const KernelState* b) {
        return a->first < b->first;
      });
      const sass::Module& sm = *modules_[m].sass;
      analysis::CheckReport r;
      r.arch = &arch;
      r.level = analysis::CountLevel::Sass;
      r.files = sm.source_files;
      std::map<int, std::uint64_t> sites_in;
      for (KernelState* k : ks) {
        std::uint64_t lost = 0;
        const KernelCounts counts = k->table ? k->table->counts : KernelCounts{};
        analysis::KernelReport kr = kernel_report(sm, *k->kernel, counts, arch, &lost);
        unplaced += lost;
        kr.signature = driver::demangle(k->mangled);
        kr.name = driver::base_name(kr.signature);
        kr.launches = k->configurations;
        kr.ctas_total = kr.ctas_analysed = k->ctas;
        if (!k->configurations.empty()) {
          kr.grid = k->configurations.front().grid;
          kr.block = k->configurations.front().block;
          kr.dynamic_smem = k->configurations.front().dynamic_smem;
        }
        if (k->table) {
          overflowed += k->table->overflowed;
          incomplete(*k, kr);
        }
        for (const auto& s : kr.sites) ++sites_in[s.file];
        r.kernels.push_back(std::move(kr));
      }
      // The file most of its accesses are in is the report's own (quoted from disk).
      int main_file = 0;
      std::uint64_t most = 0;
      for (const auto& [f, n] : sites_in)
        if (n > most) most = n, main_file = f;
      r.main_file = main_file;
      r.input =
          main_file < static_cast<int>(r.files.size()) ? r.files[main_file] : options_.program;
      if (!sm.has_line_info)
        std::fprintf(stderr,
                     "bankcheck: a module of %s has no line information (build it with "
                     "-lineinfo): its accesses are listed by SASS instruction\n",
                     options_.program.c_str());
      if (main_file < static_cast<int>(r.files.size())) {
        std::ifstream src(r.files[main_file]);
        for (std::string line; std::getline(src, line);) r.source_lines.push_back(line);
      }
      ordered.emplace_back(ks.front()->first, std::move(r));
    }
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<analysis::CheckReport> reports;
    for (auto& [first, r] : ordered) reports.push_back(std::move(r));
    if (overflowed)
      fail(
          fmt::format("{} requests found no free counter (a kernel with more memory "
                      "instructions than its table holds); their counts are missing",
                      overflowed));
    if (unplaced)
      std::fprintf(stderr,
                   "bankcheck: %llu requests of instructions outside their kernel's code (called "
                   "functions) are not in the report\n",
                   static_cast<unsigned long long>(unplaced));
    runtime::write_run_reports(reports, options_, failures_);
  }

 private:
  static void callback(void* self, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                       const void* data) {
    if (Lock::held()) return;
    auto* t = static_cast<Tool*>(self);
    switch (domain) {
      case SANITIZER_CB_DOMAIN_DRIVER_API:
        t->launch_call(cbid, *static_cast<const Sanitizer_CallbackData*>(data));
        break;
      case SANITIZER_CB_DOMAIN_LAUNCH:
        if (cbid == SANITIZER_CBID_LAUNCH_BEGIN)
          t->launch_begin(*static_cast<const Sanitizer_LaunchData*>(data), false);
        else if (cbid == SANITIZER_CBID_LAUNCH_END && t->trace_.launches()) {
          const char* name = static_cast<const Sanitizer_LaunchData*>(data)->functionName;
          t->trace_(fmt::format("launch end {}", name ? name : "?"));
        }
        break;
      case SANITIZER_CB_DOMAIN_GRAPHS:
        if (cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN) {
          const auto& n = *static_cast<const Sanitizer_GraphNodeLaunchData*>(data);
          if (n.nodeType == CU_GRAPH_NODE_TYPE_KERNEL && !n.isGraphUpload)
            t->launch_begin(n.launchData, true);
        }
        break;
      case SANITIZER_CB_DOMAIN_SYNCHRONIZE:
        t->synchronized(cbid, *static_cast<const Sanitizer_SynchronizeData*>(data));
        break;
      case SANITIZER_CB_DOMAIN_RESOURCE:
        t->resource(cbid, data);
        break;
      default:
        break;
    }
  }

  // The launch this thread is making, from its launch call (the launch callback that follows
  // reads it).
  static thread_local LaunchCall call_;

  // A launch call's entry: its dynamic shared memory kept for the launch callback, and, for a
  // kernel launched before, the module made right for it now (the launch is decided here as
  // the launch callback will decide it).
  void launch_call(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData& d) {
    if (d.callbackSite == SANITIZER_API_EXIT) {
      call_ = {};  // a call that launched nothing (refused) leaves nothing for the next one
      return;
    }
    if (!d.functionParams) return;
    LaunchCall c;
    switch (cbid) {
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernel:
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz:
      case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel:
      case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz: {
        const auto* p = static_cast<const LaunchKernelParams*>(d.functionParams);
        c = {true,
             p->f,
             {p->grid_x, p->grid_y, p->grid_z},
             {p->block_x, p->block_y, p->block_z},
             p->shared_bytes};
        break;
      }
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx:
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz: {
        const auto* p = static_cast<const LaunchKernelExParams*>(d.functionParams);
        if (!p->config) return;
        const CUlaunchConfig& g = *p->config;
        c = {true,
             p->f,
             {g.gridDimX, g.gridDimY, g.gridDimZ},
             {g.blockDimX, g.blockDimY, g.blockDimZ},
             g.sharedMemBytes};
        break;
      }
      default:
        return;
    }
    call_ = c;
    Lock lock(mutex_);
    if (!active_) return;
    CUfunction f = c.function;
    if (const auto a = alias_.find(f); a != alias_.end()) f = a->second;
    const auto it = kernels_.find(f);
    if (it == kernels_.end()) {
      // The kernel's first launch, analysed if it is selected: its module, found by the
      // kernel's name, is patched now if it is not (it was unpatched for another kernel).
      if (d.symbolName && selected(d.symbolName) && instrumentation_->any_unpatched())
        for (const auto& [h, i] : module_index_)
          if (!instrumentation_->patched(h) && module_has(i, d.symbolName))
            if (std::string e = instrumentation_->prepare(h, true, false); !e.empty()) once(e);
      return;
    }
    KernelState& k = it->second;
    const analysis::LaunchSummary* s = find_configuration(k, c.grid, c.block, c.smem);
    const bool analyse = would_analyse(k, s ? s->analysed : 0);
    if (!analyse && keep_patched()) return;
    if (std::string e = instrumentation_->prepare(k.handle, analyse, false); !e.empty()) once(e);
  }

  void fail(const std::string& sentence) {
    if (root_) std::fprintf(stderr, "bankcheck: error: %s\n", sentence.c_str());
    failures_.push_back(sentence);
  }

  // A problem of the instrumentation that does not stop the analysis, said once.
  void once(const std::string& sentence) {
    if (!said_.insert(sentence).second) return;
    if (root_) std::fprintf(stderr, "bankcheck: %s\n", sentence.c_str());
  }

  // BANKCHECK_GPU_PATCHES, else bankcheck-patches.fatbin beside this library.
  static std::string patches_file() {
    if (const char* p = std::getenv("BANKCHECK_GPU_PATCHES"); p && *p) return p;
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&patches_file), &info) && info.dli_fname)
      return (std::filesystem::path(info.dli_fname).parent_path() / "bankcheck-patches.fatbin")
          .string();
    return "bankcheck-patches.fatbin";
  }

  void resource(Sanitizer_CallbackId cbid, const void* data) {
    switch (cbid) {
      case SANITIZER_CBID_RESOURCE_MODULE_LOADED:
        module_loaded(*static_cast<const Sanitizer_ResourceModuleData*>(data));
        break;
      case SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
        module_unloading(*static_cast<const Sanitizer_ResourceModuleData*>(data));
        break;
      case SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING: {
        const auto& s = *static_cast<const Sanitizer_ResourceStreamData*>(data);
        Lock lock(mutex_);
        trace_(fmt::format("stream destroying {}", static_cast<const void*>(s.hStream)));
        if (instrumentation_) instrumentation_->stream_destroying(s.hStream);
        break;
      }
      case SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
        context_destroying(static_cast<const Sanitizer_ResourceContextData*>(data)->context);
        break;
      case SANITIZER_CBID_RESOURCE_FUNCTIONS_LAZY_LOADED:
      case SANITIZER_CBID_RESOURCE_FUNCTIONS_LAZY_PATCHED:
        if (trace_) {
          const auto& f = *static_cast<const Sanitizer_ResourceFunctionsLazyLoadedData*>(data);
          trace_(fmt::format(
              "functions lazily {} in module {}: {}",
              cbid == SANITIZER_CBID_RESOURCE_FUNCTIONS_LAZY_LOADED ? "loaded" : "patched",
              static_cast<const void*>(f.module), f.numFunctions));
        }
        break;
      default:
        break;
    }
  }

  void synchronized(Sanitizer_CallbackId cbid, const Sanitizer_SynchronizeData& d) {
    Lock lock(mutex_);
    if (!instrumentation_) return;
    if (cbid == SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED) {
      trace_(fmt::format("stream synchronized {}", static_cast<const void*>(d.hStream)));
      instrumentation_->stream_synchronized(d.context, d.hStream);
    } else if (cbid == SANITIZER_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED) {
      trace_(fmt::format("context synchronized {}", static_cast<const void*>(d.context)));
      instrumentation_->context_synchronized(d.context);
    }
  }

  // A module: its cubin kept, and patched for the first launches of its kernels.
  void module_loaded(const Sanitizer_ResourceModuleData& d) {
    Lock lock(mutex_);
    if (!active_) return;
    LoadedModule m;
    m.context = d.context;
    if (d.pCubin && d.cubinSize)
      m.cubin.assign(reinterpret_cast<const std::uint8_t*>(d.pCubin),
                     reinterpret_cast<const std::uint8_t*>(d.pCubin) + d.cubinSize);
    module_index_[d.module] = modules_.size();
    modules_.push_back(std::move(m));
    const std::string e = instrumentation_->module_loaded(d.context, d.module);
    trace_(fmt::format("module loaded {} ({} bytes){}", static_cast<const void*>(d.module),
                       d.cubinSize, e.empty() ? "" : ": " + e));
    if (!e.empty()) once(e + "; its kernels are not analysed");
  }

  // Its tables read a last time; its kernels' handles may be reused by a later module: they
  // are retired (their counts stay for the report).
  void module_unloading(const Sanitizer_ResourceModuleData& d) {
    Lock lock(mutex_);
    trace_(fmt::format("module unloading {}", static_cast<const void*>(d.module)));
    if (instrumentation_) {
      instrumentation_->module_unloading(d.module);
      device_->forget(d.module);
    }
    retire(d.module);
  }

  void context_destroying(CUcontext context) {
    Lock lock(mutex_);
    trace_(fmt::format("context destroying {}", static_cast<const void*>(context)));
    if (!instrumentation_) return;
    std::vector<CUmodule> gone;
    for (const auto& [h, i] : module_index_)
      if (modules_[i].context == context) gone.push_back(h);
    instrumentation_->context_destroying(context);
    for (CUmodule h : gone) {
      device_->forget(h);
      retire(h);
    }
  }

  void retire(CUmodule module) {
    const auto mod = module_index_.find(module);
    if (mod == module_index_.end()) return;
    for (auto it = alias_.begin(); it != alias_.end();) {
      const auto k = kernels_.find(it->second);
      if (k == kernels_.end() || k->second.module == mod->second)
        it = alias_.erase(it);
      else
        ++it;
    }
    for (auto it = kernels_.begin(); it != kernels_.end();) {
      if (it->second.module == mod->second) {
        retired_.push_back(std::move(it->second));
        it = kernels_.erase(it);
      } else {
        ++it;
      }
    }
    module_index_.erase(mod);
  }

  // Whether the module has a kernel of this mangled name (its names read once: from its SASS
  // when read, else from the cubin's .text sections).
  bool module_has(std::size_t index, std::string_view mangled) {
    LoadedModule& m = modules_[index];
    if (!m.named) {
      m.named = true;
      if (m.sass) {
        for (const auto& k : m.sass->kernels) m.names.push_back(k.name);
      } else if (auto elf = sass::read_elf(m.cubin); elf.ok()) {
        for (const auto& sec : elf.value().sections)
          if (sec.name.starts_with(".text.")) m.names.push_back(sec.name.substr(6));
      }
      std::sort(m.names.begin(), m.names.end());
    }
    return std::binary_search(m.names.begin(), m.names.end(), mangled, std::less<>());
  }

  // The module's cubin read with the device's decoder (once).
  const sass::Module* module_sass(std::size_t index) {
    LoadedModule& m = modules_[index];
    if (!m.read) {
      m.read = true;
      const sass::Decoder decode = sass::decoder_for(arch_ ? arch_->sass : model::SassFamily::None);
      auto r = sass::read_module(m.cubin, decode);
      if (r.ok())
        m.sass = std::make_shared<const sass::Module>(std::move(r.value()));
      else
        m.unreadable = r.error().message;
      m.cubin.clear();
      m.cubin.shrink_to_fit();
    }
    return m.sass.get();
  }

  // The device's architecture, from the first launch's device; false (said once) where
  // bankcheck has no SASS decoder for it.
  bool know_arch(CUdevice device) {
    if (arch_) return arch_->sass != model::SassFamily::None;
    int major = 0, minor = 0;
    void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    auto attr = cuda ? reinterpret_cast<CuDeviceGetAttribute>(::dlsym(cuda, "cuDeviceGetAttribute"))
                     : nullptr;
    if (attr) {
      attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
      attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    }
    const std::string name = fmt::format("sm_{}{}", major, minor);
    arch_ = model::find_arch(name);
    if (!arch_) arch_ = &model::kDefaultArch;
    if (arch_->sass == model::SassFamily::None) {
      fail(
          fmt::format("the GPU is {}: the GPU backend reads Hopper (sm_90) SASS only; use "
                      "--backend emulator",
                      name));
      return false;
    }
    return true;
  }

  bool selected(const std::string& mangled) const {
    if (options_.kernels.empty()) return true;
    for (const auto& w : options_.kernels)
      if (driver::kernel_matches(mangled, w)) return true;
    return false;
  }

  // --launches all: every module stays patched (a launch of a kernel --kernel leaves out runs
  // the patches with no table) so that no launch waits for another.
  bool keep_patched() const { return options_.launches == 0; }

  // The rule: a selected kernel bankcheck can read, the first --launches launches of each of
  // its configurations (`analysed` of this one so far).
  bool would_analyse(const KernelState& k, std::uint64_t analysed) const {
    return k.selected && k.kernel && (options_.launches == 0 || analysed < options_.launches);
  }

  static const analysis::LaunchSummary* find_configuration(const KernelState& k,
                                                           const emu::Dim3& grid,
                                                           const emu::Dim3& block,
                                                           std::uint64_t smem) {
    for (const auto& s : k.configurations)
      if (s.grid == grid && s.block == block && s.dynamic_smem == smem) return &s;
    return nullptr;
  }

  static Launch launch_of(const Sanitizer_LaunchData& d, bool graph_node) {
    Launch l;
    l.context = d.context;
    l.module = d.module;
    l.function = d.function;
    l.stream = d.hStream;
    l.handle = d.hLaunch;
    l.mangled = d.functionName ? d.functionName : "";
    l.threads = std::uint64_t{d.gridDim_x} * d.gridDim_y * d.gridDim_z * d.blockDim_x *
                d.blockDim_y * d.blockDim_z;
    l.graph_node = graph_node;
    return l;
  }

  // What the kernel's table is made from: a slot per memory instruction (half full at most;
  // called functions' instructions share it), its SASS forms, the device's bank rules.
  TableSetup setup_of(const KernelState& k) const {
    TableSetup s;
    std::size_t memory_instructions = 0;
    for (const auto& in : k.kernel->instructions) {
      const std::string_view m = in.mnemonic;
      memory_instructions += m.starts_with("LD") || m.starts_with("ST") || m.starts_with("ATOM") ||
                             m.starts_with("RED") || m.ends_with("GMMA") || m.starts_with("UBLK");
    }
    s.capacity = next_power_of_two(2 * memory_instructions + 256);
    s.forms = instruction_forms(*k.kernel);
    s.arch = arch_ ? *arch_ : model::kDefaultArch;
    return s;
  }

  void launch_begin(const Sanitizer_LaunchData& d, bool graph_node) {
    const LaunchCall call = graph_node ? LaunchCall{} : call_;
    if (!graph_node) call_ = {};
    const std::uint64_t smem = call.smem;
    Lock lock(mutex_);
    const std::uint64_t number = launches_++;
    auto say = [&](const char* what) {
      trace_(fmt::format("{} {} {}{} module {} stream {} grid {}x{}x{} block {}x{}x{}", what,
                         number, d.functionName ? d.functionName : "?",
                         graph_node ? " (graph node)" : "", static_cast<const void*>(d.module),
                         static_cast<const void*>(d.hStream), d.gridDim_x, d.gridDim_y, d.gridDim_z,
                         d.blockDim_x, d.blockDim_y, d.blockDim_z));
    };
    if (trace_.launches()) say("launch");
    if (!active_) return;
    const Launch l = launch_of(d, graph_node);
    const auto mod = module_index_.find(d.module);
    if (mod == module_index_.end() || !know_arch(d.device)) {
      if (!keep_patched()) instrumentation_->prepare(d.module, false, graph_node);
      instrumentation_->begin_unanalysed(l);
      return;
    }
    auto [it, fresh] = kernels_.try_emplace(d.function);
    KernelState& k = it->second;
    if (fresh) {
      k.module = mod->second;
      k.handle = d.module;
      k.mangled = l.mangled;
      k.selected = selected(k.mangled);
      if (const sass::Module* sm = module_sass(k.module))
        k.kernel = sm->find(k.mangled);
      else if (k.selected)
        fail(fmt::format("cannot read the cubin of {}: {}", driver::demangle(k.mangled),
                         modules_[k.module].unreadable));
    }
    // The launch call's handle (a CUkernel where the runtime launches through one) names it.
    if (call.valid && call.function != d.function) alias_[call.function] = d.function;
    // Its configuration, as the emulator backend counts them.
    const emu::Dim3 grid{d.gridDim_x, d.gridDim_y, d.gridDim_z};
    const emu::Dim3 block{d.blockDim_x, d.blockDim_y, d.blockDim_z};
    analysis::LaunchSummary* summary =
        const_cast<analysis::LaunchSummary*>(find_configuration(k, grid, block, smem));
    if (!summary) {
      k.configurations.emplace_back();
      summary = &k.configurations.back();
      summary->grid = grid;
      summary->block = block;
      summary->dynamic_smem = smem;
    }
    ++summary->launches;
    const bool analyse = would_analyse(k, summary->analysed);
    // The module's code should be right already (made so at the launch call); a change now may
    // come too late for this launch, which the exits counted show.
    if (instrumentation_->patched(d.module) != analyse && (analyse || !keep_patched())) {
      ++late_;
      if (trace_)
        say(analyse ? "patched only at launch begin:" : "unpatched only at launch begin:");
    }
    if (!analyse) {
      if (std::string e =
              keep_patched() ? "" : instrumentation_->prepare(d.module, false, graph_node);
          !e.empty())
        once(e + "; launches of it that are not analysed run bankcheck's patches with no table");
      instrumentation_->begin_unanalysed(l);
      return;
    }
    std::string error;
    KernelTable* table = instrumentation_->begin(
        l, [&] { return setup_of(k); }, error);
    if (!table) {
      fail(fmt::format("{} is not analysed: {}", driver::demangle(k.mangled), error));
      k.selected = false;
      instrumentation_->begin_unanalysed(l);
      return;
    }
    if (trace_.launches() || (trace_ && summary->analysed == 0)) say("analysed launch");
    k.table = table;
    ++summary->analysed;
    summary->analysed_ids.push_back(number);
    k.analysed = true;
    k.first = std::min(k.first, number);
    k.ctas += grid.count();
  }

  // A kernel whose analysed launches were not all counted whole says so, in the report (a note
  // on its first line) and on standard error.
  void incomplete(const KernelState& k, analysis::KernelReport& kr) {
    if (k.table->complete()) return;
    const std::string why = k.table->incomplete_reason();
    analysis::NoteReport n;
    if (!kr.sites.empty()) {
      n.file = kr.sites.front().file;
      n.line = kr.sites.front().line;
    }
    n.message = "incomplete: the counts of this kernel are partial: " + why;
    kr.notes.insert(kr.notes.begin(), n);
    std::fprintf(stderr, "bankcheck: the counts of %s are incomplete: %s\n", kr.name.c_str(),
                 why.c_str());
  }

  SanitizerApi api_;
  std::unique_ptr<SanitizerDevice> device_;
  std::unique_ptr<Instrumentation> instrumentation_;
  Trace trace_;
  runtime::RunOptions options_;
  std::vector<std::string> failures_;
  std::set<std::string> said_;
  bool active_ = false;
  bool root_ = true;
  const model::Arch* arch_ = nullptr;
  std::mutex mutex_;
  std::vector<LoadedModule> modules_;
  std::map<CUmodule, std::size_t> module_index_;
  std::map<CUfunction, KernelState> kernels_;
  std::map<CUfunction, CUfunction> alias_;  // a launch call's handle -> the launch's function
  std::deque<KernelState> retired_;
  std::uint64_t launches_ = 0;
  std::uint64_t late_ = 0;  // launches whose module was patched or unpatched only as they began
};

thread_local LaunchCall Tool::call_;

// Never destroyed: the report is written at exit, after the program's own static objects.
Tool* the_tool = nullptr;

void at_exit() {
  if (the_tool) the_tool->finish();
}

__attribute__((constructor)) void start() {
  the_tool = new Tool;
  std::atexit(at_exit);
}

}  // namespace
}  // namespace bankcheck::device
