// The state of one CTA being run: the emulator's per-kernel State (registers, predicates,
// shared and local memory, the micro-ops) and Ctx, what every tier reads while running it
// (operand values, special registers, the memory path and the listeners).
#pragma once

#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/emu/emulator.hpp"
#include "bankcheck/emu/footprint.hpp"
#include "bankcheck/model/swizzle.hpp"
#include "uop.hpp"
#include "values.hpp"
#include "written.hpp"

namespace bankcheck::emu {

namespace detail {

// The buffer a global micro-op used last, so that one range check settles its next access:
// as native code's window onto it (native_abi.hpp), the buffer its owner.
using LastBuffer = NativeWindow;
inline GlobalMemory::Buffer* last_buffer(const LastBuffer& last) {
  return static_cast<GlobalMemory::Buffer*>(last.owner);
}
inline void remember(LastBuffer& last, GlobalMemory::Buffer* b) {
  last = {b->base, b->size, b->data(), b};
}

struct Ctx {
  const ptx::Kernel& k;
  GlobalMemory& mem;
  const Launch& launch;
  Dim3 ctaid;
  std::uint64_t cta_linear;
  std::vector<Listener*>& listeners;
  std::uint64_t& executed;
  std::vector<Note>& notes;
  std::vector<std::uint64_t>& regs;
  std::vector<std::uint32_t>& preds;
  std::vector<std::uint32_t>* tid;
  std::vector<std::uint8_t>& shared;
  std::vector<std::uint8_t>& local;
  std::uint32_t nregs, npreds, nwarps;
  const std::uint64_t* used = nullptr;  // warp instructions run in this CTA so far
  bool has_listeners = !listeners.empty();
  WrittenBytes* written = nullptr;  // State::shared_written
  // Per site: a load there read shared bytes no thread had written (reported once); and
  // those sites in the order found (Emulator::unwritten_shared_reads()).
  std::uint8_t* read_unwritten = nullptr;
  std::vector<int>* unwritten_sites = nullptr;
  // How many times an mbarrier object of the group has changed (mbarrier.cpp): a warp
  // waiting on a phase runs again only once it has (another CTA of its cluster may complete
  // its phase).
  std::uint64_t* mbar_changes = nullptr;
  // The CTA's cluster (a CTA without one is a cluster of one): the contexts of its CTAs by
  // rank, this CTA's rank, and what the cluster special registers read.
  Ctx* const* cluster_ctxs = nullptr;
  std::uint32_t cluster_size = 1, cluster_rank = 0;
  Dim3 cluster_dims{1, 1, 1}, cluster_ctaid{0, 0, 0}, clusterid{0, 0, 0}, nclusterid{1, 1, 1};
  bool explicit_cluster = false;
  // A cooperative launch: the address of the grid-synchronization workspace that %envreg1
  // (high word) and %envreg2 (low word) hand to cooperative groups; 0 otherwise.
  std::uint64_t grid_workspace = 0;
  // The shared address the last resolve() of the shared space settled on: the offset in
  // its CTA's shared memory, with the CTA's rank bits when it is another CTA's.
  std::uint64_t resolved_shared = 0;
  // Survived global faults (memory.cpp), null when a fault ends the run; the faulting
  // lanes' bytes: zeros for a read, a write goes nowhere.
  std::vector<SurvivedFault>* faults = nullptr;
  // Where every global access is marked (EmulatorOptions::footprint), null when none; the
  // micro-ops' runs of requests not marked yet (Footprint::Run), `nwarps` per global
  // micro-op (Uop::run), flushed when the CTAs end.
  Footprint* footprint = nullptr;
  Footprint::Run* runs = nullptr;
  // The records only analyses read: bytes touched, shared bytes read unwritten, the access
  // events (EmulatorOptions::execute_only off).
  bool bookkeeping = true;
  // Where device printf's text goes (EmulatorOptions::printf), in execution order; null: the
  // calls only return.
  std::string* printed = nullptr;
  static constexpr std::uint64_t kFaultMappedDistance = 2u << 20;
  std::vector<std::uint8_t> fault_scratch = {};
  int last_fault_pc = -1, last_fault_warp = -1, last_fault_lane = -1;
  std::uint64_t last_fault_count = ~std::uint64_t{0};

  std::uint64_t& R(int w, std::uint32_t r, int lane) {
    return regs[(static_cast<std::size_t>(w) * nregs + r) * 32 + static_cast<std::size_t>(lane)];
  }
  std::uint32_t& P(int w, std::uint32_t p) {
    return preds[static_cast<std::size_t>(w) * npreds + p];
  }

  [[noreturn]] void fail(EmuError::Kind kind, int pc, const std::string& msg) {
    throw EmuError(kind, msg, pc);
  }
  // What an access of `in` that faulted was (what compute-sanitizer reports of it).
  static EmuError::Access access_of(const Instr& in, Space space, unsigned size, std::uint64_t a,
                                    int w, int lane) {
    using Op = EmuError::Access::Op;
    const bool atomic = in.op == Opc::Atom || in.op == Opc::Red;
    const bool write = in.op == Opc::St || in.op == Opc::WmmaStore || in.op == Opc::Stmatrix;
    return {true, space, atomic ? Op::Atomic : write ? Op::Write : Op::Read, size, a, w, lane};
  }
  // The same for an access of `in` that faulted, with what it was.
  [[noreturn]] void fail_access(EmuError::Kind kind, int pc, const std::string& msg,
                                const Instr& in, Space space, unsigned size, std::uint64_t a, int w,
                                int lane) {
    EmuError e(kind, msg, pc);
    e.access = access_of(in, space, size, a, w, lane);
    throw e;
  }
  // A global access outside every buffer, survived (faults != null): recorded, and the
  // bytes it reads or writes are a zeroed scratch (memory.cpp).
  std::uint8_t* survive_fault(const Instr& in, int pc, unsigned size, std::uint64_t a, int w,
                              int lane);

  std::uint64_t special(ptx::Special s, int w, int lane) {
    const std::size_t t = static_cast<std::size_t>(w) * 32 + static_cast<std::size_t>(lane);
    switch (s) {
      case ptx::Special::TidX:
        return tid[0][t];
      case ptx::Special::TidY:
        return tid[1][t];
      case ptx::Special::TidZ:
        return tid[2][t];
      case ptx::Special::NtidX:
        return launch.block.x;
      case ptx::Special::NtidY:
        return launch.block.y;
      case ptx::Special::NtidZ:
        return launch.block.z;
      case ptx::Special::CtaidX:
        return ctaid.x;
      case ptx::Special::CtaidY:
        return ctaid.y;
      case ptx::Special::CtaidZ:
        return ctaid.z;
      case ptx::Special::NctaidX:
        return launch.grid.x;
      case ptx::Special::NctaidY:
        return launch.grid.y;
      case ptx::Special::NctaidZ:
        return launch.grid.z;
      case ptx::Special::Laneid:
        return static_cast<std::uint64_t>(lane);
      case ptx::Special::Warpid:
        return static_cast<std::uint64_t>(w);
      case ptx::Special::Nwarpid:
        return nwarps;
      case ptx::Special::Smid:
        return 0;
      case ptx::Special::Nsmid:
        return 132;
      case ptx::Special::Clock:
      case ptx::Special::Clock64:
      case ptx::Special::Globaltimer:
        return executed + (used ? *used : 0);
      case ptx::Special::LanemaskEq:
        return 1ull << lane;
      case ptx::Special::LanemaskLt:
        return (1ull << lane) - 1;
      case ptx::Special::LanemaskLe:
        return (2ull << lane) - 1;
      case ptx::Special::LanemaskGt:
        return static_cast<std::uint32_t>(~((2ull << lane) - 1));
      case ptx::Special::LanemaskGe:
        return static_cast<std::uint32_t>(~((1ull << lane) - 1));
      case ptx::Special::DynSmemSize:
        return launch.dynamic_smem;
      case ptx::Special::TotalSmemSize:
        return shared.size();
      case ptx::Special::Gridid:
        return 0;
      // What the driver would set: %envreg1-2 the grid-sync workspace of a cooperative
      // launch (0 otherwise: cooperative groups' grid.sync() then traps), no other
      // environment, no performance counters, the upper clock word 0, all shared memory the
      // kernel's own.
      case ptx::Special::Envreg:
        return 0;
      case ptx::Special::Pm:
      case ptx::Special::ClockHi:
      case ptx::Special::ReservedSmem:
        return 0;
      case ptx::Special::AggrSmemSize:
        return shared.size();
      case ptx::Special::ClusterCtarank:
        return cluster_rank;
      case ptx::Special::ClusterNctarank:
        return cluster_size;
      case ptx::Special::ClusterCtaidX:
        return cluster_ctaid.x;
      case ptx::Special::ClusterCtaidY:
        return cluster_ctaid.y;
      case ptx::Special::ClusterCtaidZ:
        return cluster_ctaid.z;
      case ptx::Special::ClusterNctaidX:
        return cluster_dims.x;
      case ptx::Special::ClusterNctaidY:
        return cluster_dims.y;
      case ptx::Special::ClusterNctaidZ:
        return cluster_dims.z;
      case ptx::Special::ClusteridX:
        return clusterid.x;
      case ptx::Special::ClusteridY:
        return clusterid.y;
      case ptx::Special::ClusteridZ:
        return clusterid.z;
      case ptx::Special::NclusteridX:
        return nclusterid.x;
      case ptx::Special::NclusteridY:
        return nclusterid.y;
      case ptx::Special::NclusteridZ:
        return nclusterid.z;
      case ptx::Special::IsExplicitCluster:
        return explicit_cluster ? 1 : 0;
      case ptx::Special::Envreg1:
        return grid_workspace >> 32;
      case ptx::Special::Envreg2:
        return grid_workspace & 0xFFFFFFFFu;
    }
    return 0;
  }
  std::uint64_t val(const Opnd& o, int w, int lane) {
    switch (o.kind) {
      case Opnd::Kind::Reg:
        return R(w, o.reg, lane);
      case Opnd::Kind::Imm:
      case Opnd::Kind::SymAddr:
        return o.imm;
      case Opnd::Kind::Special:
        return special(static_cast<ptx::Special>(o.reg), w, lane);
      case Opnd::Kind::Pred:
        return ((P(w, o.reg) >> lane) & 1u) ^ (o.negate ? 1u : 0u);
      case Opnd::Kind::None:
        return 0;
    }
    return 0;
  }
  void set(const Opnd& o, int w, int lane, std::uint64_t v, Ty t) {
    if (o.kind == Opnd::Kind::Reg)
      R(w, o.reg, lane) = v & mask_of(t);
    else if (o.kind == Opnd::Kind::Pred) {
      std::uint32_t& p = P(w, o.reg);
      p = (v & 1) ? (p | (1u << lane)) : (p & ~(1u << lane));
    }
  }
  std::uint32_t pred_mask(const Opnd& o, int w, std::uint32_t within) {
    if (o.kind == Opnd::Kind::Pred) return (o.negate ? ~P(w, o.reg) : P(w, o.reg)) & within;
    std::uint32_t m = 0;
    for (int l = 0; l < 32; ++l)
      if (((within >> l) & 1u) && (val(o, w, l) & 1)) m |= 1u << l;
    return m;
  }

  // ---------------------------------------------------------------- memory

  std::uint64_t address(const Instr& in, int w, int lane) { return address_of(in.mem, w, lane); }
  std::uint64_t address_of(const ptx::MemRef& m, int w, int lane) {
    std::uint64_t a = static_cast<std::uint64_t>(m.offset);
    if (m.has_reg) a += R(w, m.reg, lane);
    return m.wrap32 ? static_cast<std::uint32_t>(a) : a;
  }

  // The reference path of every access (memory.cpp): resolves a lane's address to its
  // space and host bytes, checking bounds and alignment, and names the lane when the
  // access faults. The micro-ops prove their accesses in bounds and aligned for the whole
  // warp at once, and hand any they cannot to load_store, which reports the fault here.
  std::uint8_t* resolve(const Instr& in, int pc, Space space, std::uint64_t a, unsigned size, int w,
                        int lane, Space& actual);
  // The written-bytes record of a shared access that resolve() let through, in the
  // record of the CTA whose memory it is (memory.cpp).
  void note_shared_access(const Instr& in, std::uint64_t a, unsigned size, WrittenBytes& record);
  // The CTA a shared address belongs to and the offset in its memory: a shared::cluster
  // address (kClusterRankShift) names a CTA of the cluster by rank; one below it, this
  // CTA. `cluster_space`: the instruction may name other CTAs (.shared::cluster or a
  // generic address). Faults naming the lane when the rank is not in the cluster.
  Ctx& shared_owner(const Instr& in, int pc, std::uint64_t& a, bool cluster_space, int w, int lane);
  // [a, a + n) of shared memory, any CTA of the cluster: its bytes, bounds checked
  // (`what` names the instruction in the fault); `owner` the CTA, `offset` the start.
  std::uint8_t* shared_range(const Instr& in, int pc, std::uint64_t a, std::uint64_t n, int w,
                             int lane, const char* what, Ctx*& owner, std::uint64_t& offset);

  // A load at `site` read bytes never written: recorded the first time only.
  void read_unwritten_at(int site) {
    if (site < 0 || read_unwritten[site]) return;
    read_unwritten[site] = 1;
    unwritten_sites->push_back(site);
  }
  // Whether a load at `site` still needs the test (sites already reported skip it).
  bool test_reads(int site) const { return site >= 0 && !read_unwritten[site]; }

  AccessEvent event = {};  // reused: constructing one per request cleared 256 bytes each time
  AtomicValues atomic_values = {};  // an 8-byte shared atomic's, which `event` points to

  void emit(const Instr& in, int w, std::uint32_t exec, Space space, const std::uint64_t* addrs,
            unsigned width) {
    if (!has_listeners || !exec) return;
    AccessEvent& e = event;
    e.site = in.site;
    e.cta = cta_linear;
    e.warp = w;
    e.space = space;
    e.op = access_op(in);
    e.width = static_cast<std::uint8_t>(width);
    e.mask = exec;
    if (addrs != e.addr) std::memcpy(e.addr, addrs, sizeof e.addr);
    for (Listener* li : listeners) li->on_access(e);
  }
  // The tensor-core requests (matrix_ops.cpp, async_copy.cpp, wmma.cpp): emit with the event's kind
  // and its fields set, then back to a plain event for the next request.
  void emit_kind(const Instr& in, int site, int w, std::uint32_t exec, Space space,
                 const std::uint64_t* addrs, unsigned width, AccessEvent proto) {
    // A wgmma warp with no operand rows to send still sends its execution (no lane).
    if (!has_listeners || (!exec && proto.kind != AccessKind::Wgmma) || site < 0) return;
    AccessEvent& e = event;
    e.kind = proto.kind;
    e.continues = proto.continues;
    e.wgmma_a_bytes = proto.wgmma_a_bytes;
    e.wgmma_b_bytes = proto.wgmma_b_bytes;
    e.matrices = proto.matrices;
    e.trans = proto.trans;
    e.bypass = proto.bypass;
    e.src_size = proto.src_size;
    e.reads = proto.reads;
    e.global_site = proto.global_site;
    e.operand = proto.operand;
    e.swizzle = proto.swizzle;
    e.row_bytes = proto.row_bytes;
    std::memcpy(e.global_addr, proto.global_addr, sizeof e.global_addr);
    e.site = site;
    e.cta = cta_linear;
    e.warp = w;
    e.space = space;
    e.op = in.op == Opc::CpAsyncBulk || in.op == Opc::CpAsyncBulkTensor || in.op == Opc::Wgmma
               ? proto.op
           : in.op == Opc::Ldmatrix || in.op == Opc::WmmaLoad ||
                   (in.op == Opc::CpAsync && space == Space::Global)
               ? model::Op::Load
               : model::Op::Store;
    e.width = static_cast<std::uint8_t>(width);
    e.mask = exec;
    std::memcpy(e.addr, addrs, sizeof e.addr);
    for (Listener* li : listeners) li->on_access(e);
    e.kind = AccessKind::Plain;
    e.matrices = 0;
    e.trans = e.bypass = e.src_size = false;
    e.reads = 0;
    e.global_site = -1;
    e.operand = 0;
    e.swizzle = -1;
    e.row_bytes = 0;
    e.continues = false;
    e.wgmma_a_bytes = e.wgmma_b_bytes = 0;
  }

  // ld/st lane by lane (memory.cpp): the reference semantics of every load and store.
  void load_store(const Instr& in, int pc, int w, std::uint32_t exec);
  // atom/red lane by lane, in lane order (atomic.cpp).
  void atomic(const Instr& in, int pc, int w, std::uint32_t exec);
};

}  // namespace detail

// ---------------------------------------------------------------- CTA state

struct Emulator::State {
  // ---- The kernel's (kept between CTAs and launches).
  // Thread indices of the block shape last set up (unchanged between CTAs of a launch).
  std::uint32_t tid_dims[3] = {0, 0, 0};
  struct Entry {
    int pc;
    std::uint32_t mask;
    int rpc;  // pop when pc reaches it; -2: never (reconverges at exit)
  };
  struct Warp {
    int id = 0;
    std::uint32_t lanes = 0;  // lanes that exist
    std::uint32_t exited = 0;
    std::vector<Entry> stack;
    bool at_barrier = false, done = false;
    int barrier_instr = -1;
    // At a barrier with a thread count (bar.sync a, b): released when b threads have
    // arrived at barrier a, not when every warp waits.
    bool counted = false;
    std::uint32_t barrier_id = 0;
    // bar.red: the lanes that reached the barrier and those whose predicate was true.
    std::uint32_t red_lanes = 0, red_true = 0;
    // An mbarrier wait whose phase had not completed (mbarrier.cpp): the warp stopped at
    // it, with the group's mbarrier change count then, and runs again once that has moved.
    // `give_up`: the next run of the wait returns false where the phase is incomplete;
    // `gave_up_at`: the change count of the last such run (one per change).
    bool at_mbarrier = false, give_up = false;
    int mbarrier_instr = -1;
    std::uint32_t mbarrier_exec = 0;
    std::uint64_t mbarrier_seen = 0, gave_up_at = ~0ull;
    // barrier.cluster (cluster.cpp): the lanes arrived in the cluster's current phase, the
    // phase the warp last arrived in, and whether it waits at barrier.cluster.wait.
    std::uint32_t cluster_arrived = 0;
    std::uint64_t cluster_phase = 0;
    bool at_cluster = false;
    int cluster_instr = -1;
    // A load of kFlagPoll in a group of CTAs: where the warp last read and a digest of what
    // it read; `polling`: it stopped there, reading the same again, and runs once what it
    // reads has changed; `poll_released`: the group had nothing else to run, so it reads
    // once more without stopping (a flag in its own loop may move on).
    int poll_pc = -1;
    std::uint64_t poll_sig = 0, poll_gave_up_at = ~0ull;
    std::uint32_t poll_exec = 0;
    bool polling = false, poll_released = false;
  };
  std::vector<std::uint32_t> tid[3];  // per thread
  // The kernel as micro-ops (uop.hpp) and the 32-lane arrays they read: broadcast
  // immediates, the running CTA's ntid/ctaid/nctaid (refilled when another CTA runs) and
  // lane numbers.
  detail::Compiled compiled;
  std::uint64_t cta_consts[9 * 32] = {};
  const void* consts_for = nullptr;  // the CTA whose ctaid cta_consts holds
  std::uint64_t laneids[32] = {};
  std::vector<detail::LastBuffer> buffer_of;  // per instruction (run_ctas)
  std::uint64_t removals = 0;                 // GlobalMemory::removals() it was kept for
  // The footprint's runs (Ctx::runs): the global micro-ops' count, and their runs.
  std::uint32_t global_uops = 0;
  std::vector<Footprint::Run> runs;

  // ---- One CTA of the group being run (its storage kept for the next group).
  struct Cluster;
  struct Cta {
    // The threads arrived so far at each named barrier with a thread count (32 per warp,
    // as the PTX ISA counts a warp's arrival), reset when it releases.
    std::uint32_t bar_arrived[16] = {};
    std::vector<std::uint64_t> regs;   // [warp][reg][lane]
    std::vector<std::uint32_t> preds;  // [warp][pred]
    std::vector<std::uint8_t> shared;
    detail::WrittenBytes shared_written;  // reset per CTA like `shared` (written.hpp)
    std::vector<std::uint8_t> local;      // [thread][local_bytes]
    std::vector<Warp> warps;
    // The block shape and register file size the tid slots were last filled for (nothing
    // writes them, so they stay valid between CTAs of a launch).
    std::size_t tid_regs_for = 0;
    std::uint32_t tid_regs_dims[3] = {0, 0, 0};
    Dim3 ctaid;
    std::uint64_t used = 0;  // warp instructions of this CTA (the budget)
    bool done = false;
    Cluster* cluster = nullptr;
    std::optional<detail::Ctx> ctx;
  };
  std::vector<std::unique_ptr<Cta>> ctas;
  // The clusters of the group (a CTA run alone: a cluster of one).
  struct Cluster {
    std::vector<Cta*> ctas;          // by rank
    std::vector<detail::Ctx*> ctxs;  // by rank
    std::uint64_t phase = 0;         // barrier.cluster phases completed
  };
  std::vector<Cluster> clusters;
  std::vector<std::pair<std::uint64_t, std::size_t>> by_cluster;  // run_ctas' scratch
  std::uint64_t mbar_changes = 0;  // changes of any mbarrier of the group
  // Progress of the group: a warp ran that was not released from a wait, a barrier
  // released, a cluster phase completed (a spinning load reads again once per change).
  std::uint64_t events = 0;
  bool group = false;  // several CTAs run together
};

namespace detail {
// What `in` does to the global bytes it resolves (memory.cpp), for the footprint.
Footprint::Access footprint_access(const Instr& in);

// The reference semantics (reference.cpp): every instruction the emulator knows, lane by
// lane. Micro-ops of kind Slow, and every instruction with Options::fast off, come here.
void general(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active);

// The type an instruction of the arithmetic family (arith() below) writes its register as:
// the counts of popc, clz and bfind are 32-bit, a widening multiply's result twice its
// operands.
inline Ty arith_result_type(const Instr& in) {
  if (in.op == Opc::Popc || in.op == Opc::Clz || in.op == Opc::Bfind) return Ty::U32;
  if ((in.op == Opc::Mul || in.op == Opc::Mad) && in.mod.mul == ptx::MulMode::Wide)
    return ptx::ty_bytes(in.type) == 4 ? Ty::U64 : Ty::U32;
  return in.type;
}

// Per-lane arithmetic: integer (arith_int.cpp) and float (arith_float.cpp); arith() picks
// by the operation's type.
std::uint64_t int_arith(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c);
// int_arith()'s div and rem of integer type t, which the micro-ops share: division by zero
// gives all ones (div) or the dividend (rem), as the GPU does; the most negative value over
// -1 gives itself (div) or 0 (rem).
// 32-bit operands divide as 32-bit values (the same quotients, and a 64-bit division takes
// several times as long on x86-64).
inline std::uint64_t int_div(Ty t, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t m = mask_of(t);
  const int bits = ptx::ty_bytes(t) * 8;
  if ((b & m) == 0) return m;
  if (bits == 32) {
    const auto x = static_cast<std::uint32_t>(a), y = static_cast<std::uint32_t>(b);
    if (!ptx::ty_signed(t)) return x / y;
    const auto sx = static_cast<std::int32_t>(x), sy = static_cast<std::int32_t>(y);
    if (sx == INT32_MIN && sy == -1) return x;
    return static_cast<std::uint32_t>(sx / sy);
  }
  if (ptx::ty_signed(t)) {
    if (sext(a, t) == (bits == 64 ? INT64_MIN : -(1ll << (bits - 1))) && sext(b, t) == -1)
      return a & m;
    return static_cast<std::uint64_t>(sext(a, t) / sext(b, t)) & m;
  }
  return ((a & m) / (b & m)) & m;
}
inline std::uint64_t int_rem(Ty t, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t m = mask_of(t);
  if ((b & m) == 0) return a & m;
  if (ptx::ty_bytes(t) == 4) {
    const auto x = static_cast<std::uint32_t>(a), y = static_cast<std::uint32_t>(b);
    if (!ptx::ty_signed(t)) return x % y;
    const auto sy = static_cast<std::int32_t>(y);
    if (sy == -1) return 0;
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(x) % sy);
  }
  if (ptx::ty_signed(t)) {
    if (sext(b, t) == -1) return 0;
    return static_cast<std::uint64_t>(sext(a, t) % sext(b, t)) & m;
  }
  return ((a & m) % (b & m)) & m;
}
std::uint64_t float_arith(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c);
// add.cc, addc, sub.cc, subc, mad.cc, madc: the carry flag is the hidden predicate the
// decoder adds (arith_int.cpp).
void carry_arith(Ctx& c, const Instr& in, int w, std::uint32_t exec);
// f16, bf16 and their pairs (half.cpp).
std::uint64_t half_arith(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c);
bool half_compare(ptx::Cmp c, Ty t, std::uint64_t a, std::uint64_t b);
double narrow_value(Ty t, std::uint64_t bits);
std::uint64_t narrow_convert(const Instr& in, std::uint64_t a, std::uint64_t b);
inline std::uint64_t arith(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  if (ptx::ty_half(in.type)) return half_arith(in, a, b, c);
  return ptx::ty_float(in.type) ? float_arith(in, a, b, c) : int_arith(in, a, b, c);
}
// setp's comparison and cvt (convert.cpp).
bool compare(ptx::Cmp c, Ty t, std::uint64_t a, std::uint64_t b);
bool compare_float(ptx::Cmp c, double x, double y);
bool compare_int(ptx::Cmp c, Ty t, std::uint64_t a, std::uint64_t b);
std::uint64_t convert(const Instr& in, std::uint64_t x);
// shfl, vote, match, activemask (warp_ops.cpp).
void warp_op(Ctx& c, const Instr& in, int w, std::uint32_t exec, std::uint32_t active);
// tex (texture.cpp): each executing lane fetches from the texture object its register names.
void texture_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec);
// suld, sust (texture.cpp): each executing lane loads or stores through its surface object.
void surface_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec);
// shfl.sync's exchange over the operands' 32 lanes (value, lane or offset, clamp and segment
// mask): each executing lane's result in `out` (the low 32 bits of the source lane's value,
// its own when the source lane is out of range); returns the lanes whose source was in range.
std::uint32_t shfl_lanes(ptx::ShflMode mode, std::uint32_t exec, const std::uint64_t* vals,
                         const std::uint64_t* b, const std::uint64_t* c, std::uint64_t* out);
// ldmatrix, stmatrix, mma (matrix_ops.cpp); cp.async and its groups (async_copy.cpp).
void matrix_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active);
// mma's arithmetic (matrix_ops.cpp), which wmma.mma shares: the value of element j of a
// fragment register holding `e` values; one element of D, c plus the k products
// a[i] * b[i * b_stride] in order, summed in float64 and rounded once to `d` (f32, NaN as
// 0x7fffffff; or f16 .rn), as its bits.
double mma_input(ptx::MmaElem e, std::uint32_t reg, int j);
std::uint32_t mma_float_element(ptx::MmaElem d, double c, const double* a, const double* b,
                                int b_stride, int k);
// wmma.load, wmma.store, wmma.mma (wmma.cpp).
void wmma_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active);
void async_copy(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec);
// mbarrier (mbarrier.cpp): every operation but the waits, lane by lane in lane order; the
// waits, which the warp loop runs: true when the warp may go on (every executing lane's
// phase complete, or `give_up`: each lane gets whether its phase completed), false when it
// must wait; what a waiting warp waits for, for the deadlock error; complete_tx of bytes.
void mbarrier_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec);
bool mbarrier_wait(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, bool give_up);
std::string mbarrier_waiting(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec);
void mbarrier_complete_tx(Ctx& c, const Instr& in, int pc, std::uint64_t addr, Space space,
                          std::uint64_t bytes, int w, int lane);
// cp.async.bulk (bulk_copy.cpp): each executing lane's copy, done at issue.
void bulk_copy(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec);
// cp.async.bulk.tensor and cp.reduce.async.bulk.tensor with a tensor map (tensor_copy.cpp).
void tensor_copy(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec);
// The reduction of a reducing bulk or tensor copy on one element's bits (bulk_copy.cpp).
std::uint64_t reduce_values(ptx::AtomOp op, Ty t, std::uint64_t a, std::uint64_t b);
// wgmma.mma_async and its fence, commit_group and wait_group (wgmma.cpp).
void wgmma_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active);
// mapa and getctarank (cluster.cpp): shared::cluster addresses.
void cluster_address(Ctx& c, const Instr& in, int w, std::uint32_t exec);
// device_printf.cpp: vprintf for the executing lanes, in lane order.
void device_printf(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec);
// The lines the GPU's driver prints (to standard error) for the executing lanes of a failed
// assert() (ptx::Modifiers::assert_text), in lane order: "file:line: function: block:
// [x,y,z], thread: [x,y,z] Assertion `message` failed."; empty without its parameters.
std::string assert_text(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec);
// A shared address under a swizzle mode of the TMA unit and wgmma's descriptors (B = 0
// none, 1 32-byte, 2 64-byte, 3 128-byte): model/swizzle.hpp's, which keeps bits above 10.
inline std::uint64_t swizzle_address(std::uint64_t a, unsigned bits) {
  return (a & ~std::uint64_t{0x3FF}) | model::tma_swizzle(static_cast<std::uint32_t>(a & 0x3FF),
                                                          static_cast<model::TmaSwizzle>(bits));
}

}  // namespace detail
}  // namespace bankcheck::emu
