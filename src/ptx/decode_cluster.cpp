// The decoder's forms for thread-block clusters and warp leaders:
//   barrier.cluster.arrive{.release|.relaxed}{.aligned}; barrier.cluster.wait{.acquire}{.aligned};
//   mapa{.shared::cluster}.{u32,u64} d, a, rank;   (generic addresses without the space)
//   getctarank{.shared::cluster}.{u32,u64} d, a;
//   elect.sync d|p, membermask;
#include "decode_form.hpp"

namespace bankcheck::ptx::detail {

void Form::cluster_barrier() {
  ins.op = Opc::BarCluster;
  ins.mod.bar_arrive = has(in, ".arrive");
  if (!ins.mod.bar_arrive && !has(in, ".wait")) fail(in, "barrier.cluster needs .arrive or .wait");
  need(0);
}

void Form::form_Mapa() {
  ins.op = opc;
  ins.space = has(in, ".shared::cluster") ? Space::Shared : Space::Generic;
  ins.type = tl == Ty::U64 || tl == Ty::B64 || tl == Ty::S64 ? Ty::U64 : Ty::U32;
  if (tl != Ty::U32 && tl != Ty::U64 && tl != Ty::B32 && tl != Ty::B64)
    fail(in, op + " needs .u32 or .u64");
  need(opc == Opc::Mapa ? 3 : 2);
  dst(0, ins.type);
  src(1, ins.type);
  if (opc == Opc::Mapa) src(2, Ty::U32);
}

void Form::form_Elect() {
  ins.op = Opc::Elect;
  if (!has(in, ".sync")) fail(in, "elect needs .sync");
  need(2);
  const Operand& d = in.operands[0];
  const auto sink = [](const Operand& o) {
    return o.kind == Operand::Kind::Symbol && o.name == "_";
  };
  if (d.kind == Operand::Kind::Pair) {
    ins.dst[0] = sink(d.elems[0]) ? Opnd{} : operand(in, d.elems[0], Ty::U32);
    ins.dst[1] = sink(d.elems[1]) ? Opnd{} : operand(in, d.elems[1], Ty::Pred);
  } else {
    ins.dst[0] = sink(d) ? Opnd{} : operand(in, d, Ty::U32);
  }
  ins.ndst = 2;
  src(1, Ty::U32);
}

}  // namespace bankcheck::ptx::detail
