// The GPU backend's tool: a library `bankcheck run --backend gpu` preloads into the program.
// Through the compute-sanitizer API (libsanitizer-public.so, opened at load time) it patches
// every module the program loads so that its shared, global, ldmatrix/stmatrix, cp.async,
// wgmma, bulk-copy and cluster instructions call bankcheck's device functions (patches.cu),
// gives each analysed launch a table of per-instruction counters, reads the table back when the
// launch ends. Which launches are analysed, and what is counted whole, is the launch ledger's
// (runtime/launch_ledger.hpp, as for the emulator); the process's part of the job is written as
// it goes (runtime/program_side.hpp), or without a job the report at exit (write_run_reports).
//
// Lines come from the cubin the module callback hands over, read by the project's own reader
// (sass::read_module): the same .debug_line rows Nsight Compute lists each SASS instruction
// under. Nothing but the counters leaves the GPU.
#include <dlfcn.h>
#include <unistd.h>
#include <fmt/format.h>
#include <sanitizer.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <set>
#include <tuple>
#include <vector>

#include "bankcheck/device/pc_report.hpp"
#include "bankcheck/device/records.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/model/arch.hpp"
#include "bankcheck/runtime/launch_ledger.hpp"
#include "bankcheck/runtime/nvtx_ranges.hpp"
#include "bankcheck/runtime/program_side.hpp"
#include "bankcheck/runtime/run_options.hpp"
#include "bankcheck/runtime/run_report.hpp"
#include "bankcheck/sass/decoder.hpp"
#include "bankcheck/sass/module.hpp"

namespace bankcheck::device {
namespace {

// The sanitizer API, from libsanitizer-public.so (the toolkit's compute-sanitizer folder,
// found on LD_LIBRARY_PATH or through BANKCHECK_SANITIZER_LIB).
struct Api {
  decltype(&::sanitizerSubscribe) subscribe = nullptr;
  decltype(&::sanitizerEnableDomain) enable_domain = nullptr;
  decltype(&::sanitizerEnableCallback) enable_callback = nullptr;
  decltype(&::sanitizerAddPatchesFromFile) add_patches = nullptr;
  decltype(&::sanitizerPatchInstructions) patch_instructions = nullptr;
  decltype(&::sanitizerPatchModule) patch_module = nullptr;
  decltype(&::sanitizerSetLaunchCallbackData) set_launch_data = nullptr;
  decltype(&::sanitizerGetFunctionPcAndSize) function_pc = nullptr;
  decltype(&::sanitizerAlloc) alloc = nullptr;
  decltype(&::sanitizerMemset) memset = nullptr;
  decltype(&::sanitizerMemcpyHostToDeviceAsync) to_device = nullptr;
  decltype(&::sanitizerMemcpyDeviceToHost) to_host = nullptr;
  decltype(&::sanitizerStreamSynchronize) synchronize = nullptr;
  decltype(&::sanitizerGetResultString) result_string = nullptr;

  // Empty when every entry point was found; else why not.
  std::string load() {
    const char* named = std::getenv("BANKCHECK_SANITIZER_LIB");
    const char* file = named && *named ? named : "libsanitizer-public.so";
    void* lib = ::dlopen(file, RTLD_NOW | RTLD_GLOBAL);
    if (!lib) return fmt::format("cannot open {}: {}", file, ::dlerror());
    bool all = true;
    auto get = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
      all = all && fn;
    };
    get(subscribe, "sanitizerSubscribe");
    get(enable_domain, "sanitizerEnableDomain");
    get(enable_callback, "sanitizerEnableCallback");
    get(add_patches, "sanitizerAddPatchesFromFile");
    get(patch_instructions, "sanitizerPatchInstructions");
    get(patch_module, "sanitizerPatchModule");
    get(set_launch_data, "sanitizerSetLaunchCallbackData");
    get(function_pc, "sanitizerGetFunctionPcAndSize");
    get(alloc, "sanitizerAlloc");
    get(memset, "sanitizerMemset");
    get(to_device, "sanitizerMemcpyHostToDeviceAsync");
    get(to_host, "sanitizerMemcpyDeviceToHost");
    get(synchronize, "sanitizerStreamSynchronize");
    get(result_string, "sanitizerGetResultString");
    return all ? "" : fmt::format("{} lacks an entry point of the sanitizer API", file);
  }

  std::string why(SanitizerResult r) const {
    const char* s = nullptr;
    if (result_string && result_string(r, &s) == SANITIZER_SUCCESS && s) return s;
    return fmt::format("sanitizer error {}", static_cast<int>(r));
  }
};

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
};

using CuDeviceGetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);

// A module the program loaded: its cubin as the callback handed it over, read on first use.
struct LoadedModule {
  std::vector<std::uint8_t> cubin;
  std::shared_ptr<const sass::Module> sass;
  std::string unreadable;  // why the cubin could not be read
  bool read = false;
};

// One kernel of one module in one context, over the program's launches (its launches,
// selection and completeness are the ledger's).
struct KernelState {
  std::size_t module = 0;
  std::string mangled;
  const sass::Kernel* kernel = nullptr;  // in the module's sass (null: not found)
  runtime::LaunchLedger::Kernel ledger = 0;
  std::string unusable;  // why its launches cannot be counted (set once, then every time said)
  // Device memory: the launch record, then the counter table, then the forms.
  void* device = nullptr;
  LaunchRecord record{};  // the host copy written before each analysed launch
  std::size_t table_bytes = 0;
  KernelCounts counts;
  std::uint64_t ctas = 0;  // of its analysed launches (every CTA of each is counted)
};

struct Pending {
  KernelState* kernel = nullptr;
  Sanitizer_StreamHandle stream = nullptr;
  std::uint64_t id = 0;  // the ledger's number of the launch
};

// The ledger of the options' selection (bankcheck run checked it; a bad one is said and the
// default taken).
runtime::LaunchLedger make_ledger(const runtime::LaunchSelection& s, std::string& error) {
  try {
    return runtime::LaunchLedger(s);
  } catch (const std::invalid_argument& e) {
    error = std::string("--kernel: ") + e.what();
    return runtime::LaunchLedger(runtime::LaunchSelection{});
  }
}

unsigned next_power_of_two(std::size_t n) {
  unsigned p = 64;
  while (p < n && p < (1u << 24)) p <<= 1;
  return p;
}

class Tool {
 public:
  Tool()
      : options_(runtime::run_options_from_environment(error_)),
        ledger_(make_ledger(options_.selection, error_)),
        side_(options_, "gpu", [this](runtime::ProcessPart& part, runtime::SnapshotFrom from) {
          return snapshot(part, from);
        }) {
    // The program's children inherit the tool: only the program itself (or a child that runs
    // kernels) speaks and reports.
    root_ = options_.job.empty() || options_.root;
    if (!error_.empty()) failures_.push_back(error_);
    if (const std::string why = runtime::connect_nvtx(options_.selection); !why.empty())
      failures_.push_back(why);
    const std::string why = api_.load();
    if (!why.empty()) {
      fail(why + "; no kernel is analysed");
      return;
    }
    patches_ = patches_file();
    Sanitizer_SubscriberHandle handle = nullptr;
    if (const SanitizerResult r = api_.subscribe(&handle, &Tool::callback, this);
        r != SANITIZER_SUCCESS) {
      fail("the sanitizer API refused a subscriber: " + api_.why(r));
      return;
    }
    api_.enable_domain(1, handle, SANITIZER_CB_DOMAIN_RESOURCE);
    api_.enable_domain(1, handle, SANITIZER_CB_DOMAIN_LAUNCH);
    // The launch calls, for the dynamic shared memory a launch callback does not carry.
    for (const Sanitizer_CallbackId id :
         {SANITIZER_CBID_DRIVER_API_cuLaunchKernel, SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz,
          SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx,
          SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz,
          SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel,
          SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz})
      api_.enable_callback(1, handle, SANITIZER_CB_DOMAIN_DRIVER_API, id);
    active_ = true;
  }

  // At the program's exit: the process's last part of the job, or without a job the report.
  void finish() {
    if (side_.in_job()) {
      side_.exited();
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!root_ && ledger_.launches() == 0) return;
    if (!root_)
      for (const auto& f : failures_) std::fprintf(stderr, "bankcheck: error: %s\n", f.c_str());
    std::fflush(stdout);
    std::uint64_t unplaced = 0;
    std::vector<analysis::CheckReport> r = reports(runtime::kNotReadBack, &unplaced);
    if (unplaced)
      std::fprintf(stderr,
                   "bankcheck: %llu requests of instructions outside their kernel's code (called "
                   "functions) are not in the report\n",
                   static_cast<unsigned long long>(unplaced));
    runtime::write_run_reports(r, options_);
  }

 private:
  static void callback(void* self, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                       const void* data) {
    auto* t = static_cast<Tool*>(self);
    if (domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
      t->module_loaded(*static_cast<const Sanitizer_ResourceModuleData*>(data));
    else if (domain == SANITIZER_CB_DOMAIN_RESOURCE &&
             cbid == SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING)
      t->module_unloading(*static_cast<const Sanitizer_ResourceModuleData*>(data));
    else if (domain == SANITIZER_CB_DOMAIN_DRIVER_API)
      launch_call(cbid, *static_cast<const Sanitizer_CallbackData*>(data));
    else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN)
      t->launch_begin(*static_cast<const Sanitizer_LaunchData*>(data));
    else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_END)
      t->launch_end(*static_cast<const Sanitizer_LaunchData*>(data));
  }

  // The dynamic shared memory of the launch this thread is making (the launch callback that
  // follows reads it).
  static thread_local std::uint64_t dynamic_smem_;

  static void launch_call(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData& d) {
    if (d.callbackSite != SANITIZER_API_ENTER || !d.functionParams) return;
    switch (cbid) {
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernel:
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz:
        dynamic_smem_ = static_cast<const LaunchKernelParams*>(d.functionParams)->shared_bytes;
        break;
      case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel:
      case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz:
        dynamic_smem_ = static_cast<const LaunchKernelParams*>(d.functionParams)->shared_bytes;
        break;
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx:
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz: {
        const auto* p = static_cast<const LaunchKernelExParams*>(d.functionParams);
        if (p->config) dynamic_smem_ = p->config->sharedMemBytes;
        break;
      }
      default:
        break;
    }
  }

  // The reports so far: one per module with an analysed kernel, in the order of their first
  // analysed launches (the ledger's); analysed launches not read back are each kernel's
  // `incomplete`, with `pending` as their reason. The caller holds mutex_.
  std::vector<analysis::CheckReport> reports(const std::string& pending, std::uint64_t* unplaced) {
    const model::Arch& arch = arch_ ? *arch_ : model::kDefaultArch;
    if (overflowed_ && !said_overflow_) {
      said_overflow_ = true;
      fail(
          fmt::format("{} requests found no free counter (a kernel with more memory "
                      "instructions than its table holds); their counts are missing",
                      overflowed_));
    }
    std::vector<analysis::CheckReport> out;
    for (const auto& group : ledger_.report_order()) {
      const std::size_t m = by_ledger_.at(group.front())->module;
      const sass::Module* sm = modules_[m].sass.get();
      if (!sm) continue;
      analysis::CheckReport r;
      r.arch = &arch;
      r.level = analysis::CountLevel::Sass;
      r.files = sm->source_files;
      std::map<int, std::uint64_t> sites_in;
      for (const runtime::LaunchLedger::Kernel lk : group) {
        KernelState* k = by_ledger_.at(lk);
        const runtime::LaunchLedger::Entry e = ledger_.entry(lk);
        analysis::KernelReport kr;
        if (k->kernel) {
          std::uint64_t lost = 0;
          kr = kernel_report(*sm, *k->kernel, k->counts, arch, &lost);
          if (unplaced) *unplaced += lost;
        }
        kr.mangled = k->mangled;
        kr.signature = driver::demangle(k->mangled);
        kr.name = driver::base_name(kr.signature);
        kr.launches = e.configurations;
        kr.incomplete = ledger_.incomplete(lk, pending);
        kr.ctas_total = kr.ctas_analysed = k->ctas;
        if (!e.configurations.empty()) {
          kr.grid = e.configurations.front().grid;
          kr.block = e.configurations.front().block;
          kr.dynamic_smem = e.configurations.front().dynamic_smem;
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
      if (!sm->has_line_info && said_no_lines_.insert(m).second)
        std::fprintf(stderr,
                     "bankcheck: a module of %s has no line information (build it with "
                     "-lineinfo): its accesses are listed by SASS instruction\n",
                     options_.program.c_str());
      if (main_file < static_cast<int>(r.files.size())) {
        std::ifstream src(r.files[main_file]);
        for (std::string line; std::getline(src, line);) r.source_lines.push_back(line);
      }
      out.push_back(std::move(r));
    }
    return out;
  }

  // The process's part of the job (ProgramSide's snapshot).
  bool snapshot(runtime::ProcessPart& part, runtime::SnapshotFrom from) {
    std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
    if (from == runtime::SnapshotFrom::Outside) lock.lock();
    if (from == runtime::SnapshotFrom::Ending && !lock.try_lock()) return false;
    part.reports = reports(runtime::kPendingLaunch, nullptr);
    part.failures = failures_;
    part.launches = ledger_.launches();
    part.analysed = ledger_.analysed();
    return true;
  }

  // A forked child's tool starts its own ledger: the parent's launches are the parent's.
  void forget_parent() {
    ledger_.reset();
    by_ledger_.clear();
    kernels_.clear();
    retired_.clear();
    pending_.clear();
    failures_.clear();
  }

  void fail(const std::string& sentence) {
    if (root_) std::fprintf(stderr, "bankcheck: error: %s\n", sentence.c_str());
    failures_.push_back(sentence);
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

  void module_loaded(const Sanitizer_ResourceModuleData& d) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!active_) return;
    if (!patched_contexts_.count(d.context)) {
      if (const SanitizerResult r = api_.add_patches(patches_.c_str(), d.context);
          r != SANITIZER_SUCCESS) {
        fail(fmt::format("cannot load bankcheck's device functions ({}): {}", patches_, api_.why(r)));
        active_ = false;
        return;
      }
      patched_contexts_.insert(d.context);
    }
    LoadedModule m;
    if (d.pCubin && d.cubinSize)
      m.cubin.assign(reinterpret_cast<const std::uint8_t*>(d.pCubin),
                     reinterpret_cast<const std::uint8_t*>(d.pCubin) + d.cubinSize);
    module_index_[d.module] = modules_.size();
    modules_.push_back(std::move(m));
    struct Patch {
      Sanitizer_InstructionId id;
      const char* function;
      bool required;  // the LSU's accesses; the rest (Hopper's) only where the driver has them
    };
    for (const Patch& p :
         {Patch{SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "bankcheck_shared_access", true},
          Patch{SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "bankcheck_global_access", true},
          Patch{SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS, "bankcheck_matrix_access", true},
          Patch{SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "bankcheck_async_copy", true},
          Patch{SANITIZER_INSTRUCTION_WARPGROUP_MMA_ASYNC, "bankcheck_wgmma", false},
          Patch{SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, "bankcheck_bulk_to_shared", false},
          Patch{SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_GLOBAL, "bankcheck_bulk_to_global", false},
          Patch{SANITIZER_INSTRUCTION_BULK_REDUCTION_SHARED_TO_GLOBAL, "bankcheck_bulk_to_global",
                false},
          Patch{SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_SHARED, "bankcheck_bulk_to_cluster", false},
          Patch{SANITIZER_INSTRUCTION_ASYNC_STORE, "bankcheck_async_store", false},
          Patch{SANITIZER_INSTRUCTION_REMOTE_SHARED_MEMORY_ACCESS, "bankcheck_remote_shared",
                false}})
      if (const SanitizerResult r = api_.patch_instructions(p.id, d.module, p.function);
          r != SANITIZER_SUCCESS && p.required) {
        fail(fmt::format("cannot patch a module's instructions with {}: {}", p.function, api_.why(r)));
        return;
      }
    if (const SanitizerResult r = api_.patch_module(d.module); r != SANITIZER_SUCCESS)
      fail(fmt::format("cannot patch a module: {}", api_.why(r)));
  }

  void module_unloading(const Sanitizer_ResourceModuleData& d) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto mod = module_index_.find(d.module);
    if (mod == module_index_.end()) return;
    // Its kernels' handles may be reused by a later module: they are retired (their counts
    // stay for the report).
    for (auto it = kernels_.begin(); it != kernels_.end();) {
      if (it->second.module == mod->second) {
        ledger_.retire(it->first);
        retired_.push_back(std::move(it->second));
        by_ledger_[retired_.back().ledger] = &retired_.back();
        for (auto& [h, p] : pending_)
          if (p.kernel == &it->second) p.kernel = &retired_.back();
        it = kernels_.erase(it);
      } else {
        ++it;
      }
    }
    module_index_.erase(mod);
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
      fail(fmt::format("the GPU is {}: the GPU backend reads Hopper (sm_90) SASS only; use "
                       "--backend emulator",
                       name));
      return false;
    }
    return true;
  }

  void launch_begin(const Sanitizer_LaunchData& d) {
    const std::uint64_t smem = dynamic_smem_;
    dynamic_smem_ = 0;
    std::lock_guard<std::mutex> lock(mutex_);
    if (side_.forked_child()) forget_parent();
    if (!active_) {
      ledger_.launch_unknown();
      return;
    }
    const auto mod = module_index_.find(d.module);
    if (mod == module_index_.end() || !know_arch(d.device)) {
      ledger_.launch_unknown();
      api_.set_launch_data(d.hLaunch, d.function, d.hStream, nullptr);
      return;
    }
    auto [it, fresh] = kernels_.try_emplace(d.function);
    KernelState& k = it->second;
    if (fresh) {
      k.module = mod->second;
      k.mangled = d.functionName ? d.functionName : "";
      k.ledger = ledger_.kernel(d.function, k.mangled, k.module);
      by_ledger_[k.ledger] = &k;
      if (const sass::Module* sm = module_sass(k.module)) k.kernel = sm->find(k.mangled);
      if (!k.kernel)
        k.unusable = fmt::format(
            "the cubin of {} could not be read{}", driver::demangle(k.mangled),
            modules_[k.module].unreadable.empty() ? "" : ": " + modules_[k.module].unreadable);
      if (!k.kernel && ledger_.selected(k.ledger)) fail(k.unusable);
    }
    // Its configuration, as the emulator backend counts them; whether it is analysed.
    const model::Dim3 grid{d.gridDim_x, d.gridDim_y, d.gridDim_z};
    const model::Dim3 block{d.blockDim_x, d.blockDim_y, d.blockDim_z};
    const runtime::LaunchLedger::Decision dec = ledger_.launch(k.ledger, {grid, block, smem});
    if (dec.analyse) side_.began(dec.id, k.mangled);
    if (!dec.analyse || !k.unusable.empty() || !prepare(k, d)) {
      if (dec.analyse) {  // chosen, but it cannot be counted
        ledger_.lost(dec.id, k.unusable);
        side_.lost(dec.id, k.unusable);
      }
      api_.set_launch_data(d.hLaunch, d.function, d.hStream, nullptr);
      return;
    }
    k.ctas += grid.count();
    api_.set_launch_data(d.hLaunch, d.function, d.hStream, k.device);
    pending_[d.hLaunch] = {&k, d.hStream, dec.id};
  }

  // The kernel's device memory (allocated on its first analysed launch) cleared and its
  // record written, on the launch's stream before the launch.
  bool prepare(KernelState& k, const Sanitizer_LaunchData& d) {
    if (!k.device) {
      std::uint64_t pc = 0, size = 0;
      if (const SanitizerResult r = api_.function_pc(d.module, k.mangled.c_str(), &pc, &size);
          r != SANITIZER_SUCCESS) {
        k.unusable =
            fmt::format("cannot find the code of {}: {}", driver::demangle(k.mangled), api_.why(r));
        fail(k.unusable);
        return false;
      }
      std::size_t memory_instructions = 0;
      for (const auto& in : k.kernel->instructions) {
        const std::string_view m = in.mnemonic;
        memory_instructions += m.starts_with("LD") || m.starts_with("ST") ||
                               m.starts_with("ATOM") || m.starts_with("RED") ||
                               m.ends_with("GMMA") || m.starts_with("UBLK");
      }
      const std::vector<unsigned char> forms = instruction_forms(*k.kernel);
      // Half full at most; called functions' instructions share the table.
      k.record.capacity = next_power_of_two(2 * memory_instructions + 256);
      k.table_bytes = sizeof(PcCounter) * k.record.capacity;
      const std::size_t bytes = sizeof(LaunchRecord) + k.table_bytes + forms.size();
      if (const SanitizerResult r = api_.alloc(d.context, &k.device, bytes); r != SANITIZER_SUCCESS) {
        k.unusable = fmt::format("cannot allocate {} bytes of GPU memory for {}'s counters: {}",
                                 bytes, driver::demangle(k.mangled), api_.why(r));
        fail(k.unusable);
        k.device = nullptr;
        return false;
      }
      auto* base = static_cast<unsigned char*>(k.device);
      k.record.counters = reinterpret_cast<PcCounter*>(base + sizeof(LaunchRecord));
      k.record.base_pc = pc;
      k.record.forms = forms.empty() ? nullptr : base + sizeof(LaunchRecord) + k.table_bytes;
      k.record.forms_count = static_cast<unsigned>(forms.size());
      k.record.arch = arch_ ? *arch_ : model::kDefaultArch;
      k.counts.mangled = k.mangled;
      k.counts.base_pc = pc;
      if (!forms.empty()) {
        forms_.push_back(forms);  // the copy is asynchronous: its source stays
        api_.to_device(base + sizeof(LaunchRecord) + k.table_bytes, forms_.back().data(),
                       forms.size(), d.hStream);
      }
    }
    k.record.overflowed = 0;
    api_.memset(static_cast<unsigned char*>(k.device) + sizeof(LaunchRecord), 0, k.table_bytes,
                d.hStream);
    api_.to_device(k.device, &k.record, sizeof(LaunchRecord), d.hStream);
    return true;
  }

  void launch_end(const Sanitizer_LaunchData& d) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = pending_.find(d.hLaunch);
    if (it == pending_.end()) return;
    const Pending p = it->second;
    pending_.erase(it);
    KernelState& k = *p.kernel;
    api_.synchronize(p.stream);
    LaunchRecord back{};
    KernelCounts launch;
    launch.mangled = k.mangled;
    launch.base_pc = k.counts.base_pc;
    launch.counters.resize(k.record.capacity);
    api_.to_host(&back, k.device, sizeof(LaunchRecord), p.stream);
    api_.to_host(launch.counters.data(), static_cast<unsigned char*>(k.device) + sizeof(LaunchRecord),
                 k.table_bytes, p.stream);
    overflowed_ += back.overflowed;
    merge_counts(k.counts, launch);
    ledger_.counted(p.id);
    side_.counted(p.id);
  }

  Api api_;
  std::string error_;  // a problem with the options, said once made
  runtime::RunOptions options_;
  runtime::LaunchLedger ledger_;
  runtime::ProgramSide side_;
  std::map<runtime::LaunchLedger::Kernel, KernelState*> by_ledger_;
  std::set<std::size_t> said_no_lines_;  // modules named for their missing line information
  bool said_overflow_ = false;
  std::vector<std::string> failures_;
  std::string patches_;
  bool active_ = false;
  bool root_ = true;
  const model::Arch* arch_ = nullptr;
  std::mutex mutex_;
  std::set<CUcontext> patched_contexts_;
  std::vector<LoadedModule> modules_;
  std::map<CUmodule, std::size_t> module_index_;
  std::map<CUfunction, KernelState> kernels_;
  std::deque<KernelState> retired_;
  std::map<Sanitizer_LaunchHandle, Pending> pending_;
  std::vector<std::vector<unsigned char>> forms_;
  std::uint64_t overflowed_ = 0;
};

thread_local std::uint64_t Tool::dynamic_smem_ = 0;

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
