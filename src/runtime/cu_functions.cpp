// A function's attributes and what it may be launched with: cuFuncGetAttribute (the
// executor's reading of the cubin plus what the program set), cuFuncSetAttribute and the
// CUkernel forms, the cache and bank settings (accepted: one shared-memory configuration
// exists), and the occupancy calculator (kernels.hpp, on the project's occupancy model).
#include <algorithm>

#include "driver.hpp"
#include "kernels.hpp"

using namespace bankcheck::runtime;

namespace {

CUresult get_attribute(const Driver& d, int* pi, CUfunction_attribute attrib, const Function& f) {
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  const FunctionAttributes a = attributes_of(f);
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *pi = max_threads_per_block(d, f);
      break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
      *pi = static_cast<int>(a.static_shared_bytes);
      break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
      *pi = static_cast<int>(a.const_bytes);
      break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *pi = static_cast<int>(a.local_bytes);
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *pi = a.registers_per_thread;
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
      *pi = a.ptx_version;
      break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *pi = a.binary_version;
      break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
      *pi = 0;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *pi = max_dynamic_shared(d, f);
      break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      *pi = f.carveout;
      break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
      *pi = 0;
      break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
      *pi = f.required_cluster[attrib - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH];
      break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      *pi = f.non_portable_cluster ? 1 : 0;
      break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      *pi = f.cluster_scheduling;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult set_attribute(const Driver& d, Function& f, CUfunction_attribute attrib, int value) {
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: {
      const long long most = static_cast<long long>(d.device.sm.shared_per_block_optin) -
                             static_cast<long long>(attributes_of(f).static_shared_bytes);
      if (value < 0 || value > most) return CUDA_ERROR_INVALID_VALUE;
      f.max_dynamic_shared = value;
      return CUDA_SUCCESS;
    }
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
      f.carveout = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
      if (value < 0) return CUDA_ERROR_INVALID_VALUE;
      f.required_cluster[attrib - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH] = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      f.non_portable_cluster = value != 0;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      f.cluster_scheduling = value;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult active_blocks(const Driver& d, int* numBlocks, const Function& f, int blockSize,
                       size_t dynamicSMemSize) {
  if (!numBlocks || blockSize <= 0) return CUDA_ERROR_INVALID_VALUE;
  *numBlocks = 0;
  if (dynamicSMemSize > static_cast<std::size_t>(max_dynamic_shared(d, f)) ||
      blockSize > max_threads_per_block(d, f))
    return CUDA_SUCCESS;
  const bankcheck::model::Occupancy occ = occupancy(d, f, blockSize, dynamicSMemSize);
  if (occ.ok()) *numBlocks = occ.blocks_per_sm;
  return CUDA_SUCCESS;
}

// The block size with the most resident threads per SM (the largest among equals), and the
// grid that fills the device with it: the CUDA runtime header's own search, over multiples of
// the warp size.
CUresult potential_block_size(const Driver& d, int* minGridSize, int* blockSize, const Function& f,
                              CUoccupancyB2DSize shared_of, std::size_t dynamic, int limit) {
  if (!minGridSize || !blockSize) return CUDA_ERROR_INVALID_VALUE;
  const int warp = d.device.sm.warp_size;
  int most = max_threads_per_block(d, f);
  if (limit > 0) most = std::min(most, limit);
  int best_block = 0, best_blocks = 0, best_threads = 0;
  for (int block = (most + warp - 1) / warp * warp; block > 0; block -= warp) {
    const int threads = std::min(block, most);
    const std::size_t shared = shared_of ? shared_of(threads) : dynamic;
    int blocks = 0;
    active_blocks(d, &blocks, f, threads, shared);
    if (blocks * threads > best_threads) {
      best_threads = blocks * threads;
      best_blocks = blocks;
      best_block = threads;
    }
  }
  *blockSize = best_block;
  *minGridSize = best_blocks * d.device.board.sm_count;
  return CUDA_SUCCESS;
}

template <class Body>
CUresult with_function(CUfunction hfunc, Body&& body) {
  return call([&](Driver& d) {
    Function* f = d.function(hfunc);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    return body(d, *f);
  });
}

}  // namespace

BANKCHECK_API CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
  return with_function(hfunc,
                       [&](Driver& d, Function& f) { return get_attribute(d, pi, attrib, f); });
}

BANKCHECK_API CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
                                          int value) {
  return with_function(hfunc,
                       [&](Driver& d, Function& f) { return set_attribute(d, f, attrib, value); });
}

BANKCHECK_API CUresult cuKernelGetAttribute(int* pi, CUfunction_attribute attrib, CUkernel kernel,
                                            CUdevice dev) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncGetAttribute(pi, attrib, reinterpret_cast<CUfunction>(kernel));
}

BANKCHECK_API CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel,
                                            CUdevice dev) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetAttribute(reinterpret_cast<CUfunction>(kernel), attrib, val);
}

BANKCHECK_API CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
  return with_function(hfunc, [&](Driver&, Function& f) {
    if (config > CU_FUNC_CACHE_PREFER_EQUAL) return CUDA_ERROR_INVALID_VALUE;
    f.cache = config;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetCacheConfig(reinterpret_cast<CUfunction>(kernel), config);
}

// Banks are four bytes wide from sm_50 on: the setting has no effect, as on the device.
BANKCHECK_API CUresult cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig) {
  return with_function(hfunc, [&](Driver&, Function&) { return CUDA_SUCCESS; });
}

BANKCHECK_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
  return with_function(func, [&](Driver& d, Function& f) {
    if (flags & ~static_cast<unsigned>(CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
      return CUDA_ERROR_INVALID_VALUE;
    return active_blocks(d, numBlocks, f, blockSize, dynamicSMemSize);
  });
}

BANKCHECK_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                              dynamicSMemSize, 0);
}

BANKCHECK_API CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(
    int* minGridSize, int* blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit,
    unsigned int flags) {
  return with_function(func, [&](Driver& d, Function& f) {
    if (flags & ~static_cast<unsigned>(CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
      return CUDA_ERROR_INVALID_VALUE;
    return potential_block_size(d, minGridSize, blockSize, f, blockSizeToDynamicSMemSize,
                                dynamicSMemSize, blockSizeLimit);
  });
}

BANKCHECK_API CUresult cuOccupancyMaxPotentialBlockSize(
    int* minGridSize, int* blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(
      minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, 0);
}

// The most dynamic shared memory a block may have with `numBlocks` blocks of `blockSize`
// threads resident on one SM: the largest amount the occupancy model still fits, up to the
// device's opt-in limit per block.
BANKCHECK_API CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize,
                                                               CUfunction func, int numBlocks,
                                                               int blockSize) {
  return with_function(func, [&](Driver& d, Function& f) {
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0) return CUDA_ERROR_INVALID_VALUE;
    auto fits = [&](std::size_t bytes) {
      const bankcheck::model::Occupancy occ = occupancy(d, f, blockSize, bytes);
      return occ.ok() && occ.blocks_per_sm >= numBlocks;
    };
    *dynamicSmemSize = 0;
    std::size_t lo = 0, hi = static_cast<std::size_t>(std::max(
                            0, static_cast<int>(d.device.sm.shared_per_block_optin) -
                                   static_cast<int>(attributes_of(f).static_shared_bytes)));
    if (!fits(0)) return CUDA_SUCCESS;
    while (lo < hi) {  // the largest `bytes` in [lo, hi] that fits
      const std::size_t mid = lo + (hi - lo + 1) / 2;
      if (fits(mid))
        lo = mid;
      else
        hi = mid - 1;
    }
    *dynamicSmemSize = lo;
    return CUDA_SUCCESS;
  });
}

namespace {

// The launch's cluster size: its cluster attribute, else the function's required cluster.
int cluster_size(const CUlaunchConfig& config, const Function& f) {
  for (unsigned i = 0; i < config.numAttrs; ++i)
    if (config.attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      const auto& c = config.attrs[i].value.clusterDim;
      return static_cast<int>(c.x * c.y * c.z);
    }
  int size = 1;
  for (const int dim : f.required_cluster) size *= dim > 0 ? dim : 1;
  return size;
}

}  // namespace

// The clusters of this launch that fit on the device at once: its blocks per SM over all the
// SMs, in whole clusters. (The device places a cluster within one GPC; the SMs' split into GPCs
// is not modelled, so this is an upper bound where a GPC's SMs do not divide evenly.)
BANKCHECK_API CUresult cuOccupancyMaxActiveClusters(int* numClusters, CUfunction func,
                                                    const CUlaunchConfig* config) {
  return with_function(func, [&](Driver& d, Function& f) {
    if (!numClusters || !config || (config->numAttrs && !config->attrs))
      return CUDA_ERROR_INVALID_VALUE;
    const int size = cluster_size(*config, f);
    const int most = f.non_portable_cluster ? 16 : 8;
    *numClusters = 0;
    if (d.device.sm.cc < 90 || size > most) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    const int threads = static_cast<int>(config->blockDimX * config->blockDimY * config->blockDimZ);
    int blocks = 0;
    if (const CUresult e = active_blocks(d, &blocks, f, threads, config->sharedMemBytes)) return e;
    *numClusters = blocks * d.device.board.sm_count / size;
    return CUDA_SUCCESS;
  });
}

// The largest cluster this launch may use: 8 blocks (16 with the non-portable opt-in) on sm_90
// and later, when one block of it fits on an SM at all.
BANKCHECK_API CUresult cuOccupancyMaxPotentialClusterSize(int* clusterSize, CUfunction func,
                                                          const CUlaunchConfig* config) {
  return with_function(func, [&](Driver& d, Function& f) {
    if (!clusterSize || !config) return CUDA_ERROR_INVALID_VALUE;
    const int threads = static_cast<int>(config->blockDimX * config->blockDimY * config->blockDimZ);
    int blocks = 0;
    if (const CUresult e = active_blocks(d, &blocks, f, threads, config->sharedMemBytes)) return e;
    *clusterSize = d.device.sm.cc >= 90 && blocks > 0 ? (f.non_portable_cluster ? 16 : 8) : 0;
    return CUDA_SUCCESS;
  });
}
