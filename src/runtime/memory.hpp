// The memory behind every device pointer: ordinary host memory, listed in the Driver's
// allocation table and announced to the executor, so that the program, its copies and the
// kernels all reach the same bytes at the same address. Copies and fills in one place, for
// the API's calls and for graph nodes alike.
#pragma once

#include "driver.hpp"

namespace bankcheck::runtime {

// Allocations are 256-byte aligned (cuMemAlloc's guarantee) and zero-filled, so that a
// program reading memory it never wrote sees the same bytes on every run.
inline constexpr std::size_t kAllocationAlignment = 256;
// Rows of cuMemAllocPitch start at multiples of this (the device's texture alignment).
inline constexpr std::size_t kPitchAlignment = 512;

// Allocates `bytes` (0: CUDA_ERROR_INVALID_VALUE, as the driver answers) of `kind`: Device,
// Managed or PinnedHost. Device and managed memory count against the device's global memory
// (CUDA_ERROR_OUT_OF_MEMORY beyond it); any large allocation is reserved, not committed: only
// the pages the program and its kernels touch cost host memory. `*out` is written only on
// success.
CUresult allocate(Driver& d, void** out, std::size_t bytes, AllocationKind kind, unsigned flags = 0,
                  CUmemoryPool pool = nullptr);
// Frees the allocation starting at `p` when its kind is one of `kinds` (a bit per
// AllocationKind); CUDA_ERROR_INVALID_VALUE otherwise.
CUresult release(Driver& d, const void* p, unsigned kinds);
// Graph memory (Allocation::graph) that was freed: allocated again at its own address, as
// the allocation node that made it runs again (nothing to do while it is live).
CUresult reallocate_graph_memory(Driver& d, CUdeviceptr p);
// The primary context's reset: every allocation freed, every registration undone (module
// variables stay).
void release_all_memory(Driver& d);

inline constexpr unsigned kind_bit(AllocationKind k) { return 1u << static_cast<unsigned>(k); }
// Memory a kernel (and a device-side copy) may use: everything but plain program memory.
inline constexpr unsigned kDeviceAccessible =
    kind_bit(AllocationKind::Device) | kind_bit(AllocationKind::Managed) |
    kind_bit(AllocationKind::PinnedHost) | kind_bit(AllocationKind::RegisteredHost) |
    kind_bit(AllocationKind::Symbol);

// The texture objects that read linear or pitched memory inside [start, start + bytes), which
// is being freed: the executor forgets them (cu_textures.cpp).
void forget_textures_in(Driver& d, std::uintptr_t start, std::size_t bytes);

// Whether [p, p + bytes) lies in one device-accessible allocation.
bool device_range(const Driver& d, const void* p, std::size_t bytes);

// A copy as CUDA_MEMCPY3D describes one (1D and 2D copies are its special cases): each side
// its memory type (host, device or unified; arrays are not implemented:
// CUDA_ERROR_INVALID_HANDLE), its pointer, pitch and rows per slice, and a start (x in bytes,
// y, z). The side a type says is device memory must lie in one allocation
// (CUDA_ERROR_INVALID_VALUE), a width wider than a pitch is kInvalidPitch.
CUresult copy_3d(Driver& d, const CUDA_MEMCPY3D& p);
// A 1D copy of `bytes` from `src` to `dst`, of the given memory types.
CUDA_MEMCPY3D linear_copy(void* dst, CUmemorytype dst_type, const void* src, CUmemorytype src_type,
                          std::size_t bytes);

// A fill of `height` rows of `width` elements of `element_size` (1, 2 or 4) bytes, `pitch`
// bytes apart, with `value` (its low bytes), as a memset node describes one.
CUresult fill_2d(Driver& d, const CUDA_MEMSET_NODE_PARAMS& p);

}  // namespace bankcheck::runtime
