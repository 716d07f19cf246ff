// cp.async.bulk without a tensor map: the TMA unit's copies between global and shared
// memory, each issued by one thread (every executing lane issues its own, in lane order).
//
// The copy is done when the instruction issues, as cp.async's is (async_copy.cpp): a
// global-to-shared copy then performs complete_tx of its bytes on its mbarrier, so a thread
// waiting on the phase sees the data once the phase completes, as on the GPU. bulk_group
// copies to global memory need nothing at commit_group or wait_group.
//
// The PTX ISA requires both addresses 16-byte aligned and the size a multiple of 16; a copy
// that breaks this is a fault naming the lane. Each copy is sent as requests of 512 bytes
// (the last one shorter), 16 bytes per lane in order, as if a warp moved them with 16-byte
// vector accesses: the global side an ordinary request on Instr::site2 (a load, or a store
// for a copy to global memory), so that its sectors are counted like any other; the shared
// side a request of kind AccessKind::Bulk on Instr::site, which the TMA unit serves rather
// than the LSU (docs/model.md: counted without bank conflicts, not yet measured).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cta.hpp"

namespace bankcheck::emu::detail {

namespace {

constexpr std::uint64_t kChunk = 16;                           // bytes per lane of a request
constexpr std::uint64_t kRequest = kChunk * model::kWarpSize;  // bytes per request

// The requests of one copy of `n` bytes: global side, then shared side.
void emit_copy(Ctx& c, const Instr& in, int w, std::uint64_t global, std::uint64_t shared,
               std::uint64_t n, bool to_global) {
  AccessEvent global_side, shared_side;
  global_side.op = to_global ? model::Op::Store : model::Op::Load;
  shared_side.kind = AccessKind::Bulk;
  shared_side.op = to_global ? model::Op::Load : model::Op::Store;
  std::uint64_t ga[32] = {}, sa[32] = {};
  for (std::uint64_t at = 0; at < n; at += kRequest) {
    std::uint32_t mask = 0;
    for (std::uint64_t l = 0; l < 32 && at + l * kChunk < n; ++l) {
      ga[l] = global + at + l * kChunk;
      sa[l] = shared + at + l * kChunk;
      mask |= 1u << l;
    }
    c.emit_kind(in, in.site2, w, mask, Space::Global, ga, kChunk, global_side);
    c.emit_kind(in, in.site, w, mask, Space::Shared, sa, kChunk, shared_side);
  }
}

}  // namespace

void bulk_copy(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec) {
  const bool to_global = in.mod.mbar.to_global;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const std::uint64_t dst = c.address(in, w, l);
    const std::uint64_t src = c.address_of(in.mem2, w, l);
    const std::uint64_t n = c.val(in.src[0], w, l) & 0xffffffffu;
    const std::uint64_t shared = to_global ? src : dst, global = to_global ? dst : src;
    if (dst % 16 || src % 16 || n % 16)
      c.fail(EmuError::Kind::Misaligned, pc,
             fmt::format("cp.async.bulk of {} bytes from 0x{:x} to 0x{:x} (lane {} of warp {}): "
                         "the PTX ISA requires 16-byte aligned addresses and a size that is a "
                         "multiple of 16",
                         n, src, dst, l, w));
    if (shared + n > c.shared.size() || shared + n < shared)
      c.fail(EmuError::Kind::OutOfBounds, pc,
             fmt::format("cp.async.bulk shared memory out of bounds: bytes [{}, {}) of a {}-byte "
                         "shared window (lane {} of warp {})",
                         shared, shared + n, c.shared.size(), l, w));
    GlobalMemory::Buffer* b = c.mem.find(global, std::max<std::uint64_t>(n, 1));
    if (!b)
      c.fail(EmuError::Kind::OutOfBounds, pc,
             fmt::format("cp.async.bulk global memory outside every buffer: {} bytes at 0x{:x} "
                         "(lane {} of warp {})",
                         n, global, l, w));
    const std::uint64_t off = global - b->base;
    if (c.bookkeeping) touch(*b, off + n, !to_global);
    if (c.footprint)
      c.footprint->mark(*b, off, n, to_global ? Footprint::Access::Write : Footprint::Access::Read);
    if (n > 0) {
      if (to_global) {
        if (c.bookkeeping && c.test_reads(in.site) && !c.written->test(shared, n))
          c.read_unwritten_at(in.site);
        std::memcpy(b->data() + off, c.shared.data() + shared, n);
      } else {
        if (c.bookkeeping) c.written->mark(shared, n);
        std::memcpy(c.shared.data() + shared, b->data() + off, n);
      }
    }
    if (c.has_listeners) emit_copy(c, in, w, global, shared, n, to_global);
    if (!to_global) {
      const std::uint64_t mbar = c.address_of(in.mem3, w, l);
      mbarrier_complete_tx(c, in, pc, mbar, Space::Shared, n, w, l);
    }
  }
}

}  // namespace bankcheck::emu::detail
