// Memory: allocation (device, managed, pinned and registered host memory, pitched and 3D),
// copies and fills (1D, 2D, 3D; their Async forms run at once, in order), variables by
// symbol, and what a pointer is. Device pointers are host addresses (memory.hpp), so a copy is
// a memmove once its checks pass.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "memory.hpp"
#include "runtime.hpp"

using namespace bankcheck::runtime;

namespace {

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

// Every write to the program's memory is reported to the executor (ExecutorConfig::
// reports_writes): `bytes` from `p`, the whole span of a 2D or 3D region.
void written(Runtime& rt, const void* p, std::size_t bytes) {
  if (!bytes) return;
  if (Executor* ex = rt.executor()) ex->memory_written(p, bytes);
}

cudaError_t copy(Runtime& rt, void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  if (const cudaError_t e = check_copy(rt, dst, count, src, count, kind)) return e;
  if (count) std::memmove(dst, src, count);
  written(rt, dst, count);
  return cudaSuccess;
}

// The bytes a 2D region of `height` rows of `width` bytes, `pitch` apart, spans.
std::size_t span_2d(std::size_t pitch, std::size_t width, std::size_t height) {
  return height == 0 || width == 0 ? 0 : pitch * (height - 1) + width;
}

cudaError_t copy_2d(Runtime& rt, void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                    std::size_t width, std::size_t height, cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
  if (const cudaError_t e = check_copy(rt, dst, span_2d(dpitch, width, height), src,
                                       span_2d(spitch, width, height), kind))
    return e;
  for (std::size_t row = 0; row < height && width; ++row)
    std::memmove(static_cast<char*>(dst) + row * dpitch,
                 static_cast<const char*>(src) + row * spitch, width);
  written(rt, dst, span_2d(dpitch, width, height));
  return cudaSuccess;
}

// Zeros [p, p + count) of an anonymous private mapping: its whole pages are given back
// (they read as zeros again, and cost nothing until touched), the partial ones at the ends
// cleared. Benchmarks clear a buffer the size of the L2 cache before every timed launch:
// 50 MB of stores each time, against one system call over pages already given back.
void zero_mapped(void* p, std::size_t count) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(p), end = begin + count;
  const std::uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
  if (first >= last || madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) != 0) {
    std::memset(p, 0, count);
    return;
  }
  std::memset(p, 0, first - begin);
  std::memset(reinterpret_cast<void*>(last), 0, end - last);
}

cudaError_t fill(Runtime& rt, void* p, int value, std::size_t count) {
  if (count == 0) return cudaSuccess;
  if (!device_range(rt, p, count)) return cudaErrorInvalidValue;
  const Allocation* a = rt.allocation_of(p, count);
  if (value == 0 && a->owned && a->mapped)  // the runtime's own mmap (memory.cpp)
    zero_mapped(p, count);
  else
    std::memset(p, value, count);
  written(rt, p, count);
  return cudaSuccess;
}

cudaError_t fill_2d(Runtime& rt, void* p, std::size_t pitch, int value, std::size_t width,
                    std::size_t height) {
  if (width > pitch) return cudaErrorInvalidValue;
  if (width == 0 || height == 0) return cudaSuccess;
  if (!device_range(rt, p, span_2d(pitch, width, height))) return cudaErrorInvalidValue;
  for (std::size_t row = 0; row < height; ++row)
    std::memset(static_cast<char*>(p) + row * pitch, value, width);
  written(rt, p, span_2d(pitch, width, height));
  return cudaSuccess;
}

// A registered variable's storage from `offset` for `count` bytes.
cudaError_t symbol_bytes(Runtime& rt, const void* symbol, std::size_t offset, std::size_t count,
                         std::byte** out) {
  Variable* v = rt.variable(symbol);
  if (!v) return cudaErrorInvalidSymbol;
  const std::span<std::byte> s = rt.storage(*v);
  if (s.empty()) return cudaErrorInvalidSymbol;
  if (offset > s.size() || count > s.size() - offset) return cudaErrorInvalidValue;
  *out = s.data() + offset;
  return cudaSuccess;
}

cudaError_t to_symbol(Runtime& rt, const void* symbol, const void* src, std::size_t count,
                      std::size_t offset, cudaMemcpyKind kind) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  std::byte* dst = nullptr;
  if (const cudaError_t e = symbol_bytes(rt, symbol, offset, count, &dst)) return e;
  return copy(rt, dst, src, count, kind);
}

cudaError_t from_symbol(Runtime& rt, void* dst, const void* symbol, std::size_t count,
                        std::size_t offset, cudaMemcpyKind kind) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  std::byte* src = nullptr;
  if (const cudaError_t e = symbol_bytes(rt, symbol, offset, count, &src)) return e;
  return copy(rt, dst, src, count, kind);
}

cudaError_t check_stream(const Runtime& rt, cudaStream_t stream) {
  return rt.valid_stream(stream) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

}  // namespace

// ---- Allocation ---------------------------------------------------------------------------

BANKCHECK_API cudaError_t cudaMalloc(void** devPtr, size_t size) {
  return call([&](Runtime& rt) { return allocate(rt, devPtr, size, AllocationKind::Device); });
}

BANKCHECK_API cudaError_t cudaFree(void* devPtr) {
  return call([&](Runtime& rt) {
    return release(rt, devPtr,
                   kind_bit(AllocationKind::Device) | kind_bit(AllocationKind::Managed));
  });
}

BANKCHECK_API cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  return call([&](Runtime& rt) {
    if (size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
      return cudaErrorInvalidValue;
    return allocate(rt, devPtr, size, AllocationKind::Managed, flags);
  });
}

BANKCHECK_API cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return allocate(rt, devPtr, size, AllocationKind::Device);
  });
}
BANKCHECK_PER_THREAD(cudaMallocAsync, cudaMallocAsync_ptsz)

// Every pool is the device's one pool here.
BANKCHECK_API cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t,
                                                  cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return allocate(rt, ptr, size, AllocationKind::Device);
  });
}
BANKCHECK_PER_THREAD(cudaMallocFromPoolAsync, cudaMallocFromPoolAsync_ptsz)

BANKCHECK_API cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return release(rt, devPtr,
                   kind_bit(AllocationKind::Device) | kind_bit(AllocationKind::Managed));
  });
}
BANKCHECK_PER_THREAD(cudaFreeAsync, cudaFreeAsync_ptsz)

BANKCHECK_API cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width,
                                          size_t height) {
  return call([&](Runtime& rt) {
    if (!devPtr || !pitch) return cudaErrorInvalidValue;
    *pitch = round_up(width, kPitchAlignment);
    return allocate(rt, devPtr, *pitch * height, AllocationKind::Device);
  });
}

BANKCHECK_API cudaError_t cudaMalloc3D(cudaPitchedPtr* pitchedDevPtr, cudaExtent extent) {
  return call([&](Runtime& rt) {
    if (!pitchedDevPtr) return cudaErrorInvalidValue;
    const std::size_t pitch = round_up(extent.width, kPitchAlignment);
    void* p = nullptr;
    if (const cudaError_t e =
            allocate(rt, &p, pitch * extent.height * extent.depth, AllocationKind::Device))
      return e;
    *pitchedDevPtr = cudaPitchedPtr{p, pitch, extent.width, extent.height};
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  return call([&](Runtime& rt) {
    if (flags & ~(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
      return cudaErrorInvalidValue;
    return allocate(rt, pHost, size, AllocationKind::PinnedHost, flags);
  });
}

BANKCHECK_API cudaError_t cudaMallocHost(void** ptr, size_t size) {
  return call([&](Runtime& rt) { return allocate(rt, ptr, size, AllocationKind::PinnedHost); });
}

BANKCHECK_API cudaError_t cudaFreeHost(void* ptr) {
  return call([&](Runtime& rt) { return release(rt, ptr, kind_bit(AllocationKind::PinnedHost)); });
}

BANKCHECK_API cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  return call([&](Runtime& rt) {
    if (!ptr || size == 0) return cudaErrorInvalidValue;
    if (flags & ~(cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                  cudaHostRegisterReadOnly))
      return cudaErrorInvalidValue;
    const auto start = reinterpret_cast<std::uintptr_t>(ptr);
    // No part of the range may already be pinned or registered.
    auto it = rt.allocations.lower_bound(start);
    if (it != rt.allocations.end() && it->first < start + size)
      return cudaErrorHostMemoryAlreadyRegistered;
    if (rt.allocation_of(ptr)) return cudaErrorHostMemoryAlreadyRegistered;
    rt.allocations[start] = Allocation{size, AllocationKind::RegisteredHost, flags, false, false};
    if (Executor* ex = rt.executor()) ex->memory_allocated(ptr, size, MemoryKind::RegisteredHost);
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaHostUnregister(void* ptr) {
  return call([&](Runtime& rt) {
    const auto it = rt.allocations.find(reinterpret_cast<std::uintptr_t>(ptr));
    if (!ptr || it == rt.allocations.end() || it->second.kind != AllocationKind::RegisteredHost)
      return cudaErrorHostMemoryNotRegistered;
    return release(rt, ptr, kind_bit(AllocationKind::RegisteredHost));
  });
}

BANKCHECK_API cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost,
                                                   unsigned int flags) {
  return call([&](Runtime& rt) {
    if (!pDevice || flags != 0) return cudaErrorInvalidValue;
    const Allocation* a = rt.allocation_of(pHost);
    if (!a || (a->kind != AllocationKind::PinnedHost && a->kind != AllocationKind::RegisteredHost))
      return cudaErrorInvalidValue;
    *pDevice = pHost;  // one address space
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaHostGetFlags(unsigned int* pFlags, void* pHost) {
  return call([&](Runtime& rt) {
    if (!pFlags) return cudaErrorInvalidValue;
    const Allocation* a = rt.allocation_of(pHost);
    if (!a || (a->kind != AllocationKind::PinnedHost && a->kind != AllocationKind::RegisteredHost))
      return cudaErrorInvalidValue;
    *pFlags = a->flags | cudaHostAllocMapped;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  return call([&](Runtime& rt) {
    if (!free || !total) return cudaErrorInvalidValue;
    *total = rt.device.board.global_bytes;
    *free = *total - rt.device_bytes_in_use;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes,
                                                   const void* ptr) {
  return call([&](Runtime& rt) {
    if (!attributes) return cudaErrorInvalidValue;
    *attributes = cudaPointerAttributes{};
    const Allocation* a = rt.allocation_of(ptr);
    void* p = const_cast<void*>(ptr);
    if (!a) {
      attributes->type = cudaMemoryTypeUnregistered;
      attributes->device = cudaInvalidDeviceId;
      return cudaSuccess;
    }
    attributes->device = 0;
    attributes->devicePointer = p;
    switch (a->kind) {
      case AllocationKind::Device:
      case AllocationKind::Symbol:
        attributes->type = cudaMemoryTypeDevice;
        break;
      case AllocationKind::Managed:
        attributes->type = cudaMemoryTypeManaged;
        attributes->hostPointer = p;
        break;
      case AllocationKind::PinnedHost:
      case AllocationKind::RegisteredHost:
        attributes->type = cudaMemoryTypeHost;
        attributes->hostPointer = p;
        break;
    }
    return cudaSuccess;
  });
}

// Where managed memory lives and what it is used for changes nothing here.
BANKCHECK_API cudaError_t cudaMemPrefetchAsync(const void*, size_t, cudaMemLocation, unsigned int,
                                               cudaStream_t stream) {
  return call([&](Runtime& rt) { return check_stream(rt, stream); });
}
BANKCHECK_PER_THREAD(cudaMemPrefetchAsync, cudaMemPrefetchAsync_ptsz)

BANKCHECK_API cudaError_t cudaMemAdvise(const void*, size_t, cudaMemoryAdvise, cudaMemLocation) {
  return call([&](Runtime&) { return cudaSuccess; });
}

BANKCHECK_API cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void*, size_t,
                                                   unsigned int) {
  return call([&](Runtime& rt) { return check_stream(rt, stream); });
}
BANKCHECK_PER_THREAD(cudaStreamAttachMemAsync, cudaStreamAttachMemAsync_ptsz)

// ---- The device's memory pool: one, holding nothing back ---------------------------------

namespace {
// A handle no program dereferences; cudaMemPool_t is opaque.
cudaMemPool_t the_pool() {
  static int pool;
  return reinterpret_cast<cudaMemPool_t>(&pool);
}
}  // namespace

BANKCHECK_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  return call([&](Runtime&) {
    if (!memPool) return cudaErrorInvalidValue;
    if (device != 0) return cudaErrorInvalidDevice;
    *memPool = the_pool();
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device) {
  return cudaDeviceGetDefaultMemPool(memPool, device);
}

BANKCHECK_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr,
                                                  void* value) {
  return call([&](Runtime&) {
    return memPool == the_pool() && value ? cudaSuccess : cudaErrorInvalidValue;
  });
}

BANKCHECK_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr,
                                                  void* value) {
  return call([&](Runtime& rt) {
    if (memPool != the_pool() || !value) return cudaErrorInvalidValue;
    switch (attr) {
      case cudaMemPoolReuseFollowEventDependencies:
      case cudaMemPoolReuseAllowOpportunistic:
      case cudaMemPoolReuseAllowInternalDependencies:
        *static_cast<int*>(value) = 1;
        break;
      case cudaMemPoolAttrReleaseThreshold:
        *static_cast<unsigned long long*>(value) = 0;
        break;
      default:  // the byte counts: what is allocated now
        *static_cast<unsigned long long*>(value) = rt.device_bytes_in_use;
        break;
    }
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t) {
  return call(
      [&](Runtime&) { return memPool == the_pool() ? cudaSuccess : cudaErrorInvalidValue; });
}

// ---- Copies and fills ---------------------------------------------------------------------

BANKCHECK_API cudaError_t cudaMemcpy(void* dst, const void* src, size_t count,
                                     cudaMemcpyKind kind) {
  return call([&](Runtime& rt) { return copy(rt, dst, src, count, kind); });
}
BANKCHECK_PER_THREAD(cudaMemcpy, cudaMemcpy_ptds)

BANKCHECK_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                          cudaMemcpyKind kind, cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return copy(rt, dst, src, count, kind);
  });
}
BANKCHECK_PER_THREAD(cudaMemcpyAsync, cudaMemcpyAsync_ptsz)

// One device: a peer copy is a device-to-device copy.
BANKCHECK_API cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice,
                                         size_t count) {
  return call([&](Runtime& rt) {
    if (dstDevice != 0 || srcDevice != 0) return cudaErrorInvalidDevice;
    return copy(rt, dst, src, count, cudaMemcpyDeviceToDevice);
  });
}

BANKCHECK_API cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src,
                                              int srcDevice, size_t count, cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    if (dstDevice != 0 || srcDevice != 0) return cudaErrorInvalidDevice;
    return copy(rt, dst, src, count, cudaMemcpyDeviceToDevice);
  });
}

BANKCHECK_API cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                                       size_t width, size_t height, cudaMemcpyKind kind) {
  return call(
      [&](Runtime& rt) { return copy_2d(rt, dst, dpitch, src, spitch, width, height, kind); });
}
BANKCHECK_PER_THREAD(cudaMemcpy2D, cudaMemcpy2D_ptds)

BANKCHECK_API cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src,
                                            size_t spitch, size_t width, size_t height,
                                            cudaMemcpyKind kind, cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return copy_2d(rt, dst, dpitch, src, spitch, width, height, kind);
  });
}
BANKCHECK_PER_THREAD(cudaMemcpy2DAsync, cudaMemcpy2DAsync_ptsz)

namespace {

// cudaMemcpy3D between pitched linear memory (arrays are not implemented, so a parameter
// block naming one names nothing this runtime made).
cudaError_t copy_3d(Runtime& rt, const cudaMemcpy3DParms* p) {
  if (!p) return cudaErrorInvalidValue;
  if (p->srcArray || p->dstArray) return cudaErrorInvalidResourceHandle;
  const cudaExtent e = p->extent;
  const cudaPitchedPtr s = p->srcPtr, d = p->dstPtr;
  if (e.width > s.pitch || e.width > d.pitch) return cudaErrorInvalidPitchValue;
  if (e.width == 0 || e.height == 0 || e.depth == 0) return cudaSuccess;
  const std::size_t s_slice = s.pitch * (s.ysize ? s.ysize : e.height);
  const std::size_t d_slice = d.pitch * (d.ysize ? d.ysize : e.height);
  auto* src =
      static_cast<const char*>(s.ptr) + p->srcPos.z * s_slice + p->srcPos.y * s.pitch + p->srcPos.x;
  auto* dst =
      static_cast<char*>(d.ptr) + p->dstPos.z * d_slice + p->dstPos.y * d.pitch + p->dstPos.x;
  const std::size_t s_span = s_slice * (e.depth - 1) + s.pitch * (e.height - 1) + e.width;
  const std::size_t d_span = d_slice * (e.depth - 1) + d.pitch * (e.height - 1) + e.width;
  if (const cudaError_t err = check_copy(rt, dst, d_span, src, s_span, p->kind)) return err;
  for (std::size_t z = 0; z < e.depth; ++z)
    for (std::size_t y = 0; y < e.height; ++y)
      std::memmove(dst + z * d_slice + y * d.pitch, src + z * s_slice + y * s.pitch, e.width);
  written(rt, dst, d_span);
  return cudaSuccess;
}

cudaError_t fill_3d(Runtime& rt, cudaPitchedPtr p, int value, cudaExtent e) {
  if (e.width > p.pitch) return cudaErrorInvalidValue;
  if (e.width == 0 || e.height == 0 || e.depth == 0) return cudaSuccess;
  const std::size_t slice = p.pitch * (p.ysize ? p.ysize : e.height);
  if (!device_range(rt, p.ptr, slice * (e.depth - 1) + p.pitch * (e.height - 1) + e.width))
    return cudaErrorInvalidValue;
  for (std::size_t z = 0; z < e.depth; ++z)
    for (std::size_t y = 0; y < e.height; ++y)
      std::memset(static_cast<char*>(p.ptr) + z * slice + y * p.pitch, value, e.width);
  written(rt, p.ptr, slice * (e.depth - 1) + p.pitch * (e.height - 1) + e.width);
  return cudaSuccess;
}

}  // namespace

BANKCHECK_API cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  return call([&](Runtime& rt) { return copy_3d(rt, p); });
}
BANKCHECK_PER_THREAD(cudaMemcpy3D, cudaMemcpy3D_ptds)

BANKCHECK_API cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return copy_3d(rt, p);
  });
}
BANKCHECK_PER_THREAD(cudaMemcpy3DAsync, cudaMemcpy3DAsync_ptsz)

BANKCHECK_API cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return call([&](Runtime& rt) { return fill(rt, devPtr, value, count); });
}
BANKCHECK_PER_THREAD(cudaMemset, cudaMemset_ptds)

BANKCHECK_API cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count,
                                          cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return fill(rt, devPtr, value, count);
  });
}
BANKCHECK_PER_THREAD(cudaMemsetAsync, cudaMemsetAsync_ptsz)

BANKCHECK_API cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width,
                                       size_t height) {
  return call([&](Runtime& rt) { return fill_2d(rt, devPtr, pitch, value, width, height); });
}
BANKCHECK_PER_THREAD(cudaMemset2D, cudaMemset2D_ptds)

BANKCHECK_API cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width,
                                            size_t height, cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return fill_2d(rt, devPtr, pitch, value, width, height);
  });
}
BANKCHECK_PER_THREAD(cudaMemset2DAsync, cudaMemset2DAsync_ptsz)

BANKCHECK_API cudaError_t cudaMemset3D(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent) {
  return call([&](Runtime& rt) { return fill_3d(rt, pitchedDevPtr, value, extent); });
}
BANKCHECK_PER_THREAD(cudaMemset3D, cudaMemset3D_ptds)

BANKCHECK_API cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitchedDevPtr, int value,
                                            cudaExtent extent, cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return fill_3d(rt, pitchedDevPtr, value, extent);
  });
}
BANKCHECK_PER_THREAD(cudaMemset3DAsync, cudaMemset3DAsync_ptsz)

// ---- Variables by symbol ------------------------------------------------------------------

BANKCHECK_API cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count,
                                             size_t offset, cudaMemcpyKind kind) {
  return call([&](Runtime& rt) { return to_symbol(rt, symbol, src, count, offset, kind); });
}
BANKCHECK_PER_THREAD(cudaMemcpyToSymbol, cudaMemcpyToSymbol_ptds)

BANKCHECK_API cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                                  size_t offset, cudaMemcpyKind kind,
                                                  cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return to_symbol(rt, symbol, src, count, offset, kind);
  });
}
BANKCHECK_PER_THREAD(cudaMemcpyToSymbolAsync, cudaMemcpyToSymbolAsync_ptsz)

BANKCHECK_API cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count,
                                               size_t offset, cudaMemcpyKind kind) {
  return call([&](Runtime& rt) { return from_symbol(rt, dst, symbol, count, offset, kind); });
}
BANKCHECK_PER_THREAD(cudaMemcpyFromSymbol, cudaMemcpyFromSymbol_ptds)

BANKCHECK_API cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count,
                                                    size_t offset, cudaMemcpyKind kind,
                                                    cudaStream_t stream) {
  return call([&](Runtime& rt) {
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    return from_symbol(rt, dst, symbol, count, offset, kind);
  });
}
BANKCHECK_PER_THREAD(cudaMemcpyFromSymbolAsync, cudaMemcpyFromSymbolAsync_ptsz)

BANKCHECK_API cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  return call([&](Runtime& rt) {
    if (!devPtr) return cudaErrorInvalidValue;
    std::byte* p = nullptr;
    if (const cudaError_t e = symbol_bytes(rt, symbol, 0, 0, &p)) return e;
    *devPtr = p;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  return call([&](Runtime& rt) {
    if (!size) return cudaErrorInvalidValue;
    const Variable* v = rt.variable(symbol);
    if (!v) return cudaErrorInvalidSymbol;
    *size = v->bytes;
    return cudaSuccess;
  });
}
