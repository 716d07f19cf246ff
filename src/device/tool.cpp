// The GPU backend's tool: a library `bankcheck run --backend gpu` preloads into the program.
// Through the compute-sanitizer API (libsanitizer-public.so, opened at load time) it learns of
// the modules, launches, synchronizations and graph launches of the program, and patches its
// shared, global, ldmatrix/stmatrix, cp.async, wgmma, bulk-copy and cluster instructions to call
// bankcheck's device functions (patches.cu); which launches are analysed is decided here, and
// how (which modules carry bankcheck's patches when, the analysed kernels' counter tables on the
// GPU, when those are read back) by the instrumentation (instrumentation.hpp): a launch that is
// not analysed runs the program's own code. At the program's exit the report is written
// through the views `check` uses (write_run_reports). Which launches are analysed, and what
// was counted whole, is the launch ledger's (runtime/launch_ledger.hpp, as for the emulator);
// in a job the process's part is written as it goes (runtime/program_side.hpp).
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
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bankcheck/device/instrumentation.hpp"
#include "bankcheck/device/pc_report.hpp"
#include "bankcheck/device/records.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/model/arch.hpp"
#include "bankcheck/runtime/launch_ledger.hpp"
#include "bankcheck/runtime/nvtx_ranges.hpp"
#include "bankcheck/runtime/program_side.hpp"
#include "bankcheck/runtime/run_job.hpp"
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
  CUstream stream;
};
struct LaunchKernelExParams {
  const CUlaunchConfig* config;
  CUfunction f;
};

using CuDeviceGetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);
using CuStreamIsCapturing = CUresult (*)(CUstream, CUstreamCaptureStatus*);
using CuGetErrorName = CUresult (*)(CUresult, const char**);
using CuMemGetInfo = CUresult (*)(std::size_t*, std::size_t*);

// An entry point of the CUDA driver the program loaded (null where there is none: the tests'
// fake sanitizer runs without one).
template <class Fn>
Fn driver_entry(const char* name) {
  void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  return cuda ? reinterpret_cast<Fn>(::dlsym(cuda, name)) : nullptr;
}

// A module the program loaded: its cubin as the callback handed it over, read on first use.
struct LoadedModule {
  CUcontext context = nullptr;
  std::uint64_t image = 0;  // a hash of its cubin: the same image loaded again has the same
  std::vector<std::uint8_t> cubin;
  std::shared_ptr<const sass::Module> sass;
  std::string unreadable;  // why the cubin could not be read
  bool read = false;
  std::vector<std::string> names;  // its kernels' mangled names, sorted (when asked for)
  bool named = false;
};

// One kernel of one module in one context, over the program's launches (its launches,
// selection and completeness are the ledger's).
struct KernelState {
  std::size_t module = 0;
  CUmodule handle = nullptr;
  std::string mangled;
  const sass::Kernel* kernel = nullptr;  // in the module's sass (null: not found)
  runtime::LaunchLedger::Kernel ledger = 0;
  std::string unusable;  // why its launches cannot be counted (set once, then every time said)
  KernelTable* table = nullptr;  // its counters on the GPU, from its first analysed launch
  std::uint64_t ctas = 0;        // of its analysed launches (every CTA of each is counted)
  // Its analysed launches given the table and not yet counted or lost (the ledger's numbers).
  std::vector<std::uint64_t> pending;
};

// A launch as its launch call gives it, for the launch callback that follows on this thread.
struct LaunchCall {
  bool valid = false;
  CUfunction function = nullptr;
  model::Dim3 grid{}, block{};
  std::uint64_t smem = 0;
  // Decided at the call, for a kernel launched before: the ledger's decision for `kernel`.
  KernelState* kernel = nullptr;
  runtime::LaunchLedger::Decision decision;
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
    device_ = std::make_unique<SanitizerDevice>(api_, patches_file());
    make_instrumentation();
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

  // At the program's exit: the tables read a last time and every analysed launch counted or
  // lost; then the process's last part of the job, or without a job the report. Once: from
  // the first of the tool's exit handlers to run (register_exit_handler()). From then on the
  // callbacks of the program's other threads, which may still be launching, return at once:
  // nothing they would count could be in the report, and what they would use may be going.
  void finish() {
    if (finished_.exchange(true)) return;
    // Said before the lock is waited for: a callback that comes now does not wait for it.
    closing_ = true;
    {
      Lock lock(mutex_);
      // The analysed launches other threads began (under the lock: no more begin now) reach the
      // driver's queue before the last waits and reads; their launch's end says so (it needs
      // no lock). A second at most.
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      while (launching_.load() > (launching_here_ ? 1 : 0) &&
             std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      // Decided at their launch calls, begun only once the tool had stopped: not counted.
      for (const std::uint64_t id : called_) {
        const std::string why = "it was launched as the program ended, after bankcheck stopped";
        ledger_.lost(id, why);
        side_.lost(id, why);
      }
      called_.clear();
      if (instrumentation_) {
        instrumentation_->finish();
        settle_all(true);
        const InstrumentationStats& s = instrumentation_->stats();
        trace_(fmt::format(
            "stats: {} patches ({:.3f} s), {} unpatches ({:.3f} s), {} waits ({:.3f} s), {} reads "
            "({:.3f} s), {} launches, {} made right only as they began",
            s.patches, s.patch_s, s.unpatches, s.unpatch_s, s.waits, s.wait_s, s.reads, s.read_s,
            ledger_.launches(), late_));
      }
    }
    if (side_.in_job()) {
      side_.exited();
      return;
    }
    Lock lock(mutex_);
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
  void make_instrumentation() {
    instrumentation_ = std::make_unique<Instrumentation>(
        *device_, Instrumentation::Options{},
        trace_
            ? std::function<void(const std::string&)>([this](const std::string& s) { trace_(s); })
            : std::function<void(const std::string&)>());
  }

  // The reports so far: one per module with an analysed kernel, in the order of their first
  // analysed launches (the ledger's); analysed launches not read back are each kernel's
  // `incomplete`, with `pending` as their reason. The caller holds mutex_.
  std::vector<analysis::CheckReport> reports(const std::string& pending, std::uint64_t* unplaced) {
    const model::Arch& arch = arch_ ? *arch_ : model::kDefaultArch;
    std::uint64_t overflowed = 0;
    for (const auto& [f, k] : kernels_)
      if (k.table) overflowed += k.table->overflowed;
    for (const KernelState& k : retired_)
      if (k.table) overflowed += k.table->overflowed;
    if (overflowed && !said_overflow_) {
      said_overflow_ = true;
      fail(
          fmt::format("{} requests found no free counter (a kernel with more memory "
                      "instructions than its table holds); their counts are missing",
                      overflowed));
    }
    std::vector<analysis::CheckReport> out;
    for (const auto& group : ledger_.report_order()) {
      const std::size_t m = by_ledger_.at(group.front()).front()->module;
      const sass::Module* sm = modules_[m].sass.get();
      if (!sm) continue;
      analysis::CheckReport r;
      r.arch = &arch;
      r.level = analysis::CountLevel::Sass;
      r.files = sm->source_files;
      std::map<int, std::uint64_t> sites_in;
      for (const runtime::LaunchLedger::Kernel lk : group) {
        // The kernel's states over the loads of its module (a device reset loads it again):
        // their counts added up at the first one's addresses.
        const std::vector<KernelState*>& states = by_ledger_.at(lk);
        KernelState* k = states.front();
        KernelCounts counts;
        std::uint64_t ctas = 0;
        for (const KernelState* st : states) {
          ctas += st->ctas;
          if (!st->table) continue;
          KernelCounts c = st->table->counts;
          if (!counts.counters.empty() || !counts.mangled.empty()) {
            for (PcCounter& x : c.counters) x.pc = x.pc - c.base_pc + counts.base_pc;
            c.base_pc = counts.base_pc;
          }
          merge_counts(counts, c);
        }
        const runtime::LaunchLedger::Entry e = ledger_.entry(lk);
        analysis::KernelReport kr;
        if (k->kernel) {
          std::uint64_t lost = 0;
          kr = kernel_report(*sm, *k->kernel, counts, arch, &lost);
          if (unplaced) *unplaced += lost;
        }
        kr.mangled = k->mangled;
        kr.signature = driver::demangle(k->mangled);
        kr.name = driver::base_name(kr.signature);
        kr.launches = e.configurations;
        kr.incomplete = ledger_.incomplete(lk, pending);
        kr.ctas_total = kr.ctas_analysed = ctas;
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
        std::ifstream src(r.files[main_file], std::ios::binary);
        std::stringstream text;
        text << src.rdbuf();
        r.source_lines = analysis::split_source_lines(text.str());
      }
      out.push_back(std::move(r));
    }
    return out;
  }

  // The process's part of the job (ProgramSide's snapshot): the counts as last read back.
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
    kernel_keys_.clear();
    kernels_.clear();
    retired_.clear();
    alias_.clear();
    pending_kernels_.clear();
    failures_.clear();
    called_.clear();
    launching_ = 0;
    launching_here_ = false;
    if (device_) make_instrumentation();
  }

  // The analysed launches a read covered, counted when the read saw them whole; `final` (their
  // module unloaded, the program ending): the others lost, with the reason.
  void settle(KernelState& k, bool final) {
    if (k.pending.empty() || !k.table) return;
    if (k.table->complete()) {
      for (const std::uint64_t id : k.pending) {
        ledger_.counted(id);
        side_.counted(id);
      }
    } else if (final) {
      const std::string why = k.table->incomplete_reason();
      for (const std::uint64_t id : k.pending) {
        ledger_.lost(id, why);
        side_.lost(id, why);
      }
      if (root_)
        std::fprintf(stderr, "bankcheck: the counts of %s are incomplete: %s\n",
                     driver::base_name(driver::demangle(k.mangled)).c_str(), why.c_str());
    } else {
      return;
    }
    k.pending.clear();
    pending_kernels_.erase(&k);
  }
  void settle_all(bool final) {
    for (KernelState* k :
         std::vector<KernelState*>(pending_kernels_.begin(), pending_kernels_.end()))
      settle(*k, final);
  }

  static void callback(void* self, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                       const void* data) {
    auto* t = static_cast<Tool*>(self);
    // This thread's analysed launch is in the driver's queue once its launch ends, its launch
    // call returns or its next launch begins, whichever comes first (finish() waits for that).
    if (launching_here_ &&
        ((domain == SANITIZER_CB_DOMAIN_LAUNCH &&
          (cbid == SANITIZER_CBID_LAUNCH_END || cbid == SANITIZER_CBID_LAUNCH_BEGIN)) ||
         (domain == SANITIZER_CB_DOMAIN_DRIVER_API &&
          static_cast<const Sanitizer_CallbackData*>(data)->callbackSite == SANITIZER_API_EXIT))) {
      launching_here_ = false;
      t->launching_.fetch_sub(1);
    }
    if (Lock::held() || t->closing_) return;
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
    if (d.callbackSite == SANITIZER_API_EXIT && in_call_here_) {
      in_call_here_ = false;
      in_launch_calls_.fetch_sub(1);
    }
    if (d.callbackSite == SANITIZER_API_EXIT) {
      const CUresult result = d.functionReturnValue
                                  ? *static_cast<const CUresult*>(d.functionReturnValue)
                                  : CUDA_SUCCESS;
      if (begun_.kernel && result != CUDA_SUCCESS) refused(result);
      begun_ = {};
      if (call_.kernel && call_.decision.analyse) {
        // Decided at the call, never begun: the call was refused.
        Lock lock(mutex_);
        if (closing_) return;
        called_.erase(call_.decision.id);
        const std::string why = "its launch call returned an error: it did not run";
        ledger_.lost(call_.decision.id, why);
        side_.lost(call_.decision.id, why);
      }
      call_ = {};  // a call that launched nothing leaves nothing for the next one
      return;
    }
    if (!d.functionParams) return;
    LaunchCall c;
    CUstream stream = nullptr;
    switch (cbid) {
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernel:
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz:
      case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel:
      case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz: {
        const auto* p = static_cast<const LaunchKernelParams*>(d.functionParams);
        c.function = p->f;
        c.grid = {p->grid_x, p->grid_y, p->grid_z};
        c.block = {p->block_x, p->block_y, p->block_z};
        c.smem = p->shared_bytes;
        stream = p->stream;
        break;
      }
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx:
      case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz: {
        const auto* p = static_cast<const LaunchKernelExParams*>(d.functionParams);
        if (!p->config) return;
        const CUlaunchConfig& g = *p->config;
        c.function = p->f;
        c.grid = {g.gridDimX, g.gridDimY, g.gridDimZ};
        c.block = {g.blockDimX, g.blockDimY, g.blockDimZ};
        c.smem = g.sharedMemBytes;
        stream = g.hStream;
        break;
      }
      default:
        return;
    }
    // Into a stream being captured: no launch, only a graph's node, which launches (and is
    // decided, patched and counted) when the graph does. Nothing may touch the device now:
    // a copy, a synchronization or a module's patching would end the capture
    // (cudaErrorStreamCaptureInvalidated at the program's next call: NVIDIA's graphMemoryNodes).
    if (captured(stream)) return;
    c.valid = true;
    call_ = c;
    in_call_here_ = true;
    in_launch_calls_.fetch_add(1);
    Lock lock(mutex_);
    if (closing_) return;
    if (side_.forked_child()) forget_parent();
    if (!active_) return;
    CUfunction f = c.function;
    if (const auto a = alias_.find(f); a != alias_.end()) f = a->second;
    const auto it = kernels_.find(f);
    if (it == kernels_.end()) {
      // The kernel's first launch, analysed if it is selected: its module, found by the
      // kernel's name, is patched now if it is not (it was unpatched for another kernel).
      if (d.symbolName && selected_name(d.symbolName) && instrumentation_->any_unpatched())
        for (const auto& [h, i] : module_index_)
          if (!instrumentation_->patched(h) && module_has(i, d.symbolName))
            if (std::string e = instrumentation_->prepare(h, true, false); !e.empty()) once(e);
      return;
    }
    // A kernel launched before: the ledger decides now, the launch callback takes the decision.
    KernelState& k = it->second;
    call_.kernel = &k;
    call_.decision = ledger_.launch(k.ledger, {c.grid, c.block, c.smem});
    if (call_.decision.analyse) {
      side_.began(call_.decision.id, k.mangled);
      called_.insert(call_.decision.id);
    }
    const bool analyse = call_.decision.analyse && k.unusable.empty();
    if (!analyse && keep_patched()) return;
    // Not unpatched while another thread is inside a launch call: that thread may hold the
    // driver's locks on the module and wait for this lock in its launch's callback, while the
    // unpatching waits for those locks (NVIDIA's simpleCallback, eight threads launching one
    // kernel, hung). It stays patched, and its launches that are not analysed run the patches
    // with no table until a launch call finds no other.
    const bool alone = in_launch_calls_.load() <= 1;
    if (std::string e = instrumentation_->prepare(k.handle, analyse, !alone); !e.empty()) once(e);
  }

  // This thread's analysed launch began, and its launch call then returned an error: it did
  // not run (the driver refuses a launch before it begins on the GPU: too many resources, say).
  // Lost with the driver's error, its threads taken off its table's, so that the kernel's
  // other launches are still judged whole.
  void refused(CUresult result) {
    Lock lock(mutex_);
    if (closing_) return;
    KernelState& k = *begun_.kernel;
    const auto at = std::find(k.pending.begin(), k.pending.end(), begun_.id);
    if (at == k.pending.end() || !k.table) return;
    k.pending.erase(at);
    k.ctas -= begun_.ctas;
    instrumentation_->abandon(*k.table, begun_.threads);
    const std::string error =
        fmt::format("error {}{}", static_cast<int>(result), driver_error_name(result));
    const std::string why = fmt::format("its launch call returned {}: it did not run", error);
    trace_(fmt::format("launch {} {}{}", begun_.id, why, free_memory()));
    ledger_.lost(begun_.id, why);
    side_.lost(begun_.id, why);
    // The program got the error too: said, once a kernel, since a patched kernel needs more of
    // the GPU (its threads' stacks) than the program's own.
    if (k.unusable.empty() && said_refused_.insert(k.mangled).second)
      fail(
          fmt::format("the GPU refused a launch of {} as bankcheck instrumented it: {}; that "
                      "launch did not run, and the program got the error",
                      driver::demangle(k.mangled), error));
  }

  // ", GPU memory free N of M MiB" as the driver has it now (for the trace), or "".
  static std::string free_memory() {
    const auto info = driver_entry<CuMemGetInfo>("cuMemGetInfo_v2");
    std::size_t free = 0, total = 0;
    if (!info || info(&free, &total) != CUDA_SUCCESS) return "";
    return fmt::format(", GPU memory free {} of {} MiB", free >> 20, total >> 20);
  }

  // " (CUDA_ERROR_...)", as the driver names the error, or "" where it cannot be asked.
  static std::string driver_error_name(CUresult r) {
    const auto name = driver_entry<CuGetErrorName>("cuGetErrorName");
    const char* s = nullptr;
    return name && name(r, &s) == CUDA_SUCCESS && s ? fmt::format(" ({})", s) : "";
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
        if (closing_) return;
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
    if (closing_ || !instrumentation_) return;
    if (cbid == SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED) {
      trace_(fmt::format("stream synchronized {}", static_cast<const void*>(d.hStream)));
      instrumentation_->stream_synchronized(d.context, d.hStream);
    } else if (cbid == SANITIZER_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED) {
      trace_(fmt::format("context synchronized {}", static_cast<const void*>(d.context)));
      instrumentation_->context_synchronized(d.context);
    }
    settle_all(false);
  }

  // A module: its cubin kept, and patched for the first launches of its kernels.
  void module_loaded(const Sanitizer_ResourceModuleData& d) {
    Lock lock(mutex_);
    if (closing_ || !active_) return;
    register_exit_handler();
    LoadedModule m;
    m.context = d.context;
    if (d.pCubin && d.cubinSize)
      m.cubin.assign(reinterpret_cast<const std::uint8_t*>(d.pCubin),
                     reinterpret_cast<const std::uint8_t*>(d.pCubin) + d.cubinSize);
    m.image = 14695981039346656037ull;  // FNV-1a
    for (const std::uint8_t b : m.cubin) m.image = (m.image ^ b) * 1099511628211ull;
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
    if (closing_) return;
    trace_(fmt::format("module unloading {}", static_cast<const void*>(d.module)));
    if (instrumentation_) {
      instrumentation_->module_unloading(d.module);
      device_->forget(d.module);
    }
    retire(d.module);
  }

  void context_destroying(CUcontext context) {
    Lock lock(mutex_);
    if (closing_) return;
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

  // The module's kernels: their analysed launches counted or lost (their tables were read a
  // last time), their entries kept for the report, their handles free for a later module.
  void retire(CUmodule module) {
    const auto mod = module_index_.find(module);
    if (mod == module_index_.end()) return;
    for (auto& [f, k] : kernels_)
      if (k.module == mod->second) settle(k, true);
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
        for (KernelState*& st : by_ledger_[retired_.back().ledger])
          if (st == &it->second) st = &retired_.back();
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
    const auto attr = driver_entry<CuDeviceGetAttribute>("cuDeviceGetAttribute");
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

  // Whether the stream is being captured into a graph, as the driver says; nullopt when it
  // cannot say, and false without a driver to ask (the tests' fake sanitizer).
  std::optional<bool> capture_status(CUstream stream) {
    if (!is_capturing_) {
      is_capturing_ = driver_entry<CuStreamIsCapturing>("cuStreamIsCapturing");
      if (!is_capturing_) return false;
    }
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (is_capturing_(stream, &status) != CUDA_SUCCESS) return std::nullopt;
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
  }
  // Being captured, or cannot be asked: nothing is copied then, which could end the capture.
  // Asked of the driver only where a read is due.
  bool capturing(CUstream stream) { return capture_status(stream).value_or(true); }
  // Being captured as far as the driver says (a launch it cannot say of is handled as one).
  bool captured(CUstream stream) { return capture_status(stream).value_or(false); }

  // Whether the function is loaded yet, as the sanitizer says (for the trace).
  std::string loaded_status(CUfunction f) const {
    Sanitizer_FunctionLoadedStatus st = SANITIZER_FUNCTION_NOT_LOADED;
    if (!api_.function_loaded || api_.function_loaded(f, &st) != SANITIZER_SUCCESS)
      return "of unknown loading";
    return st == SANITIZER_FUNCTION_LOADED             ? "loaded"
           : st == SANITIZER_FUNCTION_PARTIALLY_LOADED ? "partially loaded"
                                                       : "NOT loaded";
  }

  // Whether --kernel selects a kernel of this name (the ledger's filters, before the kernel is
  // known to it: its first launch's call).
  bool selected_name(const std::string& mangled) const {
    if (options_.selection.kernels.empty()) return true;
    for (const auto& w : options_.selection.kernels) {
      try {
        if (runtime::parse_kernel_filter(w).matches(mangled, options_.selection.name_base))
          return true;
      } catch (const std::invalid_argument&) {
      }
    }
    return false;
  }

  // Every launch analysed (--launches all, or the global filter with no count): every module
  // stays patched (a launch the filters leave out runs the patches with no table) so that no
  // launch waits for another.
  bool keep_patched() const {
    const runtime::LaunchSelection& s = options_.selection;
    return s.per_configuration() == 0 && s.in_all() == 0;
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
    // Shards (records.hpp): BANKCHECK_GPU_SHARDS (a power of two, 1 to 256), else 32; fewer
    // where a kernel's table would pass 16 MiB.
    s.shards = 32;
    if (const char* e = std::getenv("BANKCHECK_GPU_SHARDS"); e && *e) {
      const unsigned long n = std::strtoul(e, nullptr, 10);
      if (n >= 1 && n <= 256 && (n & (n - 1)) == 0) s.shards = static_cast<unsigned>(n);
    }
    // BANKCHECK_GPU_PROBE (records.hpp): 1 to 3 measure the patches' own cost, nothing
    // counted (every kernel is then reported incomplete); 4 counts global requests without
    // their fast path.
    if (const char* e = std::getenv("BANKCHECK_GPU_PROBE"); e && *e)
      s.probe = static_cast<unsigned>(std::strtoul(e, nullptr, 10)) % 5;
    while (s.shards > 1 && std::size_t{s.capacity} * sizeof(PcCounter) * s.shards > (16u << 20))
      s.shards /= 2;
    s.forms = instruction_forms(*k.kernel);
    s.arch = arch_ ? *arch_ : model::kDefaultArch;
    return s;
  }

  void launch_begin(const Sanitizer_LaunchData& d, bool graph_node) {
    LaunchCall call = graph_node ? LaunchCall{} : call_;
    if (!graph_node) call_ = {};
    if (!graph_node && captured(d.stream)) {  // a graph's node to be (launch_call)
      if (trace_.launches()) trace_("launch into a stream being captured: left to the graph");
      return;
    }
    const std::uint64_t smem = call.smem;
    Lock lock(mutex_);
    if (closing_) return;
    if (side_.forked_child()) {
      forget_parent();
      call.kernel = nullptr;
    }
    if (call.kernel && call.decision.analyse) called_.erase(call.decision.id);
    auto say = [&](const char* what, std::uint64_t number) {
      trace_(fmt::format("{} {} {}{} module {} stream {} grid {}x{}x{} block {}x{}x{}", what,
                         number, d.functionName ? d.functionName : "?",
                         graph_node ? " (graph node)" : "", static_cast<const void*>(d.module),
                         static_cast<const void*>(d.hStream), d.gridDim_x, d.gridDim_y, d.gridDim_z,
                         d.blockDim_x, d.blockDim_y, d.blockDim_z));
    };
    // A decision of the launch call that this launch does not take: that launch did not run.
    auto drop_call = [&](const char* why) {
      if (call.kernel && call.decision.analyse) {
        ledger_.lost(call.decision.id, why);
        side_.lost(call.decision.id, why);
      }
    };
    if (!active_) {
      if (!call.kernel) ledger_.launch_unknown();
      return;
    }
    // The analysed launches made before are read back now that the program goes on (a fault of
    // this launch or a later one would lose them); with every launch analysed, at most once an
    // interval, so that no launch waits for the one before. Not inside a graph's launch, and
    // not at a launch call, which a stream being captured makes too (no launch begins then).
    if (!graph_node && instrumentation_->unread() && !capturing(d.stream) &&
        instrumentation_->read_launched(keep_patched() ? Instrumentation::Options{}.read_interval_s
                                                       : 0.0))
      settle_all(false);
    const Launch l = launch_of(d, graph_node);
    const auto mod = module_index_.find(d.module);
    if (mod == module_index_.end() || !know_arch(d.device)) {
      drop_call("its module is not one bankcheck can read");
      const std::uint64_t number = ledger_.launch_unknown();
      if (trace_.launches()) say("launch (unknown)", number);
      if (!keep_patched()) instrumentation_->prepare(d.module, false, /*no_wait=*/true);
      instrumentation_->begin_unanalysed(l);
      return;
    }
    auto [it, fresh] = kernels_.try_emplace(d.function);
    KernelState& k = it->second;
    if (fresh) {
      register_exit_handler();
      k.module = mod->second;
      k.handle = d.module;
      k.mangled = l.mangled;
      // The ledger's kernel is the module image's kernel of this name: loaded again (after a
      // device reset, say), it is the same kernel, as for the emulator.
      std::unique_ptr<char>& key = kernel_keys_[{modules_[k.module].image, k.mangled}];
      if (!key) key = std::make_unique<char>();
      k.ledger = ledger_.kernel(key.get(), k.mangled, k.module);
      by_ledger_[k.ledger].push_back(&k);
      if (const sass::Module* sm = module_sass(k.module)) k.kernel = sm->find(k.mangled);
      if (!k.kernel)
        k.unusable = fmt::format(
            "the cubin of {} could not be read{}", driver::demangle(k.mangled),
            modules_[k.module].unreadable.empty() ? "" : ": " + modules_[k.module].unreadable);
      if (!k.kernel && ledger_.selected(k.ledger)) fail(k.unusable);
    }
    // The launch call's handle (a CUkernel where the runtime launches through one) names it.
    if (call.valid && call.function != d.function) alias_[call.function] = d.function;
    // Its configuration, as the emulator backend counts them; whether it is analysed (decided
    // at the launch call for a kernel launched before).
    const model::Dim3 grid{d.gridDim_x, d.gridDim_y, d.gridDim_z};
    const model::Dim3 block{d.blockDim_x, d.blockDim_y, d.blockDim_z};
    runtime::LaunchLedger::Decision dec;
    if (call.kernel == &k) {
      dec = call.decision;
    } else {
      drop_call("the launch began as another kernel");
      dec = ledger_.launch(k.ledger, {grid, block, smem});
      if (dec.analyse) side_.began(dec.id, k.mangled);
    }
    if (trace_.launches()) say("launch", dec.id);
    const bool analyse = dec.analyse && k.unusable.empty();
    // The module's code should be right already (made so at the launch call); a change now may
    // come too late for this launch, which the exits counted show.
    if (instrumentation_->patched(d.module) != analyse && (analyse || !keep_patched())) {
      ++late_;
      if (trace_)
        say(analyse ? "patched only at launch begin:" : "unpatched only at launch begin:", dec.id);
    }
    // Inside the launch's own callback the driver holds its locks: the module is not unpatched
    // here (that waits for the launches still running on other streams, and waiting here
    // deadlocked NVIDIA's simpleCallback, whose threads launch one kernel on streams of their
    // own); the next launch call unpatches it.
    if (!analyse) {
      if (dec.analyse) {  // chosen, but it cannot be counted
        ledger_.lost(dec.id, k.unusable);
        side_.lost(dec.id, k.unusable);
      }
      if (std::string e =
              keep_patched() ? "" : instrumentation_->prepare(d.module, false, /*no_wait=*/true);
          !e.empty())
        once(e + "; launches of it that are not analysed run bankcheck's patches with no table");
      instrumentation_->begin_unanalysed(l);
      return;
    }
    std::string error;
    KernelTable* table = instrumentation_->begin(
        l, [&] { return setup_of(k); }, error);
    if (!table) {
      k.unusable = fmt::format("{} is not analysed: {}", driver::demangle(k.mangled), error);
      fail(k.unusable);
      ledger_.lost(dec.id, k.unusable);
      side_.lost(dec.id, k.unusable);
      instrumentation_->begin_unanalysed(l);
      return;
    }
    if (trace_.launches() || (trace_ && !k.table)) {
      say("analysed launch", dec.id);
      trace_(fmt::format("  its function {}, module {}", loaded_status(d.function),
                         instrumentation_->patched(d.module) ? "patched" : "NOT patched"));
    }
    k.table = table;
    k.ctas += grid.count();
    k.pending.push_back(dec.id);
    pending_kernels_.insert(&k);
    if (!graph_node) begun_ = {&k, dec.id, l.threads, grid.count()};
    if (!graph_node && !launching_here_) {
      launching_here_ = true;
      launching_.fetch_add(1);
    }
  }

  // The tool's exit handler registered again (at each module and each kernel first seen, a
  // bounded number of times): exit handlers run in the reverse order of their registering, so
  // the last registered runs before those the CUDA runtime and the program registered when
  // they began using CUDA (the runtime's unloads the modules, and may tear the context down)
  // and before the objects first made after it are destroyed. The tables are read while all
  // of that is still in place.
  static void register_exit_handler();

  std::string error_;  // a problem with the options, said once made
  runtime::RunOptions options_;
  runtime::LaunchLedger ledger_;
  runtime::ProgramSide side_;
  SanitizerApi api_;
  std::unique_ptr<SanitizerDevice> device_;
  std::unique_ptr<Instrumentation> instrumentation_;
  Trace trace_;
  // The kernel's states, one per load of its module, the first first.
  std::map<runtime::LaunchLedger::Kernel, std::vector<KernelState*>> by_ledger_;
  // The ledger's key of a kernel: (its module's image, its mangled name).
  std::map<std::pair<std::uint64_t, std::string>, std::unique_ptr<char>> kernel_keys_;
  std::set<KernelState*> pending_kernels_;  // with analysed launches neither counted nor lost
  std::set<std::size_t> said_no_lines_;     // modules named for their missing line information
  bool said_overflow_ = false;
  std::vector<std::string> failures_;
  std::set<std::string> said_;
  bool active_ = false;
  bool root_ = true;
  const model::Arch* arch_ = nullptr;
  CuStreamIsCapturing is_capturing_ = nullptr;
  std::mutex mutex_;
  std::vector<LoadedModule> modules_;
  std::map<CUmodule, std::size_t> module_index_;
  std::map<CUfunction, KernelState> kernels_;
  std::map<CUfunction, CUfunction> alias_;  // a launch call's handle -> the launch's function
  std::deque<KernelState> retired_;
  std::uint64_t late_ = 0;  // launches whose module was patched or unpatched only as they began
  // Analysed launches begun (their table given) whose launch's end has not come, over all
  // threads; whether this thread has one.
  std::atomic<int> launching_{0};
  // Threads between a launch call's entry and its return (in_call_here_: this one).
  std::atomic<int> in_launch_calls_{0};
  static thread_local bool in_call_here_;
  std::set<std::string> said_refused_;  // kernels whose refused launch was said
  static thread_local bool launching_here_;
  // This thread's analysed launch that began in its launch call, until the call returns.
  struct Begun {
    KernelState* kernel = nullptr;
    std::uint64_t id = 0, threads = 0, ctas = 0;
  };
  static thread_local Begun begun_;
  // Analysed launches decided at their launch calls whose launch callbacks have not come.
  std::set<std::uint64_t> called_;
  std::atomic<bool> closing_{false};   // finish() has begun: callbacks return at once
  std::atomic<bool> finished_{false};  // finish() was called
};

thread_local LaunchCall Tool::call_;
thread_local bool Tool::launching_here_ = false;
thread_local bool Tool::in_call_here_ = false;
thread_local Tool::Begun Tool::begun_;

// Never destroyed: the report is written at exit, after the program's own static objects.
Tool* the_tool = nullptr;

void at_exit() {
  if (the_tool) the_tool->finish();
}

void Tool::register_exit_handler() { std::atexit(at_exit); }

// Registered at load too: the handler that runs when no CUDA work registered a later one.
__attribute__((constructor)) void start() {
  the_tool = new Tool;
  std::atexit(at_exit);
}

}  // namespace
}  // namespace bankcheck::device
