// cp.async.bulk and cp.reduce.async.bulk without a tensor map: the TMA unit's copies between
// global and shared memory and between the shared memories of a cluster's CTAs, each issued
// by one thread (every executing lane issues its own, in lane order).
//
// The copy is done when the instruction issues, as cp.async's is (async_copy.cpp): a copy
// into shared memory then performs complete_tx of its bytes on its mbarrier (in the
// destination's CTA), so a thread waiting on the phase sees the data once the phase
// completes, as on the GPU. bulk_group copies to global memory need nothing at commit_group
// or wait_group. With .multicast::cluster the global bytes land at the same offset in every
// CTA of the mask, and each of those CTAs' mbarrier at the mbarrier's offset completes them.
//
// The PTX ISA requires both addresses 16-byte aligned and the size a multiple of 16; a copy
// that breaks this is a fault naming the lane. Each copy is sent as requests of 512 bytes
// (the last one shorter), 16 bytes per lane in order, as if a warp moved them with 16-byte
// vector accesses, of kind AccessKind::Bulk: the global side on Instr::site2 (a load, or a
// store for a copy to global memory), the shared side on Instr::site. The TMA unit moves
// them, not the LSU: Nsight Compute lists no wavefront and no sector for either side, one
// execution per warp (measured: model::tma_copy; the warp's further events `continue` its
// execution). Another CTA's shared bytes are sent with its rank bits
// (ptx::kClusterRankShift).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cta.hpp"
#include "values.hpp"

namespace bankcheck::emu::detail {

// The reduction of a reducing bulk or tensor copy on one element's bits: `a` (what memory
// holds) combined with `b` (what the copy brings); floats rounded to nearest.
std::uint64_t reduce_values(ptx::AtomOp op, Ty t, std::uint64_t a, std::uint64_t b) {
  if (ptx::ty_float(t)) {
    Instr x;
    x.op = op == ptx::AtomOp::Min ? Opc::Min : op == ptx::AtomOp::Max ? Opc::Max : Opc::Add;
    x.type = t;
    x.mod.round = ptx::Round::Rn;
    return arith(x, a, b, 0);
  }
  const bool sgn = ptx::ty_signed(t);
  switch (op) {
    case ptx::AtomOp::Add:
      return a + b;
    case ptx::AtomOp::Min:
      return sgn ? (sext(a, t) < sext(b, t) ? a : b) : std::min(a, b);
    case ptx::AtomOp::Max:
      return sgn ? (sext(a, t) > sext(b, t) ? a : b) : std::max(a, b);
    case ptx::AtomOp::Inc:
      return a >= b ? 0 : a + 1;
    case ptx::AtomOp::Dec:
      return (a == 0 || a > b) ? b : a - 1;
    case ptx::AtomOp::And:
      return a & b;
    case ptx::AtomOp::Or:
      return a | b;
    case ptx::AtomOp::Xor:
      return a ^ b;
    default:
      return a;
  }
}

namespace {

constexpr std::uint64_t kChunk = 16;                           // bytes per lane of a request
constexpr std::uint64_t kRequest = kChunk * model::kWarpSize;  // bytes per request

// The requests of one side of a copy of `n` bytes from `at`; `sent` says whether the warp's
// execution already sent an event on `site` (the first one counts it).
void emit_side(Ctx& c, const Instr& in, int site, int w, Space space, std::uint64_t at,
               std::uint64_t n, AccessEvent proto, bool& sent) {
  std::uint64_t a[32] = {};
  for (std::uint64_t off = 0; off < n; off += kRequest) {
    std::uint32_t mask = 0;
    for (std::uint64_t l = 0; l < 32 && off + l * kChunk < n; ++l) {
      a[l] = at + off + l * kChunk;
      mask |= 1u << l;
    }
    proto.continues = sent;
    c.emit_kind(in, site, w, mask, space, a, kChunk, proto);
    sent = true;
  }
}

AccessEvent side(model::Op op) {
  AccessEvent e;
  e.kind = AccessKind::Bulk;
  e.op = op;
  return e;
}

// A shared address as events carry it: with the CTA's rank bits when it is another CTA's.
std::uint64_t event_address(const Ctx& c, const Ctx& owner, std::uint64_t offset) {
  return &owner == &c ? offset
                      : offset | (std::uint64_t{owner.cluster_rank + 1} << ptx::kClusterRankShift);
}

// One element of a reducing copy: `to` combined with `from` by the reduction.
void reduce_element(const ptx::MbarMods& m, std::uint8_t* to, const std::uint8_t* from) {
  const Ty t = m.reduce_type;
  const int bytes = ptx::ty_bytes(t);
  std::uint64_t a = 0, b = 0;
  std::memcpy(&a, to, static_cast<std::size_t>(bytes));
  std::memcpy(&b, from, static_cast<std::size_t>(bytes));
  const std::uint64_t r = reduce_values(m.reduce_op, t, a, b) & mask_of(t);
  std::memcpy(to, &r, static_cast<std::size_t>(bytes));
}

// `n` bytes from `from` to `to`: copied, or combined element by element.
void move(const ptx::MbarMods& m, std::uint8_t* to, const std::uint8_t* from, std::uint64_t n) {
  if (!m.reduce) {
    std::memcpy(to, from, n);
    return;
  }
  const auto bytes = static_cast<std::uint64_t>(ptx::ty_bytes(m.reduce_type));
  for (std::uint64_t i = 0; i + bytes <= n; i += bytes) reduce_element(m, to + i, from + i);
}

}  // namespace

void bulk_copy(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec) {
  const ptx::MbarMods& m = in.mod.mbar;
  bool sent = false, sent2 = false;  // the warp's events on site and site2
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const std::uint64_t dst = c.address(in, w, l);
    const std::uint64_t src = c.address_of(in.mem2, w, l);
    const std::uint64_t n = c.val(in.src[0], w, l) & 0xffffffffu;
    const char* what = m.reduce ? "cp.reduce.async.bulk" : "cp.async.bulk";
    if (dst % 16 || src % 16 || n % 16)
      c.fail(EmuError::Kind::Misaligned, pc,
             fmt::format("{} of {} bytes from 0x{:x} to 0x{:x} (lane {} of warp {}): the PTX ISA "
                         "requires 16-byte aligned addresses and a size that is a multiple of 16",
                         what, n, src, dst, l, w));
    // The shared side (the source of a copy out of shared memory, else the destination).
    Ctx* owner = nullptr;
    std::uint64_t offset = 0;
    const bool from_shared = m.to_global || m.to_cluster;
    std::uint8_t* sp =
        c.shared_range(in, pc, from_shared ? src : dst, n, w, l, what, owner, offset);
    if (from_shared && owner != &c)
      c.fail(EmuError::Kind::OutOfBounds, pc,
             fmt::format("{} reads shared::cta memory: 0x{:x} names another CTA (lane {} of warp "
                         "{})",
                         what, src, l, w));
    if (m.to_cluster) {  // shared::cta to another CTA's shared memory
      Ctx* to = nullptr;
      std::uint64_t to_offset = 0;
      std::uint8_t* dp = c.shared_range(in, pc, dst, n, w, l, what, to, to_offset);
      if (n > 0) {
        if (c.bookkeeping) {
          if (c.test_reads(in.site) && !c.written->test(offset, n)) c.read_unwritten_at(in.site);
          to->written->mark(to_offset, n);
        }
        move(m, dp, sp, n);
      }
      if (c.has_listeners) {
        emit_side(c, in, in.site, w, Space::Shared, offset, n, side(model::Op::Load), sent);
        emit_side(c, in, in.site, w, Space::Shared, event_address(c, *to, to_offset), n,
                  side(model::Op::Store), sent);
      }
      mbarrier_complete_tx(c, in, pc, c.address_of(in.mem3, w, l), Space::Shared, n, w, l);
      continue;
    }
    const std::uint64_t global = m.to_global ? dst : src;
    GlobalMemory::Buffer* b = c.mem.find(global, std::max<std::uint64_t>(n, 1));
    if (!b)
      c.fail(EmuError::Kind::OutOfBounds, pc,
             fmt::format("{} global memory outside every buffer: {} bytes at 0x{:x} (lane {} of "
                         "warp {})",
                         what, n, global, l, w));
    const std::uint64_t off = global - b->base;
    if (c.bookkeeping) touch(*b, off + n, !m.to_global);
    if (c.footprint)
      c.footprint->mark(*b, off, n,
                        !m.to_global ? Footprint::Access::Read
                        : m.reduce   ? Footprint::Access::ReadWrite
                                     : Footprint::Access::Write);
    if (m.to_global) {
      if (n > 0) {
        if (c.bookkeeping && c.test_reads(in.site) && !c.written->test(offset, n))
          c.read_unwritten_at(in.site);
        move(m, b->data() + off, sp, n);
      }
      if (c.has_listeners) {
        emit_side(c, in, in.site2, w, Space::Global, global, n, side(model::Op::Store), sent2);
        emit_side(c, in, in.site, w, Space::Shared, offset, n, side(model::Op::Load), sent);
      }
      continue;
    }
    // Into shared memory: the destination's CTA, or with .multicast::cluster every CTA of
    // the mask at the same offset; each completes the bytes on its mbarrier.
    const std::uint64_t mbar = c.address_of(in.mem3, w, l);
    std::uint32_t targets = 0;
    if (m.multicast) {
      if (owner != &c)
        c.fail(EmuError::Kind::OutOfBounds, pc,
               fmt::format("cp.async.bulk .multicast::cluster to 0x{:x}: the destination is an "
                           "offset in the issuing CTA's shared memory (lane {} of warp {})",
                           dst, l, w));
      targets = static_cast<std::uint32_t>(c.val(in.src[1], w, l) & 0xFFFFu);
      if (c.cluster_size < 32) targets &= (1u << c.cluster_size) - 1;
    }
    if (c.has_listeners)
      emit_side(c, in, in.site2, w, Space::Global, global, n, side(model::Op::Load), sent2);
    const auto land = [&](Ctx& to, std::uint64_t at, std::uint64_t mbar_at) {
      if (n > 0) {
        if (c.bookkeeping) to.written->mark(at, n);
        std::memcpy(to.shared.data() + at, b->data() + off, n);
      }
      if (c.has_listeners)
        emit_side(c, in, in.site, w, Space::Shared, event_address(c, to, at), n,
                  side(model::Op::Store), sent);
      mbarrier_complete_tx(c, in, pc, mbar_at, Space::Shared, n, w, l);
    };
    if (!m.multicast) {
      land(*owner, offset, mbar);
      continue;
    }
    const std::uint64_t mbar_offset = static_cast<std::uint32_t>(mbar) & ptx::kClusterOffsetMask;
    for (std::uint32_t r = 0; r < c.cluster_size && r < 16; ++r) {
      if (!((targets >> r) & 1u)) continue;
      Ctx* to = nullptr;
      std::uint64_t at = 0;
      c.shared_range(in, pc, offset | (std::uint64_t{r + 1} << ptx::kClusterRankShift), n, w, l,
                     what, to, at);
      land(*to, at, mbar_offset | (std::uint64_t{r + 1} << ptx::kClusterRankShift));
    }
  }
}

}  // namespace bankcheck::emu::detail
