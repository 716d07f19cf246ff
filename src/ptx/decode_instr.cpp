// The decoder's forms: for each mnemonic of the opcode table (bankcheck/ptx/opcodes.def),
// the function that reads its modifiers and operands into an Instr. The table makes the
// dispatch; a form serves every opcode that is written the same way (add, sub, min, ...
// are all Binary).
#include "decode_instr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace bankcheck::ptx::detail {

std::optional<Ty> parse_ty(std::string_view m) {
  static const std::pair<const char*, Ty> kTypes[] = {
      {".u8", Ty::U8},         {".u16", Ty::U16},      {".u32", Ty::U32},       {".u64", Ty::U64},
      {".s8", Ty::S8},         {".s16", Ty::S16},      {".s32", Ty::S32},       {".s64", Ty::S64},
      {".b8", Ty::B8},         {".b16", Ty::B16},      {".b32", Ty::B32},       {".b64", Ty::B64},
      {".f16", Ty::F16},       {".f32", Ty::F32},      {".f64", Ty::F64},       {".pred", Ty::Pred},
      {".bf16", Ty::BF16},     {".f16x2", Ty::F16X2},  {".bf16x2", Ty::BF16X2}, {".tf32", Ty::TF32},
      {".e4m3x2", Ty::E4M3X2}, {".e5m2x2", Ty::E5M2X2}};
  for (const auto& [n, t] : kTypes)
    if (m == n) return t;
  return std::nullopt;
}

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

// One instruction being decoded: the names the forms use.
class Form {
 public:
  Form(const Instruction& in, OperandDecoder& d, Opc opc) : in(in), d_(d), op(in.opcode), opc(opc) {
    for (const auto& m : in.modifiers)
      if (auto ty = parse_ty(m)) tys.push_back(*ty);
    t0 = tys.empty() ? Ty::None : tys[0];
    tl = tys.empty() ? Ty::None : tys.back();
  }

#define BANKCHECK_FORM(Form) void form_##Form();
  BANKCHECK_FORM(Binary)
  BANKCHECK_FORM(Unary)
  BANKCHECK_FORM(None)
  BANKCHECK_FORM(Mov)
  BANKCHECK_FORM(MulMad)
  BANKCHECK_FORM(Shift)
  BANKCHECK_FORM(BitCount)
  BANKCHECK_FORM(Fma)
  BANKCHECK_FORM(Bfe)
  BANKCHECK_FORM(Bfi)
  BANKCHECK_FORM(Bmsk)
  BANKCHECK_FORM(Prmt)
  BANKCHECK_FORM(Funnel)
  BANKCHECK_FORM(Lop3)
  BANKCHECK_FORM(Compare)
  BANKCHECK_FORM(Selp)
  BANKCHECK_FORM(Slct)
  BANKCHECK_FORM(Cvt)
  BANKCHECK_FORM(Cvta)
  BANKCHECK_FORM(Isspacep)
  BANKCHECK_FORM(LoadStore)
  BANKCHECK_FORM(Atomic)
  BANKCHECK_FORM(Branch)
  BANKCHECK_FORM(Barrier)
  BANKCHECK_FORM(Plain)
  BANKCHECK_FORM(Hint)
  BANKCHECK_FORM(Shfl)
  BANKCHECK_FORM(Vote)
  BANKCHECK_FORM(Match)
  BANKCHECK_FORM(Activemask)
  BANKCHECK_FORM(Testp)
  BANKCHECK_FORM(Call)
  // Tensor cores and asynchronous copies.
  BANKCHECK_FORM(Matrix)
  BANKCHECK_FORM(Mma)
  BANKCHECK_FORM(CpAsync)
  BANKCHECK_FORM(Wgmma)
  BANKCHECK_FORM(Wmma)
  BANKCHECK_FORM(Redux)
  BANKCHECK_FORM(Dot)
  BANKCHECK_FORM(Carry)
  BANKCHECK_FORM(Sad)
  BANKCHECK_FORM(Mbarrier)
#undef BANKCHECK_FORM

  // .sat, .ftz, .NaN, .relu and .satfinite, read by the forms that allow them; what no
  // form accepts (.cc) refused.
  void modifiers_every_form_reads() {
    if (has(in, ".sat")) ins.flags |= kFlagSat;
    if (has(in, ".ftz")) ins.flags |= kFlagFtz;
    ins.mod.nan = has(in, ".NaN");
    ins.mod.relu = has(in, ".relu");
    ins.mod.satfinite = has(in, ".satfinite");
    if (has(in, ".cc")) ins.flags |= kFlagCc;
    if (has(in, ".xorsign")) fail(in, "min/max .xorsign.abs is not supported");
  }

  void carry_operands();
  // wmma's two halves (form_Wmma): the loads and stores, and the multiply.
  void wmma_move(const std::string& form, const std::vector<MmaElem>& el, bool col,
                 const std::function<void()>& refuse);
  void wmma_mma(const std::vector<MmaElem>& el, const std::function<void()>& refuse);

  const Instruction& in;
  Instr ins;

 private:
  OperandDecoder& d_;
  const std::string& op;  // the mnemonic
  const Opc opc;          // what the table decodes it to
  std::vector<Ty> tys;    // the type modifiers in order
  Ty t0 = Ty::None, tl = Ty::None;

  static bool has(const Instruction& in, std::string_view m) {
    return std::find(in.modifiers.begin(), in.modifiers.end(), m) != in.modifiers.end();
  }
  static Space space_of(const Instruction& in) {
    for (const auto& m : in.modifiers) {
      if (m == ".shared" || m == ".shared::cta") return Space::Shared;
      if (m == ".global") return Space::Global;
      if (m == ".local") return Space::Local;
      if (m == ".param") return Space::Param;
      if (m == ".const") return Space::Const;
      if (m == ".shared::cluster") return Space::Shared;
    }
    return Space::Generic;
  }
  [[noreturn]] void fail(const Instruction& at, const std::string& message) const {
    throw d_.error(at, message);
  }
  Opnd operand(const Instruction& at, const Operand& o, Ty ty) { return d_.operand(at, o, ty); }
  MemRef memref(const Instruction& at, const Operand& o, Space& space) {
    return d_.memref(at, o, space);
  }
  void dst(int i, Ty ty) {
    if (i >= static_cast<int>(in.operands.size())) fail(in, "missing operand");
    ins.dst[ins.ndst++] = operand(in, in.operands[static_cast<size_t>(i)], ty);
  }
  void src(int i, Ty ty) {
    if (i >= static_cast<int>(in.operands.size())) fail(in, "missing operand");
    ins.src[ins.nsrc++] = operand(in, in.operands[static_cast<size_t>(i)], ty);
  }
  void frag_list(const Operand& o, Ty ty, const char* what) {
    if (o.kind != Operand::Kind::Vector) fail(in, fmt::format("{} must be a {{..}} list", what));
    for (const auto& e : o.elems) ins.frag.push_back(operand(in, e, ty));
  }
  void need(size_t n) {
    if (in.operands.size() != n)
      fail(in, fmt::format("'{}' takes {} operands, got {}", op, n, in.operands.size()));
  }
  Round rounding() const {
    for (const auto& m : in.modifiers) {
      if (m == ".rn") return Round::Rn;
      if (m == ".rz") return Round::Rz;
      if (m == ".rm") return Round::Rm;
      if (m == ".rp") return Round::Rp;
      if (m == ".rni") return Round::Rni;
      if (m == ".rzi") return Round::Rzi;
      if (m == ".rmi") return Round::Rmi;
      if (m == ".rpi") return Round::Rpi;
      if (m == ".rna") return Round::Rna;
    }
    return Round::None;
  }
};

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

// Internal opcodes have no mnemonic of their own.
void Form::form_None() { fail(in, "unsupported instruction '" + op + "'"); }

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
  if (has(in, ".v2") || has(in, ".v4") || has(in, ".noftz") || t0 == Ty::F16)
    fail(in, "this atomic form is not supported");
  ins.mod.atom = ao;
  size_t i = 0;
  if (ins.op == Opc::Atom) dst(static_cast<int>(i++), ins.type);
  ins.mem = memref(in, in.operands.at(i++), ins.space);
  src(static_cast<int>(i++), ins.type);
  if (ao == AtomOp::Cas) src(static_cast<int>(i++), ins.type);
  if (i != in.operands.size()) fail(in, "unexpected operands");
  return;
}

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
  const bool sync =
      has(in, ".sync") || (op == "barrier" && !has(in, ".arrive")) || in.modifiers.empty();
  if (!sync || has(in, ".arrive")) fail(in, "only bar.sync / barrier.sync are supported");
  ins.op = Opc::Bar;
  if (!in.operands.empty()) {
    if (in.operands[0].kind != Operand::Kind::Immediate)
      fail(in, "bar.sync with a register barrier id is not supported");
    if (in.operands[0].imm != 0) fail(in, "named barriers other than 0 are not supported");
  }
  if (in.operands.size() > 1) fail(in, "bar.sync with a thread count is not supported");
  return;
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

void Form::form_Call() {
  // printf is the one call kept (as a no-op returning 0); other device functions are
  // normally inlined by nvcc.
  for (const auto& o : in.operands) {
    if (o.kind == Operand::Kind::Symbol && o.name == "vprintf") {
      ins.op = Opc::Nop;
      return;
    }
    if (o.kind == Operand::Kind::Symbol && o.name == "__assertfail") {  // a failed assert()
      ins.op = Opc::Trap;
      ins.mod.assert_fail = true;
      return;
    }
  }
  fail(in, "calls to device functions are not supported (compile with the function inlined)");
}

// ldmatrix/stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans][.shared].b16: a list of 1, 2 or 4
// registers (one per 8x8 matrix) and the address of the lane's row.
void Form::form_Matrix() {
  const bool load = opc == Opc::Ldmatrix;
  ins.op = opc;
  ins.type = Ty::B16;
  ins.space = space_of(in);
  if (!has(in, ".m8n8"))
    fail(in, op + " shapes other than .m8n8 (.m16n16, .m8n16: 8-bit and 4-bit sources) are not "
                  "supported");
  if (!has(in, ".b16")) fail(in, op + " needs .b16");
  ins.mod.mx.matrices = has(in, ".x4") ? 4 : has(in, ".x2") ? 2 : has(in, ".x1") ? 1 : 0;
  if (!ins.mod.mx.matrices) fail(in, op + " needs .x1, .x2 or .x4");
  ins.mod.mx.trans = has(in, ".trans");
  need(2);
  const auto& regs = in.operands[load ? 0 : 1];
  frag_list(regs, Ty::B32, "the matrix registers");
  if (ins.frag.size() != ins.mod.mx.matrices)
    fail(in,
         fmt::format("{} .x{} takes {} registers", op, ins.mod.mx.matrices, ins.mod.mx.matrices));
  ins.frag_defs = load ? ins.mod.mx.matrices : 0;
  ins.mem = memref(in, in.operands[load ? 1 : 0], ins.space);
}

namespace {
std::optional<MmaElem> mma_elem(std::string_view m) {
  static const std::pair<const char*, MmaElem> kElems[] = {
      {".f16", MmaElem::F16}, {".bf16", MmaElem::BF16}, {".tf32", MmaElem::TF32},
      {".f32", MmaElem::F32}, {".s8", MmaElem::S8},     {".u8", MmaElem::U8},
      {".s32", MmaElem::S32}};
  for (const auto& [n, e] : kElems)
    if (m == n) return e;
  return std::nullopt;
}
}  // namespace

// mma.sync.aligned.mMnNkK.row.col[.satfinite].dtype.atype.btype.ctype d, a, b, c: the
// shapes and types of the table below, each with the fragment sizes the ISA gives.
void Form::form_Mma() {
  ins.op = Opc::Mma;
  auto& mx = ins.mod.mx;
  if (!has(in, ".sync") || !has(in, ".aligned")) fail(in, "mma needs .sync.aligned");
  std::vector<MmaElem> el;
  for (const auto& m : in.modifiers) {
    if (auto e = mma_elem(m)) el.push_back(*e);
    if (m.size() > 2 && m[1] == 'm' && m.find('n') != std::string::npos) {
      unsigned M = 0, N = 0, K = 0;
      if (std::sscanf(m.c_str(), ".m%un%uk%u", &M, &N, &K) == 3) {
        mx.m = static_cast<std::uint8_t>(M);
        mx.n = static_cast<std::uint8_t>(N);
        mx.k = static_cast<std::uint8_t>(K);
      }
    }
  }
  mx.satfinite = has(in, ".satfinite");
  // Types as written: d, a, b, c (all four), or d and c alone for tf32/bf16 (the ISA's
  // .f32.bf16.bf16.f32 form always names four here).
  if (el.size() != 4) fail(in, "mma needs the d, a, b and c types");
  mx.d = el[0];
  mx.a = el[1];
  mx.b = el[2];
  mx.c = el[3];
  if (!has(in, ".row") || !has(in, ".col"))
    fail(in,
         "mma supports the .row.col operand layout only (the one the ISA defines for "
         "these shapes)");
  const bool f16in = (mx.a == MmaElem::F16 || mx.a == MmaElem::BF16) && mx.b == mx.a;
  const bool i8in =
      (mx.a == MmaElem::S8 || mx.a == MmaElem::U8) && (mx.b == MmaElem::S8 || mx.b == MmaElem::U8);
  const bool accf32 = mx.c == MmaElem::F32 && mx.d == MmaElem::F32;
  const bool accf16 = mx.c == MmaElem::F16 && mx.d == MmaElem::F16;
  const bool acci32 = mx.c == MmaElem::S32 && mx.d == MmaElem::S32;
  const auto shape = [&](int m, int n, int k) { return mx.m == m && mx.n == n && mx.k == k; };
  if (f16in && (shape(16, 8, 16) || shape(16, 8, 8)) &&
      (accf32 || (accf16 && mx.a == MmaElem::F16))) {
    mx.na = mx.k == 16 ? 4 : 2;
    mx.nb = mx.k == 16 ? 2 : 1;
    mx.nc = mx.nd = accf32 ? 4 : 2;
  } else if (mx.a == MmaElem::TF32 && mx.b == MmaElem::TF32 && accf32 &&
             (shape(16, 8, 8) || shape(16, 8, 4))) {
    mx.na = mx.k == 8 ? 4 : 2;
    mx.nb = mx.k == 8 ? 2 : 1;
    mx.nc = mx.nd = 4;
  } else if (i8in && acci32 && shape(16, 8, 32)) {
    mx.na = 4;
    mx.nb = 2;
    mx.nc = mx.nd = 4;
  } else {
    fail(in, fmt::format("mma.m{}n{}k{} with these types is not emulated (supported: m16n8k16 "
                         "and m16n8k8 f16/bf16 with f32 accumulators or f16 with f16, m16n8k8 "
                         "and m16n8k4 tf32, m16n8k32 s8/u8 with s32)",
                         mx.m, mx.n, mx.k));
  }
  need(4);
  const int counts[4] = {mx.nd, mx.na, mx.nb, mx.nc};
  const Ty tys[4] = {accf16 ? Ty::B32 : (acci32 ? Ty::S32 : Ty::F32), Ty::B32, Ty::B32,
                     accf16 ? Ty::B32 : (acci32 ? Ty::S32 : Ty::F32)};
  for (int i = 0; i < 4; ++i) {
    const std::size_t before = ins.frag.size();
    frag_list(in.operands[static_cast<std::size_t>(i)], tys[i], "an mma operand");
    if (ins.frag.size() - before != static_cast<std::size_t>(counts[i]))
      fail(in, fmt::format("mma operand {} takes {} registers", i + 1, counts[i]));
  }
  ins.frag_defs = mx.nd;
}

// cp.async.{ca,cg}.shared.global [dst], [src], cp-size[, src-size]; commit_group;
// wait_group N; wait_all. cp.async.bulk (the TMA unit): decode_mbarrier.cpp, but for the
// tensor copies, refused with the reason.
void Form::form_CpAsync() {
  if (!has(in, ".async")) fail(in, "unsupported instruction 'cp' (only cp.async is)");
  if (has(in, ".bulk")) {
    if (has(in, ".tensor") && !has(in, ".prefetch"))
      fail(in,
           "cp.async.bulk.tensor is not analysed yet: its addresses come from a tensor map "
           "(CUtensorMap) that the host builds with cuTensorMapEncode*, which a PTX-only run "
           "does not have (docs/emulator.md, 'Tensor maps and wgmma')");
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

// wgmma reads its operands through shared-memory matrix descriptors and runs across a
// warpgroup; it is refused with the reason.
void Form::form_Wgmma() {
  fail(in,
       "wgmma is not analysed yet: its shared-memory operands are 64-bit matrix descriptors "
       "(address, leading and stride byte offsets, swizzle mode) read by the warpgroup's "
       "asynchronous tensor cores, not per-lane addresses; the plan is in docs/emulator.md "
       "('Tensor maps and wgmma')");
}

// wmma.load.{a,b,c}.sync.aligned.layout.m16n16k16[.ss].type r, [p][, stride];
// wmma.store.d.sync.aligned.layout.m16n16k16[.ss].type [p], r[, stride];
// wmma.mma.sync.aligned.alayout.blayout.m16n16k16.dtype.ctype d, a, b, c (f16 inputs) and
// wmma.mma.sync.aligned.alayout.blayout.m16n16k16.f32.bf16.bf16.f32 d, a, b, c.
// The fragments (registers per thread): a and b 8 for f16 (the PTX ISA's .f16x2 vectors),
// 4 for bf16; c and d 8 for f32, 4 for f16. Every other shape and type is refused with the
// form it names.
void Form::form_Wmma() {
  if (in.modifiers.empty()) fail(in, "wmma needs .load, .store or .mma");
  const std::string& what = in.modifiers[0];
  std::string shape, types;  // types: the element types as written, for the refusals
  std::vector<MmaElem> el;
  std::vector<bool> cols;  // the layouts, in order
  auto& mx = ins.mod.mx;
  static const char* const kRefused[] = {".s4", ".u4", ".b1", ".e4m3", ".e5m2"};
  const auto refused_type = [](const std::string& m) {
    return std::find(std::begin(kRefused), std::end(kRefused), m) != std::end(kRefused);
  };
  for (std::size_t i = 1; i < in.modifiers.size(); ++i) {
    const std::string& m = in.modifiers[i];
    if (parse_ty(m) || refused_type(m)) types += m;
    if (m == ".row" || m == ".col") {
      cols.push_back(m == ".col");
    } else if (m.size() > 2 && m[1] == 'm' && std::isdigit(static_cast<unsigned char>(m[2]))) {
      shape = m;
    } else if (auto e = mma_elem(m)) {
      el.push_back(*e);
    } else if (i == 1 && (m == ".a" || m == ".b" || m == ".c" || m == ".d")) {
      mx.frag = m == ".a"   ? WmmaFrag::A
                : m == ".b" ? WmmaFrag::B
                : m == ".c" ? WmmaFrag::C
                            : WmmaFrag::D;
    } else if (refused_type(m) || m == ".f64") {
      el.push_back(MmaElem::None);  // named in the refusal
    }
  }
  const std::string form =
      "wmma" + what + (mx.frag != WmmaFrag::None ? in.modifiers[1] : std::string());
  if (!has(in, ".sync") || !has(in, ".aligned")) fail(in, form + " needs .sync.aligned");
  if (shape != ".m16n16k16")
    fail(in, fmt::format("{} with shape {} is not emulated (only .m16n16k16 with f16 or bf16 "
                         "inputs is)",
                         form, shape.empty() ? "(none)" : shape));
  mx.m = mx.n = mx.k = 16;
  const std::function<void()> refuse = [&] {
    fail(in, fmt::format("{}{} is not emulated (only .m16n16k16 with f16 inputs and f16 or f32 "
                         "accumulators, or bf16 inputs and f32 accumulators, is)",
                         form, types));
  };
  if (has(in, ".satfinite")) refuse();
  if (what == ".load" || what == ".store") {
    if (cols.size() != 1) fail(in, form + " needs one layout, .row or .col");
    wmma_move(form, el, cols[0], refuse);
  } else if (what == ".mma") {
    if (cols.size() != 2) fail(in, "wmma.mma needs the layouts of a and b (.row or .col each)");
    wmma_mma(el, refuse);
  } else {
    fail(in, "unsupported instruction 'wmma" + what + "'");
  }
}

// wmma.load / wmma.store: the fragment's registers, the address, the optional stride.
void Form::wmma_move(const std::string& form, const std::vector<MmaElem>& el, bool col,
                     const std::function<void()>& refuse) {
  auto& mx = ins.mod.mx;
  const bool load = in.modifiers[0] == ".load";
  if (mx.frag == WmmaFrag::None || load == (mx.frag == WmmaFrag::D))
    fail(in, "wmma.load takes .a, .b or .c, wmma.store takes .d");
  if (el.size() != 1) refuse();
  const MmaElem e = el[0];
  const bool ab = mx.frag == WmmaFrag::A || mx.frag == WmmaFrag::B;
  if (ab ? (e != MmaElem::F16 && e != MmaElem::BF16) : (e != MmaElem::F16 && e != MmaElem::F32))
    refuse();
  ins.op = load ? Opc::WmmaLoad : Opc::WmmaStore;
  ins.space = space_of(in);
  if (ins.space != Space::Shared && ins.space != Space::Global && ins.space != Space::Generic)
    fail(in, form + " reads and writes .shared, .global or generic addresses only");
  mx.col = col;
  (mx.frag == WmmaFrag::A   ? mx.a
   : mx.frag == WmmaFrag::B ? mx.b
   : mx.frag == WmmaFrag::C ? mx.c
                            : mx.d) = e;
  ins.type = e == MmaElem::F32 ? Ty::F32 : e == MmaElem::BF16 ? Ty::BF16 : Ty::F16;
  const int regs = e == MmaElem::F32 ? 8 : (ab && e == MmaElem::F16 ? 8 : 4);
  if (in.operands.size() != 2 && in.operands.size() != 3)
    fail(in, form + " takes a register list, an address and an optional stride");
  frag_list(in.operands[load ? 0 : 1], e == MmaElem::F32 ? Ty::F32 : Ty::B32, "the fragment");
  if (ins.frag.size() != static_cast<std::size_t>(regs))
    fail(in, fmt::format("{}{} takes {} registers", form,
                         e == MmaElem::F32 ? ".f32" : e == MmaElem::F16 ? ".f16" : ".bf16", regs));
  ins.frag_defs = load ? static_cast<std::uint8_t>(regs) : 0;
  ins.mem = memref(in, in.operands[load ? 1 : 0], ins.space);
  if (in.operands.size() == 3) src(2, Ty::U32);
}

// wmma.mma: .dtype.ctype (each .f16 or .f32) for f16 inputs, .f32.bf16.bf16.f32 for bf16.
void Form::wmma_mma(const std::vector<MmaElem>& el, const std::function<void()>& refuse) {
  auto& mx = ins.mod.mx;
  const auto acc = [](MmaElem e) { return e == MmaElem::F16 || e == MmaElem::F32; };
  if (el.size() == 2 && acc(el[0]) && acc(el[1])) {
    mx.d = el[0];
    mx.c = el[1];
    mx.a = mx.b = MmaElem::F16;
  } else if (el.size() == 4 && el[0] == MmaElem::F32 && el[1] == MmaElem::BF16 &&
             el[2] == MmaElem::BF16 && el[3] == MmaElem::F32) {
    mx.d = mx.c = MmaElem::F32;
    mx.a = mx.b = MmaElem::BF16;
  } else {
    refuse();
  }
  ins.op = Opc::WmmaMma;
  ins.type = Ty::F32;
  mx.nd = mx.d == MmaElem::F32 ? 8 : 4;
  mx.na = mx.nb = mx.a == MmaElem::F16 ? 8 : 4;
  mx.nc = mx.c == MmaElem::F32 ? 8 : 4;
  need(4);
  const int counts[4] = {mx.nd, mx.na, mx.nb, mx.nc};
  const Ty kinds[4] = {mx.d == MmaElem::F32 ? Ty::F32 : Ty::B32, Ty::B32, Ty::B32,
                       mx.c == MmaElem::F32 ? Ty::F32 : Ty::B32};
  for (int i = 0; i < 4; ++i) {
    const std::size_t before = ins.frag.size();
    frag_list(in.operands[static_cast<std::size_t>(i)], kinds[i], "a wmma.mma operand");
    if (ins.frag.size() - before != static_cast<std::size_t>(counts[i]))
      fail(in, fmt::format("wmma.mma operand {} takes {} registers", i + 1, counts[i]));
  }
  ins.frag_defs = mx.nd;
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

void Form::form_Mbarrier() { decode_mbarrier(in, d_, ins); }

// The dispatch, from the opcode table: mnemonic -> (opcode, form).
struct Entry {
  std::string_view mnemonic;
  Opc opc;
  void (Form::*form)();
};
constexpr Entry kEntries[] = {
#define BANKCHECK_OPCODE(Name, mnemonic, F) {mnemonic, Opc::Name, &Form::form_##F},
#define BANKCHECK_ALIAS(mnemonic, Name, F) {mnemonic, Opc::Name, &Form::form_##F},
#include "bankcheck/ptx/opcodes.def"
};

}  // namespace

Instr decode_instr(const Instruction& in, OperandDecoder& decoder) {
  const Entry* e = nullptr;
  for (const Entry& x : kEntries)
    if (x.mnemonic == in.opcode) e = &x;
  Form f(in, decoder, e ? e->opc : Opc::Nop);
  f.modifiers_every_form_reads();
  if (!e || e->form == &Form::form_None)
    throw decoder.error(in, "unsupported instruction '" + in.opcode + "'");
  (f.*(e->form))();
  f.carry_operands();
  return f.ins;
}

}  // namespace bankcheck::ptx::detail
