// Virtual memory management: address ranges reserved (cuMemAddressReserve), physical
// allocations (cuMemCreate), mapped into them (cuMemMap) and made accessible
// (cuMemSetAccess). Device pointers are host addresses (memory.hpp): a reservation is an
// inaccessible anonymous mapping, a physical allocation a memory file of its size, and
// cuMemMap maps that file over the reservation, so that two mappings of one allocation share
// its bytes as on the device. A range becomes device memory (listed in the allocation table
// and given to the executor) when cuMemSetAccess makes it accessible. Shareable handles (IPC,
// fabric) are not offered: the device's attributes say so.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>

#include "driver.hpp"

using namespace bankcheck::runtime;

namespace {

// cuMemCreate's and cuMemMap's sizes and offsets, and reservations, are multiples of this: the
// granularity the driver reports for device memory on Hopper.
constexpr std::size_t kGranularity = std::size_t{2} << 20;

bool aligned(std::size_t x) { return x % kGranularity == 0; }

// A property the emulated device can have: pinned device memory of device 0, without
// shareable handles or compression.
CUresult check_prop(const CUmemAllocationProp* prop) {
  if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  if (prop->location.id != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (prop->requestedHandleTypes != CU_MEM_HANDLE_TYPE_NONE) return CUDA_ERROR_NOT_SUPPORTED;
  return CUDA_SUCCESS;
}

// The reservation holding [p, p + bytes), or end().
auto reservation_of(Driver& d, std::uintptr_t p, std::size_t bytes) {
  auto it = d.vmm_reserved.upper_bound(p);
  if (it == d.vmm_reserved.begin()) return d.vmm_reserved.end();
  --it;
  if (p - it->first >= it->second || bytes > it->second - (p - it->first))
    return d.vmm_reserved.end();
  return it;
}

// Whether a mapping overlaps [p, p + bytes).
bool any_mapped(const Driver& d, std::uintptr_t p, std::size_t bytes) {
  auto it = d.vmm_mapped.lower_bound(p);
  if (it != d.vmm_mapped.end() && it->first < p + bytes) return true;
  if (it == d.vmm_mapped.begin()) return false;
  --it;
  return it->first + it->second.bytes > p;
}

// Whether [p, p + bytes) is covered by mappings without a gap.
bool all_mapped(const Driver& d, std::uintptr_t p, std::size_t bytes) {
  std::uintptr_t at = p;
  const std::uintptr_t end = p + bytes;
  auto it = d.vmm_mapped.upper_bound(at);
  if (it != d.vmm_mapped.begin()) --it;
  for (; it != d.vmm_mapped.end() && at < end; ++it) {
    if (it->first + it->second.bytes <= at) continue;
    if (it->first > at) return false;
    at = it->first + it->second.bytes;
  }
  return at >= end;
}

// The accessible ranges (Allocation::vmm) that overlap [p, p + bytes) are withdrawn from the
// allocation table and the executor; returns their extent, merged with [p, p + bytes).
std::pair<std::uintptr_t, std::uintptr_t> withdraw_access(Driver& d, std::uintptr_t p,
                                                          std::size_t bytes) {
  std::uintptr_t lo = p, hi = p + bytes;
  auto it = d.allocations.lower_bound(p);
  if (it != d.allocations.begin()) --it;
  while (it != d.allocations.end() && it->first < p + bytes) {
    if (!it->second.vmm || it->first + it->second.bytes <= p) {
      ++it;
      continue;
    }
    lo = std::min(lo, it->first);
    hi = std::max(hi, it->first + it->second.bytes);
    if (Executor* ex = d.executor()) ex->memory_freed(reinterpret_cast<void*>(it->first));
    it = d.allocations.erase(it);
  }
  return {lo, hi};
}

// Drops a reference; the allocation goes when neither a handle nor a mapping holds it.
void unreference(Driver& d, std::map<CUmemGenericAllocationHandle, VmmPhysical>::iterator it) {
  if (it->second.handles || it->second.mappings) return;
  close(it->second.fd);
  d.device_bytes_in_use -= std::min(d.device_bytes_in_use, it->second.bytes);
  d.vmm_physical.erase(it);
}

}  // namespace

BANKCHECK_API CUresult cuMemGetAllocationGranularity(size_t* granularity,
                                                     const CUmemAllocationProp* prop,
                                                     CUmemAllocationGranularity_flags option) {
  return query([&](Driver&) {
    if (!granularity) return CUDA_ERROR_INVALID_VALUE;
    if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
        option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
      return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_prop(prop)) return e;
    *granularity = kGranularity;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment,
                                           CUdeviceptr addr, unsigned long long flags) {
  return call([&](Driver& d) {
    if (!ptr || size == 0 || !aligned(size) || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (alignment == 0) alignment = kGranularity;
    if (alignment % kGranularity != 0 || (alignment & (alignment - 1)) != 0)
      return CUDA_ERROR_INVALID_VALUE;
    // The hint is taken when it is free and aligned; otherwise any aligned range.
    void* p = MAP_FAILED;
    if (addr && addr % alignment == 0) {
      p = mmap(reinterpret_cast<void*>(addr), size, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
      if (p != MAP_FAILED && reinterpret_cast<CUdeviceptr>(p) != addr) {
        munmap(p, size);  // an older kernel took the flag as a hint
        p = MAP_FAILED;
      }
    }
    if (p == MAP_FAILED) {
      void* q = mmap(nullptr, size + alignment, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (q == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
      const auto start = reinterpret_cast<std::uintptr_t>(q);
      const std::uintptr_t at = (start + alignment - 1) / alignment * alignment;
      if (at > start) munmap(q, at - start);
      if (const std::uintptr_t tail = start + size + alignment - (at + size))
        munmap(reinterpret_cast<void*>(at + size), tail);
      p = reinterpret_cast<void*>(at);
    }
    d.vmm_reserved[reinterpret_cast<std::uintptr_t>(p)] = size;
    *ptr = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  return call([&](Driver& d) {
    const auto it = d.vmm_reserved.find(static_cast<std::uintptr_t>(ptr));
    if (it == d.vmm_reserved.end() || it->second != size) return CUDA_ERROR_INVALID_VALUE;
    if (any_mapped(d, ptr, size)) return CUDA_ERROR_INVALID_VALUE;  // unmap first
    munmap(reinterpret_cast<void*>(ptr), size);
    d.vmm_reserved.erase(it);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                                   const CUmemAllocationProp* prop, unsigned long long flags) {
  return call([&](Driver& d) {
    if (!handle || size == 0 || !aligned(size) || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_prop(prop)) return e;
    if (size > d.device.board.global_bytes - d.device_bytes_in_use) return CUDA_ERROR_OUT_OF_MEMORY;
    const int fd = memfd_create("bankcheck device memory", MFD_CLOEXEC);
    if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
    if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
      close(fd);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    VmmPhysical ph;
    ph.fd = fd;
    ph.bytes = size;
    ph.prop = *prop;
    d.device_bytes_in_use += size;
    const CUmemGenericAllocationHandle h = d.next_vmm_handle++;
    d.vmm_physical[h] = ph;
    *handle = h;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  return call([&](Driver& d) {
    const auto it = d.vmm_physical.find(handle);
    if (it == d.vmm_physical.end() || it->second.handles == 0) return CUDA_ERROR_INVALID_VALUE;
    --it->second.handles;
    unreference(d, it);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                                CUmemGenericAllocationHandle handle, unsigned long long flags) {
  return call([&](Driver& d) {
    const auto ph = d.vmm_physical.find(handle);
    if (ph == d.vmm_physical.end() || ph->second.handles == 0) return CUDA_ERROR_INVALID_HANDLE;
    if (size == 0 || !aligned(size) || !aligned(offset) || flags != 0 ||
        offset > ph->second.bytes || size > ph->second.bytes - offset)
      return CUDA_ERROR_INVALID_VALUE;
    if (reservation_of(d, ptr, size) == d.vmm_reserved.end() || any_mapped(d, ptr, size))
      return CUDA_ERROR_INVALID_VALUE;
    void* p = mmap(reinterpret_cast<void*>(ptr), size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED, ph->second.fd, static_cast<off_t>(offset));
    if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    d.vmm_mapped[ptr] = VmmMapping{size, handle};
    ++ph->second.mappings;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  return call([&](Driver& d) {
    // Whole mappings only, and the range mapped without a gap.
    if (size == 0 || !all_mapped(d, ptr, size)) return CUDA_ERROR_INVALID_VALUE;
    auto first = d.vmm_mapped.upper_bound(ptr);
    if (first != d.vmm_mapped.begin()) --first;
    for (auto it = first; it != d.vmm_mapped.end() && it->first < ptr + size; ++it)
      if (it->first + it->second.bytes > ptr &&
          (it->first < ptr || it->first + it->second.bytes > ptr + size))
        return CUDA_ERROR_INVALID_VALUE;
    // What stays accessible around the range keeps its access.
    const auto [lo, hi] = withdraw_access(d, ptr, size);
    if (lo < ptr) {
      d.allocations[lo] = Allocation{ptr - lo, AllocationKind::Device, 0, false, false};
      d.allocations[lo].vmm = true;
      if (Executor* ex = d.executor())
        ex->memory_allocated(reinterpret_cast<void*>(lo), ptr - lo, MemoryKind::Device);
    }
    if (hi > ptr + size) {
      d.allocations[ptr + size] =
          Allocation{hi - (ptr + size), AllocationKind::Device, 0, false, false};
      d.allocations[ptr + size].vmm = true;
      if (Executor* ex = d.executor())
        ex->memory_allocated(reinterpret_cast<void*>(ptr + size), hi - (ptr + size),
                             MemoryKind::Device);
    }
    for (auto it = d.vmm_mapped.lower_bound(ptr);
         it != d.vmm_mapped.end() && it->first < ptr + size;) {
      mmap(reinterpret_cast<void*>(it->first), it->second.bytes, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
      const auto ph = d.vmm_physical.find(it->second.handle);
      it = d.vmm_mapped.erase(it);
      if (ph != d.vmm_physical.end()) {
        --ph->second.mappings;
        unreference(d, ph);
      }
    }
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc,
                                      size_t count) {
  return call([&](Driver& d) {
    if (size == 0 || !desc || count == 0 || !all_mapped(d, ptr, size))
      return CUDA_ERROR_INVALID_VALUE;
    CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    for (std::size_t i = 0; i < count; ++i) {
      if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
      if (desc[i].location.id != 0) return CUDA_ERROR_INVALID_DEVICE;
      flags = desc[i].flags;
    }
    // Read-only access is read and write here: the emulator does not protect device memory.
    auto [lo, hi] = withdraw_access(d, ptr, size);
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;
    if (flags == CU_MEM_ACCESS_FLAGS_PROT_NONE) {
      if (lo < ptr) ranges.push_back({lo, ptr});
      if (hi > ptr + size) ranges.push_back({ptr + size, hi});
    } else {
      ranges.push_back({lo, hi});
    }
    for (const auto& [a, b] : ranges) {
      Allocation al{b - a, AllocationKind::Device, 0, false, false};
      al.vmm = true;
      d.allocations[a] = al;
      if (Executor* ex = d.executor())
        ex->memory_allocated(reinterpret_cast<void*>(a), b - a, MemoryKind::Device);
    }
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemGetAccess(unsigned long long* flags, const CUmemLocation* location,
                                      CUdeviceptr ptr) {
  return call([&](Driver& d) {
    if (!flags || !location || location->type != CU_MEM_LOCATION_TYPE_DEVICE)
      return CUDA_ERROR_INVALID_VALUE;
    if (!all_mapped(d, ptr, 1)) return CUDA_ERROR_INVALID_VALUE;
    const Allocation* a = d.allocation_of(ptr);
    *flags = a && a->vmm && location->id == 0 ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                                              : CU_MEM_ACCESS_FLAGS_PROT_NONE;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle* handle,
                                                   void* addr) {
  return call([&](Driver& d) {
    const auto p = reinterpret_cast<std::uintptr_t>(addr);
    if (!handle || !all_mapped(d, p, 1)) return CUDA_ERROR_INVALID_VALUE;
    auto it = std::prev(d.vmm_mapped.upper_bound(p));
    const auto ph = d.vmm_physical.find(it->second.handle);
    if (ph == d.vmm_physical.end()) return CUDA_ERROR_INVALID_VALUE;
    ++ph->second.handles;
    *handle = it->second.handle;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp* prop,
                                                              CUmemGenericAllocationHandle handle) {
  return call([&](Driver& d) {
    const auto ph = d.vmm_physical.find(handle);
    if (!prop || ph == d.vmm_physical.end()) return CUDA_ERROR_INVALID_VALUE;
    *prop = ph->second.prop;
    return CUDA_SUCCESS;
  });
}
