// Allocation and release of the host memory behind device pointers; copies and fills
// (memory.hpp).
#include "memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace bankcheck::runtime {

namespace {

// Above this, memory comes from mmap with MAP_NORESERVE: zero pages that cost nothing until
// touched, so that a program allocating most of an 80 GB device (or more than the host has)
// does not commit it.
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

// The bytes a region spans: `depth` slices of `height` rows of `width` bytes.
std::size_t span(std::size_t pitch, std::size_t rows_per_slice, std::size_t width,
                 std::size_t height, std::size_t depth) {
  if (width == 0 || height == 0 || depth == 0) return 0;
  return pitch * rows_per_slice * (depth - 1) + pitch * (height - 1) + width;
}

// Every write of a copy or fill to the program's memory is reported to the executor
// (ExecutorConfig::reports_writes): the `bytes` from `p` a region spans.
void written(Driver& d, const void* p, std::size_t bytes) {
  if (!bytes) return;
  if (Executor* ex = d.executor()) ex->memory_written(p, bytes);
}

// Zeros [p, p + count) of an anonymous private mapping: its whole pages are given back (they
// read as zeros again and cost nothing until touched), the partial ones at the ends cleared.
// Benchmarks clear a buffer the size of the L2 cache before every timed launch: 50 MB of
// stores each time, against one system call over pages already given back.
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

// The host's physical memory in bytes (0 when unknown).
std::size_t host_bytes() {
  static const std::size_t n = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                                 : std::size_t{0};
  }();
  return n;
}

// `bytes` (a multiple of kMapThreshold) of zero pages that cost nothing until touched; with
// `huge`, from a 2 MiB boundary and marked for transparent huge pages where the host has
// them: the emulator's accesses walk buffers of tens to hundreds of MB, column by column and
// row by row, and a touched 2 MiB page is one fault and one TLB entry where 4 KiB pages are
// 512 (allocate() asks for it while the program's device memory would fit in a quarter of
// the host's even if every page were touched). Null when there is no room.
void* map_zeros(std::size_t bytes, bool huge) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  if (!huge || bytes < kHuge) {
    void* p = mmap(nullptr, bytes, prot, flags, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
  void* q = mmap(nullptr, bytes + kHuge, prot, flags, -1, 0);
  if (q == MAP_FAILED) return nullptr;
  const auto at = reinterpret_cast<std::uintptr_t>(q);
  const std::uintptr_t begin = round_up(at, kHuge), end = begin + bytes;
  if (begin > at) munmap(q, begin - at);
  if (at + bytes + kHuge > end) munmap(reinterpret_cast<void*>(end), at + bytes + kHuge - end);
#ifdef MADV_HUGEPAGE
  madvise(reinterpret_cast<void*>(begin), bytes, MADV_HUGEPAGE);  // advice: may be refused
#endif
  return reinterpret_cast<void*>(begin);
}

}  // namespace

CUresult allocate(Driver& d, void** out, std::size_t bytes, AllocationKind kind, unsigned flags,
                  CUmemoryPool pool) {
  if (!out || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (counts_as_device(kind) && bytes > d.device.board.global_bytes - d.device_bytes_in_use)
    return CUDA_ERROR_OUT_OF_MEMORY;
  void* p = nullptr;
  const bool mapped = bytes >= kMapThreshold;
  if (mapped) {
    p = map_zeros(round_up(bytes, kMapThreshold),
                  d.device_bytes_in_use + bytes <= host_bytes() / 4);
    if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  } else {
    p = std::aligned_alloc(kAllocationAlignment, round_up(bytes, kAllocationAlignment));
    if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
    std::memset(p, 0, bytes);
  }
  Allocation a{bytes, kind, flags, mapped, true, pool};
  d.allocations[reinterpret_cast<std::uintptr_t>(p)] = a;
  if (counts_as_device(kind)) d.device_bytes_in_use += bytes;
  if (Executor* ex = d.executor()) ex->memory_allocated(p, bytes, memory_kind(kind));
  *out = p;
  return CUDA_SUCCESS;
}

CUresult release(Driver& d, const void* p, unsigned kinds) {
  const auto it = d.allocations.find(reinterpret_cast<std::uintptr_t>(p));
  if (!p || it == d.allocations.end() || !(kinds & kind_bit(it->second.kind)) || it->second.vmm)
    return CUDA_ERROR_INVALID_VALUE;
  const Allocation a = it->second;
  void* q = const_cast<void*>(p);
  forget_textures_in(d, it->first, a.bytes);
  if (Executor* ex = d.executor()) ex->memory_freed(q);
  d.allocations.erase(it);
  if (counts_as_device(a.kind)) d.device_bytes_in_use -= a.bytes;
  if (a.graph)
    d.graph_reserved[reinterpret_cast<std::uintptr_t>(p)] = a;
  else if (a.owned)
    give_back(q, a);
  return CUDA_SUCCESS;
}

CUresult reallocate_graph_memory(Driver& d, CUdeviceptr p) {
  const auto it = d.graph_reserved.find(static_cast<std::uintptr_t>(p));
  if (it == d.graph_reserved.end()) return CUDA_SUCCESS;
  const Allocation a = it->second;
  if (counts_as_device(a.kind) && a.bytes > d.device.board.global_bytes - d.device_bytes_in_use)
    return CUDA_ERROR_OUT_OF_MEMORY;
  d.graph_reserved.erase(it);
  d.allocations[static_cast<std::uintptr_t>(p)] = a;
  if (counts_as_device(a.kind)) d.device_bytes_in_use += a.bytes;
  if (Executor* ex = d.executor())
    ex->memory_allocated(reinterpret_cast<void*>(p), a.bytes, memory_kind(a.kind));
  return CUDA_SUCCESS;
}

void release_all_memory(Driver& d) {
  for (auto it = d.allocations.begin(); it != d.allocations.end();) {
    if (it->second.kind == AllocationKind::Symbol) {
      ++it;
      continue;
    }
    void* p = reinterpret_cast<void*>(it->first);
    if (Executor* ex = d.executor()) ex->memory_freed(p);
    if (it->second.owned) give_back(p, it->second);
    it = d.allocations.erase(it);
  }
  for (const auto& [p, a] : d.graph_reserved) give_back(reinterpret_cast<void*>(p), a);
  d.graph_reserved.clear();
  d.device_bytes_in_use = 0;
}

bool device_range(const Driver& d, const void* p, std::size_t bytes) {
  const Allocation* a = d.allocation_of(p, bytes);
  return a && (kDeviceAccessible & kind_bit(a->kind));
}

CUDA_MEMCPY3D linear_copy(void* dst, CUmemorytype dst_type, const void* src, CUmemorytype src_type,
                          std::size_t bytes) {
  CUDA_MEMCPY3D p{};
  p.srcMemoryType = src_type;
  p.srcHost = src;
  p.srcDevice = reinterpret_cast<CUdeviceptr>(src);
  p.srcPitch = bytes;
  p.dstMemoryType = dst_type;
  p.dstHost = dst;
  p.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
  p.dstPitch = bytes;
  p.WidthInBytes = bytes;
  p.Height = 1;
  p.Depth = 1;
  return p;
}

CUresult copy_3d(Driver& d, const CUDA_MEMCPY3D& p) {
  const std::size_t width = p.WidthInBytes, height = p.Height ? p.Height : 1,
                    depth = p.Depth ? p.Depth : 1;
  // Each side: its bytes, pitch and rows per slice (an array's own, the region inside it), and
  // its array if it is one.
  struct Side {
    const char* base = nullptr;
    std::size_t pitch = 0, rows = 0;
    const Array* array = nullptr;
  };
  const auto side = [&](CUmemorytype type, const void* host, CUdeviceptr dev, CUarray handle,
                        std::size_t x, std::size_t y, std::size_t z, std::size_t pitch,
                        std::size_t rows, Side& out) {
    if (type != CU_MEMORYTYPE_ARRAY) {
      out.base = type == CU_MEMORYTYPE_HOST ? static_cast<const char*>(host)
                                            : reinterpret_cast<const char*>(dev);
      out.pitch = pitch ? pitch : width;
      out.rows = rows ? rows : height;
      return CUDA_SUCCESS;
    }
    const Array* a = d.array(handle);
    if (!a) return CUDA_ERROR_INVALID_HANDLE;
    if (x + width > a->pitch || y + height > a->rows || z + depth > a->slices)
      return CUDA_ERROR_INVALID_VALUE;
    out = {reinterpret_cast<const char*>(a->data.get()), a->pitch, a->rows, a};
    return CUDA_SUCCESS;
  };
  Side from, to;
  if (const CUresult e = side(p.srcMemoryType, p.srcHost, p.srcDevice, p.srcArray, p.srcXInBytes,
                              p.srcY, p.srcZ, p.srcPitch, p.srcHeight, from))
    return e;
  if (const CUresult e = side(p.dstMemoryType, p.dstHost, p.dstDevice, p.dstArray, p.dstXInBytes,
                              p.dstY, p.dstZ, p.dstPitch, p.dstHeight, to))
    return e;
  const std::size_t spitch = from.pitch, dpitch = to.pitch, srows = from.rows, drows = to.rows;
  if (width > spitch || width > dpitch) return kInvalidPitch;
  const char* src = from.base + p.srcZ * srows * spitch + p.srcY * spitch + p.srcXInBytes;
  char* dst =
      const_cast<char*>(to.base) + p.dstZ * drows * dpitch + p.dstY * dpitch + p.dstXInBytes;
  const std::size_t sspan = span(spitch, srows, width, height, depth);
  const std::size_t dspan = span(dpitch, drows, width, height, depth);
  if (sspan == 0) return CUDA_SUCCESS;
  if (!src || !dst) return CUDA_ERROR_INVALID_VALUE;
  if (p.srcMemoryType == CU_MEMORYTYPE_DEVICE && !device_range(d, src, sspan))
    return CUDA_ERROR_INVALID_VALUE;
  if (p.dstMemoryType == CU_MEMORYTYPE_DEVICE && !device_range(d, dst, dspan))
    return CUDA_ERROR_INVALID_VALUE;
  if (height == 1 && depth == 1) {
    std::memmove(dst, src, width);
  } else {
    for (std::size_t z = 0; z < depth; ++z)
      for (std::size_t y = 0; y < height; ++y)
        std::memmove(dst + (z * drows + y) * dpitch, src + (z * srows + y) * spitch, width);
  }
  if (!to.array) written(d, dst, dspan);
  return CUDA_SUCCESS;
}

CUresult fill_2d(Driver& d, const CUDA_MEMSET_NODE_PARAMS& p) {
  const unsigned size = p.elementSize;
  if (size != 1 && size != 2 && size != 4) return CUDA_ERROR_INVALID_VALUE;
  const std::size_t row_bytes = p.width * size;
  const std::size_t pitch = p.height > 1 ? p.pitch : row_bytes;
  if (row_bytes > pitch) return CUDA_ERROR_INVALID_VALUE;
  if (row_bytes == 0 || p.height == 0) return CUDA_SUCCESS;
  auto* base = reinterpret_cast<char*>(p.dst);
  if (!device_range(d, base, span(pitch, p.height, row_bytes, p.height, 1)))
    return CUDA_ERROR_INVALID_VALUE;
  // Device addresses are 1-, 2- or 4-byte aligned as the element size requires.
  if (reinterpret_cast<std::uintptr_t>(base) % size || pitch % size)
    return CUDA_ERROR_INVALID_VALUE;
  const std::size_t bytes = span(pitch, p.height, row_bytes, p.height, 1);
  const std::uint32_t mask = size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
  const Allocation* a = d.allocation_of(base, bytes);
  if ((p.value & mask) == 0 && (p.height == 1 || pitch == row_bytes) && a && a->owned &&
      a->mapped) {  // zeros over one contiguous range of the driver's own mmap
    zero_mapped(base, bytes);
    written(d, base, bytes);
    return CUDA_SUCCESS;
  }
  for (std::size_t row = 0; row < p.height; ++row) {
    char* at = base + row * pitch;
    if (size == 1) {
      std::memset(at, static_cast<int>(p.value & 0xff), p.width);
    } else if (size == 2) {
      const auto v = static_cast<std::uint16_t>(p.value);
      for (std::size_t i = 0; i < p.width; ++i) std::memcpy(at + 2 * i, &v, 2);
    } else {
      const std::uint32_t v = p.value;
      for (std::size_t i = 0; i < p.width; ++i) std::memcpy(at + 4 * i, &v, 4);
    }
  }
  written(d, base, bytes);
  return CUDA_SUCCESS;
}

}  // namespace bankcheck::runtime
