// The memory behind every device pointer: ordinary host memory, listed in the Runtime's
// allocation table and announced to the executor, so that the program, its copies and the
// kernels all reach the same bytes at the same address.
#pragma once

#include "runtime.hpp"

namespace bankcheck::runtime {

// Allocations are 256-byte aligned (cudaMalloc's guarantee) and zero-filled, so that a
// program reading memory it never wrote sees the same bytes on every run.
inline constexpr std::size_t kAllocationAlignment = 256;
// Rows of cudaMallocPitch and cudaMalloc3D start at multiples of this (the device's texture
// alignment).
inline constexpr std::size_t kPitchAlignment = 512;

// Allocates `bytes` (0 gives a null pointer and cudaSuccess) of `kind`: Device, Managed or
// PinnedHost. Device and managed memory count against the device's global memory. `*out` is
// written only on success.
cudaError_t allocate(Runtime& rt, void** out, std::size_t bytes, AllocationKind kind,
                     unsigned flags = 0);
// Frees the allocation starting at `p` when its kind is one of `kinds` (a bit per
// AllocationKind); cudaErrorInvalidValue otherwise. A null pointer is fine.
cudaError_t release(Runtime& rt, void* p, unsigned kinds);
// cudaDeviceReset: every allocation freed, every registration undone (variables stay).
void release_all_memory(Runtime& rt);

inline constexpr unsigned kind_bit(AllocationKind k) { return 1u << static_cast<unsigned>(k); }
// Memory a kernel (and a device-side copy) may use: everything but plain program memory.
inline constexpr unsigned kDeviceAccessible =
    kind_bit(AllocationKind::Device) | kind_bit(AllocationKind::Managed) |
    kind_bit(AllocationKind::PinnedHost) | kind_bit(AllocationKind::RegisteredHost) |
    kind_bit(AllocationKind::Symbol);

// Whether [p, p + bytes) lies in one device-accessible allocation.
bool device_range(const Runtime& rt, const void* p, std::size_t bytes);

// The checks of a copy of `bytes` in direction `kind` from [src, ...) to [dst, ...): the
// direction is one cudaMemcpyKind names, and each side the direction says is on the device
// lies in device memory. `src_span`/`dst_span` are the bytes each side covers (for 2D copies,
// more than `bytes`).
cudaError_t check_copy(const Runtime& rt, const void* dst, std::size_t dst_span, const void* src,
                       std::size_t src_span, cudaMemcpyKind kind);

}  // namespace bankcheck::runtime
