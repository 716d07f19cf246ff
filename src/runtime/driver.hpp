// The state behind bankcheck's CUDA driver (libcuda.so.1): the device, the executor, the
// sticky error, and the tables of what the program and its libraries created (contexts,
// modules and libraries, functions, allocations, streams, events, graphs). One instance per
// process, never destroyed (the program and its CUDA runtime call the API from their own exit
// handlers and static destructors).
//
// Every exported function runs its body through call() (or query()), which serialises the API
// under one lock, turns exceptions into errors, checks that cuInit ran, and keeps the sticky
// error of a faulted context.
#pragma once

// The toolkit's own declarations, every form of every function by its exported name
// (cuMemAlloc and cuMemAlloc_v2, cuMemcpy and cuMemcpy_ptds), as the driver itself is built.
#ifndef __CUDA_API_VERSION_INTERNAL
#define __CUDA_API_VERSION_INTERNAL 1
#endif
#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/runtime/device.hpp"
#include "bankcheck/runtime/executor.hpp"

// Exported functions: the version script decides what leaves the library; this makes the
// intent visible where each is defined.
#define BANKCHECK_API extern "C" __attribute__((visibility("default")))

// Another exported name for the same function: the per-thread-default-stream forms
// (cuMemcpy_ptds, cuLaunchKernel_ptsz: every stream runs in order on the calling thread, so
// they are the legacy ones) and older forms with the same signature. Place after `base`.
// GCC's copy attribute gives the alias the attributes the compiler found for `base` (nothrow),
// which it otherwise warns about (-Wmissing-attributes).
#if defined(__GNUC__) && !defined(__clang__)
#define BANKCHECK_ALIAS(base, name) \
  BANKCHECK_API decltype(base) name __attribute__((alias(#base), copy(base)));
#else
#define BANKCHECK_ALIAS(base, name) BANKCHECK_API decltype(base) name __attribute__((alias(#base)));
#endif

namespace bankcheck::runtime {

// Two results the driver gives that cuda.h does not name. The CUDA runtime passes a launch and
// a 2D copy straight to the driver and returns the driver's code unchanged (cudaError_t and
// CUresult share their values: checked here by answering each code and reading what
// cudaGetLastError reports), yet on a GPU a block of 1025 threads is
// cudaErrorInvalidConfiguration (9) and a row wider than its pitch cudaErrorInvalidPitchValue
// (12): the driver answers with those values.
inline constexpr CUresult kInvalidConfiguration = static_cast<CUresult>(9);
inline constexpr CUresult kInvalidPitch = static_cast<CUresult>(12);

// The JIT options a program passes (cuModuleLoadDataEx, cuLinkCreate, ...) answered: no JIT
// compilation happens (PTX is emulated as it is), so the logs are empty and the wall time zero.
void answer_jit_options(unsigned count, const CUjit_option* options, void** values);

// Prints "bankcheck: " + sentence on standard error (never standard output).
void diagnose(std::string_view sentence);
// The same, once per key for the life of the process.
void diagnose_once(std::string_view key, std::string_view sentence);

// The file (its name, without the directory) whose code holds `address`: the program's
// executable or a shared library; empty when none does.
struct CodeOwner {
  std::string name;      // "libcublasLt.so.13", "app"
  bool library = false;  // a shared library rather than the executable
};
CodeOwner owner_of(const void* address);

// What the CUDA runtime keeps per context through the context-local-storage export table.
struct LocalStorage {
  void* value = nullptr;
  void (*destroy)(CUcontext, void*, void*) = nullptr;  // called when the context goes away
};

struct Context {
  CUdevice device = 0;
  unsigned flags = 0;
  bool primary = false;
  unsigned long long id = 0;
  std::map<void*, LocalStorage> local_storage;  // by the runtime's key
};

struct Function;

// A loaded module; a library (cuLibraryLoadData) is one module seen through CUlibrary and
// CUkernel handles.
struct Module {
  ModuleId id = 0;
  std::string origin;  // who loaded it (ModuleImage::origin)
  bool library = false;
  std::map<std::string, std::unique_ptr<Function>, std::less<>> functions;  // asked for so far
  std::vector<char> copy;  // the image, when the program may free its own
};

// A function of a module: CUfunction and CUkernel are both this object (the CUDA API allows a
// CUkernel wherever a CUfunction goes).
struct Function {
  Module* module = nullptr;
  std::string name;  // mangled
  FunctionInfo info;
  // Set with cuFuncSetAttribute / cuKernelSetAttribute; -1: the default.
  int max_dynamic_shared = -1;
  int carveout = -1;
  int required_cluster[3] = {0, 0, 0};
  bool non_portable_cluster = false;
  int cluster_scheduling = 0;
  CUfunc_cache cache = CU_FUNC_CACHE_PREFER_NONE;
};

enum class AllocationKind : std::uint8_t { Device, Managed, PinnedHost, RegisteredHost, Symbol };

struct Allocation {
  std::size_t bytes = 0;
  AllocationKind kind = AllocationKind::Device;
  unsigned flags = 0;           // cuMemHostAlloc / cuMemHostRegister / cuMemAllocManaged flags
  bool mapped = false;          // released with munmap (large), else free()
  bool owned = true;            // false for registered program memory and variable storage
  CUmemoryPool pool = nullptr;  // the pool of a stream-ordered allocation
  // Made by a graph's allocation node: its address is the graph's for the program's life.
  // Freed (by the graph's free node, or outside the graph), its storage stays reserved
  // (Driver::graph_reserved) and the node's next run allocates it again at that address.
  bool graph = false;
  // A range of virtual memory management made accessible (cuMemSetAccess): its mappings own
  // the memory; cuMemFree refuses it.
  bool vmm = false;
};

// Virtual memory management (cu_vmm.cpp): a physical allocation (cuMemCreate) is a memory
// file, mapped into address ranges reserved with cuMemAddressReserve.
struct VmmPhysical {
  int fd = -1;
  std::size_t bytes = 0;
  CUmemAllocationProp prop{};
  unsigned handles = 1;   // cuMemCreate's and cuMemRetainAllocationHandle's, less cuMemRelease's
  unsigned mappings = 0;  // cuMemMap's, less cuMemUnmap's
};
struct VmmMapping {
  std::size_t bytes = 0;
  CUmemGenericAllocationHandle handle = 0;
};

// A CUDA array (cu_textures.cpp): texels row after row, slice after slice, in host memory
// that a texture object reading it shares (an array destroyed while a texture still reads it
// stays until the texture goes).
struct Array {
  CUDA_ARRAY3D_DESCRIPTOR desc{};
  std::size_t texel = 0;  // bytes of one texel
  std::size_t pitch = 0;  // bytes of one row
  std::size_t rows = 1, slices = 1;
  std::shared_ptr<std::uint8_t[]> data;
  std::size_t bytes() const { return pitch * rows * slices; }
};
// A texture object: its descriptions as given, and what keeps an array's storage alive.
struct TexObject {
  CUDA_RESOURCE_DESC res{};
  CUDA_TEXTURE_DESC tex{};
  std::shared_ptr<std::uint8_t[]> array_data;
  bool live = true;  // false once the memory it reads was freed: the executor forgot it
};

struct Capture;  // graphs.hpp

struct Stream {
  std::uint64_t number = 0;  // 1, 2, ...: the executor's stream id
  unsigned flags = 0;
  int priority = 0;
  Context* context = nullptr;
  Capture* capture = nullptr;  // while the stream is being captured into a graph
};

struct Node;

struct Event {
  unsigned flags = 0;
  bool recorded = false;
  std::chrono::steady_clock::time_point when;
  // Recorded on a stream being captured: the capture and the nodes the record followed, which
  // a stream that waits for the event joins (fork and join across streams).
  Capture* capture = nullptr;
  std::vector<Node*> captured;
};

struct MemoryPool {
  std::size_t release_threshold = 0;
  std::size_t reserved_high = 0, used_high = 0;
};

struct Graph;
struct GraphExec;

class Driver {
 public:
  static Driver& get();

  std::recursive_mutex mutex;
  const DeviceProfile device;
  bool initialized = false;  // cuInit ran

  // The error of a faulted context (CUDA_SUCCESS: none): every call that needs the device
  // returns it from then on.
  CUresult sticky = CUDA_SUCCESS;
  // A launch's fault the program has not synchronized with yet: later launches do not run,
  // and the next synchronizing call makes it sticky (at_synchronization).
  CUresult pending_fault = CUDA_SUCCESS;

  // Contexts: the primary one, and those made with cuCtxCreate.
  Context primary;
  unsigned primary_retained = 0;
  bool primary_active = false;
  unsigned primary_flags = 0;
  std::set<Context*> contexts;  // created ones
  unsigned long long next_context_id = 1;
  // The calling thread's stack of current contexts (the top is current).
  static std::vector<Context*>& context_stack();
  // The context a call acts in: the thread's current one, else the primary context when it
  // is active (the CUDA runtime retains it and makes it current for the program); null when
  // neither.
  Context* current();
  bool valid_context(CUcontext c) const;

  // Modules (and libraries: a CUlibrary is its Module).
  std::map<Module*, std::unique_ptr<Module>> modules;
  ModuleId next_module = 1;
  Module* module(const void* handle);      // null when not a live module
  Function* function(const void* handle);  // a CUfunction or CUkernel; null when not live
  std::set<Function*> functions;
  // The function `name` of `m`, looked up once (null: the module has none).
  Function* find_function(Module& m, std::string_view name);

  // Memory by start address.
  std::map<std::uintptr_t, Allocation> allocations;
  std::size_t device_bytes_in_use = 0;
  // Module variables handed out by cuModuleGetGlobal: their storage, listed as device memory.
  // The allocation holding [p, p + bytes); null when none does.
  const Allocation* allocation_of(const void* p, std::size_t bytes = 1,
                                  std::uintptr_t* start = nullptr) const;
  const Allocation* allocation_of(CUdeviceptr p, std::size_t bytes = 1,
                                  std::uintptr_t* start = nullptr) const {
    return allocation_of(reinterpret_cast<const void*>(p), bytes, start);
  }

  std::set<Stream*> streams;
  std::uint64_t next_stream_number = 1;
  bool valid_stream(CUstream s) const;
  // The stream a call names (null, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD: the default
  // stream, null here).
  Stream* stream(CUstream s) const;
  std::uint64_t stream_number(CUstream s) const;

  std::set<Event*> events;
  MemoryPool default_pool;
  std::set<MemoryPool*> pools;       // created ones
  MemoryPool* pool(CUmemoryPool p);  // the default pool for its handle too; null when unknown

  // JIT link states (cu_link.cpp), by handle.
  std::map<void*, std::shared_ptr<void>> links;

  // CUDA arrays by handle, texture objects by handle (cu_textures.cpp).
  std::map<Array*, std::unique_ptr<Array>> arrays;
  std::map<CUtexObject, TexObject> textures;
  CUtexObject next_texture = 1;
  std::map<CUsurfObject, TexObject> surfaces;  // their `tex` unused
  CUsurfObject next_surface = 1;
  Array* array(CUarray a) const {
    const auto it = arrays.find(reinterpret_cast<Array*>(a));
    return it == arrays.end() ? nullptr : it->second.get();
  }

  // Virtual memory management: reserved ranges (start -> bytes), physical allocations by
  // handle, mappings by start address.
  std::map<std::uintptr_t, std::size_t> vmm_reserved;
  std::map<CUmemGenericAllocationHandle, VmmPhysical> vmm_physical;
  std::map<std::uintptr_t, VmmMapping> vmm_mapped;
  CUmemGenericAllocationHandle next_vmm_handle = 1;

  // Graph memory freed since its allocation node last ran, by start address (Allocation::graph).
  std::map<std::uintptr_t, Allocation> graph_reserved;
  std::set<Graph*> graphs;
  std::set<GraphExec*> graph_execs;

  std::map<int, std::size_t> limits;  // CUlimit -> value, once set
  CUfunc_cache cache_config = CU_FUNC_CACHE_PREFER_NONE;

  // The executor, made on first use (and finish() registered with atexit); null after
  // finish(), when nothing may reach it any more.
  Executor* executor();
  bool has_executor() const { return executor_ != nullptr && !finished_; }
  bool finished() const { return finished_; }
  void finish();

 private:
  Driver();
  std::unique_ptr<Executor> executor_;
  bool finished_ = false;
};

// BANKCHECK_DRIVER_TRACE set: every API call's name and result goes to standard error, for
// finding what a CUDA runtime or library asks of the driver.
bool tracing();
// The kernels' device printf text so far to the program's standard output (a point where the
// GPU's driver prints its buffer: Executor::flush_device_output); nothing before a kernel ran.
void flush_device_output(Driver& d);
// At the start of a synchronizing call (cuCtxSynchronize, stream and event synchronization,
// blocking copies): the printf text as above, whatever the call then returns (after a fault
// too: the GPU's driver prints what the kernels printed before it); and a kernel's fault
// (Driver::pending_fault) becomes the sticky error this call returns.
void at_synchronization() noexcept;
// The fault alone, for the calls that see a finished kernel's state without printing
// (cuStreamQuery, cuEventQuery, cuMemFree): the sticky error, or CUDA_SUCCESS.
CUresult fault_seen(Driver& d);
void trace(const char* name, CUresult result);

// Runs an API call's body under the lock. `body` gets the Driver and returns a CUresult.
// With `sticky` (most calls), a sticky error is returned instead of running the body.
template <class Body>
CUresult call(Body&& body, bool sticky = true, const char* name = __builtin_FUNCTION()) noexcept {
  CUresult r = CUDA_SUCCESS;
  try {
    Driver& d = Driver::get();
    std::lock_guard<std::recursive_mutex> lock(d.mutex);
    if (!d.initialized)
      r = CUDA_ERROR_NOT_INITIALIZED;
    else if (sticky && d.sticky != CUDA_SUCCESS)
      r = d.sticky;
    else
      r = body(d);
  } catch (const std::bad_alloc&) {
    r = CUDA_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    r = CUDA_ERROR_UNKNOWN;
  }
  if (tracing()) trace(name, r);
  return r;
}

// For calls that answer from the device's description and work after a sticky error
// (device count, attributes, versions, error strings).
template <class Body>
CUresult query(Body&& body, const char* name = __builtin_FUNCTION()) noexcept {
  return call(std::forward<Body>(body), /*sticky=*/false, name);
}

// For calls that need a context: CUDA_ERROR_INVALID_CONTEXT when none is current.
template <class Body>
CUresult in_context(Body&& body, bool sticky = true,
                    const char* name = __builtin_FUNCTION()) noexcept {
  return call(
      [&](Driver& d) -> CUresult {
        Context* c = d.current();
        if (!c) return CUDA_ERROR_INVALID_CONTEXT;
        return body(d, *c);
      },
      sticky, name);
}

}  // namespace bankcheck::runtime
