// Contexts: the device's primary context (what the CUDA runtime uses) and contexts made with
// cuCtxCreate, each thread's stack of current ones, and the settings a context keeps (limits,
// cache preference). One device and one address space: every context sees every allocation,
// module and stream; a context is a handle, its flags and its runtime storage.
#include <optional>

#include "driver.hpp"
#include "graphs.hpp"
#include "memory.hpp"

using namespace bankcheck::runtime;

namespace {

CUresult check_device(CUdevice dev) { return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }

// The defaults of cuCtxGetLimit on sm_90 (CUDA Driver API, cuCtxSetLimit: 1 KB stack per
// thread, 1 MB printf FIFO, 8 MB heap; 2 levels and 2048 pending launches of dynamic
// parallelism; the L2 fetch granularity and persisting size as unset). A context is never a
// CUDA-in-graphics (CIG) one: all of a block's shared memory is there for kernels.
std::optional<std::size_t> default_limit(const Driver& d, CUlimit limit) {
  switch (limit) {
    case CU_LIMIT_STACK_SIZE:
      return 1024;
    case CU_LIMIT_PRINTF_FIFO_SIZE:
      return 1048576;
    case CU_LIMIT_MALLOC_HEAP_SIZE:
      return 8388608;
    case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
      return 2;
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
      return 2048;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
      return 32;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
      return 0;
    case CU_LIMIT_SHMEM_SIZE:
      return static_cast<std::size_t>(d.device.sm.shared_per_block_optin);
    case CU_LIMIT_CIG_ENABLED:
    case CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED:
      return 0;
    default:
      return std::nullopt;
  }
}

// What the CUDA runtime kept in a context that goes away: its destructors run (they may call
// the API), then the storage is empty.
void destroy_local_storage(Context& c) {
  std::map<void*, LocalStorage> storage;
  storage.swap(c.local_storage);
  for (auto& [key, value] : storage)
    if (value.destroy) value.destroy(reinterpret_cast<CUcontext>(&c), key, value.value);
}

Context* make_context(Driver& d, unsigned flags) {
  auto* c = new Context;
  c->flags = flags;
  c->id = d.next_context_id++;
  d.contexts.insert(c);
  Driver::context_stack().push_back(c);
  return c;
}

}  // namespace

namespace bankcheck::runtime {

// cuDevicePrimaryCtxReset (cudaDeviceReset): the primary context's allocations, streams, events
// and graphs go, the CUDA runtime's storage in it is destroyed, the executor's variables return
// to their initial contents. Modules stay loaded.
void reset_primary_context(Driver& d) {
  destroy_local_storage(d.primary);
  release_all_memory(d);
  for (Stream* s : d.streams) delete s;
  d.streams.clear();
  for (Event* e : d.events) delete e;
  d.events.clear();
  destroy_all_graphs(d);
  d.limits.clear();
  d.cache_config = CU_FUNC_CACHE_PREFER_NONE;
  for (Function* f : d.functions) {
    f->max_dynamic_shared = -1;
    f->carveout = -1;
  }
  if (Executor* ex = d.executor()) ex->device_reset();
}

}  // namespace bankcheck::runtime

BANKCHECK_API CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  return query([&](Driver& d) {
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    ++d.primary_retained;
    d.primary_active = true;
    *pctx = reinterpret_cast<CUcontext>(&d.primary);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  return query([&](Driver& d) {
    if (const CUresult e = check_device(dev)) return e;
    if (d.primary_retained == 0) return CUDA_ERROR_INVALID_CONTEXT;
    if (--d.primary_retained == 0) d.primary_active = false;
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxRelease)

BANKCHECK_API CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  return query([&](Driver& d) {
    if (const CUresult e = check_device(dev)) return e;
    d.primary_flags = flags;
    d.primary.flags = flags;
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuDevicePrimaryCtxSetFlags_v2, cuDevicePrimaryCtxSetFlags)

BANKCHECK_API CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  return query([&](Driver& d) {
    if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    *flags = d.primary_flags;
    *active = d.primary_active ? 1 : 0;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  // A fault stays: on a GPU the process must end to clear it.
  return call([&](Driver& d) {
    if (const CUresult e = check_device(dev)) return e;
    flush_device_output(d);
    reset_primary_context(d);
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuDevicePrimaryCtxReset_v2, cuDevicePrimaryCtxReset)

BANKCHECK_API CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
  return call([&](Driver& d) {
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    *pctx = reinterpret_cast<CUcontext>(make_context(d, flags));
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuCtxCreate_v2, cuCtxCreate)

BANKCHECK_API CUresult cuCtxCreate_v3(CUcontext* pctx, CUexecAffinityParam*, int numParams,
                                      unsigned int flags, CUdevice dev) {
  if (numParams > 0) return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
  return cuCtxCreate_v2(pctx, flags, dev);
}

BANKCHECK_API CUresult cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams* params,
                                      unsigned int flags, CUdevice dev) {
  if (params && (params->numExecAffinityParams > 0 || params->cigParams))
    return CUDA_ERROR_NOT_SUPPORTED;
  return cuCtxCreate_v2(pctx, flags, dev);
}

BANKCHECK_API CUresult cuCtxDestroy_v2(CUcontext ctx) {
  return query([&](Driver& d) {
    auto* c = reinterpret_cast<Context*>(ctx);
    if (!d.contexts.contains(c)) return CUDA_ERROR_INVALID_CONTEXT;
    flush_device_output(d);
    destroy_local_storage(*c);
    std::vector<Context*>& stack = Driver::context_stack();
    std::erase(stack, c);
    d.contexts.erase(c);
    delete c;
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuCtxDestroy_v2, cuCtxDestroy)

BANKCHECK_API CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  return query([&](Driver& d) {
    if (!d.valid_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    Driver::context_stack().push_back(reinterpret_cast<Context*>(ctx));
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuCtxPushCurrent_v2, cuCtxPushCurrent)

BANKCHECK_API CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  return query([&](Driver&) {
    std::vector<Context*>& stack = Driver::context_stack();
    if (stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
    if (pctx) *pctx = reinterpret_cast<CUcontext>(stack.back());
    stack.pop_back();
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuCtxPopCurrent_v2, cuCtxPopCurrent)

BANKCHECK_API CUresult cuCtxSetCurrent(CUcontext ctx) {
  return query([&](Driver& d) {
    std::vector<Context*>& stack = Driver::context_stack();
    if (!ctx) {
      if (!stack.empty()) stack.pop_back();
      return CUDA_SUCCESS;
    }
    if (!d.valid_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    if (stack.empty())
      stack.push_back(reinterpret_cast<Context*>(ctx));
    else
      stack.back() = reinterpret_cast<Context*>(ctx);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuCtxGetCurrent(CUcontext* pctx) {
  return query([&](Driver&) {
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    const std::vector<Context*>& stack = Driver::context_stack();
    *pctx = stack.empty() ? nullptr : reinterpret_cast<CUcontext>(stack.back());
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuCtxGetDevice(CUdevice* device) {
  return in_context(
      [&](Driver&, Context& c) {
        if (!device) return CUDA_ERROR_INVALID_VALUE;
        *device = c.device;
        return CUDA_SUCCESS;
      },
      false);
}

BANKCHECK_API CUresult cuCtxGetDevice_v2(CUdevice* device, CUcontext ctx) {
  if (!ctx) return cuCtxGetDevice(device);
  return query([&](Driver& d) {
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (!d.valid_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    *device = reinterpret_cast<Context*>(ctx)->device;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuCtxGetFlags(unsigned int* flags) {
  return in_context(
      [&](Driver&, Context& c) {
        if (!flags) return CUDA_ERROR_INVALID_VALUE;
        *flags = c.flags;
        return CUDA_SUCCESS;
      },
      false);
}

BANKCHECK_API CUresult cuCtxSetFlags(unsigned int flags) {
  return in_context([&](Driver&, Context& c) {
    c.flags = flags;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuCtxGetId(CUcontext ctx, unsigned long long* ctxId) {
  return query([&](Driver& d) {
    if (!ctxId) return CUDA_ERROR_INVALID_VALUE;
    Context* c = ctx ? reinterpret_cast<Context*>(ctx) : d.current();
    if (!c || !d.valid_context(reinterpret_cast<CUcontext>(c))) return CUDA_ERROR_INVALID_CONTEXT;
    *ctxId = c->id;
    return CUDA_SUCCESS;
  });
}

// Everything finished when its call returned.
BANKCHECK_API CUresult cuCtxSynchronize() {
  at_synchronization();
  return in_context([&](Driver&, Context&) { return CUDA_SUCCESS; });
}

BANKCHECK_API CUresult cuCtxSynchronize_v2(CUcontext ctx) {
  if (!ctx) return cuCtxSynchronize();
  at_synchronization();
  return call(
      [&](Driver& d) { return d.valid_context(ctx) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; });
}

// cudaProfilerStart/Stop: a profiler's collection range. bankcheck analyses the launches its
// own options select whether or not a range is open, as Nsight Compute does by default
// (--profile-from-start on); in a context, the calls succeed and change nothing.
BANKCHECK_API CUresult cuProfilerStart() {
  return in_context([&](Driver&, Context&) { return CUDA_SUCCESS; });
}

BANKCHECK_API CUresult cuProfilerStop() {
  return in_context([&](Driver&, Context&) { return CUDA_SUCCESS; });
}

BANKCHECK_API CUresult cuCtxGetLimit(size_t* pvalue, CUlimit limit) {
  return in_context([&](Driver& d, Context&) {
    if (!pvalue) return CUDA_ERROR_INVALID_VALUE;
    const std::optional<std::size_t> v = default_limit(d, limit);
    if (!v) return CUDA_ERROR_UNSUPPORTED_LIMIT;
    const auto it = d.limits.find(limit);
    *pvalue = it == d.limits.end() ? *v : it->second;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  return in_context([&](Driver& d, Context&) {
    if (!default_limit(d, limit)) return CUDA_ERROR_UNSUPPORTED_LIMIT;
    if (limit == CU_LIMIT_SHMEM_SIZE || limit == CU_LIMIT_CIG_ENABLED)
      return CUDA_ERROR_INVALID_VALUE;  // read-only
    d.limits[limit] = value;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuCtxGetCacheConfig(CUfunc_cache* pconfig) {
  return in_context([&](Driver& d, Context&) {
    if (!pconfig) return CUDA_ERROR_INVALID_VALUE;
    *pconfig = d.cache_config;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuCtxSetCacheConfig(CUfunc_cache config) {
  return in_context([&](Driver& d, Context&) {
    if (config > CU_FUNC_CACHE_PREFER_EQUAL) return CUDA_ERROR_INVALID_VALUE;
    d.cache_config = config;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuCtxGetSharedMemConfig(CUsharedconfig* pConfig) {
  return in_context([&](Driver&, Context&) {
    if (!pConfig) return CUDA_ERROR_INVALID_VALUE;
    *pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
    return CUDA_SUCCESS;
  });
}

// Banks are four bytes wide from sm_50 on: the setting has no effect, as on the device.
BANKCHECK_API CUresult cuCtxSetSharedMemConfig(CUsharedconfig) {
  return in_context([&](Driver&, Context&) { return CUDA_SUCCESS; });
}

BANKCHECK_API CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) {
  return query([&](Driver& d) {
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    if (ctx && !d.valid_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    *version = 3020;  // contexts of the CUDA 3.2 API and later
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  return query([&](Driver&) {
    // Priorities 0 (least) to -5 (greatest) on sm_70 and later.
    if (leastPriority) *leastPriority = 0;
    if (greatestPriority) *greatestPriority = -5;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuCtxResetPersistingL2Cache() {
  return in_context([&](Driver&, Context&) { return CUDA_SUCCESS; });
}
