// Allocation and release of the host memory behind device pointers (memory.hpp).
#include "memory.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

namespace bankcheck::runtime {

namespace {

// Above this, memory comes from mmap: zero pages that cost nothing until touched, so that a
// program allocating most of an 80 GB device does not commit it.
constexpr std::size_t kMapThreshold = std::size_t{1} << 20;

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

bool counts_as_device(AllocationKind k) {
  return k == AllocationKind::Device || k == AllocationKind::Managed;
}

MemoryKind memory_kind(AllocationKind k) {
  switch (k) {
    case AllocationKind::Managed:
      return MemoryKind::Managed;
    case AllocationKind::PinnedHost:
      return MemoryKind::PinnedHost;
    case AllocationKind::RegisteredHost:
      return MemoryKind::RegisteredHost;
    default:
      return MemoryKind::Device;
  }
}

void give_back(void* p, const Allocation& a) {
  if (a.mapped)
    munmap(p, round_up(a.bytes, kMapThreshold));
  else
    std::free(p);
}

}  // namespace

cudaError_t allocate(Runtime& rt, void** out, std::size_t bytes, AllocationKind kind,
                     unsigned flags) {
  if (!out) return cudaErrorInvalidValue;
  if (bytes == 0) {
    *out = nullptr;
    return cudaSuccess;
  }
  if (counts_as_device(kind) && bytes > rt.device.board.global_bytes - rt.device_bytes_in_use)
    return cudaErrorMemoryAllocation;
  void* p = nullptr;
  const bool mapped = bytes >= kMapThreshold;
  if (mapped) {
    p = mmap(nullptr, round_up(bytes, kMapThreshold), PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return cudaErrorMemoryAllocation;
  } else {
    p = std::aligned_alloc(kAllocationAlignment, round_up(bytes, kAllocationAlignment));
    if (!p) return cudaErrorMemoryAllocation;
    std::memset(p, 0, bytes);
  }
  rt.allocations[reinterpret_cast<std::uintptr_t>(p)] =
      Allocation{bytes, kind, flags, mapped, true};
  if (counts_as_device(kind)) rt.device_bytes_in_use += bytes;
  if (Executor* ex = rt.executor()) ex->memory_allocated(p, bytes, memory_kind(kind));
  *out = p;
  return cudaSuccess;
}

cudaError_t release(Runtime& rt, void* p, unsigned kinds) {
  if (!p) return cudaSuccess;
  const auto it = rt.allocations.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == rt.allocations.end() || !(kinds & kind_bit(it->second.kind)))
    return cudaErrorInvalidValue;
  const Allocation a = it->second;
  if (Executor* ex = rt.executor()) ex->memory_freed(p);
  rt.allocations.erase(it);
  if (counts_as_device(a.kind)) rt.device_bytes_in_use -= a.bytes;
  if (a.owned) give_back(p, a);
  return cudaSuccess;
}

void release_all_memory(Runtime& rt) {
  for (auto it = rt.allocations.begin(); it != rt.allocations.end();) {
    if (it->second.kind == AllocationKind::Symbol) {
      ++it;
      continue;
    }
    void* p = reinterpret_cast<void*>(it->first);
    if (Executor* ex = rt.executor()) ex->memory_freed(p);
    if (it->second.owned) give_back(p, it->second);
    it = rt.allocations.erase(it);
  }
  rt.device_bytes_in_use = 0;
}

bool device_range(const Runtime& rt, const void* p, std::size_t bytes) {
  const Allocation* a = rt.allocation_of(p, bytes);
  return a && (kDeviceAccessible & kind_bit(a->kind));
}

cudaError_t check_copy(const Runtime& rt, const void* dst, std::size_t dst_span, const void* src,
                       std::size_t src_span, cudaMemcpyKind kind) {
  bool dst_device = false, src_device = false;
  switch (kind) {
    case cudaMemcpyHostToHost:
      break;
    case cudaMemcpyHostToDevice:
      dst_device = true;
      break;
    case cudaMemcpyDeviceToHost:
      src_device = true;
      break;
    case cudaMemcpyDeviceToDevice:
      dst_device = src_device = true;
      break;
    case cudaMemcpyDefault:
      break;
    default:
      return cudaErrorInvalidMemcpyDirection;
  }
  if (dst_span == 0 && src_span == 0) return cudaSuccess;
  if (!dst || !src) return cudaErrorInvalidValue;
  if (dst_device && !device_range(rt, dst, dst_span)) return cudaErrorInvalidValue;
  if (src_device && !device_range(rt, src, src_span)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

}  // namespace bankcheck::runtime
