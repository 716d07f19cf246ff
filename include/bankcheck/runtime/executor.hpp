// The seam between bankcheck's CUDA driver (libcuda.so.1, src/runtime/) and whatever executes
// kernels. The driver owns the CUDA driver API: contexts, handles, streams, events, graphs,
// errors, device attributes and the memory itself (real host memory, so every device pointer
// is a host address the program and the executor can both use). It tells the Executor what
// the program (or a library, through its own CUDA runtime) loads, allocates and launches, in
// program order, and asks it only what comes from the kernels' own code: which functions and
// variables a module defines, a function's resources and parameters, and the outcome of a
// launch.
//
// A function is named by its module and its mangled name, as cuModuleGetFunction and
// cuLibraryGetKernel name it; a variable likewise (cuModuleGetGlobal).
//
// Everything here is a plain value: no CUDA type crosses the seam. The driver calls an
// Executor from one thread at a time (it serialises the API), never concurrently.
//
// Lifetime: the driver creates the executor on the program's first module load or
// allocation, calls finish() once at exit, and never destroys it afterwards. finish() runs
// from an exit handler registered when the executor was created: objects with static storage
// duration constructed after that point are already destroyed when it runs, so the state a
// report needs belongs to the executor itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/emu/texture.hpp"
#include "bankcheck/model/launch_limits.hpp"
#include "bankcheck/runtime/device.hpp"

namespace bankcheck::runtime {

using Dim3 = model::Dim3;

// A module: one image the program or a library loaded (cuModuleLoadData, cuLibraryLoadData,
// the CUDA runtime's registration of a fat binary), numbered from 1 in load order.
using ModuleId = std::uint32_t;

enum class ImageKind : std::uint8_t {
  Fatbin,  // a fat binary container (magic 0xBA55ED50): PTX and cubins per architecture
  Ptx,     // PTX text, as nvcc -ptx or NVRTC writes it
  Cubin,   // an ELF cubin: SASS for one architecture, no PTX
};

// What was loaded. `data` stays readable until unregister_module() (the driver keeps a copy
// of images the program may free). A program linked with -rdc=true loads the device-linked
// image, and the objects' own pre-linked fat binaries (each starting with its header) are in
// `prelinked`. `origin` names the file whose code loaded it, as a report shows it: the
// program's path as given, or a library's file name (libcublasLt.so.13); empty when unknown.
struct ModuleImage {
  ImageKind kind = ImageKind::Fatbin;
  const void* data = nullptr;
  std::size_t bytes = 0;
  std::span<const void* const> prelinked;  // valid during register_module only
  std::string origin;
  bool library = false;  // `origin` is a shared library, not the program's executable
};

// What memory_allocated() announces. Every kind is ordinary host memory at the same address
// on both sides.
enum class MemoryKind : std::uint8_t {
  Device,          // cuMemAlloc, cuMemAllocPitch, cuMemAllocAsync, cuMemAllocFromPoolAsync
  Managed,         // cuMemAllocManaged
  PinnedHost,      // cuMemAllocHost, cuMemHostAlloc (mapped: kernels may use it)
  RegisteredHost,  // cuMemHostRegister: the program's own memory, now visible to kernels
};

// A kernel's resources as ptxas compiled it (the cubin's .nv.info and ELF headers); what
// cuFuncGetAttribute reports and the occupancy calculation and launch checks use.
struct FunctionAttributes {
  int registers_per_thread = 0;         // numRegs (EIATTR_REGCOUNT)
  std::size_t static_shared_bytes = 0;  // sharedSizeBytes: the kernel's __shared__ arrays
  std::size_t local_bytes = 0;          // localSizeBytes: per thread (stack, spills)
  std::size_t const_bytes = 0;          // constSizeBytes: user __constant__ bytes it uses
  int max_threads_per_block = 1024;     // the smaller of __launch_bounds__ and what registers allow
  int ptx_version = 0;     // ptxVersion: major x 10 + minor of the PTX it came from (90)
  int binary_version = 0;  // binaryVersion: the cubin's sm (90)
};

// Where a parameter lies in the kernel's parameter buffer.
struct ParamSlot {
  std::size_t offset = 0;
  std::size_t bytes = 0;
};

// One kernel launch, as the program asked for it. `args` holds one pointer per kernel
// parameter, to a host copy of that argument, valid during launch() only (the driver builds it
// from a packed buffer, or from a graph node's copy, when the program gave one).
struct LaunchRequest {
  ModuleId module = 0;
  std::string_view function;  // mangled name
  Dim3 grid;
  Dim3 block;
  std::size_t dynamic_shared_bytes = 0;
  std::uint64_t stream = 0;  // 0: the default stream; otherwise the stream's number (1, 2, ...)
  void** args = nullptr;
  bool cooperative = false;  // cuLaunchCooperativeKernel or the cooperative launch attribute
  Dim3 cluster;  // cluster dimensions (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION); 1,1,1: none
};

// The outcome of a launch. The driver turns it into the CUresult the real driver returns:
//   Ok                    CUDA_SUCCESS
//   InvalidConfiguration  CUDA_ERROR_INVALID_VALUE (the block or grid shape)
//   TooMuchSharedMemory   CUDA_ERROR_INVALID_VALUE (a block's shared memory over the
//                         kernel's limit)
//   Fault                 the fault's error (below), sticky: every later call returns it
//   NoBinary              CUDA_ERROR_NO_BINARY_FOR_GPU: the module has no code the executor
//                         can run for this kernel (a library's SASS-only cubin), with
//                         `message` printed once per kernel
//   NotSupported          CUDA_ERROR_NOT_SUPPORTED, with `message` printed once per kernel
enum class LaunchStatus : std::uint8_t {
  Ok,
  InvalidConfiguration,
  TooMuchSharedMemory,
  Fault,
  NoBinary,
  NotSupported
};

// What a faulting kernel did, and the sticky error each is on a GPU.
enum class FaultKind : std::uint8_t {
  IllegalAddress,      // CUDA_ERROR_ILLEGAL_ADDRESS (700): an access outside every allocation
  MisalignedAddress,   // CUDA_ERROR_MISALIGNED_ADDRESS (716)
  Assert,              // CUDA_ERROR_ASSERT (710): a device-side assert() failed
  IllegalInstruction,  // CUDA_ERROR_ILLEGAL_INSTRUCTION (715)
  Trap,                // CUDA_ERROR_LAUNCH_FAILED (719): trap; or any other exception
};

struct LaunchResult {
  LaunchStatus status = LaunchStatus::Ok;
  FaultKind fault = FaultKind::IllegalAddress;  // for Fault
  std::string message;  // Fault, NoBinary and NotSupported: one sentence, printed by the driver
};

// The device an executor runs for, fixed for the process.
struct ExecutorConfig {
  DeviceProfile device;
  // The runtime calls memory_written() for every write it makes to the program's memory,
  // so that an executor may know which bytes are unchanged without reading them.
  bool reports_writes = false;
};

// What a module says of one of its functions.
struct FunctionInfo {
  // Its resources; nullopt when the executor cannot tell (the driver then assumes no
  // registers, no static shared memory and 1024 threads).
  std::optional<FunctionAttributes> attributes;
  // Its parameters in order; nullopt when unknown (a launch must then pass one pointer per
  // parameter, and a graph cannot copy its arguments).
  std::optional<std::vector<ParamSlot>> params;
};

class Executor {
 public:
  virtual ~Executor() = default;

  // A module was loaded. False when its image cannot be read at all (the driver returns
  // CUDA_ERROR_INVALID_IMAGE and unregisters nothing); what cannot be run shows later, per
  // function.
  virtual bool register_module(ModuleId module, const ModuleImage& image) = 0;
  // cuModuleUnload, cuLibraryUnload (at exit too): the image and the module's variables may
  // become invalid when this returns.
  virtual void unregister_module(ModuleId module) = 0;

  // The function `name` (mangled) of the module; nullopt when the module defines none
  // (CUDA_ERROR_NOT_FOUND).
  virtual std::optional<FunctionInfo> function(ModuleId module, std::string_view name) = 0;
  // The names of the module's functions (cuModuleEnumerateFunctions).
  virtual std::vector<std::string> functions(ModuleId module) = 0;

  // The storage of a module variable (__device__, __constant__, __managed__): what kernels
  // read and write, and what cuModuleGetGlobal gives the program. Initialised from the module
  // (its initialiser, else zeros); at a fixed address for the life of the module
  // (device_reset() restores the contents, not the address). Empty: the module has none of
  // that name.
  virtual std::span<std::byte> variable_storage(ModuleId module, std::string_view name) = 0;

  // Memory the driver allocated (or the program registered) and will free: kernels may
  // access [address, address + bytes). Freed memory is announced before it is released.
  virtual void memory_allocated(void* address, std::size_t bytes, MemoryKind kind) = 0;
  virtual void memory_freed(void* address) = 0;
  // A texture object the program created (cuTexObjectCreate), under its handle, and its end
  // (destroyed, or the memory it reads freed): kernels' `tex` reads it in between.
  virtual void texture_created(std::uint64_t handle, const emu::Texture& texture) {
    (void)handle;
    (void)texture;
  }
  virtual void texture_destroyed(std::uint64_t handle) { (void)handle; }
  // The same for a surface object (cuSurfObjectCreate): the array its `suld`, `sust` reach.
  virtual void surface_created(std::uint64_t handle, const emu::Texture& surface) {
    (void)handle;
    (void)surface;
  }
  virtual void surface_destroyed(std::uint64_t handle) { (void)handle; }
  // The runtime wrote [address, address + bytes) of the program's memory (a copy, a fill, a
  // copy to a symbol): kernels that read those bytes may compute otherwise from now on.
  // With ExecutorConfig::reports_writes, called for every write the runtime makes.
  virtual void memory_written(const void* address, std::size_t bytes) {
    (void)address;
    (void)bytes;
  }

  // Runs a launch to completion. The driver has already checked the shape and the resources
  // against the device (block and grid limits, registers, shared memory with the function's
  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, cooperative co-residency); the executor
  // reports what only running shows.
  virtual LaunchResult launch(const LaunchRequest& request) = 0;

  // Device printf's text of the kernels run so far goes to the program's standard output. The
  // GPU's driver prints its buffer when the program synchronizes: cuCtxSynchronize,
  // cuStreamSynchronize, cuEventSynchronize, a blocking copy, a host function's turn, a
  // module's unloading, a context's destruction (measured on the H200: not at a launch; the
  // host's lines between a launch and the synchronization come first). The driver calls this
  // at each, and finish() at exit.
  virtual void flush_device_output() {}

  // The primary context was reset (cudaDeviceReset): every allocation was announced freed;
  // variables return to their initial contents.
  virtual void device_reset() = 0;

  // Once, at exit (see the lifetime note above). Nothing is called afterwards.
  virtual void finish() = 0;

  // The program called `function`, which the driver does not implement and through which it
  // meant to run a kernel (cuLaunchGrid, cuLaunchCooperativeKernelMultiDevice): the call
  // returned CUDA_ERROR_NOT_SUPPORTED and ran nothing, and the report lists it with the
  // launches that did not run. `caller` names the file whose code called (a library's name,
  // the program's; empty when unknown).
  virtual void not_run(std::string_view function, std::string_view caller) {
    static_cast<void>(function);
    static_cast<void>(caller);
  }
};

// Makes an executor; one factory per implementation, chosen with BANKCHECK_EXECUTOR
// (src/runtime/executors.cpp lists them).
using ExecutorFactory = std::unique_ptr<Executor> (*)(const ExecutorConfig& config);

}  // namespace bankcheck::runtime
