// compile(): picks each instruction's handler and resolves its operands. The rules here
// decide which instructions leave the general interpreter; each handler must compute
// exactly what the general path computes for the instructions given to it (tests/emu_test
// runs both on the same inputs).
#include "uop.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace bankcheck::emu::detail {

using ptx::Cmp;
using ptx::Instr;
using ptx::Opc;
using ptx::Opnd;
using ptx::Space;
using ptx::Ty;

namespace {

bool is_int(Ty t) {
  const int b = ptx::ty_bytes(t);
  return !ptx::ty_float(t) && t != Ty::Pred && t != Ty::None && (b == 4 || b == 8);
}

struct Compiler {
  const ptx::Kernel& k;
  const Layout& layout;
  std::vector<std::uint64_t>& imm;
  std::vector<std::uint8_t>& literal;
  std::uint32_t tid_base;    // the slot of tid.x
  std::size_t next_imm = 1;  // entry 0: zeros (the base of a register-less address)
  std::vector<std::pair<std::uint64_t, const std::uint64_t*>> seen;  // value -> its lanes

  // One 32-lane array per distinct immediate value.
  const std::uint64_t* broadcast(std::uint64_t v) {
    for (const auto& [value, lanes] : seen)
      if (value == v) return lanes;
    literal[next_imm] = 1;
    std::uint64_t* p = &imm[next_imm++ * 32];
    for (int l = 0; l < 32; ++l) p[l] = v;
    seen.emplace_back(v, p);
    return p;
  }

  // False when the operand is not a 32-lane array the handlers can read directly.
  bool source(const Opnd& o, Src& s) {
    switch (o.kind) {
      case Opnd::Kind::Reg:
        s.off = o.reg * 32;
        return true;
      case Opnd::Kind::Imm:
      case Opnd::Kind::SymAddr:
        s.fixed = broadcast(o.imm);
        return true;
      case Opnd::Kind::Special: {
        const auto sp = static_cast<ptx::Special>(o.reg);
        switch (sp) {
          case ptx::Special::TidX:
          case ptx::Special::TidY:
          case ptx::Special::TidZ:
            s.off = (tid_base + (o.reg - static_cast<std::uint32_t>(ptx::Special::TidX))) * 32;
            return true;
          case ptx::Special::NtidX:
          case ptx::Special::NtidY:
          case ptx::Special::NtidZ:
          case ptx::Special::CtaidX:
          case ptx::Special::CtaidY:
          case ptx::Special::CtaidZ:
          case ptx::Special::NctaidX:
          case ptx::Special::NctaidY:
          case ptx::Special::NctaidZ:
            s.fixed = layout.cta + (o.reg - static_cast<std::uint32_t>(ptx::Special::NtidX)) * 32;
            return true;
          case ptx::Special::Laneid:
            s.fixed = layout.laneid;
            return true;
          default:
            return false;
        }
      }
      default:
        return false;
    }
  }

  bool sources(const Instr& in, Uop& u, int n) {
    if (in.nsrc < n) return false;
    for (int i = 0; i < n; ++i)
      if (!source(in.src[i], u.src[i])) return false;
    return true;
  }

  bool reg_dst(const Instr& in, Uop& u) {
    if (in.ndst != 1 || in.dst[0].kind != Opnd::Kind::Reg) return false;
    u.dst[0] = in.dst[0].reg * 32;
    return true;
  }

  static ptx::Round float_round(const Instr& in) { return in.mod.round; }

  // The handler for `in`, with its operands filled in; Slow when none fits.
  K select(const Instr& in, Uop& u) {
    const Ty t = in.type;
    const bool b4 = ptx::ty_bytes(t) == 4;
    const bool sat = in.flags & ptx::kFlagSat;
    switch (in.op) {
      case Opc::Ret:
      case Opc::Exit:
        return K::Exit;
      case Opc::Bar:
        return K::Bar;
      case Opc::MbarrierWait:
        return K::MbarWait;
      case Opc::BarCluster:
        return K::BarCluster;
      case Opc::Ld:
        if (in.flags & ptx::kFlagPoll) return K::LdPoll;
        break;
      case Opc::Bra:
        u.target = in.target < 0 || in.target >= static_cast<std::int32_t>(k.code.size())
                       ? static_cast<std::int32_t>(k.code.size())
                       : in.target;
        u.reconv = in.reconv < 0 ? -2 : in.reconv;
        return K::Bra;
      default:
        break;
    }
    if (in.op == Opc::Cvt && t == Ty::F32 && in.type2 == Ty::F32 &&
        (in.mod.round == ptx::Round::None || in.mod.round == ptx::Round::Rn) &&
        (in.flags & ~(ptx::kFlagSat | ptx::kFlagFtz)) == 0 && reg_dst(in, u) && sources(in, u, 1)) {
      u.aux = sat ? 1 : 0;  // .ftz changes nothing here (convert())
      return K::CvtF32F32;
    }
    if (sat || (in.flags & ptx::kFlagCc)) return K::Slow;  // .cc: the carry flag
    if (t == Ty::Pred) return pred_logic(in, u);
    switch (in.op) {
      case Opc::Mov:
        if (in.mod.mov != ptx::MovForm::Plain || !reg_dst(in, u) || !sources(in, u, 1))
          return K::Slow;
        if (is_int(t) || t == Ty::F32 || t == Ty::F64) return b4 ? K::Mov32 : K::Mov64;
        return K::Slow;
      case Opc::Cvta:
        if (in.space != Space::Global || !reg_dst(in, u) || !sources(in, u, 1) || !is_int(t))
          return K::Slow;
        return b4 ? K::Mov32 : K::Mov64;
      case Opc::Add:
      case Opc::Sub:
      case Opc::And:
      case Opc::Or:
      case Opc::Xor:
      case Opc::Shl:
      case Opc::Shr:
      case Opc::Min:
      case Opc::Max:
      case Opc::Mul:
      case Opc::Mad:
      case Opc::Fma:
        break;
      case Opc::Neg:
      case Opc::Ex2:
      case Opc::Abs:
      case Opc::Rcp:
      case Opc::Copysign:
        if (t != Ty::F32) return K::Slow;
        break;
      case Opc::Not:
      case Opc::Div:
      case Opc::Rem:
        break;
      case Opc::Setp: {
        if (in.mod.boolop != ptx::BoolOp::None || in.ndst < 1 || in.dst[0].kind != Opnd::Kind::Pred)
          return K::Slow;
        if (in.ndst > 1 && in.dst[1].kind != Opnd::Kind::Pred) return K::Slow;
        if (!sources(in, u, 2)) return K::Slow;
        u.dst[0] = in.dst[0].reg;
        if (in.ndst > 1) u.dst[1] = in.dst[1].reg;
        if (t == Ty::F32) {
          u.aux = static_cast<std::uint8_t>(in.cmp);
          return K::SetpF32;
        }
        if (!is_int(t)) return K::Slow;
        const bool s = ptx::ty_signed(t);
        Cmp c = in.cmp;
        bool unsigned_cmp = !s;
        switch (c) {
          case Cmp::Lo:
            c = Cmp::Lt;
            unsigned_cmp = true;
            break;
          case Cmp::Ls:
            c = Cmp::Le;
            unsigned_cmp = true;
            break;
          case Cmp::Hi:
            c = Cmp::Gt;
            unsigned_cmp = true;
            break;
          case Cmp::Hs:
            c = Cmp::Ge;
            unsigned_cmp = true;
            break;
          case Cmp::Eq:
          case Cmp::Ne:
          case Cmp::Lt:
          case Cmp::Le:
          case Cmp::Gt:
          case Cmp::Ge:
            break;
          default:
            return K::Slow;
        }
        u.aux = static_cast<std::uint8_t>(c);
        if (b4) return unsigned_cmp ? K::SetpU32 : K::SetpS32;
        return unsigned_cmp ? K::SetpU64 : K::SetpS64;
      }
      case Opc::Selp:
        if (!reg_dst(in, u) || !sources(in, u, 2) || in.nsrc < 3 ||
            in.src[2].kind != Opnd::Kind::Pred)
          return K::Slow;
        u.src[2].off = in.src[2].reg;
        u.aux = in.src[2].negate ? 1 : 0;
        if (ptx::ty_bytes(t) == 4) return K::Selp32;
        if (ptx::ty_bytes(t) == 8) return K::Selp64;
        return K::Slow;
      case Opc::Cvt: {
        if (!reg_dst(in, u) || !sources(in, u, 1)) return K::Slow;
        const Ty s = in.type2;
        const auto rnd = in.mod.round;
        if (is_int(t) && is_int(s)) {
          const int db = ptx::ty_bytes(t), sb = ptx::ty_bytes(s);
          if (db == 8 && sb == 4) return ptx::ty_signed(s) ? K::Sext32 : K::Mov32;
          return db == 4 ? K::Mov32 : K::Mov64;
        }
        const bool nearest = rnd == ptx::Round::None || rnd == ptx::Round::Rn;
        if (t == Ty::F32 && nearest && (s == Ty::S32 || s == Ty::U32))
          return s == Ty::S32 ? K::CvtF32S32 : K::CvtF32U32;
        if (t == Ty::F64 && s == Ty::F32 && rnd < ptx::Round::Rni) return K::CvtF64F32;
        return K::Slow;
      }
      case Opc::Ld:
      case Opc::St:
        return memory(in, u);
      case Opc::Shfl:
        if (in.ndst < 1 || in.dst[0].kind != Opnd::Kind::Reg || !sources(in, u, 3) ||
            (in.ndst > 1 && in.dst[1].kind != Opnd::Kind::Pred))
          return K::Slow;
        u.dst[0] = in.dst[0].reg * 32;
        if (in.ndst > 1) u.dst[1] = in.dst[1].reg;
        u.src[3].fixed = &imm[next_imm * 32];  // its source lanes' cache (zeros: empty)
        next_imm += 2;
        return K::Shfl;
      default:
        return K::Slow;
    }
    // Arithmetic with one register result.
    if (!reg_dst(in, u)) return K::Slow;
    if (t == Ty::F32) {
      const ptx::Round r = float_round(in);
      const bool directed = r == ptx::Round::Rz || r == ptx::Round::Rm || r == ptx::Round::Rp;
      if (directed && (in.op == Opc::Add || in.op == Opc::Sub || in.op == Opc::Mul ||
                       in.op == Opc::Fma || in.op == Opc::Mad)) {
        if (!sources(in, u, in.op == Opc::Fma || in.op == Opc::Mad ? 3 : 2)) return K::Slow;
        u.aux = in.op == Opc::Add   ? kDirectedAdd
                : in.op == Opc::Sub ? kDirectedSub
                : in.op == Opc::Mul ? kDirectedMul
                                    : kDirectedFma;
        return K::DirectedF32;  // .ftz changes nothing in float_arith() for f32
      }
      switch (in.op) {  // float_arith()'s own functions, which .ftz and .approx do not change
        case Opc::Min:
          return !in.mod.nan && !in.mod.relu && sources(in, u, 2) ? K::MinF32 : K::Slow;
        case Opc::Max:
          return !in.mod.nan && !in.mod.relu && sources(in, u, 2) ? K::MaxF32 : K::Slow;
        case Opc::Neg:
          return sources(in, u, 1) ? K::NegF32 : K::Slow;
        case Opc::Ex2:
          return sources(in, u, 1) ? K::Ex2F32 : K::Slow;
        case Opc::Abs:
          return sources(in, u, 1) ? K::AbsF32 : K::Slow;
        case Opc::Copysign:
          return sources(in, u, 2) ? K::CopysignF32 : K::Slow;
        case Opc::Rcp:  // .approx and .rn alike (float_arith())
          return (r == ptx::Round::None || r == ptx::Round::Rn) && sources(in, u, 1) ? K::RcpF32
                                                                                     : K::Slow;
        case Opc::Div:  // .full and .approx alike (float_arith())
          return (r == ptx::Round::None || r == ptx::Round::Rn) && sources(in, u, 2) ? K::DivF32
                                                                                     : K::Slow;
        default:
          break;
      }
      if ((in.flags & ptx::kFlagFtz) || (r != ptx::Round::None && r != ptx::Round::Rn))
        return K::Slow;
      switch (in.op) {
        case Opc::Add:
          return sources(in, u, 2) ? K::AddF32 : K::Slow;
        case Opc::Sub:
          return sources(in, u, 2) ? K::SubF32 : K::Slow;
        case Opc::Mul:
          return sources(in, u, 2) ? K::MulF32 : K::Slow;
        case Opc::Mad:
        case Opc::Fma:
          return sources(in, u, 3) ? K::FmaF32 : K::Slow;
        default:
          return K::Slow;
      }
    }
    if (!is_int(t)) return K::Slow;
    const bool s = ptx::ty_signed(t);
    switch (in.op) {
      case Opc::Add:
        return sources(in, u, 2) ? (b4 ? K::Add32 : K::Add64) : K::Slow;
      case Opc::Sub:
        return sources(in, u, 2) ? (b4 ? K::Sub32 : K::Sub64) : K::Slow;
      case Opc::And:
        return sources(in, u, 2) ? (b4 ? K::And32 : K::And64) : K::Slow;
      case Opc::Or:
        return sources(in, u, 2) ? (b4 ? K::Or32 : K::Or64) : K::Slow;
      case Opc::Xor:
        return sources(in, u, 2) ? (b4 ? K::Xor32 : K::Xor64) : K::Slow;
      case Opc::Not:
        return sources(in, u, 1) ? (b4 ? K::Not32 : K::Not64) : K::Slow;
      case Opc::Div:
      case Opc::Rem:
        if (!b4 || !sources(in, u, 2)) return K::Slow;
        if (in.op == Opc::Div) return s ? K::DivS32 : K::DivU32;
        return s ? K::RemS32 : K::RemU32;
      case Opc::Shl:
        return sources(in, u, 2) ? (b4 ? K::Shl32 : K::Shl64) : K::Slow;
      case Opc::Shr:
        if (!sources(in, u, 2)) return K::Slow;
        if (s) return b4 ? K::ShrS32 : K::ShrS64;
        return b4 ? K::ShrU32 : K::ShrU64;
      case Opc::Min:
      case Opc::Max:
        if (!sources(in, u, 2)) return K::Slow;
        if (in.op == Opc::Min)
          return b4 ? (s ? K::MinS32 : K::MinU32) : (s ? K::MinS64 : K::MinU64);
        return b4 ? (s ? K::MaxS32 : K::MaxU32) : (s ? K::MaxS64 : K::MaxU64);
      case Opc::Mul:
      case Opc::Mad: {
        const bool mad = in.op == Opc::Mad;
        if (!sources(in, u, mad ? 3 : 2)) return K::Slow;
        switch (in.mod.mul) {
          case ptx::MulMode::Lo:
            if (mad) return b4 ? K::MadLo32 : K::MadLo64;
            return b4 ? K::MulLo32 : K::MulLo64;
          case ptx::MulMode::Wide:
            if (!b4) return K::Slow;
            if (mad) return s ? K::MadWideS32 : K::MadWideU32;
            return s ? K::MulWideS32 : K::MulWideU32;
          case ptx::MulMode::Hi:
            if (!b4 || mad) return K::Slow;
            return s ? K::MulHiS32 : K::MulHiU32;
        }
        return K::Slow;
      }
      default:
        return K::Slow;
    }
  }

  // Logic of predicates: both sources predicate registers (negated or not), the result one.
  K pred_logic(const Instr& in, Uop& u) {
    std::uint8_t op;
    int n = 2;
    switch (in.op) {
      case Opc::And:
        op = kPredAnd;
        break;
      case Opc::Or:
        op = kPredOr;
        break;
      case Opc::Xor:
        op = kPredXor;
        break;
      case Opc::Not:
      case Opc::CNot:
        op = kPredNot;
        n = 1;
        break;
      case Opc::Mov:
        if (in.mod.mov != ptx::MovForm::Plain) return K::Slow;
        op = kPredMov;
        n = 1;
        break;
      default:
        return K::Slow;
    }
    if (in.ndst != 1 || in.dst[0].kind != Opnd::Kind::Pred || in.nsrc != n) return K::Slow;
    for (int i = 0; i < n; ++i) {
      if (in.src[i].kind != Opnd::Kind::Pred) return K::Slow;
      u.src[i].off = in.src[i].reg;
      if (in.src[i].negate) op |= i == 0 ? kPredNegA : kPredNegB;
    }
    u.dst[0] = in.dst[0].reg;
    u.aux = op;
    return K::PredLogic;
  }

  // An instruction the handlers above leave to the reference path that the reference runs
  // lane by lane through one function of the lane's operand values (arith(), convert()):
  // that function over resolved operands (K::Lanes, K::LanesDirected, K::CvtLanes).
  K lanes(const Instr& in, Uop& u) {
    if (in.flags & ptx::kFlagCc || in.ndst != 1 || in.dst[0].kind != Opnd::Kind::Reg || in.nsrc > 3)
      return K::Slow;
    for (int i = 0; i < in.nsrc; ++i)
      if (!source(in.src[i], u.src[i])) return K::Slow;
    for (int i = in.nsrc; i < 3; ++i) u.src[i].fixed = imm.data();  // zeros, as general() reads
    u.dst[0] = in.dst[0].reg * 32;
    switch (in.op) {
      case Opc::Cvt:
        return in.nsrc == 1 ? K::CvtLanes : K::Slow;
      case Opc::And:
      case Opc::Or:
      case Opc::Xor:
      case Opc::Not:
      case Opc::CNot:
        return in.type == Ty::Pred ? K::Slow : K::Lanes;
      case Opc::Add:
      case Opc::Sub:
      case Opc::Mul:
      case Opc::Mad:
      case Opc::Div:
      case Opc::Fma:
      case Opc::Rcp:
      case Opc::Sqrt: {
        const ptx::Round r = in.mod.round;
        const bool directed = r == ptx::Round::Rz || r == ptx::Round::Rm || r == ptx::Round::Rp;
        return directed && (in.type == Ty::F32 || in.type == Ty::F64) ? K::LanesDirected : K::Lanes;
      }
      case Opc::Rem:
      case Opc::Min:
      case Opc::Max:
      case Opc::Abs:
      case Opc::Neg:
      case Opc::Shl:
      case Opc::Shr:
      case Opc::Popc:
      case Opc::Clz:
      case Opc::Brev:
      case Opc::Rsqrt:
      case Opc::Ex2:
      case Opc::Lg2:
      case Opc::Sin:
      case Opc::Cos:
      case Opc::Tanh:
      case Opc::Copysign:
      case Opc::Bfind:
        return K::Lanes;
      default:
        return K::Slow;
    }
  }

  K memory(const Instr& in, Uop& u) {
    const int esize = ptx::ty_bytes(in.type);
    if (esize != 1 && esize != 2 && esize != 4 && esize != 8) return K::Slow;
    if (in.vec != 1 && in.vec != 2 && in.vec != 4) return K::Slow;
    u.aux = static_cast<std::uint8_t>(esize);
    u.vec = in.vec;
    u.sign = ptx::ty_signed(in.type) ? 1 : 0;
    u.offset = in.mem.offset;
    u.site = in.site;
    if (in.mem.has_reg)
      u.base.off = in.mem.reg * 32;
    else
      u.base.fixed = imm.data();  // zeros
    const bool load = in.op == Opc::Ld;
    for (int v = 0; v < in.vec; ++v) {
      if (load) {
        const Opnd& d = in.dst[v];
        if (v >= in.ndst || d.kind == Opnd::Kind::None) continue;  // a sink: `_`
        if (d.kind != Opnd::Kind::Reg) return K::Slow;
        u.dst[v] = d.reg * 32;
      } else if (v >= in.nsrc || !source(in.src[v], u.src[v])) {
        return K::Slow;
      }
    }
    switch (in.space) {
      case Space::Shared:
        return load ? K::LdShared : K::StShared;
      case Space::Global:
        return load ? K::LdGlobal : K::StGlobal;
      case Space::Param:
        return load && !in.mem.has_reg && in.vec == 1 ? K::LdParam : K::Slow;
      default:
        return K::Slow;
    }
  }
};

}  // namespace

// Registers an instruction reads and writes.
template <typename F>
void for_each_reg(const Instr& in, F f) {
  for (int i = 0; i < in.nsrc && i < 4; ++i)
    if (in.src[i].kind == Opnd::Kind::Reg) f(in.src[i].reg, false);
  if (in.mem.has_reg) f(in.mem.reg, false);
  for (int i = 0; i < in.ndst && i < 4; ++i)
    if (in.dst[i].kind == Opnd::Kind::Reg) f(in.dst[i].reg, true);
  if (in.mem2.has_reg) f(in.mem2.reg, false);
  if (in.mem3.has_reg) f(in.mem3.reg, false);
  for (std::size_t i = 0; i < in.frag.size(); ++i)
    if (in.frag[i].kind == Opnd::Kind::Reg) f(in.frag[i].reg, i < in.frag_defs);
}

std::uint32_t assign_slots(const ptx::Kernel& k, std::vector<std::uint32_t>& slot_of,
                           std::vector<std::uint64_t>* slot_live) {
  const std::size_t n = k.code.size();
  const std::uint32_t nregs = k.num_regs;
  slot_of.assign(nregs, ~0u);
  if (n == 0 || nregs == 0) return 1;
  // Successors in one thread's control flow.
  auto successors = [&](std::size_t i, std::size_t* out) {
    const Instr& in = k.code[i];
    int m = 0;
    const bool guarded = in.guard >= 0;
    if (in.op == Opc::Bra) {
      if (in.target >= 0 && static_cast<std::size_t>(in.target) < n)
        out[m++] = static_cast<std::size_t>(in.target);
      if (guarded && i + 1 < n) out[m++] = i + 1;
    } else if (in.op == Opc::Ret || in.op == Opc::Exit) {
      if (guarded && i + 1 < n) out[m++] = i + 1;
    } else if (i + 1 < n) {
      out[m++] = i + 1;
    }
    return m;
  };
  // Live-in sets per instruction (bit sets of registers), to a fixed point, walking
  // backwards so that straight-line code settles in one pass.
  const std::size_t words = (nregs + 63) / 64;
  std::vector<std::uint64_t> live(n * words, 0);
  std::vector<std::uint64_t> cur(words);
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = n; i-- > 0;) {
      std::fill(cur.begin(), cur.end(), 0);
      std::size_t succ[2];
      const int ns = successors(i, succ);
      for (int s = 0; s < ns; ++s)
        for (std::size_t w = 0; w < words; ++w) cur[w] |= live[succ[s] * words + w];
      const Instr& in = k.code[i];
      // A guarded write may leave the old value: it does not end the register's life.
      if (in.guard < 0)
        for_each_reg(in, [&](std::uint32_t r, bool def) {
          if (def) cur[r / 64] &= ~(1ull << (r % 64));
        });
      for_each_reg(in, [&](std::uint32_t r, bool def) {
        if (!def) cur[r / 64] |= 1ull << (r % 64);
      });
      std::uint64_t* li = &live[i * words];
      if (!std::equal(cur.begin(), cur.end(), li)) {
        std::copy(cur.begin(), cur.end(), li);
        changed = true;
      }
    }
  }
  // Each register's interval in instruction order: from the first to the last
  // instruction where it is live in or written.
  constexpr std::size_t kNone = ~std::size_t{0};
  std::vector<std::size_t> first(nregs, kNone), last(nregs, 0);
  auto touch = [&](std::uint32_t r, std::size_t i) {
    if (first[r] == kNone || i < first[r]) first[r] = i;
    if (i > last[r]) last[r] = i;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t* li = &live[i * words];
    for (std::size_t w = 0; w < words; ++w)
      for (std::uint64_t bits = li[w]; bits; bits &= bits - 1)
        touch(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))),
              i);
    for_each_reg(k.code[i], [&](std::uint32_t r, bool) { touch(r, i); });
  }
  // Linear scan: registers by the start of their interval; a slot is free again once the
  // interval that held it has ended before the new one starts.
  std::vector<std::uint32_t> order;
  for (std::uint32_t r = 0; r < nregs; ++r)
    if (first[r] != kNone) order.push_back(r);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return first[a] != first[b] ? first[a] < first[b] : a < b;
  });
  std::vector<std::size_t> slot_end;  // per slot: the last instruction of its interval
  std::uint32_t slots = 0;
  for (std::uint32_t r : order) {
    std::uint32_t pick = ~0u;
    for (std::uint32_t s = 0; s < slots; ++s)
      if (slot_end[s] < first[r]) {
        pick = s;
        break;
      }
    if (pick == ~0u) {
      pick = slots++;
      slot_end.push_back(0);
    }
    slot_end[pick] = last[r];
    slot_of[r] = pick;
  }
  if (slot_live) {  // the registers' live-in sets as slots', one more row (none) for End
    const std::size_t sw = (slots + 63) / 64;
    slot_live->assign((n + 1) * sw, 0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t w = 0; w < words; ++w)
        for (std::uint64_t bits = live[i * words + w]; bits; bits &= bits - 1) {
          const std::uint32_t r =
              static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
          (*slot_live)[i * sw + slot_of[r] / 64] |= 1ull << (slot_of[r] % 64);
        }
  }
  return std::max<std::uint32_t>(slots, 1);
}

bool per_lane_function(K kind) {
  switch (kind) {
    case K::MinF32:
    case K::MaxF32:
    case K::NegF32:
    case K::Ex2F32:
    case K::AbsF32:
    case K::RcpF32:
    case K::CopysignF32:
    case K::DivF32:
    case K::Not32:
    case K::Not64:
    case K::DivS32:
    case K::DivU32:
    case K::RemS32:
    case K::RemU32:
    case K::CvtF32F32:
    case K::DirectedF32:
      return true;
    default:
      return false;
  }
}

namespace {

// The micro-ops that `lanes` false leaves out (besides those of lanes()): those the fast
// tier added for instructions that the tier before ran by the reference.
bool fast_tier_only(K kind) {
  return per_lane_function(kind) || kind == K::Shfl || kind == K::PredLogic || kind == K::Nop;
}

// Micro-ops that compute each lane from the same lane of their 32-lane operands alone, never
// through the reference path: a register they read through src[i] may be any array that holds
// its value in the executing lanes.
bool lanewise(K kind) {
  if (kind >= K::Mov32 && kind <= K::CvtF64F32) return true;
  return per_lane_function(kind) || kind == K::Lanes || kind == K::LanesDirected ||
         kind == K::CvtLanes;
}

// Movs of an immediate or a CTA constant (nvcc's `mov.f32 %f11, 0f3F800000` before an fma,
// `mov.u32 %r3, %ctaid.x`; one value in every lane): when the register has no other definition, the
// mov is unguarded, and every instruction that reads the register follows the mov in its basic
// block (no branch target, reconvergence point, branch, exit or wait between them; a barrier
// may be: the warp goes on after it with the same lanes), or the mov
// is among the kernel's first instructions (before any of those: a kernel's ld.params, which
// the body of its `if (i < n)` reads), and reads it as
// a src[i] of a lanewise micro-op, those read the constant's lanes (the values the mov writes, in
// every lane it writes) and the mov becomes K::Nop, which still counts. A register read
// anywhere else (the reference path, an address, a fragment, the value a shuffle reads from
// other lanes; its lane and clamp operands are read in place) keeps its mov. ld.param of a fixed
// address likewise, its readers recorded in Compiled::params and bound to each launch's parameters
// by bind_params(). `code` has the kernel's own register numbers, `slot_of` their slots.
void forward_constants(const std::vector<Instr>& code, std::uint32_t num_regs,
                       const std::vector<std::uint32_t>& slot_of, Compiled& out,
                       std::size_t& next_imm) {
  std::vector<Uop>& uops = out.uops;
  const std::size_t n = code.size();
  std::vector<std::uint32_t> defs(num_regs, 0), reads(num_regs, 0);
  std::vector<bool> leader(n + 1, false);
  for (std::size_t i = 0; i < n; ++i) {
    const Instr& in = code[i];
    for_each_reg(in, [&](std::uint32_t r, bool def) { ++(def ? defs : reads)[r]; });
    if (in.op == Opc::Bra && in.target >= 0 && static_cast<std::size_t>(in.target) <= n)
      leader[static_cast<std::size_t>(in.target)] = true;
    if (in.reconv >= 0 && static_cast<std::size_t>(in.reconv) <= n)
      leader[static_cast<std::size_t>(in.reconv)] = true;
  }
  const auto control = [](K kind) {
    return kind == K::End || kind == K::Bra || kind == K::Exit || kind == K::Bar ||
           kind == K::MbarWait || kind == K::BarCluster || kind == K::LdPoll;
  };
  // The kernel's first instructions, up to the first branch target, reconvergence point or
  // control instruction: every lane of a warp runs them, once, before anything else, so a
  // register they define and nothing else does holds that value wherever it is read.
  // (An instruction of the reference path ends it too: it may be one that jumps.)
  std::size_t prefix_end = n > 0 && !leader[0] ? 1 : 0;
  while (prefix_end > 0 && prefix_end < n && !leader[prefix_end] &&
         !control(uops[prefix_end - 1].kind) && uops[prefix_end - 1].kind != K::Slow)
    ++prefix_end;
  // The readers of the register instruction d defines, when they can read it in place.
  std::vector<std::pair<std::uint32_t, std::uint8_t>> found;
  const auto readers = [&](std::size_t d) {
    const Instr& in = code[d];
    if (in.guard >= 0 || in.ndst != 1 || in.dst[0].kind != Opnd::Kind::Reg) return false;
    const std::uint32_t r = in.dst[0].reg;
    if (r >= num_regs || defs[r] != 1 || slot_of[r] == ~0u) return false;
    const std::uint32_t off = slot_of[r] * 32;
    found.clear();
    std::uint32_t seen = 0;
    const bool everywhere = d < prefix_end;  // else its block only
    for (std::size_t j = d + 1; j < n && (everywhere || !leader[j]); ++j) {
      const Instr& user = code[j];
      const Uop& v = uops[j];
      std::uint32_t here = 0;
      for_each_reg(user, [&](std::uint32_t x, bool) { here += x == r ? 1 : 0; });
      if (here) {
        std::uint32_t through_src = 0;
        for (int i = 0; i < user.nsrc && i < 4; ++i)
          if (user.src[i].kind == Opnd::Kind::Reg && user.src[i].reg == r) {
            ++through_src;
            // A shfl reads its lane and clamp operands (src[1], src[2]) lane by lane too.
            const bool own_lane = lanewise(v.kind) || (v.kind == K::Shfl && (i == 1 || i == 2));
            if (!own_lane || v.src[i].fixed || v.src[i].off != off) return false;
            found.emplace_back(static_cast<std::uint32_t>(j), static_cast<std::uint8_t>(i));
          }
        if (through_src != here) return false;
        seen += here;
      }
      // A barrier ends a run, not the block: the warp goes on after it with the lanes that
      // reached it (block_scan's `mov %r43, 0` before its bar.sync, the clamp of the five
      // shfls after it).
      if (control(v.kind) && v.kind != K::Bar && !everywhere) break;
    }
    return seen == reads[r];
  };
  for (std::size_t d = 0; d < n; ++d) {
    Uop& m = uops[d];
    if ((m.kind != K::Mov32 && m.kind != K::Mov64) || !m.src[0].fixed) continue;
    const std::uint64_t* lanes = m.src[0].fixed;
    // One value in every lane (not %laneid: a shift by an operand array takes its first
    // lane's amount for the warp), and for Mov32, which keeps the low word, its own low word.
    bool fits = true;
    for (int l = 0; l < 32; ++l)
      fits = fits && lanes[l] == lanes[0] && (m.kind == K::Mov64 || (lanes[l] >> 32) == 0);
    if (!fits || !readers(d)) continue;
    for (const auto& [j, i] : found) uops[j].src[i].fixed = lanes;
    m.kind = K::Nop;
  }
  for (std::size_t d = 0; d < n; ++d) {
    if (uops[d].kind != K::LdParam) continue;
    Compiled::ParamRead p;
    p.uop = static_cast<std::uint32_t>(d);
    p.lanes = &out.imm[next_imm++ * 32];
    if (readers(d))
      p.readers = found;
    else
      p.keep = true;  // still writes its register; native code reads the lanes
    out.params.push_back(std::move(p));
  }
}

}  // namespace

Compiled compile(const ptx::Kernel& k, const Layout& layout, bool fast, bool lanes) {
  Compiled out;
  std::vector<std::uint32_t> slot_of;
  out.slots = assign_slots(k, slot_of, &out.live);
  out.code = k.code;
  for (Instr& in : out.code) {
    for (int i = 0; i < in.nsrc && i < 4; ++i)
      if (in.src[i].kind == Opnd::Kind::Reg) in.src[i].reg = slot_of[in.src[i].reg];
    if (in.mem.has_reg) in.mem.reg = slot_of[in.mem.reg];
    for (int i = 0; i < in.ndst && i < 4; ++i)
      if (in.dst[i].kind == Opnd::Kind::Reg) in.dst[i].reg = slot_of[in.dst[i].reg];
    if (in.mem2.has_reg) in.mem2.reg = slot_of[in.mem2.reg];
    if (in.mem3.has_reg) in.mem3.reg = slot_of[in.mem3.reg];
    for (Opnd& o : in.frag)
      if (o.kind == Opnd::Kind::Reg) o.reg = slot_of[o.reg];
  }
  std::size_t n = 1;
  for (const Instr& in : k.code)
    for (int i = 0; i < in.nsrc && i < 4; ++i)
      if (in.src[i].kind == Opnd::Kind::Imm || in.src[i].kind == Opnd::Kind::SymAddr) ++n;
  for (const Instr& in : k.code) {
    n += in.op == Opc::Shfl ? 2 : 0;                            // a shfl's cache
    n += in.op == Opc::Ld && in.space == Space::Param ? 1 : 0;  // a parameter's lanes
  }
  out.imm.assign(n * 32, 0);
  out.literal.assign(n, 0);
  out.literal[0] = 1;  // zeros
  out.laneid = layout.laneid;
  Compiler c{k, layout, out.imm, out.literal, out.slots, 1, {}};
  out.uops.resize(k.code.size() + 1);
  for (std::size_t pc = 0; pc < out.code.size(); ++pc) {
    const Instr& in = out.code[pc];
    Uop& u = out.uops[pc];
    u.in = &in;
    if (in.guard >= 0) {
      u.guard = static_cast<std::uint32_t>(in.guard);
      u.gxor = in.guard_neg ? ~0u : 0u;
    } else {
      u.guard = layout.num_preds;
    }
    Uop trial = u;
    K kind = c.select(in, trial);
    if (!lanes && fast_tier_only(kind)) kind = K::Slow;
    if (lanes && kind == K::Slow) {
      trial = u;
      kind = c.lanes(in, trial);
    }
    const bool control = kind == K::Bra || kind == K::Exit || kind == K::Bar ||
                         kind == K::MbarWait || kind == K::BarCluster || kind == K::LdPoll;
    if (kind == K::Slow || (!fast && !control)) {
      u.kind = K::Slow;  // operands the slow path reads from the Instr
    } else {
      u = trial;
      u.kind = kind;
    }
  }
  out.uops.back().kind = K::End;
  out.uops.back().guard = layout.num_preds;
  if (fast && lanes) forward_constants(k.code, k.num_regs, slot_of, out, c.next_imm);
  return out;
}

void bind_params(Compiled& c, const std::vector<std::uint8_t>& params) {
  if (c.params.empty()) c.natives_ok = true;
  if (c.params.empty() || (c.params_bound && c.params_bound_for == params)) return;
  // Every forwarded load must read inside the parameters: otherwise none is forwarded, and
  // each ld.param runs (and fails) as it would.
  std::uint64_t x = 0;
  bool inside = true;
  for (const Compiled::ParamRead& p : c.params)
    inside = inside && param_value(c.uops[p.uop], params, x);
  // A micro-op that begins a native run keeps its own form in the run (Compiled::natives).
  const auto own = [&c](std::uint32_t j) -> Uop& {
    Uop& u = c.uops[j];
    return u.kind == K::Native ? c.natives[static_cast<std::size_t>(u.target)].first : u;
  };
  for (const Compiled::ParamRead& p : c.params) {
    Uop& u = own(p.uop);
    if (!inside) {
      u.kind = K::LdParam;
      for (const auto& [j, i] : p.readers) own(j).src[i].fixed = nullptr;
      continue;
    }
    param_value(u, params, x);  // what load_param() (uop_run.hpp) writes to every lane
    for (int l = 0; l < 32; ++l) p.lanes[l] = x;
    u.kind = p.keep ? K::LdParam : K::Nop;
    for (const auto& [j, i] : p.readers) own(j).src[i].fixed = p.lanes;
  }
  c.params_bound_for = params;
  c.params_bound = true;
  c.natives_ok = inside;
}

std::vector<Uop> forwarded_uops(const Compiled& c) {
  std::vector<Uop> u = c.uops;
  for (const Compiled::ParamRead& p : c.params) {
    Uop& v = u[p.uop];
    if (p.keep) {  // a move of the parameter's lanes
      v.kind = K::Mov64;
      v.src[0] = {};
      v.src[0].fixed = p.lanes;
      continue;
    }
    v.kind = K::Nop;
    for (const auto& [j, i] : p.readers) u[j].src[i].fixed = p.lanes;
  }
  return u;
}

}  // namespace bankcheck::emu::detail
