// The memory path: global buffers, and the reference form of every access (bounds,
// alignment, the shared and local windows, the touched-bytes record, the event). The
// micro-ops' fast forms (uop_run.hpp) end in the same emit() and touch(), and hand any
// warp they cannot prove valid to load_store() here, which names the faulting lane.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cta.hpp"

namespace bankcheck::emu {

// ---------------------------------------------------------------- global memory

std::uint64_t GlobalMemory::add(const std::string& name, std::uint64_t bytes, std::uint64_t base) {
  auto b = std::make_unique<Buffer>();
  b->name = name;
  if (base == 0) {
    base = next_;
    next_ += (std::max<std::uint64_t>(bytes, 1) + 0xFFFFFull) & ~0xFFFFull;  // 64 KiB apart
    next_ += 0x10000;  // a gap: running off the end of one buffer never reaches the next
  }
  b->base = base;
  b->size = std::max<std::uint64_t>(bytes, 1);
  b->storage.reset(static_cast<std::uint8_t*>(std::calloc(b->size, 1)));
  if (!b->storage)
    throw EmuError(EmuError::Kind::Unsupported,
                   "cannot allocate " + std::to_string(b->size) + " bytes for " + name, -1);
  index(b.get());
  buffers_.push_back(std::move(b));
  return base;
}

void GlobalMemory::add_external(const std::string& name, void* data, std::uint64_t bytes) {
  auto b = std::make_unique<Buffer>();
  b->name = name;
  b->base = reinterpret_cast<std::uint64_t>(data);
  b->size = std::max<std::uint64_t>(bytes, 1);
  b->storage = {static_cast<std::uint8_t*>(data), [](void*) {}};
  index(b.get());
  buffers_.push_back(std::move(b));
}

bool GlobalMemory::remove(std::uint64_t base) {
  const auto it = by_base_.find(base);
  if (it == by_base_.end()) return false;
  const Buffer* b = it->second;
  by_base_.erase(it);
  std::erase_if(buffers_, [&](const std::unique_ptr<Buffer>& p) { return p.get() == b; });
  ++removals_;
  return true;
}

void GlobalMemory::index(Buffer* b) {
  b->id = next_id_++;
  by_base_[b->base] = b;
}

void GlobalMemory::written(std::uint64_t addr, std::uint64_t bytes) {
  if (bytes == 0) return;
  // Buffers never overlap: the one below addr (which may reach into the range), then those
  // starting inside it.
  auto it = by_base_.upper_bound(addr);
  if (it != by_base_.begin()) {
    Buffer* b = std::prev(it)->second;
    if (addr - b->base < b->size) ++b->version;
  }
  for (; it != by_base_.end() && it->first - addr < bytes; ++it) ++it->second->version;
}

GlobalMemory::Buffer* GlobalMemory::find(std::uint64_t addr, std::uint64_t size) {
  // The buffer with the highest base at or below addr: buffers never overlap.
  auto it = by_base_.upper_bound(addr);
  if (it == by_base_.begin()) return nullptr;
  Buffer* b = std::prev(it)->second;
  if (addr - b->base + size <= b->size && addr + size >= addr) return b;
  return nullptr;
}

bool GlobalMemory::near(std::uint64_t addr, std::uint64_t distance) const {
  auto it = by_base_.upper_bound(addr);
  if (it != by_base_.end() && it->first - addr <= distance) return true;  // before a buffer
  if (it == by_base_.begin()) return false;
  const Buffer* b = std::prev(it)->second;
  return addr - b->base <= b->size + distance;  // in or past the end of the one below
}

namespace detail {

// What an instruction that reaches global memory through resolve() does to it, for the
// footprint: loads and copies' sources read, stores write, atomics (and anything else)
// both.
Footprint::Access footprint_access(const Instr& in) {
  switch (in.op) {
    case Opc::Ld:
    case Opc::CpAsync:
    case Opc::WmmaLoad:
      return Footprint::Access::Read;
    case Opc::St:
    case Opc::WmmaStore:
      return Footprint::Access::Write;
    default:
      return Footprint::Access::ReadWrite;
  }
}

// The written-bytes record of one lane's shared access on the reference path: what it
// reads (a load, ldmatrix, wmma.load, an atomic other than exch, whose old value is only
// returned) is tested before what it writes (a store, stmatrix, wmma.store, cp.async's
// destination, an atomic) is marked, so an atomic on a byte never written counts as a read
// of it.
void Ctx::note_shared_access(const Instr& in, std::uint64_t a, unsigned size,
                             WrittenBytes& record) {
  if (!bookkeeping) return;
  const bool atomic = in.op == Opc::Atom || in.op == Opc::Red;
  const bool load = in.op == Opc::Ld || in.op == Opc::Ldmatrix || in.op == Opc::WmmaLoad;
  const bool reads = load || (atomic && in.mod.atom != ptx::AtomOp::Exch);
  const bool writes = !load;
  if (reads && test_reads(in.site) && !record.test(a, size)) read_unwritten_at(in.site);
  if (writes) record.mark(a, size);
}

Ctx& Ctx::shared_owner(const Instr& in, int pc, std::uint64_t& a, bool cluster_space, int w,
                       int lane) {
  const std::uint64_t tag = a >> ptx::kClusterRankShift;
  if (tag == 0) return *this;
  const std::uint64_t rank = tag - 1;
  if (!cluster_space || rank >= cluster_size)
    fail_access(EmuError::Kind::OutOfBounds, pc,
                fmt::format("shared memory access out of bounds at 0x{:x} (lane {} of warp {}): "
                            "{}",
                            a, lane, w,
                            !cluster_space ? "a shared::cluster address in a .shared::cta access"
                                           : fmt::format("it names CTA rank {} of a cluster of {}",
                                                         rank, cluster_size)),
                in, Space::Shared, 1, a, w, lane);
  a &= ptx::kClusterOffsetMask;
  return cluster_ctxs ? *cluster_ctxs[rank] : *this;
}

std::uint8_t* Ctx::shared_range(const Instr& in, int pc, std::uint64_t a, std::uint64_t n, int w,
                                int lane, const char* what, Ctx*& owner, std::uint64_t& offset) {
  a = static_cast<std::uint32_t>(a);
  owner = &shared_owner(in, pc, a, true, w, lane);
  if (a + n > owner->shared.size())
    fail(EmuError::Kind::OutOfBounds, pc,
         fmt::format("{} shared memory out of bounds: bytes [{}, {}) of a {}-byte shared window{} "
                     "(lane {} of warp {})",
                     what, a, a + n, owner->shared.size(),
                     owner != this ? fmt::format(" of CTA rank {}", owner->cluster_rank) : "", lane,
                     w));
  offset = a;
  return owner->shared.data() + a;
}

std::uint8_t* Ctx::resolve(const Instr& in, int pc, Space space, std::uint64_t a, unsigned size,
                           int w, int lane, Space& actual) {
  const bool generic = space == Space::Generic;
  if (space == Space::Generic) {
    if (a >= ptx::kSharedWindow && a < ptx::kSharedWindow + ptx::kWindowSize) {
      space = Space::Shared;
      a -= ptx::kSharedWindow;
    } else if (a >= ptx::kLocalWindow && a < ptx::kLocalWindow + ptx::kWindowSize) {
      space = Space::Local;
      a -= ptx::kLocalWindow;
    } else if (a >= ptx::kParamWindow && a < ptx::kParamWindow + ptx::kWindowSize) {
      space = Space::Param;  // a kernel parameter's generic address (cvta.param)
      a -= ptx::kParamWindow;
    } else {
      space = Space::Global;
    }
  }
  actual = space;
  if (size > 1 && a % size != 0 && space != Space::Param)
    fail_access(EmuError::Kind::Misaligned, pc,
                fmt::format("misaligned {}-byte {} access at address 0x{:x} (lane {} of warp {}); "
                            "the GPU faults here with 'misaligned address'",
                            size, ptx::space_name(space), a, lane, w),
                in, space, size, a, w, lane);
  switch (space) {
    case Space::Shared: {
      // A shared::cluster address may name another CTA of the cluster (generic addresses
      // and .shared::cluster accesses only).
      Ctx& owner = a >> ptx::kClusterRankShift
                       ? shared_owner(in, pc, a,
                                      generic || (in.flags & ptx::kFlagCluster) != 0 ||
                                          in.op == Opc::Mbarrier || in.op == Opc::MbarrierWait,
                                      w, lane)
                       : *this;
      if (a + size > owner.shared.size() || a + size < a)
        fail_access(
            EmuError::Kind::OutOfBounds, pc,
            fmt::format("shared memory access out of bounds: bytes [{}, {}) of a {}-byte "
                        "shared window{} (lane {} of warp {})",
                        a, a + size, owner.shared.size(),
                        &owner != this ? fmt::format(" of CTA rank {}", owner.cluster_rank) : "",
                        lane, w),
            in, space, size, a, w, lane);
      note_shared_access(in, a, size, *owner.written);
      resolved_shared = &owner == this
                            ? a
                            : a | (std::uint64_t{owner.cluster_rank + 1} << ptx::kClusterRankShift);
      return owner.shared.data() + a;
    }
    case Space::Local: {
      const std::uint64_t per = k.local_bytes;
      if (a + size > per)
        fail_access(EmuError::Kind::OutOfBounds, pc,
                    fmt::format("local memory access out of bounds at offset {} (lane {} of warp {})",
                                a, lane, w),
                    in, space, size, a, w, lane);
      return local.data() +
             (static_cast<std::size_t>(w) * 32 + static_cast<std::size_t>(lane)) * per + a;
    }
    case Space::Param:
      if (a + size > launch.params.size())
        fail(EmuError::Kind::OutOfBounds, pc,
             fmt::format("kernel parameter read out of bounds at {}", a));
      return const_cast<std::uint8_t*>(launch.params.data()) + a;
    default: {
      GlobalMemory::Buffer* b = mem.find(a, size);
      // Near a buffer, the GPU's mapping (2 MiB granules) likely covers the address and the
      // kernel goes on; far from every buffer it faults, and so does the run.
      if (!b && faults && mem.near(a, kFaultMappedDistance))
        return survive_fault(in, pc, size, a, w, lane);
      if (!b)
        fail_access(EmuError::Kind::OutOfBounds, pc,
                    fmt::format("global memory access outside every buffer: {} bytes at 0x{:x} "
                                "(lane {} of warp {})",
                                size, a, lane, w),
                    in, Space::Global, size, a, w, lane);
      const std::uint64_t off = a - b->base;
      if (bookkeeping)
        touch(*b, off + size, in.op == Opc::Ld || in.op == Opc::CpAsync || in.op == Opc::WmmaLoad);
      if (footprint) footprint->mark(*b, off, size, footprint_access(in));
      return b->data() + off;
    }
  }
}

std::uint8_t* Ctx::survive_fault(const Instr& in, int pc, unsigned size, std::uint64_t a, int w,
                                 int lane) {
  if (footprint) footprint->lost();  // bytes outside every buffer: no record covers them
  const EmuError::Access acc = access_of(in, Space::Global, size, a, w, lane);
  const auto t = static_cast<std::uint32_t>(w * 32 + lane);
  const Dim3 thread{t % launch.block.x, (t / launch.block.x) % launch.block.y,
                    t / (launch.block.x * launch.block.y)};
  SurvivedFault* f = nullptr;
  for (SurvivedFault& g : *faults)
    if (g.instr == pc && g.access.op == acc.op) f = &g;
  if (!f) {
    faults->push_back({pc, acc, ctaid, thread, cta_linear, 0});
    f = &faults->back();
  } else if (cta_linear < f->cta) {  // the lowest CTA's lane is the one reported
    f->access = acc;
    f->block = ctaid;
    f->thread = thread;
    f->cta = cta_linear;
  }
  // A lane counts once per execution (cp.async resolves its first and its last byte).
  if (last_fault_pc != pc || last_fault_warp != w || last_fault_lane != lane ||
      last_fault_count != (used ? *used : 0)) {
    ++f->lanes;
    last_fault_pc = pc;
    last_fault_warp = w;
    last_fault_lane = lane;
    last_fault_count = used ? *used : 0;
  }
  fault_scratch.assign(std::max<std::size_t>(size, 64), 0);
  return fault_scratch.data();
}

void Ctx::load_store(const Instr& in, int pc, int w, std::uint32_t exec) {
  const unsigned esize = static_cast<unsigned>(ptx::ty_bytes(in.type));
  const unsigned width = esize * in.vec;
  std::uint64_t addrs[32] = {};
  std::uint32_t by_space[6] = {};
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const std::uint64_t a = address(in, w, l);
    Space actual;
    std::uint8_t* p = resolve(in, pc, in.space, a, width, w, l, actual);
    by_space[static_cast<int>(actual)] |= 1u << l;
    addrs[l] = actual == Space::Shared  ? resolved_shared
               : actual == Space::Local ? (in.space == Space::Generic ? a - ptx::kLocalWindow : a)
                                        : a;
    for (unsigned v = 0; v < in.vec; ++v) {
      std::uint8_t* q = p + v * esize;
      if (in.op == Opc::Ld) {
        std::uint64_t x = 0;
        std::memcpy(&x, q, esize);
        if (ptx::ty_signed(in.type)) x = static_cast<std::uint64_t>(sext(x, in.type));
        if (in.ndst > v && in.dst[v].kind != Opnd::Kind::None) {
          // Loads of 8/16-bit integers into wider registers: the register keeps the
          // (sign- or zero-) extended value.
          const Opnd& d = in.dst[v];
          if (d.kind == Opnd::Kind::Reg)
            R(w, d.reg, l) = ptx::ty_signed(in.type) ? x : (x & mask_of(in.type));
          else
            set(d, w, l, x, in.type);
        }
      } else {
        const std::uint64_t x = in.nsrc > v ? val(in.src[v], w, l) : 0;
        std::memcpy(q, &x, esize);
      }
    }
  }
  for (Space s : {Space::Shared, Space::Global, Space::Local}) {
    const std::uint32_t m = by_space[static_cast<int>(s)];
    if (m && in.site >= 0) emit(in, w, m, s, addrs, width);
  }
}

}  // namespace detail
}  // namespace bankcheck::emu
