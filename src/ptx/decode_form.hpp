// The decoder's forms as one class: for each way an instruction is written (its form in
// the opcode table, bankcheck/ptx/opcodes.def), a method that reads its modifiers and
// operands into an Instr, and the helpers every form reads them with. decode_instr.cpp
// dispatches to the methods, which are defined by idea: arithmetic, logic and conversions
// (decode_arith.cpp), memory accesses (decode_memory.cpp), control flow and warp-wide
// operations (decode_control.cpp), tensor cores (decode_tensor.cpp).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "decode_instr.hpp"

namespace bankcheck::ptx::detail {

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
  BANKCHECK_FORM(Movmatrix)
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
  // Clusters and warps (decode_cluster.cpp).
  BANKCHECK_FORM(Mapa)
  BANKCHECK_FORM(Elect)
  // Texture fetches (decode_texture.cpp).
  BANKCHECK_FORM(Tex)
  BANKCHECK_FORM(Surf)
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
    if (has(in, ".shared::cluster")) ins.flags |= kFlagCluster;
    if (has(in, ".xorsign")) fail(in, "min/max .xorsign.abs is not supported");
  }

  void carry_operands();
  // barrier.cluster.arrive / wait (decode_cluster.cpp), from form_Barrier.
  void cluster_barrier();
  // wmma's two halves (form_Wmma): the loads and stores, and the multiply.
  void wmma_move(const std::string& form, const std::vector<MmaElem>& el, bool col,
                 const std::function<void()>& refuse);
  void wmma_mma(const std::vector<MmaElem>& el, const std::function<void()>& refuse);
  // Texture and surface objects (decode_texture.cpp): the geometry, and the object's operand.
  int object_geometry(bool& layered) const;
  void object_operands(const Operand& a, int dims, bool layered, Ty coord, const std::string& what);

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

}  // namespace bankcheck::ptx::detail
