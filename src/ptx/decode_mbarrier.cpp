// The decoder's forms of mbarrier and cp.async.bulk (without a tensor map): their
// modifiers and operands, as the PTX ISA writes them, into an Instr (multicast, copies into
// another CTA's shared memory and the reducing copies included).
#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "decode_instr.hpp"

namespace bankcheck::ptx::detail {

namespace {

bool has(const Instruction& in, std::string_view m) {
  return std::find(in.modifiers.begin(), in.modifiers.end(), m) != in.modifiers.end();
}

// The mbarrier object's state space: .shared, .shared::cta, .shared::cluster (a CTA's own
// shared memory in a cluster of one CTA), or none (a generic address, which must fall in
// the shared window when it runs).
Space mbarrier_space(const Instruction& in) {
  return has(in, ".shared") || has(in, ".shared::cta") || has(in, ".shared::cluster")
             ? Space::Shared
             : Space::Generic;
}

bool is_sink(const Operand& o) { return o.kind == Operand::Kind::Symbol && o.name == "_"; }

}  // namespace

// mbarrier.init{.shared{::cta}}.b64 [addr], count;
// mbarrier.arrive{.expect_tx|.noComplete}{.sem}{.scope}{.space}.b64 state|_, [addr]{,
// count|txCount}; mbarrier.arrive_drop... (the same forms); mbarrier.expect_tx /
// complete_tx{.sem}{.scope}{.space}.b64 [addr], txCount; mbarrier.test_wait /
// try_wait{.parity}{.sem}{.scope}{.space}.b64 waitComplete, [addr],
//   state|phaseParity{, suspendTimeHint};
// mbarrier.pending_count.b64 count, state;  mbarrier.inval{.space}.b64 [addr];
// .sem (.release, .acquire, .relaxed) and .scope (.cta, .cluster) order memory, which the
// emulator does in program order anyway.
void decode_mbarrier(const Instruction& in, OperandDecoder& d, Instr& ins) {
  const auto fail = [&](const std::string& m) { throw d.error(in, m); };
  const auto count = [&](std::size_t lo, std::size_t hi) {
    if (in.operands.size() < lo || in.operands.size() > hi)
      fail(
          fmt::format("'{}' takes {} to {} operands, got {}", in.text, lo, hi, in.operands.size()));
  };
  ins.op = Opc::Mbarrier;
  ins.type = Ty::B64;
  MbarMods& m = ins.mod.mbar;
  Space space = mbarrier_space(in);
  ins.space = space;
  const auto address = [&](std::size_t i) { ins.mem = d.memref(in, in.operands[i], space); };
  const auto source = [&](std::size_t i, Ty ty) {
    ins.src[ins.nsrc++] = d.operand(in, in.operands[i], ty);
  };
  if (!has(in, ".b64")) fail("mbarrier needs .b64 (the 8-byte mbarrier object)");
  if (has(in, ".init")) {
    m.op = MbarOp::Init;
    count(2, 2);
    address(0);
    source(1, Ty::U32);
  } else if (has(in, ".arrive") || has(in, ".arrive_drop")) {
    m.op = MbarOp::Arrive;
    m.drop = has(in, ".arrive_drop");
    m.expect_tx = has(in, ".expect_tx");
    m.no_complete = has(in, ".noComplete");
    count(m.expect_tx || m.no_complete ? 3 : 2, 3);
    if (!is_sink(in.operands[0])) ins.dst[ins.ndst++] = d.operand(in, in.operands[0], Ty::B64);
    address(1);
    if (in.operands.size() == 3) source(2, Ty::U32);  // the count, or expect_tx's bytes
  } else if (has(in, ".expect_tx") || has(in, ".complete_tx")) {
    m.op = has(in, ".expect_tx") ? MbarOp::ExpectTx : MbarOp::CompleteTx;
    count(2, 2);
    address(0);
    source(1, Ty::U32);
  } else if (has(in, ".test_wait") || has(in, ".try_wait")) {
    ins.op = Opc::MbarrierWait;
    m.op = has(in, ".test_wait") ? MbarOp::TestWait : MbarOp::TryWait;
    m.parity = has(in, ".parity");
    count(3, m.op == MbarOp::TryWait ? 4 : 3);  // try_wait's suspendTimeHint: ignored
    ins.dst[ins.ndst++] = d.operand(in, in.operands[0], Ty::Pred);
    address(1);
    source(2, m.parity ? Ty::U32 : Ty::B64);
  } else if (has(in, ".pending_count")) {
    m.op = MbarOp::PendingCount;
    count(2, 2);
    ins.dst[ins.ndst++] = d.operand(in, in.operands[0], Ty::U32);
    source(1, Ty::B64);
  } else if (has(in, ".inval")) {
    m.op = MbarOp::Inval;
    count(1, 1);
    address(0);
  } else {
    fail(
        "unsupported mbarrier operation (init, arrive, arrive_drop, expect_tx, complete_tx, "
        "test_wait, try_wait, pending_count and inval are emulated)");
  }
  if (space != Space::Shared && space != Space::Generic)
    fail("an mbarrier object lives in shared memory");
  ins.space = space;
}

// cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]: an arrive-on the mbarrier
// once the thread's earlier cp.async copies complete, which is at once here (they complete
// at issue). Without .noinc the pending count is first raised by one, so the phase's count
// does not change: nothing to do. With .noinc it is an arrive of one.
void decode_cp_async_arrive(const Instruction& in, OperandDecoder& d, Instr& ins) {
  if (in.operands.size() != 1) throw d.error(in, "cp.async.mbarrier.arrive takes [addr]");
  if (!has(in, ".noinc")) {
    ins.op = Opc::Nop;
    return;
  }
  ins.op = Opc::Mbarrier;
  ins.type = Ty::B64;
  ins.mod.mbar.op = MbarOp::Arrive;
  Space space = mbarrier_space(in);
  ins.mem = d.memref(in, in.operands[0], space);
  ins.space = space;
}

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}
//   [dst], [src], size, [mbar]{, ctaMask} (and .shared::cta as the destination): global to
//   shared, completing on the mbarrier (in every CTA of the mask, at the same offsets);
// cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dst], [src], size,
//   [mbar]: into another CTA's shared memory, completing on its mbarrier;
// cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size: shared to global;
// cp.reduce.async.bulk.{global.shared::cta.bulk_group | shared::cluster.shared::cta.
//   mbarrier::complete_tx::bytes}.op.type: the same copies, combining with the destination;
// cp.async.bulk.commit_group, wait_group{.read} N: nothing to do (copies complete at issue);
// cp.async.bulk.prefetch.*: a hint.
void decode_bulk_copy(const Instruction& in, OperandDecoder& d, Instr& ins) {
  const auto fail = [&](const std::string& m) { throw d.error(in, m); };
  if (has(in, ".prefetch") || has(in, ".commit_group") || has(in, ".wait_group")) {
    ins.op = Opc::Nop;
    return;
  }
  ins.op = Opc::CpAsyncBulk;
  MbarMods& m = ins.mod.mbar;
  m.multicast = has(in, ".multicast::cluster");
  m.reduce = has(in, ".reduce");
  // The modifiers in order: the first state space is the destination, the second the source.
  std::vector<std::string_view> spaces;
  for (const auto& x : in.modifiers)
    if (x == ".global" || x == ".shared::cta" || x == ".shared::cluster" || x == ".shared")
      spaces.push_back(x);
  if (spaces.size() != 2) fail("cp.async.bulk needs a destination and a source state space");
  const bool dst_global = spaces[0] == ".global", src_global = spaces[1] == ".global";
  if (dst_global && src_global) fail("cp.async.bulk copies between global and shared memory");
  m.to_global = dst_global;
  m.to_cluster = !dst_global && !src_global;
  if (m.to_cluster && spaces[0] != ".shared::cluster")
    fail("cp.async.bulk between shared memories writes .shared::cluster from .shared::cta");
  if (m.multicast && (m.to_global || m.to_cluster))
    fail(".multicast::cluster applies to copies from global memory into shared memory");
  if (m.reduce) {
    if (!m.to_global && !m.to_cluster)
      fail(
          "cp.reduce.async.bulk reads shared::cta and combines into global or shared::cluster "
          "memory");
    static const std::pair<const char*, AtomOp> kOps[] = {
        {".add", AtomOp::Add}, {".min", AtomOp::Min}, {".max", AtomOp::Max}, {".inc", AtomOp::Inc},
        {".dec", AtomOp::Dec}, {".and", AtomOp::And}, {".or", AtomOp::Or},   {".xor", AtomOp::Xor}};
    bool found = false;
    for (const auto& [n, op] : kOps)
      if (has(in, n)) {
        m.reduce_op = op;
        found = true;
      }
    for (const auto& x : in.modifiers)
      if (auto t = parse_ty(x)) m.reduce_type = *t;
    if (!found || m.reduce_type == Ty::None)
      fail("cp.reduce.async.bulk needs its reduction (.add, .min, ...) and element type");
    if (m.reduce_type == Ty::F16X2 || m.reduce_type == Ty::BF16X2 || ty_bytes(m.reduce_type) < 2)
      fail("cp.reduce.async.bulk of this element type is not emulated");
  }
  const bool mbar = has(in, ".mbarrier::complete_tx::bytes");
  if (m.to_global ? !has(in, ".bulk_group") : !mbar)
    fail(m.to_global ? "cp.async.bulk to global memory completes through .bulk_group"
                     : "cp.async.bulk to shared memory completes on an mbarrier "
                       "(.mbarrier::complete_tx::bytes)");
  if (has(in, ".cp_mask")) fail("cp.async.bulk with .cp_mask is not emulated");
  const std::size_t want = (mbar ? 4 : 3) + (m.multicast ? 1 : 0);
  const std::size_t with_policy = want + (has(in, ".L2::cache_hint") ? 1 : 0);
  if (in.operands.size() != with_policy)
    fail(fmt::format("'{}' takes {} operands, got {}", in.text, with_policy, in.operands.size()));
  Space dsp = m.to_global ? Space::Global : Space::Shared;
  Space ssp = m.to_global || m.to_cluster ? Space::Shared : Space::Global;
  ins.space = Space::Shared;
  ins.mem = d.memref(in, in.operands[0], dsp);
  ins.mem2 = d.memref(in, in.operands[1], ssp);
  ins.src[ins.nsrc++] = d.operand(in, in.operands[2], Ty::U32);
  if (mbar) {
    Space msp = Space::Shared;
    ins.mem3 = d.memref(in, in.operands[3], msp);
  }
  if (m.multicast) ins.src[ins.nsrc++] = d.operand(in, in.operands[4], Ty::U16);
}

}  // namespace bankcheck::ptx::detail
