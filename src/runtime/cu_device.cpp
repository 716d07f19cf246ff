// The device: one, number 0, described by device_properties.cpp. Its attributes answer after
// a sticky error too, as on a GPU.
#include <strings.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "device_properties.hpp"
#include "driver.hpp"

using namespace bankcheck::runtime;

namespace {

CUresult check_device(CUdevice dev) { return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }

// "0000:01:00.0": domain, bus, device, function.
std::string pci_bus_id(const Driver& d) {
  char text[32];
  std::snprintf(
      text, sizeof text, "%04x:%02x:%02x.0",
      static_cast<unsigned>(*driver_attribute(d.device, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)),
      static_cast<unsigned>(*driver_attribute(d.device, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)),
      static_cast<unsigned>(*driver_attribute(d.device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)));
  return text;
}

}  // namespace

BANKCHECK_API CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  return query([&](Driver&) {
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceGetCount(int* count) {
  return query([&](Driver&) {
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  return query([&](Driver& d) {
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    std::snprintf(name, static_cast<std::size_t>(len), "%s", d.device.board.name);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  return query([&](Driver& d) {
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    const auto u = device_uuid(d.device);
    std::memcpy(uuid->bytes, u.data(), u.size());
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuDeviceGetUuid_v2, cuDeviceGetUuid)

BANKCHECK_API CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  return query([&](Driver& d) {
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    *bytes = d.device.board.global_bytes;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  return query([&](Driver& d) {
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    const std::optional<long long> v = driver_attribute(d.device, attrib);
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    *pi = static_cast<int>(*v);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  return query([&](Driver& d) {
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    *major = d.device.major();
    *minor = d.device.minor();
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceGetProperties(CUdevprop* prop, CUdevice dev) {
  return query([&](Driver& d) {
    if (!prop) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    auto a = [&](CUdevice_attribute attr) {
      return static_cast<int>(driver_attribute(d.device, attr).value_or(0));
    };
    prop->maxThreadsPerBlock = a(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    prop->maxThreadsDim[0] = a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    prop->maxThreadsDim[1] = a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    prop->maxThreadsDim[2] = a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    prop->maxGridSize[0] = a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    prop->maxGridSize[1] = a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    prop->maxGridSize[2] = a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    prop->sharedMemPerBlock = a(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    prop->totalConstantMemory = a(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    prop->SIMDWidth = a(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    prop->memPitch = a(CU_DEVICE_ATTRIBUTE_MAX_PITCH);
    prop->regsPerBlock = a(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    prop->clockRate = a(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    prop->textureAlign = a(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceGetPCIBusId(char* pciBusId, int len, CUdevice dev) {
  return query([&](Driver& d) {
    if (!pciBusId || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    std::snprintf(pciBusId, static_cast<std::size_t>(len), "%s", pci_bus_id(d).c_str());
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceGetByPCIBusId(CUdevice* dev, const char* pciBusId) {
  return query([&](Driver& d) {
    if (!dev || !pciBusId) return CUDA_ERROR_INVALID_VALUE;
    const std::string ours = pci_bus_id(d);
    // The domain may be left out ("01:00.0").
    if (strcasecmp(ours.c_str(), pciBusId) != 0 && strcasecmp(ours.c_str() + 5, pciBusId) != 0)
      return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev) {
  return query([&](Driver&) {
    if (!canAccessPeer) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    if (const CUresult e = check_device(peerDev)) return e;
    *canAccessPeer = 0;  // one device: no peer
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceGetP2PAttribute(int* value, CUdevice_P2PAttribute, CUdevice src,
                                               CUdevice dst) {
  return query([&](Driver&) {
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(src)) return e;
    if (const CUresult e = check_device(dst)) return e;
    // The real driver refuses a device paired with itself.
    return CUDA_ERROR_INVALID_DEVICE;
  });
}

BANKCHECK_API CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t* maxWidthInElements,
                                                          CUarray_format, unsigned numChannels,
                                                          CUdevice dev) {
  return query([&](Driver& d) {
    if (!maxWidthInElements || numChannels == 0 || numChannels > 4) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    *maxWidthInElements = static_cast<size_t>(
        driver_attribute(d.device, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH).value_or(0));
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceGetExecAffinitySupport(int* pi, CUexecAffinityType, CUdevice dev) {
  return query([&](Driver&) {
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    *pi = 0;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool_out, CUdevice dev) {
  return query([&](Driver& d) {
    if (!pool_out) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_device(dev)) return e;
    *pool_out = reinterpret_cast<CUmemoryPool>(&d.default_pool);
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuDeviceGetDefaultMemPool, cuDeviceGetMemPool)

BANKCHECK_API CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  return call([&](Driver& d) {
    if (const CUresult e = check_device(dev)) return e;
    // One pool serves every allocation here: any valid pool is accepted.
    return d.pool(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  });
}

BANKCHECK_API CUresult cuDeviceGraphMemTrim(CUdevice dev) {
  return call([&](Driver&) { return check_device(dev); });
}
