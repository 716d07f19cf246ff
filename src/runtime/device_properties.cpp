// What the device reports: cuDeviceGetAttribute's value for every attribute (the CUDA
// runtime builds cudaDeviceProp and answers cudaDeviceGetAttribute from these).
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

std::optional<long long> driver_attribute(const DeviceProfile& d, CUdevice_attribute attr) {
  // The driver's attributes are the runtime's, value for value, and a few more.
  switch (attr) {
    case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER:
      return 1;
    // Virtual memory management (cuMemCreate, cuMemMap: cu_vmm.cpp) is offered; exportable
    // handles, compression and dma-buf are not: programs and libraries ask and take their
    // other path.
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
      return 1;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK:
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH:
    case CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED:
    // Stream memory operations (cuStreamWaitValue32, ...), multi-device cooperative launches,
    // dma-buf, fabric handles, multicast, unified function pointers and host virtual memory
    // management are not offered either.
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1:
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR:
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS:
    case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
      return 0;
    // Tensor memory access (TMA) is the architecture's, from sm_90.
    case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED:
      return d.sm.cc >= 90 ? 1 : 0;
    default:
      return device_attribute(d, static_cast<cudaDeviceAttr>(attr));
  }
}

std::array<unsigned char, 16> device_uuid(const DeviceProfile& d) {
  // A fixed identifier per architecture: "bankcheck-sm" and the compute capability.
  std::array<unsigned char, 16> u{};
  std::memcpy(u.data(), "bankcheck-sm", 12);
  u[12] = static_cast<unsigned char>(d.sm.cc);
  return u;
}

}  // namespace bankcheck::runtime
