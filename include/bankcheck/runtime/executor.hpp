// The seam between bankcheck's CUDA runtime (libcudart.so.13, src/runtime/) and whatever
// executes kernels. The runtime owns the CUDA API: handles, streams, events, errors, device
// properties and the memory itself (real host memory, so every device pointer is a host
// address the program and the executor can both use). It tells the Executor what the
// program registers, allocates and launches, in program order, and asks it only what
// comes from the kernels' own code: a variable's storage, a function's resources, and the
// outcome of a launch.
//
// Everything here is a plain value: no CUDA type crosses the seam. The runtime calls an
// Executor from one thread at a time (it serialises the API), never concurrently.
//
// Lifetime: the runtime creates the executor on the program's first registration or
// allocation (usually during static initialisation, before main), calls finish() once at
// exit, and never destroys it afterwards. finish() runs from an exit handler registered when
// the executor was created: objects with static storage duration constructed after that
// point are already destroyed when it runs, so the state a report needs belongs to the
// executor itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bankcheck/model/launch_limits.hpp"
#include "bankcheck/runtime/device.hpp"

namespace bankcheck::runtime {

using Dim3 = model::Dim3;

// A module: one fat binary the program registered (__cudaRegisterFatBinary), numbered from 1
// in registration order.
using ModuleId = std::uint32_t;

// What the program registered: the fat binary as its wrapper points to it (the bytes start
// with the fat binary header, magic 0xBA55ED50; `bytes` counts the header and its payload).
// A program linked with -rdc=true registers the device-linked image here, and the objects'
// own pre-linked fat binaries (each starting with its header) in `prelinked`.
struct ModuleImage {
  const void* fatbin = nullptr;
  std::size_t bytes = 0;
  std::span<const void* const> prelinked;  // valid during register_module only
};

enum class VariableKind : std::uint8_t {
  Global,    // __device__
  Constant,  // __constant__
  Managed,   // __managed__: the program reaches it through a pointer the runtime sets
};

// What memory_allocated() announces. Every kind is ordinary host memory at the same address
// on both sides.
enum class MemoryKind : std::uint8_t {
  Device,          // cudaMalloc, cudaMallocPitch, cudaMalloc3D, cudaMallocAsync
  Managed,         // cudaMallocManaged
  PinnedHost,      // cudaMallocHost, cudaHostAlloc (mapped: kernels may use it)
  RegisteredHost,  // cudaHostRegister: the program's own memory, now visible to kernels
};

// A kernel's resources as ptxas compiled it (the cubin's .nv.info and ELF headers); what
// cudaFuncGetAttributes reports and the occupancy calculation and launch checks use.
struct FunctionAttributes {
  int registers_per_thread = 0;         // numRegs (EIATTR_REGCOUNT)
  std::size_t static_shared_bytes = 0;  // sharedSizeBytes: the kernel's __shared__ arrays
  std::size_t local_bytes = 0;          // localSizeBytes: per thread (stack, spills)
  std::size_t const_bytes = 0;          // constSizeBytes: user __constant__ bytes it uses
  int max_threads_per_block = 1024;     // the smaller of __launch_bounds__ and what registers allow
  int ptx_version = 0;     // ptxVersion: major x 10 + minor of the PTX it came from (90)
  int binary_version = 0;  // binaryVersion: the cubin's sm (90)
};

// One kernel launch, as the program asked for it. `args` is the program's own array: one
// pointer per kernel parameter, to a host copy of that argument, valid during launch() only
// (the executor reads the parameter sizes from the kernel's signature in the module).
struct LaunchRequest {
  const void* function = nullptr;  // the host stub, as registered by register_function()
  Dim3 grid;
  Dim3 block;
  std::size_t dynamic_shared_bytes = 0;
  std::uint64_t stream = 0;  // 0: the default stream; otherwise the stream's number (1, 2, ...)
  void** args = nullptr;
  bool cooperative = false;  // cudaLaunchCooperativeKernel or the cooperative launch attribute
  Dim3 cluster;  // cluster dimensions (cudaLaunchAttributeClusterDimension); 1,1,1: none
};

// The outcome of a launch. The runtime turns it into the cudaError_t the real runtime returns:
//   Ok                    cudaSuccess
//   InvalidConfiguration  cudaErrorInvalidConfiguration (the block or grid shape)
//   TooMuchSharedMemory   cudaErrorInvalidValue (what the driver returns for a block's shared
//                         memory over the kernel's limit)
//   Fault                 the fault's error (below), sticky: every later call returns it
//   NotSupported          cudaErrorNotSupported, with `message` printed once per kernel
enum class LaunchStatus : std::uint8_t {
  Ok,
  InvalidConfiguration,
  TooMuchSharedMemory,
  Fault,
  NotSupported
};

// What a faulting kernel did, and the sticky error each is on a GPU.
enum class FaultKind : std::uint8_t {
  IllegalAddress,      // cudaErrorIllegalAddress (700): an access outside every allocation
  MisalignedAddress,   // cudaErrorMisalignedAddress (716)
  Assert,              // cudaErrorAssert (710): a device-side assert() failed
  IllegalInstruction,  // cudaErrorIllegalInstruction (715)
  Trap,                // cudaErrorLaunchFailure (719): trap; or any other exception
};

struct LaunchResult {
  LaunchStatus status = LaunchStatus::Ok;
  FaultKind fault = FaultKind::IllegalAddress;  // for Fault
  std::string message;  // Fault and NotSupported: one sentence, printed by the runtime
};

// The device an executor runs for, fixed for the process.
struct ExecutorConfig {
  DeviceProfile device;
  // The runtime calls memory_written() for every write it makes to the program's memory,
  // so that an executor may know which bytes are unchanged without reading them.
  bool reports_writes = false;
};

class Executor {
 public:
  virtual ~Executor() = default;

  // __cudaRegisterFatBinary: a module, before its functions and variables. The image stays
  // readable until unregister_module().
  virtual void register_module(ModuleId module, const ModuleImage& image) = 0;
  // __cudaRegisterFunction: `host_function` is the address the program launches with (the
  // host stub); `device_name` the kernel's mangled name in the module.
  virtual void register_function(ModuleId module, const void* host_function,
                                 std::string_view device_name) = 0;
  // __cudaRegisterVar and __cudaRegisterManagedVar: `host_shadow` is the program's host
  // variable standing for it (for a managed variable, the pointer the runtime sets to its
  // storage), `bytes` its size.
  virtual void register_variable(ModuleId module, const void* host_shadow,
                                 std::string_view device_name, std::size_t bytes,
                                 VariableKind kind) = 0;
  // __cudaRegisterFatBinaryEnd: the module's registrations are complete.
  virtual void module_complete(ModuleId module) = 0;
  // __cudaUnregisterFatBinary (at exit, or when a library holding kernels is closed): the
  // image and the module's host addresses may become invalid when this returns. At exit every
  // module is unregistered before finish().
  virtual void unregister_module(ModuleId module) = 0;

  // The storage of a registered variable: what kernels read and write, and what
  // cudaMemcpyToSymbol, cudaMemcpyFromSymbol and cudaGetSymbolAddress use. Initialised from
  // the module (its initialiser, else zeros); `bytes` long; at a fixed address for the life of
  // the module (device_reset() restores the contents, not the address). Empty: unknown.
  virtual std::span<std::byte> variable_storage(const void* host_shadow) = 0;

  // Memory the runtime allocated (or the program registered) and will free: kernels may
  // access [address, address + bytes). Freed memory is announced before it is released.
  virtual void memory_allocated(void* address, std::size_t bytes, MemoryKind kind) = 0;
  virtual void memory_freed(void* address) = 0;
  // The runtime wrote [address, address + bytes) of the program's memory (a copy, a fill, a
  // copy to a symbol): kernels that read those bytes may compute otherwise from now on.
  // With ExecutorConfig::reports_writes, called for every write the runtime makes.
  virtual void memory_written(const void* address, std::size_t bytes) {
    (void)address;
    (void)bytes;
  }

  // The kernel's resources; nullopt when the executor cannot tell (the runtime then assumes
  // no registers, no static shared memory and 1024 threads).
  virtual std::optional<FunctionAttributes> function_attributes(const void* host_function) = 0;

  // Runs a launch to completion. The runtime has already checked the shape and the resources
  // against the device (block and grid limits, registers, shared memory with the kernel's
  // cudaFuncAttributeMaxDynamicSharedMemorySize, cooperative co-residency); the executor
  // reports what only running shows.
  virtual LaunchResult launch(const LaunchRequest& request) = 0;

  // cudaDeviceReset: every allocation was announced freed; variables return to their
  // initial contents.
  virtual void device_reset() = 0;

  // Once, at exit (see the lifetime note above). Nothing is called afterwards.
  virtual void finish() = 0;

  // The program called `function`, which this runtime does not implement and through which
  // it meant to run kernels (a graph's launch): those kernels were not run, and a report
  // must say it does not cover them.
  virtual void not_run(std::string_view function) { static_cast<void>(function); }
};

// Makes an executor; one factory per implementation, chosen with BANKCHECK_EXECUTOR
// (src/runtime/executors.cpp lists them).
using ExecutorFactory = std::unique_ptr<Executor> (*)(const ExecutorConfig& config);

}  // namespace bankcheck::runtime
