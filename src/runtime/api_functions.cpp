// A kernel's attributes and what it may be launched with: cudaFuncGetAttributes (the
// executor's reading of the cubin plus what the program set), cudaFuncSetAttribute, the cache
// and bank settings (accepted: one shared-memory configuration exists), and the occupancy
// calculator (kernels.hpp, on the project's occupancy model).
#include <algorithm>

#include "kernels.hpp"
#include "runtime.hpp"

using namespace bankcheck::runtime;

namespace {

cudaError_t set_attribute(Runtime& rt, const void* func, cudaFuncAttribute attr, int value) {
  Kernel* k = rt.kernel(func);
  if (!k) return cudaErrorInvalidDeviceFunction;
  const FunctionAttributes a = rt.attributes(*k);
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: {
      const long long most = static_cast<long long>(rt.device.sm.shared_per_block_optin) -
                             static_cast<long long>(a.static_shared_bytes);
      if (value < 0 || value > most) return cudaErrorInvalidValue;
      k->max_dynamic_shared = value;
      return cudaSuccess;
    }
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100) return cudaErrorInvalidValue;
      k->carveout = value;
      return cudaSuccess;
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
      if (value < 0) return cudaErrorInvalidValue;
      k->required_cluster[attr - cudaFuncAttributeRequiredClusterWidth] = value;
      return cudaSuccess;
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
      k->non_portable_cluster = value != 0;
      return cudaSuccess;
    case cudaFuncAttributeClusterDimMustBeSet:
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
      return cudaSuccess;
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t active_blocks(Runtime& rt, int* numBlocks, const void* func, int blockSize,
                          size_t dynamicSMemSize, unsigned int flags) {
  if (!numBlocks || blockSize <= 0 ||
      (flags & ~static_cast<unsigned>(cudaOccupancyDisableCachingOverride)))
    return cudaErrorInvalidValue;
  Kernel* k = rt.kernel(func);
  if (!k) return cudaErrorInvalidDeviceFunction;
  const FunctionAttributes a = rt.attributes(*k);
  *numBlocks = 0;
  if (dynamicSMemSize > static_cast<std::size_t>(max_dynamic_shared(rt, *k, a)) ||
      blockSize > max_threads_per_block(rt, a))
    return cudaSuccess;
  const bankcheck::model::Occupancy occ = occupancy(rt, *k, a, blockSize, dynamicSMemSize);
  if (occ.ok()) *numBlocks = occ.blocks_per_sm;
  return cudaSuccess;
}

}  // namespace

BANKCHECK_API cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  return call([&](Runtime& rt) {
    if (!attr) return cudaErrorInvalidValue;
    Kernel* k = rt.kernel(func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    const FunctionAttributes a = rt.attributes(*k);
    *attr = cudaFuncAttributes{};
    attr->sharedSizeBytes = a.static_shared_bytes;
    attr->constSizeBytes = a.const_bytes;
    attr->localSizeBytes = a.local_bytes;
    attr->maxThreadsPerBlock = max_threads_per_block(rt, a);
    attr->numRegs = a.registers_per_thread;
    attr->ptxVersion = a.ptx_version;
    attr->binaryVersion = a.binary_version;
    attr->maxDynamicSharedSizeBytes = max_dynamic_shared(rt, *k, a);
    attr->preferredShmemCarveout = k->carveout;
    attr->requiredClusterWidth = k->required_cluster[0];
    attr->requiredClusterHeight = k->required_cluster[1];
    attr->requiredClusterDepth = k->required_cluster[2];
    attr->nonPortableClusterSizeAllowed = k->non_portable_cluster;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr,
                                               int value) {
  return call([&](Runtime& rt) { return set_attribute(rt, func, attr, value); });
}

BANKCHECK_API cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel,
                                                          cudaFuncAttribute attr, int value,
                                                          int device) {
  return call([&](Runtime& rt) {
    if (device != 0) return cudaErrorInvalidDevice;
    return set_attribute(rt, kernel, attr, value);
  });
}

BANKCHECK_API cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache) {
  return call(
      [&](Runtime& rt) { return rt.kernel(func) ? cudaSuccess : cudaErrorInvalidDeviceFunction; });
}

BANKCHECK_API cudaError_t cudaFuncSetSharedMemConfig(const void* func, cudaSharedMemConfig) {
  return call(
      [&](Runtime& rt) { return rt.kernel(func) ? cudaSuccess : cudaErrorInvalidDeviceFunction; });
}

BANKCHECK_API cudaError_t cudaFuncGetName(const char** name, const void* func) {
  return call([&](Runtime& rt) {
    if (!name) return cudaErrorInvalidValue;
    const Kernel* k = rt.kernel(func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    *name = k->device_name.c_str();
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* numBlocks, const void* func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
  return call([&](Runtime& rt) {
    return active_blocks(rt, numBlocks, func, blockSize, dynamicSMemSize, flags);
  });
}

BANKCHECK_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks,
                                                                        const void* func,
                                                                        int blockSize,
                                                                        size_t dynamicSMemSize) {
  return call([&](Runtime& rt) {
    return active_blocks(rt, numBlocks, func, blockSize, dynamicSMemSize, cudaOccupancyDefault);
  });
}

// The most dynamic shared memory a block may have with `numBlocks` blocks of `blockSize`
// threads resident on one SM: the largest amount the occupancy model still fits, up to the
// device's opt-in limit per block.
BANKCHECK_API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize,
                                                                    const void* func, int numBlocks,
                                                                    int blockSize) {
  return call([&](Runtime& rt) {
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0) return cudaErrorInvalidValue;
    Kernel* k = rt.kernel(func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    const FunctionAttributes a = rt.attributes(*k);
    auto fits = [&](std::size_t bytes) {
      const bankcheck::model::Occupancy occ = occupancy(rt, *k, a, blockSize, bytes);
      return occ.ok() && occ.blocks_per_sm >= numBlocks;
    };
    *dynamicSmemSize = 0;
    std::size_t lo = 0, hi = static_cast<std::size_t>(
                            std::max(0, static_cast<int>(rt.device.sm.shared_per_block_optin) -
                                            static_cast<int>(a.static_shared_bytes)));
    if (!fits(0)) return cudaSuccess;
    while (lo < hi) {  // the largest `bytes` in [lo, hi] that fits
      const std::size_t mid = lo + (hi - lo + 1) / 2;
      if (fits(mid))
        lo = mid;
      else
        hi = mid - 1;
    }
    *dynamicSmemSize = lo;
    return cudaSuccess;
  });
}
