// Memory: allocation (device, managed, pinned and registered host memory, pitched, stream
// ordered from pools), what a pointer is, and the memory pools. Device pointers are host
// addresses (memory.hpp). Copies and fills are in cu_copies.cpp.
#include <algorithm>
#include <cstring>

#include "driver.hpp"
#include "graphs.hpp"
#include "memory.hpp"

using namespace bankcheck::runtime;

namespace {

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

CUresult alloc_device(Driver& d, CUdeviceptr* dptr, std::size_t bytes, AllocationKind kind,
                      unsigned flags = 0, CUmemoryPool pool = nullptr) {
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  const CUresult e = allocate(d, &p, bytes, kind, flags, pool);
  if (e == CUDA_SUCCESS) *dptr = reinterpret_cast<CUdeviceptr>(p);
  return e;
}

const void* as_pointer(CUdeviceptr p) { return reinterpret_cast<const void*>(p); }

// A stream-ordered allocation: made at once (also during a capture, where the allocation node
// keeps it for every launch of the graph).
CUresult alloc_async(Driver& d, CUdeviceptr* dptr, std::size_t bytes, CUmemoryPool pool,
                     CUstream stream) {
  if (!d.valid_stream(stream)) return CUDA_ERROR_INVALID_HANDLE;
  if (!d.pool(pool)) return CUDA_ERROR_INVALID_VALUE;
  if (const CUresult e = alloc_device(d, dptr, bytes, AllocationKind::Device, 0, pool)) return e;
  MemoryPool* mp = d.pool(pool);
  mp->used_high = std::max(mp->used_high, d.device_bytes_in_use);
  mp->reserved_high = std::max(mp->reserved_high, d.device_bytes_in_use);
  if (capture_of(d, stream)) {
    d.allocations[static_cast<std::uintptr_t>(*dptr)].graph = true;
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    n.memory = *dptr;
    n.memory_bytes = bytes;
    return submit(d, stream, std::move(n));
  }
  return CUDA_SUCCESS;
}

CUmemorytype memory_type(AllocationKind k) {
  switch (k) {
    case AllocationKind::PinnedHost:
    case AllocationKind::RegisteredHost:
      return CU_MEMORYTYPE_HOST;
    default:
      return CU_MEMORYTYPE_DEVICE;  // managed memory too, as the driver reports it
  }
}

// One attribute of the allocation `a` (starting at `start`) holding `ptr`; `a` null: a pointer
// the driver does not know.
CUresult pointer_attribute(Driver& d, void* data, CUpointer_attribute attr, CUdeviceptr ptr,
                           const Allocation* a, std::uintptr_t start) {
  auto put = [&](auto value) {
    std::memcpy(data, &value, sizeof value);
    return CUDA_SUCCESS;
  };
  if (!a) return CUDA_ERROR_INVALID_VALUE;
  switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      return put(reinterpret_cast<CUcontext>(&d.primary));
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      return put(static_cast<unsigned>(memory_type(a->kind)));
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
      return put(ptr);
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (a->kind == AllocationKind::Device || a->kind == AllocationKind::Symbol)
        return CUDA_ERROR_INVALID_VALUE;
      return put(reinterpret_cast<void*>(ptr));
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
      return put(1);
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
      return put(static_cast<unsigned long long>(start));
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      return put(a->kind == AllocationKind::Managed ? 1 : 0);
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      return put(0);
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
      return put(0);
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      return put(static_cast<CUdeviceptr>(start));
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      return put(a->bytes);
    case CU_POINTER_ATTRIBUTE_MAPPED:
      return put(1);
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
      return put(static_cast<unsigned long long>(CU_MEM_HANDLE_TYPE_NONE));
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
      return put(0);
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
      return put(static_cast<unsigned long long>(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE));
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
      return put(a->pool);
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
      return put(a->bytes);
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
      return put(reinterpret_cast<void*>(start));
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
      return put(static_cast<unsigned long long>(start));
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
      return put(0);
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

}  // namespace

// ---- Allocation
// ----------------------------------------------------------------------------------

BANKCHECK_API CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  return in_context(
      [&](Driver& d, Context&) { return alloc_device(d, dptr, bytesize, AllocationKind::Device); });
}

BANKCHECK_API CUresult cuMemFree_v2(CUdeviceptr dptr) {
  return in_context([&](Driver& d, Context&) {
    if (const CUresult e = fault_seen(d)) return e;  // it waits for the device, as on a GPU
    if (dptr == 0) return CUDA_SUCCESS;
    return release(d, as_pointer(dptr),
                   kind_bit(AllocationKind::Device) | kind_bit(AllocationKind::Managed));
  });
}

BANKCHECK_API CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pPitch, size_t WidthInBytes,
                                          size_t Height, unsigned int ElementSizeBytes) {
  return in_context([&](Driver& d, Context&) {
    if (!dptr || !pPitch || WidthInBytes == 0 || Height == 0) return CUDA_ERROR_INVALID_VALUE;
    if (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16)
      return CUDA_ERROR_INVALID_VALUE;
    const std::size_t pitch = round_up(WidthInBytes, kPitchAlignment);
    const CUresult e = alloc_device(d, dptr, pitch * Height, AllocationKind::Device);
    if (e == CUDA_SUCCESS) *pPitch = pitch;
    return e;
  });
}

BANKCHECK_API CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags) {
  return in_context([&](Driver& d, Context&) {
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
      return CUDA_ERROR_INVALID_VALUE;
    return alloc_device(d, dptr, bytesize, AllocationKind::Managed, flags);
  });
}

BANKCHECK_API CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
  return in_context([&](Driver& d, Context&) {
    if (Flags & ~static_cast<unsigned>(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                                       CU_MEMHOSTALLOC_WRITECOMBINED))
      return CUDA_ERROR_INVALID_VALUE;
    return allocate(d, pp, bytesize, AllocationKind::PinnedHost, Flags);
  });
}

BANKCHECK_API CUresult cuMemAllocHost_v2(void** pp, size_t bytesize) {
  return cuMemHostAlloc(pp, bytesize, 0);
}

BANKCHECK_API CUresult cuMemFreeHost(void* p) {
  return in_context(
      [&](Driver& d, Context&) { return release(d, p, kind_bit(AllocationKind::PinnedHost)); });
}

BANKCHECK_API CUresult cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int Flags) {
  return in_context([&](Driver& d, Context&) {
    if (!p || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    if (Flags & ~static_cast<unsigned>(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                                       CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY))
      return CUDA_ERROR_INVALID_VALUE;
    const auto start = reinterpret_cast<std::uintptr_t>(p);
    // No part of the range may already be pinned or registered.
    auto it = d.allocations.lower_bound(start);
    if (it != d.allocations.end() && it->first < start + bytesize)
      return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    if (d.allocation_of(p)) return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    d.allocations[start] =
        Allocation{bytesize, AllocationKind::RegisteredHost, Flags, false, false};
    if (Executor* ex = d.executor()) ex->memory_allocated(p, bytesize, MemoryKind::RegisteredHost);
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuMemHostRegister_v2, cuMemHostRegister)

BANKCHECK_API CUresult cuMemHostUnregister(void* p) {
  return in_context([&](Driver& d, Context&) {
    const auto it = d.allocations.find(reinterpret_cast<std::uintptr_t>(p));
    if (!p || it == d.allocations.end() || it->second.kind != AllocationKind::RegisteredHost)
      return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    return release(d, p, kind_bit(AllocationKind::RegisteredHost));
  });
}

BANKCHECK_API CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* pdptr, void* p,
                                                    unsigned int Flags) {
  return in_context([&](Driver& d, Context&) {
    if (!pdptr || Flags != 0) return CUDA_ERROR_INVALID_VALUE;
    const Allocation* a = d.allocation_of(p);
    if (!a || (a->kind != AllocationKind::PinnedHost && a->kind != AllocationKind::RegisteredHost))
      return CUDA_ERROR_INVALID_VALUE;
    *pdptr = reinterpret_cast<CUdeviceptr>(p);  // one address space
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemHostGetFlags(unsigned int* pFlags, void* p) {
  return in_context([&](Driver& d, Context&) {
    if (!pFlags) return CUDA_ERROR_INVALID_VALUE;
    const Allocation* a = d.allocation_of(p);
    if (!a || (a->kind != AllocationKind::PinnedHost && a->kind != AllocationKind::RegisteredHost))
      return CUDA_ERROR_INVALID_VALUE;
    *pFlags = a->flags | CU_MEMHOSTALLOC_DEVICEMAP;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  return in_context([&](Driver& d, Context&) {
    if (!free || !total) return CUDA_ERROR_INVALID_VALUE;
    *total = d.device.board.global_bytes;
    *free = *total - d.device_bytes_in_use;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize,
                                               CUdeviceptr dptr) {
  return in_context([&](Driver& d, Context&) {
    std::uintptr_t start = 0;
    const Allocation* a = d.allocation_of(dptr, 1, &start);
    if (!a) return CUDA_ERROR_NOT_FOUND;
    if (pbase) *pbase = static_cast<CUdeviceptr>(start);
    if (psize) *psize = a->bytes;
    return CUDA_SUCCESS;
  });
}

// ---- Stream-ordered allocation and pools ------------------------------------------------------

BANKCHECK_API CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  return in_context([&](Driver& d, Context&) {
    return alloc_async(d, dptr, bytesize, reinterpret_cast<CUmemoryPool>(&d.default_pool), hStream);
  });
}
BANKCHECK_ALIAS(cuMemAllocAsync, cuMemAllocAsync_ptsz)

BANKCHECK_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize,
                                               CUmemoryPool pool, CUstream hStream) {
  return in_context(
      [&](Driver& d, Context&) { return alloc_async(d, dptr, bytesize, pool, hStream); });
}
BANKCHECK_ALIAS(cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync_ptsz)

// Freed at once; in a capture, the memory stays for the graph's launches.
BANKCHECK_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  return in_context([&](Driver& d, Context&) {
    if (!d.valid_stream(hStream)) return CUDA_ERROR_INVALID_HANDLE;
    if (capture_of(d, hStream)) {
      Node n;
      n.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
      n.memory = dptr;
      return submit(d, hStream, std::move(n));
    }
    return release(d, as_pointer(dptr),
                   kind_bit(AllocationKind::Device) | kind_bit(AllocationKind::Managed));
  });
}
BANKCHECK_ALIAS(cuMemFreeAsync, cuMemFreeAsync_ptsz)

BANKCHECK_API CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* poolProps) {
  return in_context([&](Driver& d, Context&) {
    if (!pool || !poolProps) return CUDA_ERROR_INVALID_VALUE;
    if (poolProps->allocType != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
    auto* p = new MemoryPool;
    d.pools.insert(p);
    *pool = reinterpret_cast<CUmemoryPool>(p);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  return in_context([&](Driver& d, Context&) {
    auto* p = reinterpret_cast<MemoryPool*>(pool);
    if (!d.pools.contains(p)) return CUDA_ERROR_INVALID_VALUE;
    d.pools.erase(p);
    delete p;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
                                             void* value) {
  return in_context([&](Driver& d, Context&) {
    MemoryPool* p = d.pool(pool);
    if (!p || !value) return CUDA_ERROR_INVALID_VALUE;
    switch (attr) {
      case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
        p->release_threshold = *static_cast<cuuint64_t*>(value);
        return CUDA_SUCCESS;
      case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
        p->reserved_high = 0;
        return CUDA_SUCCESS;
      case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
        p->used_high = 0;
        return CUDA_SUCCESS;
      case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
      case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
      case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        return CUDA_SUCCESS;
      default:
        return CUDA_ERROR_INVALID_VALUE;
    }
  });
}

BANKCHECK_API CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
                                             void* value) {
  return in_context([&](Driver& d, Context&) {
    MemoryPool* p = d.pool(pool);
    if (!p || !value) return CUDA_ERROR_INVALID_VALUE;
    auto u64 = [&](cuuint64_t v) {
      *static_cast<cuuint64_t*>(value) = v;
      return CUDA_SUCCESS;
    };
    std::size_t in_pool = 0;
    for (const auto& [start, a] : d.allocations)
      if (a.pool == pool) in_pool += a.bytes;
    switch (attr) {
      case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
      case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
      case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        *static_cast<int*>(value) = 1;
        return CUDA_SUCCESS;
      case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
        return u64(p->release_threshold);
      // A pool that holds nothing back: what it reserves is what is allocated from it.
      case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
      case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
        return u64(in_pool);
      case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
        return u64(p->reserved_high);
      case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
        return u64(p->used_high);
      default:
        return CUDA_ERROR_INVALID_VALUE;
    }
  });
}

BANKCHECK_API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t) {
  return in_context(
      [&](Driver& d, Context&) { return d.pool(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; });
}

BANKCHECK_API CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* map,
                                          size_t count) {
  return in_context([&](Driver& d, Context&) {
    return d.pool(pool) && (map || count == 0) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  });
}

BANKCHECK_API CUresult cuMemPoolGetAccess(CUmemAccess_flags* flags, CUmemoryPool memPool,
                                          CUmemLocation* location) {
  return in_context([&](Driver& d, Context&) {
    if (!flags || !location || !d.pool(memPool)) return CUDA_ERROR_INVALID_VALUE;
    *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemGetDefaultMemPool(CUmemoryPool* pool_out, CUmemLocation* location,
                                              CUmemAllocationType type) {
  return query([&](Driver& d) {
    if (!pool_out || !location || type != CU_MEM_ALLOCATION_TYPE_PINNED)
      return CUDA_ERROR_INVALID_VALUE;
    if (location->type == CU_MEM_LOCATION_TYPE_DEVICE && location->id != 0)
      return CUDA_ERROR_INVALID_DEVICE;
    *pool_out = reinterpret_cast<CUmemoryPool>(&d.default_pool);
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuMemGetDefaultMemPool, cuMemGetMemPool)

BANKCHECK_API CUresult cuMemSetMemPool(CUmemLocation* location, CUmemAllocationType,
                                       CUmemoryPool pool) {
  return call([&](Driver& d) {
    return location && d.pool(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  });
}

// ---- Pointers
// ------------------------------------------------------------------------------------

BANKCHECK_API CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute,
                                             CUdeviceptr ptr) {
  return call([&](Driver& d) {
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    std::uintptr_t start = 0;
    const Allocation* a = d.allocation_of(ptr, 1, &start);
    return pointer_attribute(d, data, attribute, ptr, a, start);
  });
}

// Unlike the single form, a pointer the driver does not know is no error: its attributes read
// as zero (memory type 0, "unregistered" to the runtime).
BANKCHECK_API CUresult cuPointerGetAttributes(unsigned int numAttributes,
                                              CUpointer_attribute* attributes, void** data,
                                              CUdeviceptr ptr) {
  return call([&](Driver& d) {
    if (numAttributes && (!attributes || !data)) return CUDA_ERROR_INVALID_VALUE;
    std::uintptr_t start = 0;
    const Allocation* a = d.allocation_of(ptr, 1, &start);
    for (unsigned i = 0; i < numAttributes; ++i) {
      if (!data[i]) continue;
      if (!a) {
        // Pointer-sized for the context, pointers and handles; the others are at most 8 bytes.
        std::memset(data[i], 0, attributes[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL ? 4 : 8);
        if (attributes[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) *static_cast<int*>(data[i]) = -2;
        if (attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE ||
            attributes[i] == CU_POINTER_ATTRIBUTE_IS_MANAGED ||
            attributes[i] == CU_POINTER_ATTRIBUTE_MAPPED)
          *static_cast<unsigned*>(data[i]) = 0;
        continue;
      }
      const CUresult e = pointer_attribute(d, data[i], attributes[i], ptr, a, start);
      if (e == CUDA_ERROR_INVALID_VALUE && attributes[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER)
        *static_cast<void**>(data[i]) = nullptr;
      else if (e)
        return e;
    }
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuPointerSetAttribute(const void* value, CUpointer_attribute attribute,
                                             CUdeviceptr ptr) {
  return call([&](Driver& d) {
    if (!value || attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) return CUDA_ERROR_INVALID_VALUE;
    return d.allocation_of(ptr) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  });
}

// Where managed memory lives and what it is used for changes nothing here.
BANKCHECK_API CUresult cuMemPrefetchAsync_v2(CUdeviceptr, size_t, CUmemLocation, unsigned int,
                                             CUstream hStream) {
  return call([&](Driver& d) {
    return d.valid_stream(hStream) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
  });
}
BANKCHECK_ALIAS(cuMemPrefetchAsync_v2, cuMemPrefetchAsync_v2_ptsz)

BANKCHECK_API CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise,
                                      CUmemLocation) {
  return call([&](Driver& d) {
    const Allocation* a = d.allocation_of(devPtr, count);
    return a && a->kind == AllocationKind::Managed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  });
}
