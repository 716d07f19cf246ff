// Device management: one device, number 0, described by device_properties.cpp; its flags,
// limits and cache settings, kept as the program sets them; synchronisation (everything has
// finished when a call returns) and reset.
#include <strings.h>

#include <cstdio>
#include <string>

#include "device_properties.hpp"
#include "memory.hpp"
#include "runtime.hpp"

using namespace bankcheck::runtime;

namespace {

cudaError_t check_device(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

// The defaults of cudaDeviceGetLimit on sm_90 (CUDA Runtime API, cudaDeviceSetLimit: 1 MB
// printf FIFO, 8 MB heap; 1 KB stack per thread; 2 levels and 2048 pending launches of
// dynamic parallelism; the L2 fetch granularity and persisting size as unset).
std::optional<std::size_t> default_limit(cudaLimit limit) {
  switch (limit) {
    case cudaLimitStackSize:
      return 1024;
    case cudaLimitPrintfFifoSize:
      return 1048576;
    case cudaLimitMallocHeapSize:
      return 8388608;
    case cudaLimitDevRuntimeSyncDepth:
      return 2;
    case cudaLimitDevRuntimePendingLaunchCount:
      return 2048;
    case cudaLimitMaxL2FetchGranularity:
      return 32;
    case cudaLimitPersistingL2CacheSize:
      return 0;
    default:
      return std::nullopt;
  }
}

// "0000:01:00.0": domain, bus, device, function.
std::string pci_bus_id(const Runtime& rt) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.0",
                static_cast<unsigned>(*device_attribute(rt.device, cudaDevAttrPciDomainId)),
                static_cast<unsigned>(*device_attribute(rt.device, cudaDevAttrPciBusId)),
                static_cast<unsigned>(*device_attribute(rt.device, cudaDevAttrPciDeviceId)));
  return text;
}

}  // namespace

BANKCHECK_API cudaError_t cudaGetDeviceCount(int* count) {
  return query([&](Runtime&) {
    if (!count) return cudaErrorInvalidValue;
    *count = 1;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaGetDevice(int* device) {
  return query([&](Runtime&) {
    if (!device) return cudaErrorInvalidValue;
    *device = 0;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaSetDevice(int device) {
  return query([&](Runtime&) { return check_device(device); });
}

BANKCHECK_API cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) {
  return query([&](Runtime&) { return check_device(device); });
}

BANKCHECK_API cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  return query([&](Runtime&) {
    if (!device || !prop) return cudaErrorInvalidValue;
    *device = 0;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  return query([&](Runtime& rt) {
    if (!prop) return cudaErrorInvalidValue;
    if (const cudaError_t e = check_device(device)) return e;
    fill_properties(rt.device, *prop);
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  return query([&](Runtime& rt) {
    if (!value) return cudaErrorInvalidValue;
    if (const cudaError_t e = check_device(device)) return e;
    const std::optional<long long> v = device_attribute(rt.device, attr);
    if (!v) return cudaErrorInvalidValue;
    *value = static_cast<int>(*v);
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  return query([&](Runtime& rt) {
    if (!pciBusId || len <= 0) return cudaErrorInvalidValue;
    if (const cudaError_t e = check_device(device)) return e;
    std::snprintf(pciBusId, static_cast<std::size_t>(len), "%s", pci_bus_id(rt).c_str());
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* pciBusId) {
  return query([&](Runtime& rt) {
    if (!device || !pciBusId) return cudaErrorInvalidValue;
    const std::string ours = pci_bus_id(rt);
    // The domain may be left out ("01:00.0").
    if (strcasecmp(ours.c_str(), pciBusId) != 0 && strcasecmp(ours.c_str() + 5, pciBusId) != 0)
      return cudaErrorInvalidDevice;
    *device = 0;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  return call([&](Runtime& rt) {
    rt.device_flags = static_cast<int>(flags);
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  return call([&](Runtime& rt) {
    if (!flags) return cudaErrorInvalidValue;
    // Host memory is always mapped here.
    *flags = static_cast<unsigned>(rt.device_flags) | cudaDeviceMapHost;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  return call([&](Runtime& rt) {
    if (!value) return cudaErrorInvalidValue;
    const std::optional<std::size_t> d = default_limit(limit);
    if (!d) return cudaErrorUnsupportedLimit;
    const auto it = rt.limits.find(limit);
    *value = it == rt.limits.end() ? *d : it->second;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  return call([&](Runtime& rt) {
    if (!default_limit(limit)) return cudaErrorUnsupportedLimit;
    rt.limits[limit] = value;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  return call([&](Runtime&) {
    if (!config) return cudaErrorInvalidValue;
    *config = cudaFuncCachePreferNone;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) {
  return call([&](Runtime&) { return cudaSuccess; });
}

BANKCHECK_API cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config) {
  return call([&](Runtime&) {
    if (!config) return cudaErrorInvalidValue;
    *config = cudaSharedMemBankSizeFourByte;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) {
  return call([&](Runtime&) { return cudaSuccess; });
}

// Priorities 0 (least) to -5 (greatest), the range of cc 7.0 and later.
BANKCHECK_API cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  return call([&](Runtime&) {
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return cudaSuccess;
  });
}

// Everything the program asked for has finished by the time each call returns.
BANKCHECK_API cudaError_t cudaDeviceSynchronize() {
  return call([&](Runtime&) { return cudaSuccess; });
}

// Frees every allocation, destroys streams and events, forgets function attributes and
// limits, and gives variables their initial contents. A sticky error stays: on a GPU the
// process must end (docs/runtime.md).
BANKCHECK_API cudaError_t cudaDeviceReset() {
  return call([&](Runtime& rt) {
    release_all_memory(rt);
    for (Stream* s : rt.streams) delete s;
    rt.streams.clear();
    for (Event* e : rt.events) delete e;
    rt.events.clear();
    for (auto& [host, k] : rt.kernels) {
      k.max_dynamic_shared = -1;
      k.carveout = -1;
    }
    rt.limits.clear();
    rt.device_flags = 0;
    if (Executor* ex = rt.executor()) ex->device_reset();
    return cudaSuccess;
  });
}
