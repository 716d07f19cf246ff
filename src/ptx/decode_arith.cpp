// The decoder's forms of arithmetic, logic, comparison and conversion: integer and
// floating-point operations, bit fields and permutes, setp/selp, cvt, dot products and the
// carry chain (addc, subc, madc and .cc).
#include <optional>
#include <string_view>
#include <utility>

#include "decode_form.hpp"

namespace bankcheck::ptx::detail {

namespace {

std::optional<Cmp> parse_cmp(std::string_view m) {
  static const std::pair<const char*, Cmp> table[] = {
      {".eq", Cmp::Eq},   {".ne", Cmp::Ne},   {".lt", Cmp::Lt},   {".le", Cmp::Le},
      {".gt", Cmp::Gt},   {".ge", Cmp::Ge},   {".lo", Cmp::Lo},   {".ls", Cmp::Ls},
      {".hi", Cmp::Hi},   {".hs", Cmp::Hs},   {".equ", Cmp::Equ}, {".neu", Cmp::Neu},
      {".ltu", Cmp::Ltu}, {".leu", Cmp::Leu}, {".gtu", Cmp::Gtu}, {".geu", Cmp::Geu},
      {".num", Cmp::Num}, {".nan", Cmp::Nan},
  };
  for (auto& [n, c] : table)
    if (m == n) return c;
  return std::nullopt;
}

}  // namespace

// add.s32 d, a, b and the like: the destination and both sources of the operation's type.
void Form::form_Binary() {
  ins.op = opc;
  ins.type = t0;
  need(3);
  dst(0, t0);
  src(1, t0);
  src(2, t0);
  ins.mod.round = rounding();
}

// neg.s32 d, a and the like.
void Form::form_Unary() {
  ins.op = opc;
  ins.type = t0;
  need(2);
  dst(0, t0);
  src(1, t0);
  ins.mod.round = rounding();
}

void Form::form_Mov() {
  ins.op = Opc::Mov;
  ins.type = t0;
  need(2);
  const auto& d = in.operands[0];
  const auto& s = in.operands[1];
  if (s.kind == Operand::Kind::Vector) {  // pack: mov.b64 %rd, {%r1, %r2}
    ins.mod.mov = MovForm::Pack;
    dst(0, t0);
    const Ty part = s.elems.size() == 2 ? (ty_bytes(t0) == 8 ? Ty::B32 : Ty::B16) : Ty::B16;
    for (const auto& e : s.elems) ins.src[ins.nsrc++] = operand(in, e, part);
    ins.type2 = part;
  } else if (d.kind == Operand::Kind::Vector) {  // unpack
    ins.mod.mov = MovForm::Unpack;
    const Ty part = d.elems.size() == 2 ? (ty_bytes(t0) == 8 ? Ty::B32 : Ty::B16) : Ty::B16;
    for (const auto& e : d.elems) {
      if (e.kind == Operand::Kind::Symbol && e.name == "_") {
        ins.dst[ins.ndst++] = Opnd{};
        continue;
      }
      ins.dst[ins.ndst++] = operand(in, e, part);
    }
    src(1, t0);
    ins.type2 = part;
  } else {
    dst(0, t0);
    src(1, t0);
  }
  return;
}

void Form::form_MulMad() {
  const bool mad = opc == Opc::Mad;
  ins.op = opc;
  ins.type = t0;
  MulMode mode = MulMode::Lo;
  if (has(in, ".hi")) mode = MulMode::Hi;
  if (has(in, ".wide")) mode = MulMode::Wide;
  if (ty_float(t0)) mode = MulMode::Lo;
  ins.mod.mul = mode;
  if (ty_float(t0)) ins.mod.round = rounding();
  need(mad ? 4 : 3);
  const Ty dty = mode == MulMode::Wide ? (ty_bytes(t0) == 4 ? (ty_signed(t0) ? Ty::S64 : Ty::U64)
                                                            : (ty_signed(t0) ? Ty::S32 : Ty::U32))
                                       : t0;
  dst(0, dty);
  src(1, t0);
  src(2, t0);
  if (mad) src(3, dty);
  return;
}

void Form::form_Shift() {
  ins.op = opc;
  ins.type = t0;
  need(3);
  dst(0, t0);
  src(1, t0);
  src(2, Ty::U32);
  return;
}

void Form::form_BitCount() {
  ins.op = opc;
  ins.type = t0;
  if (opc == Opc::Bfind && has(in, ".shiftamt")) ins.mod.shiftamt = true;
  need(2);
  dst(0, Ty::U32);
  src(1, t0);
  return;
}

void Form::form_Fma() {
  ins.op = Opc::Fma;
  ins.type = t0;
  ins.mod.round = rounding();
  need(4);
  dst(0, t0);
  src(1, t0);
  src(2, t0);
  src(3, t0);
  return;
}

void Form::form_Bfe() {
  ins.op = Opc::Bfe;
  ins.type = t0;
  need(4);
  dst(0, t0);
  src(1, t0);
  src(2, Ty::U32);
  src(3, Ty::U32);
  return;
}

void Form::form_Bfi() {
  ins.op = Opc::Bfi;
  ins.type = t0;
  need(5);
  dst(0, t0);
  src(1, t0);
  src(2, t0);
  src(3, Ty::U32);
  src(4, Ty::U32);
  return;
}

void Form::form_Bmsk() {
  ins.op = Opc::Bmsk;
  ins.type = Ty::B32;
  if (!has(in, ".b32")) fail(in, "bmsk needs .b32");
  if (has(in, ".clamp") == has(in, ".wrap")) fail(in, "bmsk needs one of .clamp and .wrap");
  ins.mod.clamp = has(in, ".clamp");
  need(3);
  dst(0, Ty::B32);
  src(1, Ty::U32);
  src(2, Ty::U32);
  return;
}

void Form::form_Prmt() {
  ins.op = Opc::Prmt;
  ins.type = Ty::B32;
  for (const auto& m : in.modifiers)
    if (m != ".b32") fail(in, "prmt mode " + m + " is not supported");
  need(4);
  dst(0, Ty::B32);
  src(1, Ty::B32);
  src(2, Ty::B32);
  src(3, Ty::B32);
  return;
}

void Form::form_Funnel() {
  // Funnel shift (rotates compile to it): decoded as a Prmt variant, sub 1-4 =
  // 1 + (.r ? 1 : 0) + (.clamp ? 2 : 0); sub 0 is prmt itself.
  ins.op = Opc::Prmt;
  ins.type = Ty::B32;
  if (!has(in, ".l") && !has(in, ".r")) fail(in, "shf needs .l or .r");
  if (!has(in, ".wrap") && !has(in, ".clamp")) fail(in, "shf needs .wrap or .clamp");
  ins.mod.funnel = has(in, ".clamp") ? (has(in, ".r") ? Funnel::RightClamp : Funnel::LeftClamp)
                                     : (has(in, ".r") ? Funnel::RightWrap : Funnel::LeftWrap);
  need(4);
  dst(0, Ty::B32);
  src(1, Ty::B32);
  src(2, Ty::B32);
  src(3, Ty::U32);
  return;
}

void Form::form_Lop3() {
  ins.op = Opc::Lop3;
  ins.type = Ty::B32;
  need(5);
  dst(0, Ty::B32);
  src(1, Ty::B32);
  src(2, Ty::B32);
  src(3, Ty::B32);
  src(4, Ty::B32);
  return;
}

void Form::form_Compare() {
  ins.op = opc;
  Cmp c = Cmp::Eq;
  bool found = false;
  for (const auto& m : in.modifiers)
    if (auto cc = parse_cmp(m)) {
      c = *cc;
      found = true;
      break;
    }
  if (!found) fail(in, "missing comparison");
  ins.cmp = c;
  // setp.lt.s32; set.lt.u32.s32 (result type first, compare type last).
  ins.type = tl;
  ins.type2 = t0;
  if (has(in, ".and")) ins.mod.boolop = BoolOp::And;
  if (has(in, ".or")) ins.mod.boolop = BoolOp::Or;
  if (has(in, ".xor")) ins.mod.boolop = BoolOp::Xor;
  if (in.operands.size() < 3) fail(in, "setp takes at least 3 operands");
  const auto& d = in.operands[0];
  if (d.kind == Operand::Kind::Pair) {
    ins.dst[ins.ndst++] = operand(in, d.elems[0], Ty::Pred);
    ins.dst[ins.ndst++] = operand(in, d.elems[1], Ty::Pred);
  } else {
    dst(0, opc == Opc::Setp ? Ty::Pred : t0);
  }
  src(1, tl);
  src(2, tl);
  if (ins.mod.boolop != BoolOp::None) {
    if (in.operands.size() != 4) fail(in, "setp with a boolean op takes 4 operands");
    src(3, Ty::Pred);
  }
  return;
}

void Form::form_Selp() {
  ins.op = Opc::Selp;
  ins.type = t0;
  need(4);
  dst(0, t0);
  src(1, t0);
  src(2, t0);
  src(3, Ty::Pred);
  return;
}

void Form::form_Slct() {
  ins.op = Opc::Slct;
  ins.type = t0;
  ins.type2 = tl;
  need(4);
  dst(0, t0);
  src(1, t0);
  src(2, t0);
  src(3, tl);
  return;
}

void Form::form_Cvt() {
  ins.op = Opc::Cvt;
  if (tys.size() != 2) fail(in, "cvt needs a destination and a source type");
  ins.type = tys[0];
  ins.type2 = tys[1];
  ins.mod.round = rounding();
  // cvt.rn.bf16x2.f32 d, a, b (and f16x2, e4m3x2, e5m2x2): two scalars packed into one.
  if (ty_packed(tys[0]) && !ty_packed(tys[1]) && in.operands.size() == 3) {
    dst(0, tys[0]);
    src(1, tys[1]);
    src(2, tys[1]);
    return;
  }
  need(2);
  dst(0, tys[0]);
  src(1, tys[1]);
  return;
}

void Form::form_Testp() {
  ins.op = Opc::Testp;
  ins.type = tl;
  ins.mod.fclass = has(in, ".finite")       ? FloatClass::Finite
                   : has(in, ".infinite")   ? FloatClass::Infinite
                   : has(in, ".number")     ? FloatClass::Number
                   : has(in, ".notanumber") ? FloatClass::NotANumber
                   : has(in, ".normal")     ? FloatClass::Normal
                                            : FloatClass::Subnormal;
  need(2);
  dst(0, Ty::Pred);
  src(1, tl);
  return;
}

// dp4a.atype.btype d, a, b, c and dp2a.{lo,hi}.atype.btype d, a, b, c: `type` is a's
// signedness, `type2` b's; d and c are s32 when either is signed.
void Form::form_Dot() {
  ins.op = opc;
  if (tys.size() != 2) fail(in, op + " needs the types of a and b");
  ins.type = tys[0];
  ins.type2 = tys[1];
  ins.mod.hi = has(in, ".hi");
  const Ty d = ty_signed(tys[0]) || ty_signed(tys[1]) ? Ty::S32 : Ty::U32;
  need(4);
  dst(0, d);
  src(1, Ty::B32);
  src(2, Ty::B32);
  src(3, d);
}

// sad.type d, a, b, c: c + |a - b|, every operand of the type.
void Form::form_Sad() {
  ins.op = Opc::Sad;
  ins.type = t0;
  need(4);
  dst(0, t0);
  src(1, t0);
  src(2, t0);
  src(3, t0);
}

// addc, subc: like add and sub; madc: like mad (.lo or .hi). Their carry-in, and the
// carry-out of .cc, are the hidden predicate %cc (carry_operands below).
void Form::form_Carry() {
  ins.op = opc;
  ins.type = t0;
  if (opc == Opc::Madc) {
    ins.mod.mul = has(in, ".hi") ? MulMode::Hi : MulMode::Lo;
    if (has(in, ".wide")) fail(in, "madc.wide is not supported");
    need(4);
  } else {
    need(3);
  }
  dst(0, t0);
  src(1, t0);
  src(2, t0);
  if (opc == Opc::Madc) src(3, t0);
}

// The carry flag as operands: a carry-in source for addc/subc/madc, a carry-out
// destination for .cc.
void Form::carry_operands() {
  const bool in_carry = opc == Opc::Addc || opc == Opc::Subc || opc == Opc::Madc;
  if (!in_carry && !(ins.flags & kFlagCc)) return;
  if ((ins.flags & kFlagCc) && opc != Opc::Add && opc != Opc::Sub && opc != Opc::Mad && !in_carry)
    fail(in, "carry (.cc) on '" + op + "' is not supported");
  if (ty_float(ins.type) || (ty_bytes(ins.type) != 4 && ty_bytes(ins.type) != 8))
    fail(in, "carry arithmetic needs a 32- or 64-bit integer type");
  if (ins.mod.mul == MulMode::Wide) fail(in, "mad.wide.cc is not supported");
  Operand cc;
  cc.kind = Operand::Kind::Register;
  cc.name = "%cc";
  if (in_carry) ins.src[ins.nsrc++] = operand(in, cc, Ty::Pred);
  if (ins.flags & kFlagCc) ins.dst[ins.ndst++] = operand(in, cc, Ty::Pred);
}

}  // namespace bankcheck::ptx::detail
