// The decoder's forms of control flow and warp-wide operations: branches, barriers,
// calls, hints, and the warp's shuffles, votes, matches and reductions.
#include <utility>

#include "decode_form.hpp"

namespace bankcheck::ptx::detail {

void Form::form_Branch() {
  ins.op = Opc::Bra;
  if (has(in, ".uni")) ins.flags |= kFlagUni;
  if (in.operands.size() != 1 || in.operands[0].kind != Operand::Kind::Symbol)
    fail(in, "bra takes one label");
  return;
}

void Form::form_Barrier() {
  if (op == "bar" && has(in, ".warp")) {
    // bar.warp.sync (__syncwarp): the emulator runs a warp's active lanes together, so
    // there is nothing to wait for.
    ins.op = Opc::Nop;
    return;
  }
  if (op == "barrier" && has(in, ".cluster")) {
    cluster_barrier();
    return;
  }
  if (has(in, ".red")) {
    // bar.red.popc.u32 d, 0, p; bar.red.and.pred d, 0, p; bar.red.or.pred d, 0, p
    // (__syncthreads_count/and/or): a barrier that also reduces p over the CTA.
    ins.op = Opc::Bar;
    ins.mod.barred = has(in, ".popc")  ? BarRed::Popc
                     : has(in, ".and") ? BarRed::And
                     : has(in, ".or")  ? BarRed::Or
                                       : BarRed::None;
    if (ins.mod.barred == BarRed::None) fail(in, "bar.red needs .popc, .and or .or");
    if (in.operands.size() != 3) fail(in, "bar.red with a thread count is not supported");
    if (in.operands[1].kind != Operand::Kind::Immediate || in.operands[1].imm != 0)
      fail(in, "named barriers other than 0 are not supported");
    ins.type = ins.mod.barred == BarRed::Popc ? Ty::U32 : Ty::Pred;
    dst(0, ins.type);
    src(2, Ty::Pred);
    return;
  }
  // bar.sync a{, b}, barrier.sync{.aligned} a{, b}, bar.arrive a, b, barrier.arrive a, b
  // (and plain `bar a`): a is the barrier (0 to 15), b the threads it waits for (a multiple
  // of the warp size), each an immediate or a register.
  ins.mod.bar_arrive = has(in, ".arrive");
  const bool sync = has(in, ".sync") || in.modifiers.empty() ||
                    (op == "barrier" && !ins.mod.bar_arrive) ||
                    (in.modifiers.size() == 1 && has(in, ".aligned"));
  if (!sync && !ins.mod.bar_arrive) fail(in, "unsupported barrier '" + in.text + "'");
  ins.op = Opc::Bar;
  if (in.operands.empty()) {
    if (ins.mod.bar_arrive) fail(in, "bar.arrive needs a barrier and a thread count");
    ins.src[0].kind = Opnd::Kind::Imm;  // barrier 0
    ins.nsrc = 1;
    return;
  }
  if (in.operands.size() > 2) fail(in, "bar.sync takes a barrier and a thread count at most");
  if (ins.mod.bar_arrive && in.operands.size() != 2)
    fail(in, "bar.arrive needs a thread count");
  src(0, Ty::U32);
  if (in.operands[0].kind == Operand::Kind::Immediate && in.operands[0].imm > 15)
    fail(in, "barrier " + std::to_string(in.operands[0].imm) + " does not exist (0 to 15)");
  if (in.operands.size() == 2) {
    ins.mod.bar_count = true;
    src(1, Ty::U32);
    if (in.operands[1].kind == Operand::Kind::Immediate &&
        (in.operands[1].imm <= 0 || in.operands[1].imm % 32 != 0 || in.operands[1].imm > 1024))
      fail(in, "a barrier's thread count must be a multiple of 32 from 32 to 1024");
  }
}

void Form::form_Plain() { ins.op = opc; }

void Form::form_Hint() {
  ins.op = Opc::Nop;
  if (op == "createpolicy") fail(in, "createpolicy is not supported");
  return;
}

void Form::form_Shfl() {
  ins.op = Opc::Shfl;
  ins.type = Ty::B32;
  ShflMode mode = ShflMode::Idx;
  if (has(in, ".up"))
    mode = ShflMode::Up;
  else if (has(in, ".down"))
    mode = ShflMode::Down;
  else if (has(in, ".bfly"))
    mode = ShflMode::Bfly;
  ins.mod.shfl = mode;
  if (!has(in, ".sync")) fail(in, "shfl without .sync is not supported");
  need(5);
  const auto& d = in.operands[0];
  if (d.kind == Operand::Kind::Pair) {
    ins.dst[ins.ndst++] = operand(in, d.elems[0], Ty::B32);
    ins.dst[ins.ndst++] = operand(in, d.elems[1], Ty::Pred);
  } else {
    dst(0, Ty::B32);
  }
  src(1, Ty::B32);
  src(2, Ty::B32);
  src(3, Ty::B32);
  src(4, Ty::B32);
  return;
}

void Form::form_Vote() {
  ins.op = Opc::Vote;
  VoteMode mode = VoteMode::All;
  if (has(in, ".any"))
    mode = VoteMode::Any;
  else if (has(in, ".uni"))
    mode = VoteMode::Uni;
  else if (has(in, ".ballot"))
    mode = VoteMode::Ballot;
  ins.mod.vote = mode;
  need(3);
  dst(0, mode == VoteMode::Ballot ? Ty::B32 : Ty::Pred);
  src(1, Ty::Pred);
  src(2, Ty::B32);
  return;
}

void Form::form_Match() {
  ins.op = Opc::Match;
  ins.type = tl;
  ins.mod.match = has(in, ".all") ? MatchMode::All : MatchMode::Any;
  need(3);
  const auto& d = in.operands[0];
  if (d.kind == Operand::Kind::Pair) {
    ins.dst[ins.ndst++] = operand(in, d.elems[0], Ty::B32);
    ins.dst[ins.ndst++] = operand(in, d.elems[1], Ty::Pred);
  } else {
    dst(0, Ty::B32);
  }
  src(1, tl);
  src(2, Ty::B32);
  return;
}

void Form::form_Activemask() {
  ins.op = Opc::Activemask;
  need(1);
  dst(0, Ty::B32);
  return;
}

void Form::form_Call() {
  // printf and assert() are the calls kept; other device functions are normally inlined by
  // nvcc.
  // A call parameter named in the call: its slot in the local depot.
  const auto param = [&](const Operand& p, const char* callee) {
    if (p.kind != Operand::Kind::Symbol)
      fail(in, std::string(callee) + " with an argument that is no parameter");
    Operand at;
    at.kind = Operand::Kind::Address;
    at.name = p.name;
    Space space = Space::Generic;
    const MemRef m = d_.memref(in, at, space);
    if (space != Space::Local)
      fail(in, std::string(callee) + " with an argument that is no call parameter");
    return m;
  };
  for (std::size_t i = 0; i < in.operands.size(); ++i) {
    const Operand& o = in.operands[i];
    if (o.kind == Operand::Kind::Symbol && o.name == "vprintf") {
      // call.uni (retval0), vprintf, (param0, param1): the format's and the arguments'
      // generic addresses, and the int it returns, in call parameters (the local depot).
      ins.op = Opc::Printf;
      if (i + 1 >= in.operands.size() || in.operands[i + 1].kind != Operand::Kind::Vector ||
          in.operands[i + 1].elems.size() != 2)
        fail(in, "vprintf takes two arguments (the format and the argument buffer)");
      ins.mem = param(in.operands[i + 1].elems[0], "vprintf");
      ins.mem2 = param(in.operands[i + 1].elems[1], "vprintf");
      if (i > 0 && in.operands[i - 1].kind == Operand::Kind::Vector &&
          in.operands[i - 1].elems.size() == 1) {
        ins.mem3 = param(in.operands[i - 1].elems[0], "vprintf");
        ins.mod.printf_returns = true;
      }
      return;
    }
    if (o.kind == Operand::Kind::Symbol && o.name == "__assertfail") {  // a failed assert()
      ins.op = Opc::Trap;
      ins.mod.assert_fail = true;
      // __assertfail(message, file, line, function, char size): what the GPU's driver prints
      // of it. Other forms only trap.
      if (i + 1 < in.operands.size() && in.operands[i + 1].kind == Operand::Kind::Vector &&
          in.operands[i + 1].elems.size() >= 4) {
        const auto& a = in.operands[i + 1].elems;
        ins.mem = param(a[0], "__assertfail");
        ins.mem2 = param(a[1], "__assertfail");
        ins.mem3 = param(a[3], "__assertfail");
        ins.src[0].kind = Opnd::Kind::Imm;
        ins.src[0].imm = static_cast<std::uint64_t>(param(a[2], "__assertfail").offset);
        ins.mod.assert_text = true;
      }
      return;
    }
  }
  for (const Operand& o : in.operands)
    if (o.kind == Operand::Kind::Register)
      fail(in,
           "a call through a function pointer where no function of the program that fits "
           "the call has its address taken (the functions it may call are not in its PTX)");
  fail(in, "a call to a device function the program's PTX does not define (not supported)");
}

// redux.sync.op.type d, a, membermask: op add/min/max (.u32, .s32) or and/or/xor (.b32).
void Form::form_Redux() {
  ins.op = Opc::Redux;
  ins.type = tl;
  if (!has(in, ".sync")) fail(in, "redux without .sync is not supported");
  if (tl != Ty::U32 && tl != Ty::S32 && tl != Ty::B32)
    fail(in, "redux.sync on this type is not supported");
  static const std::pair<const char*, AtomOp> ops[] = {
      {".add", AtomOp::Add}, {".min", AtomOp::Min}, {".max", AtomOp::Max},
      {".and", AtomOp::And}, {".or", AtomOp::Or},   {".xor", AtomOp::Xor}};
  bool found = false;
  for (const auto& m : in.modifiers)
    for (const auto& [n, v] : ops)
      if (m == n) {
        ins.mod.atom = v;
        found = true;
      }
  if (!found) fail(in, "unknown redux operation");
  need(3);
  dst(0, tl);
  src(1, tl);
  src(2, Ty::B32);
}

}  // namespace bankcheck::ptx::detail
