// Kernel launches, by every path a program takes: <<<>>> (the generated stub calls
// __cudaLaunchKernel with the handle __cudaGetKernel gave it), cudaLaunchKernel,
// cudaLaunchKernelExC (cudaLaunchKernelEx's C form, with its attributes) and
// cudaLaunchCooperativeKernel. Each is checked as the device would (kernels.hpp), then run to
// completion by the executor; its result becomes the real runtime's error.
#include <chrono>
#include <vector>

#include "kernels.hpp"
#include "runtime.hpp"

using namespace bankcheck::runtime;

namespace {

Dim3 to_dim3(dim3 d) { return Dim3{d.x, d.y, d.z}; }

cudaError_t fault_error(FaultKind kind) {
  switch (kind) {
    case FaultKind::IllegalAddress:
      return cudaErrorIllegalAddress;
    case FaultKind::MisalignedAddress:
      return cudaErrorMisalignedAddress;
    case FaultKind::Assert:
      return cudaErrorAssert;
    case FaultKind::IllegalInstruction:
      return cudaErrorIllegalInstruction;
    case FaultKind::Trap:
      return cudaErrorLaunchFailure;
  }
  return cudaErrorLaunchFailure;
}

struct Launch {
  const void* function = nullptr;
  LaunchShape shape;
  void** args = nullptr;
  cudaStream_t stream = nullptr;
};

cudaError_t launch(Runtime& rt, const Launch& l) {
  Kernel* k = rt.kernel(l.function);
  if (!k) return cudaErrorInvalidDeviceFunction;
  if (!rt.valid_stream(l.stream)) return cudaErrorInvalidResourceHandle;
  const FunctionAttributes a = rt.attributes(*k);
  LaunchShape shape = l.shape;
  // A launch without cluster dimensions gets those the program required of the kernel.
  if (shape.cluster.count() == 1 && k->required_cluster[0] > 0) {
    auto one = [](int v) { return static_cast<std::uint32_t>(v > 0 ? v : 1); };
    shape.cluster =
        Dim3{one(k->required_cluster[0]), one(k->required_cluster[1]), one(k->required_cluster[2])};
  }
  if (const cudaError_t e = check_launch(rt, *k, a, shape)) return e;
  Executor* ex = rt.executor();
  if (!ex) return cudaErrorCudartUnloading;
  LaunchRequest r;
  r.function = k->host;
  r.grid = shape.grid;
  r.block = shape.block;
  r.dynamic_shared_bytes = shape.dynamic_shared;
  r.stream = rt.stream_number(l.stream);
  r.args = l.args;
  r.cooperative = shape.cooperative;
  r.cluster = shape.cluster;
  const LaunchResult result = ex->launch(r);
  switch (result.status) {
    case LaunchStatus::Ok:
      return cudaSuccess;
    case LaunchStatus::InvalidConfiguration:
      return cudaErrorInvalidConfiguration;
    case LaunchStatus::TooMuchSharedMemory:
      return cudaErrorInvalidValue;
    case LaunchStatus::Fault: {
      const cudaError_t e = fault_error(result.fault);
      rt.sticky = e;
      diagnose(readable_name(k->device_name) + ": " + result.message + " (" + cudaGetErrorName(e) +
               "; every later CUDA call returns it)");
      return e;
    }
    case LaunchStatus::NotSupported:
      diagnose_once("launch " + k->device_name,
                    readable_name(k->device_name) + " was not run: " + result.message);
      return cudaErrorNotSupported;
  }
  return cudaErrorUnknown;
}

Launch plain(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
             cudaStream_t stream, bool cooperative) {
  Launch l;
  l.function = func;
  l.shape.grid = to_dim3(grid);
  l.shape.block = to_dim3(block);
  l.shape.dynamic_shared = shared;
  l.shape.cooperative = cooperative;
  l.args = args;
  l.stream = stream;
  return l;
}

}  // namespace

BANKCHECK_API cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim,
                                           void** args, size_t sharedMem, cudaStream_t stream) {
  return call([&](Runtime& rt) {
    return launch(rt, plain(func, gridDim, blockDim, args, sharedMem, stream, false));
  });
}
BANKCHECK_PER_THREAD(cudaLaunchKernel, cudaLaunchKernel_ptsz)

BANKCHECK_API cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim,
                                                      void** args, size_t sharedMem,
                                                      cudaStream_t stream) {
  return call([&](Runtime& rt) {
    return launch(rt, plain(func, gridDim, blockDim, args, sharedMem, stream, true));
  });
}
BANKCHECK_PER_THREAD(cudaLaunchCooperativeKernel, cudaLaunchCooperativeKernel_ptsz)

// A kernel handle is the kernel's host stub: every lookup takes either.
BANKCHECK_API cudaError_t cudaGetKernel(cudaKernel_t* kernelPtr, const void* entryFuncAddr) {
  return call([&](Runtime& rt) {
    if (!kernelPtr) return cudaErrorInvalidValue;
    if (!rt.kernel(entryFuncAddr)) return cudaErrorInvalidDeviceFunction;
    *kernelPtr = reinterpret_cast<cudaKernel_t>(const_cast<void*>(entryFuncAddr));
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t __cudaGetKernel(cudaKernel_t* kernelPtr, const void* entryFuncAddr) {
  return cudaGetKernel(kernelPtr, entryFuncAddr);
}

BANKCHECK_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                             void** args, size_t sharedMem, cudaStream_t stream) {
  return cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream);
}
BANKCHECK_PER_THREAD(__cudaLaunchKernel, __cudaLaunchKernel_ptsz)

BANKCHECK_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func,
                                              void** args) {
  return call([&](Runtime& rt) {
    std::vector<Event*> completion;  // events recorded when the launch has finished
    if (!config || (config->numAttrs && !config->attrs)) return cudaErrorInvalidValue;
    Launch l = plain(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                     config->stream, false);
    for (unsigned i = 0; i < config->numAttrs; ++i) {
      const cudaLaunchAttribute& at = config->attrs[i];
      switch (at.id) {
        case cudaLaunchAttributeCooperative:
          l.shape.cooperative = at.val.cooperative != 0;
          break;
        case cudaLaunchAttributeClusterDimension:
          l.shape.cluster = Dim3{at.val.clusterDim.x, at.val.clusterDim.y, at.val.clusterDim.z};
          if (l.shape.cluster.count() == 0) return cudaErrorInvalidValue;
          break;
        case cudaLaunchAttributeLaunchCompletionEvent:
        case cudaLaunchAttributeProgrammaticEvent: {
          cudaEvent_t ev = at.id == cudaLaunchAttributeLaunchCompletionEvent
                               ? at.val.launchCompletionEvent.event
                               : at.val.programmaticEvent.event;
          auto* p = reinterpret_cast<Event*>(ev);
          if (!rt.events.contains(p)) return cudaErrorInvalidResourceHandle;
          completion.push_back(p);
          break;
        }
        // Scheduling hints with no effect when every launch runs alone and in order.
        case cudaLaunchAttributeIgnore:
        case cudaLaunchAttributeAccessPolicyWindow:
        case cudaLaunchAttributeSynchronizationPolicy:
        case cudaLaunchAttributeClusterSchedulingPolicyPreference:
        case cudaLaunchAttributeProgrammaticStreamSerialization:
        case cudaLaunchAttributePriority:
        case cudaLaunchAttributeMemSyncDomainMap:
        case cudaLaunchAttributeMemSyncDomain:
        case cudaLaunchAttributePreferredClusterDimension:
        case cudaLaunchAttributeDeviceUpdatableKernelNode:
        case cudaLaunchAttributePreferredSharedMemoryCarveout:
        case cudaLaunchAttributeNvlinkUtilCentricScheduling:
          break;
        default:
          return cudaErrorInvalidValue;
      }
    }
    const cudaError_t r = launch(rt, l);
    if (r == cudaSuccess)
      for (Event* ev : completion) {
        ev->recorded = true;
        ev->when = std::chrono::steady_clock::now();
      }
    return r;
  });
}
BANKCHECK_PER_THREAD(cudaLaunchKernelExC, cudaLaunchKernelExC_ptsz)
