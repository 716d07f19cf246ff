// The decoder's forms of memory accesses: ld, st, atom and red, the address-space
// conversions (cvta, isspacep) and the asynchronous copies (cp.async; cp.async.bulk and
// mbarrier in decode_mbarrier.cpp).
#include <cstdint>
#include <utility>

#include "decode_form.hpp"

namespace bankcheck::ptx::detail {

void Form::form_Cvta() {
  ins.op = Opc::Cvta;
  ins.space = space_of(in);
  ins.mod.to_space = has(in, ".to");
  ins.type = tl;
  need(2);
  dst(0, tl);
  src(1, tl);
  return;
}

void Form::form_Isspacep() {
  ins.op = Opc::Isspacep;
  ins.space = space_of(in);
  need(2);
  dst(0, Ty::Pred);
  src(1, Ty::U64);
  return;
}

void Form::form_LoadStore() {
  const bool load = opc == Opc::Ld;
  ins.op = opc;
  ins.space = space_of(in);
  ins.type = tl;
  if (ins.type == Ty::Pred || ins.type == Ty::None) fail(in, "missing type");
  for (const auto& m : in.modifiers) {
    if (m == ".v2") ins.vec = 2;
    if (m == ".v4") ins.vec = 4;
    if (m == ".v8") fail(in, ".v8 accesses are not supported");
  }
  need(2);
  // A load another thread may change while this one spins on it: volatile, or ordered at
  // a scope wider than the CTA (a grid barrier's flag, a producer's counter).
  if (load && (ins.space == Space::Global || ins.space == Space::Generic) &&
      (has(in, ".volatile") || has(in, ".acquire") ||
       (has(in, ".relaxed") && (has(in, ".gpu") || has(in, ".sys")))))
    ins.flags |= kFlagPoll;
  ins.mod.evict_first = has(in, ".cs");
  const auto& data = in.operands[load ? 0 : 1];
  const auto& addr = in.operands[load ? 1 : 0];
  ins.mem = memref(in, addr, ins.space);
  if (ins.vec > 1) {
    if (data.kind != Operand::Kind::Vector || data.elems.size() != ins.vec)
      fail(in, "vector access needs a {..} operand of matching size");
    for (const auto& e : data.elems) {
      Opnd o;
      if (e.kind == Operand::Kind::Symbol && e.name == "_")
        o = Opnd{};
      else
        o = operand(in, e, ins.type);
      if (load)
        ins.dst[ins.ndst++] = o;
      else
        ins.src[ins.nsrc++] = o;
    }
  } else {
    if (load)
      dst(0, ins.type);
    else
      src(1, ins.type);
  }
  if (ins.space == Space::Param && !load)
    fail(in, "st.param (device function calls) is not supported");
  return;
}

void Form::form_Atomic() {
  ins.op = opc;
  ins.space = space_of(in);
  ins.type = tl;
  AtomOp ao = AtomOp::Add;
  bool found = false;
  static const std::pair<const char*, AtomOp> ops[] = {
      {".add", AtomOp::Add},   {".min", AtomOp::Min}, {".max", AtomOp::Max}, {".inc", AtomOp::Inc},
      {".dec", AtomOp::Dec},   {".and", AtomOp::And}, {".or", AtomOp::Or},   {".xor", AtomOp::Xor},
      {".exch", AtomOp::Exch}, {".cas", AtomOp::Cas}};
  for (const auto& m : in.modifiers)
    for (auto& [n, v] : ops)
      if (m == n) {
        ao = v;
        found = true;
      }
  if (!found) fail(in, "unknown atomic operation");
  if (has(in, ".v2") || has(in, ".v4") || has(in, ".v8"))
    fail(in, "vector atomics (.v2, .v4, .v8) are not supported");
  // atom/red.add.noftz.{f16,f16x2,bf16,bf16x2} (and .min/.max on them): each 16-bit half
  // rounded to nearest even on its own, subnormals kept.
  if (ty_half(ins.type) && ao != AtomOp::Add && ao != AtomOp::Min && ao != AtomOp::Max &&
      ao != AtomOp::Exch && ao != AtomOp::Cas)
    fail(in, "this atomic operation on f16/bf16 is not supported");
  ins.mod.atom = ao;
  size_t i = 0;
  if (ins.op == Opc::Atom) dst(static_cast<int>(i++), ins.type);
  ins.mem = memref(in, in.operands.at(i++), ins.space);
  src(static_cast<int>(i++), ins.type);
  if (ao == AtomOp::Cas) src(static_cast<int>(i++), ins.type);
  if (i != in.operands.size()) fail(in, "unexpected operands");
  return;
}

// cp.async.{ca,cg}.shared.global [dst], [src], cp-size[, src-size]; commit_group;
// wait_group N; wait_all. cp.async.bulk (the TMA unit): decode_mbarrier.cpp; its tensor
// copies: decode_tensor_copy.cpp.
void Form::form_CpAsync() {
  if (!has(in, ".async")) fail(in, "unsupported instruction 'cp' (only cp.async is)");
  if (has(in, ".bulk")) {
    if (has(in, ".tensor") && !has(in, ".prefetch"))
      decode_tensor_copy(in, d_, ins);
    else
      decode_bulk_copy(in, d_, ins);
    return;
  }
  if (has(in, ".commit_group")) {
    ins.op = Opc::CpAsyncCommit;
    return;
  }
  if (has(in, ".wait_all")) {
    ins.op = Opc::CpAsyncWait;
    return;
  }
  if (has(in, ".wait_group")) {
    ins.op = Opc::CpAsyncWait;
    need(1);
    if (in.operands[0].kind != Operand::Kind::Immediate)
      fail(in, "cp.async.wait_group takes an immediate");
    ins.mod.mx.wait_n = static_cast<std::uint8_t>(in.operands[0].imm);
    return;
  }
  if (has(in, ".mbarrier")) {
    decode_cp_async_arrive(in, d_, ins);
    return;
  }
  ins.op = Opc::CpAsync;
  ins.mod.mx.bypass = has(in, ".cg");
  if (!ins.mod.mx.bypass && !has(in, ".ca")) fail(in, "cp.async needs .ca or .cg");
  if (in.operands.size() < 3 || in.operands.size() > 5)
    fail(in, "cp.async takes [dst], [src], cp-size[, src-size][, cache-policy]");
  Space dsp = Space::Shared, ssp = Space::Global;
  ins.space = Space::Shared;
  ins.mem = memref(in, in.operands[0], dsp);
  ins.mem2 = memref(in, in.operands[1], ssp);
  if (in.operands[2].kind != Operand::Kind::Immediate)
    fail(in, "cp.async's size must be 4, 8 or 16");
  const auto size = in.operands[2].imm;
  if (size != 4 && size != 8 && size != 16) fail(in, "cp.async's size must be 4, 8 or 16");
  if (ins.mod.mx.bypass && size != 16) fail(in, "cp.async.cg copies 16 bytes only");
  ins.vec = static_cast<std::uint8_t>(size);
  if (has(in, ".L2::cache_hint") && in.operands.size() == 5)
    fail(in, "cp.async with both src-size and a cache policy is not supported");
  if (in.operands.size() >= 4 && !(in.operands.size() == 4 && has(in, ".L2::cache_hint"))) {
    ins.mod.mx.src_size = true;
    src(3, Ty::U32);
  }
}

void Form::form_Mbarrier() { decode_mbarrier(in, d_, ins); }

}  // namespace bankcheck::ptx::detail
