// What the device reports: cudaDeviceGetAttribute's value for every attribute, and
// cudaDeviceProp built from those same values, so that the two never disagree.
#include "device_properties.hpp"

#include <algorithm>
#include <cstring>

namespace bankcheck::runtime {

namespace {

// Texture and surface limits: the same on every architecture from 7.0 to 12.x (CUDA C++
// Programming Guide, "Technical Specifications per Compute Capability"; the H100's
// deviceQuery prints the 1D, 2D, 3D and layered ones).
constexpr int kTex1D = 131072, kTex2DW = 131072, kTex2DH = 65536, kTex3D = 16384;
constexpr int kLayered = 32768, kLayers = 2048, kCubemap = 32768, kCubemapLayers = 2046;

// Single- to double-precision throughput per SM and clock (the Programming Guide's
// "Arithmetic Instructions" table): 64:32 on 7.0 and 8.0, 128:64 on 9.0, 64:2 on 7.5, 128:2
// on 8.6, 8.9 and 12.x.
int single_to_double_ratio(int cc) {
  switch (cc) {
    case 70:
    case 80:
    case 90:
      return 2;
    case 75:
      return 32;
    default:
      return 64;
  }
}

}  // namespace

std::optional<long long> device_attribute(const DeviceProfile& d, cudaDeviceAttr attr) {
  const model::SmLimits& sm = d.sm;
  const BoardNumbers& b = d.board;
  const bool ampere = sm.cc >= 80, hopper = sm.cc >= 90;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      return sm.max_threads_per_block;
    case cudaDevAttrMaxBlockDimX:
      return 1024;
    case cudaDevAttrMaxBlockDimY:
      return 1024;
    case cudaDevAttrMaxBlockDimZ:
      return 64;
    case cudaDevAttrMaxGridDimX:
      return 2147483647;
    case cudaDevAttrMaxGridDimY:
      return 65535;
    case cudaDevAttrMaxGridDimZ:
      return 65535;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      return sm.shared_per_block;
    case cudaDevAttrTotalConstantMemory:
      return 65536;
    case cudaDevAttrWarpSize:
      return sm.warp_size;
    case cudaDevAttrMaxPitch:
      return 2147483647;
    case cudaDevAttrMaxRegistersPerBlock:
      return sm.max_registers_per_block;
    case cudaDevAttrClockRate:
      return b.clock_khz;
    case cudaDevAttrTextureAlignment:
      return 512;
    case cudaDevAttrGpuOverlap:
      return 1;
    case cudaDevAttrMultiProcessorCount:
      return b.sm_count;
    case cudaDevAttrKernelExecTimeout:
      return 0;
    case cudaDevAttrIntegrated:
      return b.integrated;
    case cudaDevAttrCanMapHostMemory:
      return 1;
    case cudaDevAttrComputeMode:
      return cudaComputeModeDefault;
    case cudaDevAttrMaxTexture1DWidth:
      return kTex1D;
    case cudaDevAttrMaxTexture2DWidth:
      return kTex2DW;
    case cudaDevAttrMaxTexture2DHeight:
      return kTex2DH;
    case cudaDevAttrMaxTexture3DWidth:
    case cudaDevAttrMaxTexture3DHeight:
    case cudaDevAttrMaxTexture3DDepth:
      return kTex3D;
    case cudaDevAttrMaxTexture2DLayeredWidth:
    case cudaDevAttrMaxTexture2DLayeredHeight:
      return kLayered;
    case cudaDevAttrMaxTexture2DLayeredLayers:
      return kLayers;
    case cudaDevAttrSurfaceAlignment:
      return 512;
    case cudaDevAttrConcurrentKernels:
      return 1;
    case cudaDevAttrEccEnabled:
      return b.ecc;
    case cudaDevAttrPciBusId:
      return 1;
    case cudaDevAttrPciDeviceId:
      return 0;
    case cudaDevAttrTccDriver:
      return 0;
    case cudaDevAttrMemoryClockRate:
      return b.memory_clock_khz;
    case cudaDevAttrGlobalMemoryBusWidth:
      return b.memory_bus_bits;
    case cudaDevAttrL2CacheSize:
      return b.l2_bytes;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      return d.max_threads_per_sm();
    case cudaDevAttrAsyncEngineCount:
      return b.copy_engines;
    case cudaDevAttrUnifiedAddressing:
      return 1;
    case cudaDevAttrMaxTexture1DLayeredWidth:
      return kLayered;
    case cudaDevAttrMaxTexture1DLayeredLayers:
      return kLayers;
    case cudaDevAttrMaxTexture2DGatherWidth:
    case cudaDevAttrMaxTexture2DGatherHeight:
      return kLayered;
    case cudaDevAttrMaxTexture3DWidthAlt:
    case cudaDevAttrMaxTexture3DHeightAlt:
      return 8192;
    case cudaDevAttrMaxTexture3DDepthAlt:
      return 32768;
    case cudaDevAttrPciDomainId:
      return 0;
    case cudaDevAttrTexturePitchAlignment:
      return 32;
    case cudaDevAttrMaxTextureCubemapWidth:
      return kCubemap;
    case cudaDevAttrMaxTextureCubemapLayeredWidth:
      return kCubemap;
    case cudaDevAttrMaxTextureCubemapLayeredLayers:
      return kCubemapLayers;
    case cudaDevAttrMaxSurface1DWidth:
      return kLayered;
    case cudaDevAttrMaxSurface2DWidth:
      return kTex2DW;
    case cudaDevAttrMaxSurface2DHeight:
      return kTex2DH;
    case cudaDevAttrMaxSurface3DWidth:
    case cudaDevAttrMaxSurface3DHeight:
    case cudaDevAttrMaxSurface3DDepth:
      return kTex3D;
    case cudaDevAttrMaxSurface1DLayeredWidth:
      return kLayered;
    case cudaDevAttrMaxSurface1DLayeredLayers:
      return kLayers;
    case cudaDevAttrMaxSurface2DLayeredWidth:
    case cudaDevAttrMaxSurface2DLayeredHeight:
      return kLayered;
    case cudaDevAttrMaxSurface2DLayeredLayers:
      return kLayers;
    case cudaDevAttrMaxSurfaceCubemapWidth:
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth:
      return kCubemap;
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers:
      return kCubemapLayers;
    case cudaDevAttrMaxTexture1DLinearWidth:
      return 268435456;
    case cudaDevAttrMaxTexture2DLinearWidth:
      return 131072;
    case cudaDevAttrMaxTexture2DLinearHeight:
      return 65000;
    case cudaDevAttrMaxTexture2DLinearPitch:
      return 2097120;
    case cudaDevAttrMaxTexture2DMipmappedWidth:
    case cudaDevAttrMaxTexture2DMipmappedHeight:
      return kLayered;
    case cudaDevAttrComputeCapabilityMajor:
      return d.major();
    case cudaDevAttrComputeCapabilityMinor:
      return d.minor();
    case cudaDevAttrMaxTexture1DMipmappedWidth:
      return kLayered;
    case cudaDevAttrStreamPrioritiesSupported:
      return 1;
    case cudaDevAttrGlobalL1CacheSupported:
      return 1;
    case cudaDevAttrLocalL1CacheSupported:
      return 1;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      return sm.shared_per_sm;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      return sm.registers_per_sm;
    case cudaDevAttrManagedMemory:
      return 1;
    case cudaDevAttrIsMultiGpuBoard:
      return 0;
    case cudaDevAttrMultiGpuBoardGroupID:
      return 0;
    // Host and device do not share atomics or page tables here: a kernel sees only memory
    // the program allocated or registered through this runtime.
    case cudaDevAttrHostNativeAtomicSupported:
      return 0;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
      return single_to_double_ratio(sm.cc);
    case cudaDevAttrPageableMemoryAccess:
      return 0;
    case cudaDevAttrConcurrentManagedAccess:
      return 1;
    case cudaDevAttrComputePreemptionSupported:
      return 1;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
      return 1;
    case cudaDevAttrCooperativeLaunch:
      return 1;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      return sm.shared_per_block_optin;
    case cudaDevAttrCanFlushRemoteWrites:
      return 0;
    case cudaDevAttrHostRegisterSupported:
      return 1;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
      return 0;
    case cudaDevAttrDirectManagedMemAccessFromHost:
      return 0;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      return sm.max_blocks_per_sm;
    // Persisting L2 lines: at most 3/4 of the L2 (the A100's 30 of 40 MB; the same fraction
    // is assumed on later boards); the access-policy window at most 128 MB - 4 KB (both from
    // cc 8.0).
    case cudaDevAttrMaxPersistingL2CacheSize:
      return ampere ? b.l2_bytes / 4 * 3 : 0;
    case cudaDevAttrMaxAccessPolicyWindowSize:
      return ampere ? 134213632 : 0;
    case cudaDevAttrReservedSharedMemoryPerBlock:
      return sm.reserved_shared_per_block;
    case cudaDevAttrSparseCudaArraySupported:
      return 1;
    case cudaDevAttrHostRegisterReadOnlySupported:
      return 1;
    case cudaDevAttrTimelineSemaphoreInteropSupported:
      return 1;
    case cudaDevAttrMemoryPoolsSupported:
      return 1;
    case cudaDevAttrGPUDirectRDMASupported:
      return 0;
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions:
      return 0;
    case cudaDevAttrGPUDirectRDMAWritesOrdering:
      return 0;
    case cudaDevAttrMemoryPoolSupportedHandleTypes:
      return 0;
    case cudaDevAttrClusterLaunch:
      return hopper;
    case cudaDevAttrDeferredMappingCudaArraySupported:
      return 1;
    case cudaDevAttrIpcEventSupport:
      return 0;
    case cudaDevAttrMemSyncDomainCount:
      return hopper ? 4 : 1;
    case cudaDevAttrNumaConfig:
      return cudaDeviceNumaConfigNone;
    case cudaDevAttrNumaId:
      return -1;
    case cudaDevAttrMpsEnabled:
      return 0;
    case cudaDevAttrHostNumaId:
      return -1;
    case cudaDevAttrD3D12CigSupported:
      return 0;
    case cudaDevAttrVulkanCigSupported:
      return 0;
    case cudaDevAttrGpuPciDeviceId:
      return 0;
    case cudaDevAttrGpuPciSubsystemId:
      return 0;
    case cudaDevAttrHostNumaMemoryPoolsSupported:
      return 0;
    case cudaDevAttrHostNumaMultinodeIpcSupported:
      return 0;
    case cudaDevAttrHostMemoryPoolsSupported:
      return 0;
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported:
      return 0;
    default:
      return std::nullopt;
  }
}

void fill_properties(const DeviceProfile& d, cudaDeviceProp& p) {
  std::memset(&p, 0, sizeof p);
  auto a = [&](cudaDeviceAttr attr) { return static_cast<int>(device_attribute(d, attr).value()); };
  std::strncpy(p.name, d.board.name, sizeof p.name - 1);
  // A fixed identifier per architecture: "bankcheck" and the compute capability.
  std::memcpy(p.uuid.bytes, "bankcheck-sm", 12);
  p.uuid.bytes[12] = static_cast<char>(d.sm.cc);
  p.totalGlobalMem = d.board.global_bytes;
  p.sharedMemPerBlock = static_cast<std::size_t>(a(cudaDevAttrMaxSharedMemoryPerBlock));
  p.regsPerBlock = a(cudaDevAttrMaxRegistersPerBlock);
  p.warpSize = a(cudaDevAttrWarpSize);
  p.memPitch = static_cast<std::size_t>(a(cudaDevAttrMaxPitch));
  p.maxThreadsPerBlock = a(cudaDevAttrMaxThreadsPerBlock);
  p.maxThreadsDim[0] = a(cudaDevAttrMaxBlockDimX);
  p.maxThreadsDim[1] = a(cudaDevAttrMaxBlockDimY);
  p.maxThreadsDim[2] = a(cudaDevAttrMaxBlockDimZ);
  p.maxGridSize[0] = a(cudaDevAttrMaxGridDimX);
  p.maxGridSize[1] = a(cudaDevAttrMaxGridDimY);
  p.maxGridSize[2] = a(cudaDevAttrMaxGridDimZ);
  p.totalConstMem = static_cast<std::size_t>(a(cudaDevAttrTotalConstantMemory));
  p.major = d.major();
  p.minor = d.minor();
  p.textureAlignment = static_cast<std::size_t>(a(cudaDevAttrTextureAlignment));
  p.texturePitchAlignment = static_cast<std::size_t>(a(cudaDevAttrTexturePitchAlignment));
  p.multiProcessorCount = a(cudaDevAttrMultiProcessorCount);
  p.integrated = a(cudaDevAttrIntegrated);
  p.canMapHostMemory = a(cudaDevAttrCanMapHostMemory);
  p.maxTexture1D = a(cudaDevAttrMaxTexture1DWidth);
  p.maxTexture1DMipmap = a(cudaDevAttrMaxTexture1DMipmappedWidth);
  p.maxTexture2D[0] = a(cudaDevAttrMaxTexture2DWidth);
  p.maxTexture2D[1] = a(cudaDevAttrMaxTexture2DHeight);
  p.maxTexture2DMipmap[0] = a(cudaDevAttrMaxTexture2DMipmappedWidth);
  p.maxTexture2DMipmap[1] = a(cudaDevAttrMaxTexture2DMipmappedHeight);
  p.maxTexture2DLinear[0] = a(cudaDevAttrMaxTexture2DLinearWidth);
  p.maxTexture2DLinear[1] = a(cudaDevAttrMaxTexture2DLinearHeight);
  p.maxTexture2DLinear[2] = a(cudaDevAttrMaxTexture2DLinearPitch);
  p.maxTexture2DGather[0] = a(cudaDevAttrMaxTexture2DGatherWidth);
  p.maxTexture2DGather[1] = a(cudaDevAttrMaxTexture2DGatherHeight);
  p.maxTexture3D[0] = a(cudaDevAttrMaxTexture3DWidth);
  p.maxTexture3D[1] = a(cudaDevAttrMaxTexture3DHeight);
  p.maxTexture3D[2] = a(cudaDevAttrMaxTexture3DDepth);
  p.maxTexture3DAlt[0] = a(cudaDevAttrMaxTexture3DWidthAlt);
  p.maxTexture3DAlt[1] = a(cudaDevAttrMaxTexture3DHeightAlt);
  p.maxTexture3DAlt[2] = a(cudaDevAttrMaxTexture3DDepthAlt);
  p.maxTextureCubemap = a(cudaDevAttrMaxTextureCubemapWidth);
  p.maxTexture1DLayered[0] = a(cudaDevAttrMaxTexture1DLayeredWidth);
  p.maxTexture1DLayered[1] = a(cudaDevAttrMaxTexture1DLayeredLayers);
  p.maxTexture2DLayered[0] = a(cudaDevAttrMaxTexture2DLayeredWidth);
  p.maxTexture2DLayered[1] = a(cudaDevAttrMaxTexture2DLayeredHeight);
  p.maxTexture2DLayered[2] = a(cudaDevAttrMaxTexture2DLayeredLayers);
  p.maxTextureCubemapLayered[0] = a(cudaDevAttrMaxTextureCubemapLayeredWidth);
  p.maxTextureCubemapLayered[1] = a(cudaDevAttrMaxTextureCubemapLayeredLayers);
  p.maxSurface1D = a(cudaDevAttrMaxSurface1DWidth);
  p.maxSurface2D[0] = a(cudaDevAttrMaxSurface2DWidth);
  p.maxSurface2D[1] = a(cudaDevAttrMaxSurface2DHeight);
  p.maxSurface3D[0] = a(cudaDevAttrMaxSurface3DWidth);
  p.maxSurface3D[1] = a(cudaDevAttrMaxSurface3DHeight);
  p.maxSurface3D[2] = a(cudaDevAttrMaxSurface3DDepth);
  p.maxSurface1DLayered[0] = a(cudaDevAttrMaxSurface1DLayeredWidth);
  p.maxSurface1DLayered[1] = a(cudaDevAttrMaxSurface1DLayeredLayers);
  p.maxSurface2DLayered[0] = a(cudaDevAttrMaxSurface2DLayeredWidth);
  p.maxSurface2DLayered[1] = a(cudaDevAttrMaxSurface2DLayeredHeight);
  p.maxSurface2DLayered[2] = a(cudaDevAttrMaxSurface2DLayeredLayers);
  p.maxSurfaceCubemap = a(cudaDevAttrMaxSurfaceCubemapWidth);
  p.maxSurfaceCubemapLayered[0] = a(cudaDevAttrMaxSurfaceCubemapLayeredWidth);
  p.maxSurfaceCubemapLayered[1] = a(cudaDevAttrMaxSurfaceCubemapLayeredLayers);
  p.surfaceAlignment = static_cast<std::size_t>(a(cudaDevAttrSurfaceAlignment));
  p.concurrentKernels = a(cudaDevAttrConcurrentKernels);
  p.ECCEnabled = a(cudaDevAttrEccEnabled);
  p.pciBusID = a(cudaDevAttrPciBusId);
  p.pciDeviceID = a(cudaDevAttrPciDeviceId);
  p.pciDomainID = a(cudaDevAttrPciDomainId);
  p.tccDriver = a(cudaDevAttrTccDriver);
  p.asyncEngineCount = a(cudaDevAttrAsyncEngineCount);
  p.unifiedAddressing = a(cudaDevAttrUnifiedAddressing);
  p.memoryBusWidth = a(cudaDevAttrGlobalMemoryBusWidth);
  p.l2CacheSize = a(cudaDevAttrL2CacheSize);
  p.persistingL2CacheMaxSize = a(cudaDevAttrMaxPersistingL2CacheSize);
  p.maxThreadsPerMultiProcessor = a(cudaDevAttrMaxThreadsPerMultiProcessor);
  p.streamPrioritiesSupported = a(cudaDevAttrStreamPrioritiesSupported);
  p.globalL1CacheSupported = a(cudaDevAttrGlobalL1CacheSupported);
  p.localL1CacheSupported = a(cudaDevAttrLocalL1CacheSupported);
  p.sharedMemPerMultiprocessor =
      static_cast<std::size_t>(a(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  p.regsPerMultiprocessor = a(cudaDevAttrMaxRegistersPerMultiprocessor);
  p.managedMemory = a(cudaDevAttrManagedMemory);
  p.isMultiGpuBoard = a(cudaDevAttrIsMultiGpuBoard);
  p.multiGpuBoardGroupID = a(cudaDevAttrMultiGpuBoardGroupID);
  p.hostNativeAtomicSupported = a(cudaDevAttrHostNativeAtomicSupported);
  p.pageableMemoryAccess = a(cudaDevAttrPageableMemoryAccess);
  p.concurrentManagedAccess = a(cudaDevAttrConcurrentManagedAccess);
  p.computePreemptionSupported = a(cudaDevAttrComputePreemptionSupported);
  p.canUseHostPointerForRegisteredMem = a(cudaDevAttrCanUseHostPointerForRegisteredMem);
  p.cooperativeLaunch = a(cudaDevAttrCooperativeLaunch);
  p.sharedMemPerBlockOptin = static_cast<std::size_t>(a(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  p.pageableMemoryAccessUsesHostPageTables = a(cudaDevAttrPageableMemoryAccessUsesHostPageTables);
  p.directManagedMemAccessFromHost = a(cudaDevAttrDirectManagedMemAccessFromHost);
  p.maxBlocksPerMultiProcessor = a(cudaDevAttrMaxBlocksPerMultiprocessor);
  p.accessPolicyMaxWindowSize = a(cudaDevAttrMaxAccessPolicyWindowSize);
  p.reservedSharedMemPerBlock =
      static_cast<std::size_t>(a(cudaDevAttrReservedSharedMemoryPerBlock));
  p.hostRegisterSupported = a(cudaDevAttrHostRegisterSupported);
  p.sparseCudaArraySupported = a(cudaDevAttrSparseCudaArraySupported);
  p.hostRegisterReadOnlySupported = a(cudaDevAttrHostRegisterReadOnlySupported);
  p.timelineSemaphoreInteropSupported = a(cudaDevAttrTimelineSemaphoreInteropSupported);
  p.memoryPoolsSupported = a(cudaDevAttrMemoryPoolsSupported);
  p.gpuDirectRDMASupported = a(cudaDevAttrGPUDirectRDMASupported);
  p.gpuDirectRDMAFlushWritesOptions =
      static_cast<unsigned>(a(cudaDevAttrGPUDirectRDMAFlushWritesOptions));
  p.gpuDirectRDMAWritesOrdering = a(cudaDevAttrGPUDirectRDMAWritesOrdering);
  p.memoryPoolSupportedHandleTypes =
      static_cast<unsigned>(a(cudaDevAttrMemoryPoolSupportedHandleTypes));
  p.deferredMappingCudaArraySupported = a(cudaDevAttrDeferredMappingCudaArraySupported);
  p.ipcEventSupported = a(cudaDevAttrIpcEventSupport);
  p.clusterLaunch = a(cudaDevAttrClusterLaunch);
  p.unifiedFunctionPointers = 0;
  p.deviceNumaConfig = a(cudaDevAttrNumaConfig);
  p.deviceNumaId = a(cudaDevAttrNumaId);
  p.mpsEnabled = a(cudaDevAttrMpsEnabled);
  p.hostNumaId = a(cudaDevAttrHostNumaId);
  p.gpuPciDeviceID = static_cast<unsigned>(a(cudaDevAttrGpuPciDeviceId));
  p.gpuPciSubsystemID = static_cast<unsigned>(a(cudaDevAttrGpuPciSubsystemId));
  p.hostNumaMultinodeIpcSupported = a(cudaDevAttrHostNumaMultinodeIpcSupported);
}

}  // namespace bankcheck::runtime
