// The state behind bankcheck's CUDA runtime: the device, the executor, the error state, and
// the tables of what the program registered and created (modules, kernels, variables,
// allocations, streams, events). One instance per process, never destroyed (the program
// may call the API from its own static destructors).
//
// Every exported function runs its body through call() (or query()), which serialises the
// API under one lock, turns exceptions into errors, and keeps the error state: the calling
// thread's last error and the process's sticky error.
#pragma once

#include <cuda_runtime_api.h>

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

// The per-thread-default-stream entry points (nvcc --default-stream per-thread calls
// cudaMemcpy_ptds, cudaLaunchKernel_ptsz, ...): the same function here, since every stream
// runs in order on the calling thread. Place after the definition of `base`.
// GCC's copy attribute gives the alias the attributes the compiler found for `base` (nothrow),
// which it otherwise warns about (-Wmissing-attributes).
#if defined(__GNUC__) && !defined(__clang__)
#define BANKCHECK_PER_THREAD(base, name) \
  BANKCHECK_API decltype(base) name __attribute__((alias(#base), copy(base)));
#else
#define BANKCHECK_PER_THREAD(base, name) \
  BANKCHECK_API decltype(base) name __attribute__((alias(#base)));
#endif

namespace bankcheck::runtime {

// Prints "bankcheck: " + sentence on standard error (never standard output).
void diagnose(std::string_view sentence);
// The same, once per key for the life of the process.
void diagnose_once(std::string_view key, std::string_view sentence);

struct Module {
  ModuleId id = 0;
  bool unregistered = false;
};

struct Kernel {
  ModuleId module = 0;
  const void* host = nullptr;
  std::string device_name;                       // mangled
  std::optional<FunctionAttributes> attributes;  // asked once, on first use
  // Set with cudaFuncSetAttribute; -1: the default.
  int max_dynamic_shared = -1;
  int carveout = -1;
  int required_cluster[3] = {0, 0, 0};
  bool non_portable_cluster = false;
};

struct Variable {
  ModuleId module = 0;
  const void* shadow = nullptr;  // the key: the host variable (managed: its pointer)
  std::string device_name;
  std::size_t bytes = 0;
  VariableKind kind = VariableKind::Global;
  std::uintptr_t storage = 0;  // where the executor keeps it, once asked (0: not yet)
};

enum class AllocationKind : std::uint8_t { Device, Managed, PinnedHost, RegisteredHost, Symbol };

struct Allocation {
  std::size_t bytes = 0;
  AllocationKind kind = AllocationKind::Device;
  unsigned flags = 0;   // cudaHostAlloc / cudaHostRegister / cudaMallocManaged flags
  bool mapped = false;  // released with munmap (large), else free()
  bool owned = true;    // false for registered program memory and variable storage
};

struct Stream {
  std::uint64_t number = 0;  // 1, 2, ...: the executor's stream id
  unsigned flags = 0;
  int priority = 0;
};

struct Event {
  unsigned flags = 0;
  bool recorded = false;
  std::chrono::steady_clock::time_point when;
};

class Runtime {
 public:
  static Runtime& get();

  std::mutex mutex;
  const DeviceProfile device;

  // The calling thread's last error, and the sticky error (cudaSuccess: none).
  cudaError_t sticky = cudaSuccess;
  static cudaError_t& last_error();

  // Registered things.
  std::vector<std::unique_ptr<Module>> modules;
  std::map<const void*, Kernel> kernels;       // by host stub (also a cudaKernel_t)
  std::map<const void*, Variable> variables;   // by host shadow
  std::map<const void*, const void*> managed;  // managed storage address -> its shadow

  // Memory by start address.
  std::map<std::uintptr_t, Allocation> allocations;
  std::size_t device_bytes_in_use = 0;

  std::set<Stream*> streams;
  std::set<Event*> events;
  std::uint64_t next_stream_number = 1;

  int device_flags = 0;
  std::map<int, std::size_t> limits;  // cudaLimit -> value, once set

  // The executor, made on first use (and finish() registered with atexit); null after
  // finish(), when nothing may reach it any more.
  Executor* executor();
  bool finished() const { return finished_; }
  void finish();

  // Lookups; null when unknown.
  Kernel* kernel(const void* host_or_handle);
  Variable* variable(const void* symbol);     // a shadow, or a managed variable's storage
  std::span<std::byte> storage(Variable& v);  // also listed as device memory
  // The allocation holding [p, p + bytes); null when none does.
  const Allocation* allocation_of(const void* p, std::size_t bytes = 1,
                                  std::uintptr_t* start = nullptr) const;
  bool valid_stream(cudaStream_t s) const;
  std::uint64_t stream_number(cudaStream_t s) const;
  FunctionAttributes attributes(Kernel& k);

 private:
  Runtime();
  std::unique_ptr<Executor> executor_;
  bool finished_ = false;
};

// Records `e` as the calling thread's last error when it is one; returns it.
cudaError_t record(cudaError_t e);

// Runs an API call's body under the lock. `body` gets the Runtime and returns a cudaError_t.
// With `sticky` (most calls), a sticky error is returned instead of running the body.
template <class Body>
cudaError_t call(Body&& body, bool sticky = true) noexcept {
  try {
    Runtime& rt = Runtime::get();
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (sticky && rt.sticky != cudaSuccess) return record(rt.sticky);
    return record(body(rt));
  } catch (const std::bad_alloc&) {
    return record(cudaErrorMemoryAllocation);
  } catch (...) {
    return record(cudaErrorUnknown);
  }
}

// For calls that answer from the device's description and work after a sticky error
// (device count, properties, attributes, versions).
template <class Body>
cudaError_t query(Body&& body) noexcept {
  return call(std::forward<Body>(body), /*sticky=*/false);
}

}  // namespace bankcheck::runtime
