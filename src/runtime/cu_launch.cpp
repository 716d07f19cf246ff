// Kernel launches, by every path: cuLaunchKernel (what the CUDA runtime's <<<>>> and
// cudaLaunchKernel reach), cuLaunchKernelEx with its attributes, cuLaunchCooperativeKernel.
// Each is checked as the device would (kernels.hpp), then run to completion by the executor,
// or recorded when its stream is being captured; the executor's result becomes the real
// driver's error.
#include <chrono>
#include <cstring>
#include <vector>

#include "driver.hpp"
#include "graphs.hpp"
#include "kernels.hpp"

using namespace bankcheck::runtime;

namespace {

CUresult fault_error(FaultKind kind) {
  switch (kind) {
    case FaultKind::IllegalAddress:
      return CUDA_ERROR_ILLEGAL_ADDRESS;
    case FaultKind::MisalignedAddress:
      return CUDA_ERROR_MISALIGNED_ADDRESS;
    case FaultKind::Assert:
      return CUDA_ERROR_ASSERT;
    case FaultKind::IllegalInstruction:
      return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    case FaultKind::Trap:
      return CUDA_ERROR_LAUNCH_FAILED;
  }
  return CUDA_ERROR_LAUNCH_FAILED;
}

const char* error_name(CUresult e) {
  const char* name = nullptr;
  cuGetErrorName(e, &name);
  return name ? name : "CUDA_ERROR_UNKNOWN";
}

// Where a packed argument buffer (extra) is, and its size.
CUresult packed_buffer(void** extra, const std::uint8_t** data, std::size_t* bytes) {
  *data = nullptr;
  *bytes = 0;
  for (std::size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
      *data = static_cast<const std::uint8_t*>(extra[i + 1]);
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
      *bytes = *static_cast<const std::size_t*>(extra[i + 1]);
    else
      return CUDA_ERROR_INVALID_VALUE;
  }
  return *data || *bytes == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

KernelNode kernel_node(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shared, void** params, void** extra) {
  KernelNode k;
  k.function = reinterpret_cast<Function*>(f);
  k.shape.grid = Dim3{gx, gy, gz};
  k.shape.block = Dim3{bx, by, bz};
  k.shape.dynamic_shared = shared;
  k.raw_params = params;
  k.raw_extra = extra;
  return k;
}

CUresult issue(Driver& d, KernelNode&& k, CUstream stream) {
  if (!d.function(k.function)) return CUDA_ERROR_INVALID_HANDLE;
  if (!d.valid_stream(stream)) return CUDA_ERROR_INVALID_HANDLE;
  if (k.raw_params && k.raw_extra) return CUDA_ERROR_INVALID_VALUE;
  Node n;
  n.type = CU_GRAPH_NODE_TYPE_KERNEL;
  n.kernel = std::move(k);
  return submit(d, stream, std::move(n));
}

}  // namespace

namespace bankcheck::runtime {

std::vector<void*> argument_pointers(KernelNode& k) {
  std::vector<void*> args;
  for (const ParamSlot& s : k.slots) args.push_back(k.params.data() + s.offset);
  return args;
}

CUresult copy_arguments(KernelNode& k) {
  if (!k.raw_params && !k.raw_extra) return CUDA_SUCCESS;
  if (!k.function->info.params) return CUDA_ERROR_NOT_SUPPORTED;
  k.slots = *k.function->info.params;
  std::size_t total = 0;
  for (const ParamSlot& s : k.slots) total = std::max(total, s.offset + s.bytes);
  k.params.assign(total, 0);
  if (k.raw_params) {
    for (std::size_t i = 0; i < k.slots.size(); ++i)
      if (k.raw_params[i])
        std::memcpy(k.params.data() + k.slots[i].offset, k.raw_params[i], k.slots[i].bytes);
  } else {
    const std::uint8_t* data = nullptr;
    std::size_t bytes = 0;
    if (const CUresult e = packed_buffer(k.raw_extra, &data, &bytes)) return e;
    std::memcpy(k.params.data(), data, std::min(bytes, total));
  }
  k.raw_params = k.raw_extra = nullptr;
  return CUDA_SUCCESS;
}

CUresult launch_kernel(Driver& d, KernelNode& k, CUstream stream) {
  Function& f = *k.function;
  LaunchShape shape = k.shape;
  // A launch without cluster dimensions gets those the program required of the function.
  if (shape.cluster.count() == 1 && f.required_cluster[0] > 0) {
    auto one = [](int v) { return static_cast<std::uint32_t>(v > 0 ? v : 1); };
    shape.cluster =
        Dim3{one(f.required_cluster[0]), one(f.required_cluster[1]), one(f.required_cluster[2])};
  }
  if (const CUresult e = check_launch(d, f, shape)) return e;
  // Queued behind a kernel that faulted: on the GPU it never runs, and its launch succeeds.
  if (d.pending_fault != CUDA_SUCCESS) return CUDA_SUCCESS;
  Executor* ex = d.executor();
  if (!ex) return CUDA_ERROR_DEINITIALIZED;  // after the report, during the program's exit
  // The arguments: the caller's pointers, pointers into a packed buffer, or the node's copy.
  std::vector<void*> pointers;
  void** args = k.raw_params;
  if (!args && k.raw_extra) {
    const std::uint8_t* data = nullptr;
    std::size_t bytes = 0;
    if (const CUresult e = packed_buffer(k.raw_extra, &data, &bytes)) return e;
    if (!f.info.params) return CUDA_ERROR_NOT_SUPPORTED;
    for (const ParamSlot& s : *f.info.params) {
      if (s.offset + s.bytes > bytes) return CUDA_ERROR_INVALID_VALUE;
      pointers.push_back(const_cast<std::uint8_t*>(data) + s.offset);
    }
    args = pointers.data();
  } else if (!args && !k.slots.empty()) {
    pointers = argument_pointers(k);
    args = pointers.data();
  }
  LaunchRequest r;
  r.module = f.module->id;
  r.function = f.name;
  r.grid = shape.grid;
  r.block = shape.block;
  r.dynamic_shared_bytes = shape.dynamic_shared;
  r.stream = d.stream_number(stream);
  r.args = args;
  r.cooperative = shape.cooperative;
  r.cluster = shape.cluster;
  const LaunchResult result = ex->launch(r);
  switch (result.status) {
    case LaunchStatus::Ok:
      for (Event* ev : k.completion) {
        ev->recorded = true;
        ev->when = std::chrono::steady_clock::now();
      }
      return CUDA_SUCCESS;
    case LaunchStatus::InvalidConfiguration:
    case LaunchStatus::TooMuchSharedMemory:
      return CUDA_ERROR_INVALID_VALUE;
    case LaunchStatus::Fault: {
      // As on the GPU, the launch succeeds; the error surfaces at the program's next
      // synchronization (at_synchronization) and stays.
      const CUresult e = fault_error(result.fault);
      d.pending_fault = e;
      diagnose(readable_name(f.name) + ": " + result.message + " (" + error_name(e) +
               "; from the next synchronization on, every CUDA call returns it)");
      return CUDA_SUCCESS;
    }
    case LaunchStatus::NoBinary:
      diagnose_once("launch " + f.name, result.message);
      return CUDA_ERROR_NO_BINARY_FOR_GPU;
    case LaunchStatus::NotSupported:
      diagnose_once("launch " + f.name, readable_name(f.name) + " was not run: " + result.message);
      return CUDA_ERROR_NOT_SUPPORTED;
  }
  return CUDA_ERROR_UNKNOWN;
}

}  // namespace bankcheck::runtime

BANKCHECK_API CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                      unsigned int gridDimZ, unsigned int blockDimX,
                                      unsigned int blockDimY, unsigned int blockDimZ,
                                      unsigned int sharedMemBytes, CUstream hStream,
                                      void** kernelParams, void** extra) {
  return in_context([&](Driver& d, Context&) {
    return issue(d,
                 kernel_node(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                             sharedMemBytes, kernelParams, extra),
                 hStream);
  });
}
BANKCHECK_ALIAS(cuLaunchKernel, cuLaunchKernel_ptsz)

BANKCHECK_API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                                 unsigned int gridDimY, unsigned int gridDimZ,
                                                 unsigned int blockDimX, unsigned int blockDimY,
                                                 unsigned int blockDimZ,
                                                 unsigned int sharedMemBytes, CUstream hStream,
                                                 void** kernelParams) {
  return in_context([&](Driver& d, Context&) {
    KernelNode k = kernel_node(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                               sharedMemBytes, kernelParams, nullptr);
    k.shape.cooperative = true;
    return issue(d, std::move(k), hStream);
  });
}
BANKCHECK_ALIAS(cuLaunchCooperativeKernel, cuLaunchCooperativeKernel_ptsz)

BANKCHECK_API CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f,
                                        void** kernelParams, void** extra) {
  return in_context([&](Driver& d, Context&) -> CUresult {
    if (!config || (config->numAttrs && !config->attrs)) return CUDA_ERROR_INVALID_VALUE;
    KernelNode k = kernel_node(f, config->gridDimX, config->gridDimY, config->gridDimZ,
                               config->blockDimX, config->blockDimY, config->blockDimZ,
                               config->sharedMemBytes, kernelParams, extra);
    for (unsigned i = 0; i < config->numAttrs; ++i) {
      const CUlaunchAttribute& at = config->attrs[i];
      switch (at.id) {
        case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
          k.shape.cooperative = at.value.cooperative != 0;
          break;
        case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
          k.shape.cluster =
              Dim3{at.value.clusterDim.x, at.value.clusterDim.y, at.value.clusterDim.z};
          if (k.shape.cluster.count() == 0) return CUDA_ERROR_INVALID_VALUE;
          break;
        case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
        case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT: {
          CUevent ev = at.id == CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT
                           ? at.value.launchCompletionEvent.event
                           : at.value.programmaticEvent.event;
          auto* p = reinterpret_cast<Event*>(ev);
          if (!d.events.contains(p)) return CUDA_ERROR_INVALID_HANDLE;
          k.completion.push_back(p);
          break;
        }
        // Scheduling hints with no effect when every launch runs alone and in order.
        case CU_LAUNCH_ATTRIBUTE_IGNORE:
        case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
        case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
        case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
        case CU_LAUNCH_ATTRIBUTE_PRIORITY:
        case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
        case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
        case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
        case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
          break;
        default:
          return CUDA_ERROR_INVALID_VALUE;
      }
    }
    return issue(d, std::move(k), config->hStream);
  });
}
BANKCHECK_ALIAS(cuLaunchKernelEx, cuLaunchKernelEx_ptsz)
