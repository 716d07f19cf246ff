// decode(): gives the parsed PTX meaning. Opcodes and modifiers become Instr, registers
// get numbers, symbols get addresses in their space, branches get targets and
// reconvergence points (immediate post-dominators), memory instructions become sites with
// a source location in the user's file. Anything not understood is a DecodeError naming
// the PTX line.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <unordered_map>

#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::ptx {
namespace {

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return a ? (v + a - 1) / a * a : v; }

std::optional<Ty> parse_ty(std::string_view m) {
  static const std::pair<const char*, Ty> table[] = {
      {".u8", Ty::U8},   {".u16", Ty::U16}, {".u32", Ty::U32}, {".u64", Ty::U64},
      {".s8", Ty::S8},   {".s16", Ty::S16}, {".s32", Ty::S32}, {".s64", Ty::S64},
      {".b8", Ty::B8},   {".b16", Ty::B16}, {".b32", Ty::B32}, {".b64", Ty::B64},
      {".f16", Ty::F16}, {".f32", Ty::F32}, {".f64", Ty::F64}, {".pred", Ty::Pred},
  };
  for (auto& [n, t] : table)
    if (m == n) return t;
  return std::nullopt;
}

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

std::optional<Special> parse_special(std::string_view n) {
  static const std::pair<const char*, Special> table[] = {
      {"%tid.x", Special::TidX},
      {"%tid.y", Special::TidY},
      {"%tid.z", Special::TidZ},
      {"%ntid.x", Special::NtidX},
      {"%ntid.y", Special::NtidY},
      {"%ntid.z", Special::NtidZ},
      {"%ctaid.x", Special::CtaidX},
      {"%ctaid.y", Special::CtaidY},
      {"%ctaid.z", Special::CtaidZ},
      {"%nctaid.x", Special::NctaidX},
      {"%nctaid.y", Special::NctaidY},
      {"%nctaid.z", Special::NctaidZ},
      {"%laneid", Special::Laneid},
      {"%warpid", Special::Warpid},
      {"%nwarpid", Special::Nwarpid},
      {"%smid", Special::Smid},
      {"%nsmid", Special::Nsmid},
      {"%clock", Special::Clock},
      {"%clock64", Special::Clock64},
      {"%globaltimer", Special::Globaltimer},
      {"%lanemask_eq", Special::LanemaskEq},
      {"%lanemask_lt", Special::LanemaskLt},
      {"%lanemask_le", Special::LanemaskLe},
      {"%lanemask_gt", Special::LanemaskGt},
      {"%lanemask_ge", Special::LanemaskGe},
      {"%dynamic_smem_size", Special::DynSmemSize},
      {"%total_smem_size", Special::TotalSmemSize},
      {"%gridid", Special::Gridid},
  };
  for (auto& [s, v] : table)
    if (n == s) return v;
  return std::nullopt;
}

// Where a symbol lives, for `mov r, sym` and `[sym+off]`.
struct SymbolInfo {
  Space space;
  std::uint64_t address;  // window offset (shared, local, param) or emulated address
};

class Decoder {
 public:
  Decoder(const Module& m, std::string_view source, std::string_view hint)
      : m_(m), source_(source) {
    prog_.files = m.files;
    prog_.main_file = find_main_file(hint);
  }

  Program run() {
    // Module-scope .global/.const variables: emulated addresses from kGlobalVarBase.
    std::uint64_t goff = 0;
    for (const auto& v : m_.variables) {
      if (v.space != StateSpace::Global && v.space != StateSpace::Const) continue;
      GlobalVar g;
      g.name = v.name;
      g.space = v.space == StateSpace::Const ? Space::Const : Space::Global;
      g.bytes = var_bytes(v);
      g.align = v.align ? v.align : 8;
      g.init = v.init;
      goff = align_up(goff, static_cast<std::uint64_t>(std::max(g.align, 256)));
      globals_offset_[v.name] = goff;
      g.address = kGlobalVarBase + goff;
      goff += std::max<std::uint64_t>(g.bytes, 1);
      prog_.globals.push_back(std::move(g));
    }
    for (const auto& f : m_.functions) {
      if (!f.is_entry || f.is_extern) continue;
      prog_.kernels.push_back(decode_kernel(f));
    }
    return std::move(prog_);
  }

 private:
  const Module& m_;
  std::string source_;
  Program prog_;
  std::unordered_map<std::string, std::uint64_t> globals_offset_;

  int find_main_file(std::string_view hint) const {
    if (hint.empty()) return 0;
    std::string_view base = hint.substr(
        hint.find_last_of('/') == std::string_view::npos ? 0 : hint.find_last_of('/') + 1);
    for (size_t i = 0; i < m_.files.size(); ++i) {
      std::string_view f = m_.files[i];
      if (f == hint) return static_cast<int>(i);
    }
    for (size_t i = 0; i < m_.files.size(); ++i) {
      std::string_view f = m_.files[i];
      if (f.size() >= base.size() && f.substr(f.size() - base.size()) == base &&
          (f.size() == base.size() || f[f.size() - base.size() - 1] == '/'))
        return static_cast<int>(i);
    }
    return 0;
  }

  static std::uint64_t var_bytes(const Variable& v) {
    std::uint64_t n = 1;
    for (auto d : v.dims) n *= d < 0 ? 0 : static_cast<std::uint64_t>(d);
    auto t = parse_ty(v.type);
    const int eb = t ? std::max(1, ty_bytes(*t)) : 1;
    return n * static_cast<std::uint64_t>(eb) * static_cast<std::uint64_t>(v.vector);
  }

  [[noreturn]] void fail(const Instruction& in, const std::string& msg) const {
    throw DecodeError(msg, source_, in.pos.line, in.text);
  }

  Kernel decode_kernel(const Function& f) {
    Kernel k;
    k.name = f.name;
    // Parameters.
    std::unordered_map<std::string, SymbolInfo> syms;
    int off = 0;
    for (const auto& p : f.params) {
      KernelParam kp;
      kp.name = p.name;
      kp.type = p.type;
      auto t = parse_ty(p.type);
      int eb = t ? std::max(1, ty_bytes(*t)) : 1;
      int n = 1;
      for (auto d : p.dims) n *= static_cast<int>(d);
      kp.size = eb * n;
      kp.align = p.align ? p.align : eb;
      kp.is_pointer_sized = p.dims.empty() && eb == 8 && t && !ty_float(*t);
      off = static_cast<int>(
          align_up(static_cast<std::uint64_t>(off), static_cast<std::uint64_t>(kp.align)));
      kp.offset = off;
      off += kp.size;
      syms[p.name] = {Space::Param, static_cast<std::uint64_t>(kp.offset)};
      k.params.push_back(kp);
    }
    k.param_bytes = off;
    // Registers.
    for (const auto& r : f.registers) {
      const bool pred = r.type == ".pred";
      auto add = [&](const std::string& name) {
        if (pred) {
          pred_index_[name] = k.num_preds++;
          k.pred_names.push_back(name);
        } else {
          reg_index_[name] = k.num_regs++;
          k.reg_names.push_back(name);
          reg_type_[name] = r.type;
        }
      };
      if (r.count == 0)
        add(r.name);
      else
        for (int i = 0; i < r.count; ++i) add(r.name + std::to_string(i));
    }
    // Shared memory: statics referenced by this kernel (module or function scope), then
    // extern arrays at the dynamic offset. Local: the per-thread depot.
    std::set<std::string> used;
    for (const auto& st : f.body)
      if (!st.is_label) collect_symbols(st.instruction, used);
    std::uint64_t shared_off = 0, local_off = 0;
    std::vector<const Variable*> externs;
    auto place_shared = [&](const Variable& v) {
      if (v.is_extern || (!v.dims.empty() && v.dims[0] < 0)) {
        externs.push_back(&v);
        return;
      }
      const std::uint64_t a = static_cast<std::uint64_t>(v.align ? v.align : 4);
      shared_off = align_up(shared_off, a);
      k.shared.push_back({v.name, shared_off, var_bytes(v), static_cast<int>(a), false});
      syms[v.name] = {Space::Shared, shared_off};
      shared_off += var_bytes(v);
    };
    for (const auto& v : m_.variables)
      if (v.space == StateSpace::Shared && used.count(v.name)) place_shared(v);
    for (const auto& v : f.variables) {
      if (v.space == StateSpace::Shared)
        place_shared(v);
      else if (v.space == StateSpace::Local) {
        const std::uint64_t a = static_cast<std::uint64_t>(v.align ? v.align : 4);
        local_off = align_up(local_off, a);
        syms[v.name] = {Space::Local, local_off};
        local_off += var_bytes(v);
      } else if (v.space == StateSpace::Param) {
        // A call sequence's argument or return slot (printf): per-thread storage in the
        // local depot, so st.param/ld.param on it work like local accesses.
        const std::uint64_t a = static_cast<std::uint64_t>(v.align ? v.align : 8);
        local_off = align_up(local_off, a);
        syms[v.name] = {Space::Local, local_off};
        call_params_.insert(v.name);
        local_off += std::max<std::uint64_t>(var_bytes(v), 1);
      } else if (v.space == StateSpace::Global || v.space == StateSpace::Const) {
        fail_at(v.pos.line,
                "function-scope ." +
                    std::string(v.space == StateSpace::Global ? "global" : "const") +
                    " variables are not supported",
                v.name);
      }
    }
    k.static_shared_bytes = shared_off;
    k.dynamic_shared_offset = align_up(shared_off, 16);
    for (const Variable* v : externs) {
      k.shared.push_back({v->name, k.dynamic_shared_offset, 0, v->align, true});
      syms[v->name] = {Space::Shared, k.dynamic_shared_offset};
    }
    k.local_bytes = local_off;
    for (const auto& [name, goff] : globals_offset_) {
      const GlobalVar* g = nullptr;
      for (const auto& gv : prog_.globals)
        if (gv.name == name) g = &gv;
      syms.emplace(name, SymbolInfo{g ? g->space : Space::Global, kGlobalVarBase + goff});
    }
    syms_ = &syms;
    // Labels.
    std::unordered_map<std::string, int> labels;
    int n = 0;
    for (const auto& st : f.body) {
      if (st.is_label)
        labels[st.label] = n;
      else
        ++n;
    }
    // Instructions.
    std::vector<std::string> branch_labels;
    for (const auto& st : f.body) {
      if (st.is_label) continue;
      const Instruction& in = st.instruction;
      Instr ins = decode_instr(in, k);
      if (ins.op == Opc::Bra) {
        const auto& op = in.operands.back();
        auto it = labels.find(op.name);
        if (it == labels.end()) fail(in, "branch to unknown label '" + op.name + "'");
        ins.target = it->second;
      }
      ins.loc = static_cast<std::int32_t>(k.locs.size());
      k.locs.push_back(resolve_loc(in.loc_chain));
      k.ptx_lines.push_back(in.pos.line);
      k.texts.push_back(in.text);
      if (ins.op == Opc::Ld || ins.op == Opc::St || ins.op == Opc::Atom || ins.op == Opc::Red) {
        if (ins.space != Space::Param && !call_param_access_) {
          Site s;
          s.instr = static_cast<std::uint32_t>(k.code.size());
          s.file = k.locs.back().file;
          s.line = k.locs.back().line;
          s.col = k.locs.back().col;
          s.ptx_line = in.pos.line;
          s.text = in.text;
          ins.site = static_cast<std::int32_t>(k.sites.size());
          k.sites.push_back(std::move(s));
        }
      }
      k.code.push_back(ins);
    }
    compute_reconvergence(k);
    call_params_.clear();
    reg_index_.clear();
    pred_index_.clear();
    reg_type_.clear();
    syms_ = nullptr;
    return k;
  }

  [[noreturn]] void fail_at(int line, const std::string& msg, const std::string& text) const {
    throw DecodeError(msg, source_, line, text);
  }

  static void collect_symbols(const Instruction& in, std::set<std::string>& out) {
    std::vector<const Operand*> stack;
    for (const auto& o : in.operands) stack.push_back(&o);
    while (!stack.empty()) {
      const Operand* o = stack.back();
      stack.pop_back();
      if (o->kind == Operand::Kind::Symbol ||
          (o->kind == Operand::Kind::Address && !o->base_is_reg))
        out.insert(o->name);
      for (const auto& e : o->elems) stack.push_back(&e);
    }
  }

  SourcePos resolve_loc(const std::vector<SourceLoc>& chain) const {
    if (chain.empty()) return {};
    for (const auto& l : chain)
      if (l.file == prog_.main_file && l.line > 0) return {l.file, l.line, l.col};
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
      if (it->line > 0) return {it->file, it->line, it->col};
    return {chain.back().file, chain.back().line, chain.back().col};
  }

  std::set<std::string> call_params_;  // function-scope .param variables (call sequences)
  bool call_param_access_ = false;     // the instruction being decoded accesses one
  std::unordered_map<std::string, std::uint32_t> reg_index_, pred_index_;
  std::unordered_map<std::string, std::string> reg_type_;
  std::unordered_map<std::string, SymbolInfo>* syms_ = nullptr;

  Opnd operand(const Instruction& in, const Operand& o, Ty ty) {
    Opnd r;
    switch (o.kind) {
      case Operand::Kind::Register: {
        if (auto s = parse_special(o.name)) {
          r.kind = Opnd::Kind::Special;
          r.reg = static_cast<std::uint32_t>(*s);
          return r;
        }
        if (auto it = pred_index_.find(o.name); it != pred_index_.end()) {
          r.kind = Opnd::Kind::Pred;
          r.reg = it->second;
          r.negate = o.negated;
          return r;
        }
        auto it = reg_index_.find(o.name);
        if (it == reg_index_.end()) fail(in, "register '" + o.name + "' is not declared");
        r.kind = Opnd::Kind::Reg;
        r.reg = it->second;
        return r;
      }
      case Operand::Kind::Immediate:
        r.kind = Opnd::Kind::Imm;
        if (ty == Ty::F32) {
          const float f = static_cast<float>(o.imm);
          std::uint32_t b;
          std::memcpy(&b, &f, 4);
          r.imm = b;
        } else if (ty == Ty::F64) {
          const double d = static_cast<double>(o.imm);
          std::memcpy(&r.imm, &d, 8);
        } else {
          r.imm = static_cast<std::uint64_t>(o.imm);
        }
        return r;
      case Operand::Kind::FloatImm: {
        r.kind = Opnd::Kind::Imm;
        if (ty == Ty::F64 && o.fbits == 32) {
          float f;
          std::uint32_t b = static_cast<std::uint32_t>(o.bits);
          std::memcpy(&f, &b, 4);
          const double d = f;
          std::memcpy(&r.imm, &d, 8);
        } else if (ty == Ty::F32 && o.fbits == 64) {
          double d;
          std::memcpy(&d, &o.bits, 8);
          const float f = static_cast<float>(d);
          std::uint32_t b;
          std::memcpy(&b, &f, 4);
          r.imm = b;
        } else if (o.fbits == 0) {
          if (ty == Ty::F64) {
            std::memcpy(&r.imm, &o.fvalue, 8);
          } else {
            const float f = static_cast<float>(o.fvalue);
            std::uint32_t b;
            std::memcpy(&b, &f, 4);
            r.imm = b;
          }
        } else {
          r.imm = o.bits;
        }
        return r;
      }
      case Operand::Kind::Symbol: {
        auto it = syms_->find(o.name);
        if (it == syms_->end()) fail(in, "unknown symbol '" + o.name + "'");
        r.kind = Opnd::Kind::SymAddr;
        r.imm = it->second.address + static_cast<std::uint64_t>(o.imm);  // sym+offset
        r.reg = static_cast<std::uint32_t>(it->second.space);
        return r;
      }
      default:
        fail(in, "unexpected operand");
    }
  }

  MemRef memref(const Instruction& in, const Operand& o, Space& space) {
    if (o.kind != Operand::Kind::Address) fail(in, "expected an address operand [..]");
    MemRef m;
    m.offset = o.imm;
    if (o.base_is_reg) {
      auto it = reg_index_.find(o.name);
      if (it == reg_index_.end()) fail(in, "register '" + o.name + "' is not declared");
      m.has_reg = true;
      m.reg = it->second;
    } else if (!o.name.empty()) {
      auto it = syms_->find(o.name);
      if (it == syms_->end()) fail(in, "unknown symbol '" + o.name + "'");
      m.offset += static_cast<std::int64_t>(it->second.address);
      if (space == Space::Generic) space = it->second.space;
      if (call_params_.count(o.name)) {  // st.param/ld.param of a call argument
        space = Space::Local;
        call_param_access_ = true;
      }
    }
    return m;
  }

  static bool has(const Instruction& in, std::string_view m) {
    return std::find(in.modifiers.begin(), in.modifiers.end(), m) != in.modifiers.end();
  }

  // The last type modifier (e.g. ".f32" of "cvt.rn.f32.s32" is the first; see callers).
  std::vector<Ty> types(const Instruction& in) const {
    std::vector<Ty> t;
    for (const auto& m : in.modifiers)
      if (auto ty = parse_ty(m)) t.push_back(*ty);
    return t;
  }

  Space space_of(const Instruction& in) const {
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

  Instr decode_instr(const Instruction& in, Kernel& k) {
    Instr ins;
    call_param_access_ = false;
    if (in.guard) {
      auto it = pred_index_.find(*in.guard);
      if (it == pred_index_.end()) fail(in, "guard predicate '" + *in.guard + "' is not declared");
      ins.guard = static_cast<std::int16_t>(it->second);
      ins.guard_neg = in.guard_negated;
    }
    const std::string& op = in.opcode;
    const auto tys = types(in);
    const Ty t0 = tys.empty() ? Ty::None : tys[0];
    const Ty tl = tys.empty() ? Ty::None : tys.back();
    auto dst = [&](int i, Ty ty) {
      if (i >= static_cast<int>(in.operands.size())) fail(in, "missing operand");
      ins.dst[ins.ndst++] = operand(in, in.operands[static_cast<size_t>(i)], ty);
    };
    auto src = [&](int i, Ty ty) {
      if (i >= static_cast<int>(in.operands.size())) fail(in, "missing operand");
      ins.src[ins.nsrc++] = operand(in, in.operands[static_cast<size_t>(i)], ty);
    };
    auto need = [&](size_t n) {
      if (in.operands.size() != n)
        fail(in, fmt::format("'{}' takes {} operands, got {}", op, n, in.operands.size()));
    };
    auto rounding = [&]() {
      for (const auto& m : in.modifiers) {
        if (m == ".rn") return Round::Rn;
        if (m == ".rz") return Round::Rz;
        if (m == ".rm") return Round::Rm;
        if (m == ".rp") return Round::Rp;
        if (m == ".rni") return Round::Rni;
        if (m == ".rzi") return Round::Rzi;
        if (m == ".rmi") return Round::Rmi;
        if (m == ".rpi") return Round::Rpi;
      }
      return Round::None;
    };
    if (has(in, ".sat")) ins.flags |= kFlagSat;
    if (has(in, ".ftz")) ins.flags |= kFlagFtz;
    if (has(in, ".cc")) fail(in, "carry (.cc) arithmetic is not supported");
    if (t0 == Ty::F16 || tl == Ty::F16) {
      if (op != "cvt" && op != "mov" && op != "ld" && op != "st")
        fail(in, "half-precision arithmetic is not supported");
    }

    auto binary = [&](Opc o) {
      ins.op = o;
      ins.type = t0;
      need(3);
      dst(0, t0);
      src(1, t0);
      src(2, t0);
      ins.mod.round = rounding();
    };
    auto unary = [&](Opc o) {
      ins.op = o;
      ins.type = t0;
      need(2);
      dst(0, t0);
      src(1, t0);
      ins.mod.round = rounding();
    };
    if (op == "mov") {
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
      return ins;
    }
    if (op == "add" || op == "sub") {
      binary(op == "add" ? Opc::Add : Opc::Sub);
      return ins;
    }
    if (op == "mul" || op == "mad") {
      const bool mad = op == "mad";
      ins.op = mad ? Opc::Mad : Opc::Mul;
      ins.type = t0;
      MulMode mode = MulMode::Lo;
      if (has(in, ".hi")) mode = MulMode::Hi;
      if (has(in, ".wide")) mode = MulMode::Wide;
      if (ty_float(t0)) mode = MulMode::Lo;
      ins.mod.mul = mode;
      if (ty_float(t0)) ins.mod.round = rounding();
      need(mad ? 4 : 3);
      const Ty dty = mode == MulMode::Wide
                         ? (ty_bytes(t0) == 4 ? (ty_signed(t0) ? Ty::S64 : Ty::U64)
                                              : (ty_signed(t0) ? Ty::S32 : Ty::U32))
                         : t0;
      dst(0, dty);
      src(1, t0);
      src(2, t0);
      if (mad) src(3, dty);
      return ins;
    }
    if (op == "div") {
      binary(Opc::Div);
      return ins;
    }
    if (op == "rem") {
      binary(Opc::Rem);
      return ins;
    }
    if (op == "min") {
      binary(Opc::Min);
      return ins;
    }
    if (op == "max") {
      binary(Opc::Max);
      return ins;
    }
    if (op == "and") {
      binary(Opc::And);
      return ins;
    }
    if (op == "or") {
      binary(Opc::Or);
      return ins;
    }
    if (op == "xor") {
      binary(Opc::Xor);
      return ins;
    }
    if (op == "copysign") {
      binary(Opc::Copysign);
      return ins;
    }
    if (op == "shl" || op == "shr") {
      ins.op = op == "shl" ? Opc::Shl : Opc::Shr;
      ins.type = t0;
      need(3);
      dst(0, t0);
      src(1, t0);
      src(2, Ty::U32);
      return ins;
    }
    if (op == "abs") {
      unary(Opc::Abs);
      return ins;
    }
    if (op == "neg") {
      unary(Opc::Neg);
      return ins;
    }
    if (op == "not") {
      unary(Opc::Not);
      return ins;
    }
    if (op == "cnot") {
      unary(Opc::CNot);
      return ins;
    }
    if (op == "popc" || op == "clz" || op == "bfind") {
      ins.op = op == "popc" ? Opc::Popc : (op == "clz" ? Opc::Clz : Opc::Bfind);
      ins.type = t0;
      if (op == "bfind" && has(in, ".shiftamt")) ins.mod.shiftamt = true;
      need(2);
      dst(0, Ty::U32);
      src(1, t0);
      return ins;
    }
    if (op == "brev") {
      unary(Opc::Brev);
      return ins;
    }
    if (op == "rcp" || op == "sqrt" || op == "rsqrt" || op == "ex2" || op == "lg2" || op == "sin" ||
        op == "cos" || op == "tanh") {
      Opc o = op == "rcp"     ? Opc::Rcp
              : op == "sqrt"  ? Opc::Sqrt
              : op == "rsqrt" ? Opc::Rsqrt
              : op == "ex2"   ? Opc::Ex2
              : op == "lg2"   ? Opc::Lg2
              : op == "sin"   ? Opc::Sin
              : op == "cos"   ? Opc::Cos
                              : Opc::Tanh;
      unary(o);
      return ins;
    }
    if (op == "fma") {
      ins.op = Opc::Fma;
      ins.type = t0;
      ins.mod.round = rounding();
      need(4);
      dst(0, t0);
      src(1, t0);
      src(2, t0);
      src(3, t0);
      return ins;
    }
    if (op == "bfe") {
      ins.op = Opc::Bfe;
      ins.type = t0;
      need(4);
      dst(0, t0);
      src(1, t0);
      src(2, Ty::U32);
      src(3, Ty::U32);
      return ins;
    }
    if (op == "bfi") {
      ins.op = Opc::Bfi;
      ins.type = t0;
      need(5);
      dst(0, t0);
      src(1, t0);
      src(2, t0);
      src(3, Ty::U32);
      src(4, Ty::U32);
      return ins;
    }
    if (op == "prmt") {
      ins.op = Opc::Prmt;
      ins.type = Ty::B32;
      for (const auto& m : in.modifiers)
        if (m != ".b32") fail(in, "prmt mode " + m + " is not supported");
      need(4);
      dst(0, Ty::B32);
      src(1, Ty::B32);
      src(2, Ty::B32);
      src(3, Ty::B32);
      return ins;
    }
    if (op == "shf") {
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
      return ins;
    }
    if (op == "lop3") {
      ins.op = Opc::Lop3;
      ins.type = Ty::B32;
      need(5);
      dst(0, Ty::B32);
      src(1, Ty::B32);
      src(2, Ty::B32);
      src(3, Ty::B32);
      src(4, Ty::B32);
      return ins;
    }
    if (op == "setp" || op == "set") {
      ins.op = op == "setp" ? Opc::Setp : Opc::Set;
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
        dst(0, op == "setp" ? Ty::Pred : t0);
      }
      src(1, tl);
      src(2, tl);
      if (ins.mod.boolop != BoolOp::None) {
        if (in.operands.size() != 4) fail(in, "setp with a boolean op takes 4 operands");
        src(3, Ty::Pred);
      }
      return ins;
    }
    if (op == "selp") {
      ins.op = Opc::Selp;
      ins.type = t0;
      need(4);
      dst(0, t0);
      src(1, t0);
      src(2, t0);
      src(3, Ty::Pred);
      return ins;
    }
    if (op == "slct") {
      ins.op = Opc::Slct;
      ins.type = t0;
      ins.type2 = tl;
      need(4);
      dst(0, t0);
      src(1, t0);
      src(2, t0);
      src(3, tl);
      return ins;
    }
    if (op == "cvt") {
      ins.op = Opc::Cvt;
      if (tys.size() != 2) fail(in, "cvt needs a destination and a source type");
      ins.type = tys[0];
      ins.type2 = tys[1];
      ins.mod.round = rounding();
      need(2);
      dst(0, tys[0]);
      src(1, tys[1]);
      return ins;
    }
    if (op == "cvta") {
      ins.op = Opc::Cvta;
      ins.space = space_of(in);
      ins.mod.to_space = has(in, ".to");
      ins.type = tl;
      need(2);
      dst(0, tl);
      src(1, tl);
      return ins;
    }
    if (op == "isspacep") {
      ins.op = Opc::Isspacep;
      ins.space = space_of(in);
      need(2);
      dst(0, Ty::Pred);
      src(1, Ty::U64);
      return ins;
    }
    if (op == "ld" || op == "st" || op == "ldu") {
      const bool load = op != "st";
      ins.op = load ? Opc::Ld : Opc::St;
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
      return ins;
    }
    if (op == "atom" || op == "red") {
      ins.op = op == "atom" ? Opc::Atom : Opc::Red;
      ins.space = space_of(in);
      ins.type = tl;
      AtomOp ao = AtomOp::Add;
      bool found = false;
      static const std::pair<const char*, AtomOp> ops[] = {
          {".add", AtomOp::Add}, {".min", AtomOp::Min}, {".max", AtomOp::Max},
          {".inc", AtomOp::Inc}, {".dec", AtomOp::Dec}, {".and", AtomOp::And},
          {".or", AtomOp::Or},   {".xor", AtomOp::Xor}, {".exch", AtomOp::Exch},
          {".cas", AtomOp::Cas}};
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
      return ins;
    }
    if (op == "bra") {
      ins.op = Opc::Bra;
      if (has(in, ".uni")) ins.flags |= kFlagUni;
      if (in.operands.size() != 1 || in.operands[0].kind != Operand::Kind::Symbol)
        fail(in, "bra takes one label");
      return ins;
    }
    if (op == "bar" && has(in, ".warp")) {
      // bar.warp.sync (__syncwarp): the emulator runs a warp's active lanes together, so
      // there is nothing to wait for.
      ins.op = Opc::Nop;
      return ins;
    }
    if (op == "bar" || op == "barrier") {
      const bool sync =
          has(in, ".sync") || (op == "barrier" && !has(in, ".arrive")) || in.modifiers.empty();
      if (!sync || has(in, ".arrive") || has(in, ".red"))
        fail(in, "only bar.sync / barrier.sync are supported");
      ins.op = Opc::Bar;
      if (!in.operands.empty()) {
        if (in.operands[0].kind != Operand::Kind::Immediate)
          fail(in, "bar.sync with a register barrier id is not supported");
        if (in.operands[0].imm != 0) fail(in, "named barriers other than 0 are not supported");
      }
      if (in.operands.size() > 1) fail(in, "bar.sync with a thread count is not supported");
      return ins;
    }
    if (op == "ret" || op == "exit") {
      ins.op = op == "ret" ? Opc::Ret : Opc::Exit;
      return ins;
    }
    if (op == "trap") {
      ins.op = Opc::Trap;
      return ins;
    }
    if (op == "membar" || op == "fence" || op == "nanosleep" || op == "prefetch" ||
        op == "prefetchu" || op == "pmevent" || op == "discard" || op == "griddepcontrol" ||
        op == "applypriority" || op == "createpolicy") {
      ins.op = Opc::Nop;
      if (op == "createpolicy") fail(in, "createpolicy is not supported");
      return ins;
    }
    if (op == "shfl") {
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
      return ins;
    }
    if (op == "vote") {
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
      return ins;
    }
    if (op == "match") {
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
      return ins;
    }
    if (op == "activemask") {
      ins.op = Opc::Activemask;
      need(1);
      dst(0, Ty::B32);
      return ins;
    }
    if (op == "testp") {
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
      return ins;
    }
    if (op == "call") {
      // printf is the one call kept (as a no-op returning 0); other device functions are
      // normally inlined by nvcc.
      for (const auto& o : in.operands) {
        if (o.kind == Operand::Kind::Symbol && o.name == "vprintf") {
          ins.op = Opc::Nop;
          return ins;
        }
        if (o.kind == Operand::Kind::Symbol && o.name == "__assertfail") {  // a failed assert()
          ins.op = Opc::Trap;
          ins.mod.assert_fail = true;
          return ins;
        }
      }
      fail(in, "calls to device functions are not supported (compile with the function inlined)");
    }
    (void)k;
    fail(in, "unsupported instruction '" + op + "'");
  }

  // Immediate post-dominators over basic blocks; each conditional branch reconverges at
  // the first instruction of its block's immediate post-dominator (-1: at exit).
  static void compute_reconvergence(Kernel& k) {
    const int n = static_cast<int>(k.code.size());
    if (n == 0) return;
    std::vector<char> leader(static_cast<size_t>(n) + 1, 0);
    leader[0] = 1;
    for (int i = 0; i < n; ++i) {
      const Instr& in = k.code[static_cast<size_t>(i)];
      if (in.op == Opc::Bra) {
        leader[static_cast<size_t>(in.target)] = 1;
        leader[static_cast<size_t>(i) + 1] = 1;
      } else if (in.op == Opc::Ret || in.op == Opc::Exit || in.op == Opc::Trap) {
        leader[static_cast<size_t>(i) + 1] = 1;
      }
    }
    std::vector<int> block_of(static_cast<size_t>(n)), starts;
    for (int i = 0; i < n; ++i) {
      if (leader[static_cast<size_t>(i)]) starts.push_back(i);
      block_of[static_cast<size_t>(i)] = static_cast<int>(starts.size()) - 1;
    }
    const int nb = static_cast<int>(starts.size());
    const int exit_node = nb;
    std::vector<std::vector<int>> succ(static_cast<size_t>(nb));
    for (int b = 0; b < nb; ++b) {
      const int last = (b + 1 < nb ? starts[static_cast<size_t>(b) + 1] : n) - 1;
      const Instr& in = k.code[static_cast<size_t>(last)];
      auto add = [&](int s) { succ[static_cast<size_t>(b)].push_back(s); };
      if (in.op == Opc::Bra) {
        add(block_of[static_cast<size_t>(in.target)]);
        if (in.guard >= 0) add(last + 1 < n ? block_of[static_cast<size_t>(last) + 1] : exit_node);
      } else if (in.op == Opc::Ret || in.op == Opc::Exit || in.op == Opc::Trap) {
        if (in.guard >= 0) add(last + 1 < n ? block_of[static_cast<size_t>(last) + 1] : exit_node);
        add(exit_node);
      } else {
        add(last + 1 < n ? block_of[static_cast<size_t>(last) + 1] : exit_node);
      }
    }
    // The immediate post-dominator of every block in the graph `g` (exit_node: the exit;
    // -1: the block cannot reach the exit in `g`). Post-dominator sets by iteration
    // (bitsets); block counts are small.
    const int words = (nb + 1 + 63) / 64;
    auto ipdoms = [&](const std::vector<std::vector<int>>& g) {
      std::vector<char> reaches(static_cast<size_t>(nb) + 1, 0);
      reaches[static_cast<size_t>(exit_node)] = 1;
      for (bool grew = true; grew;) {
        grew = false;
        for (int b = 0; b < nb; ++b)
          if (!reaches[static_cast<size_t>(b)])
            for (int t : g[static_cast<size_t>(b)])
              if (reaches[static_cast<size_t>(t)]) {
                reaches[static_cast<size_t>(b)] = 1;
                grew = true;
                break;
              }
      }
      std::vector<std::vector<std::uint64_t>> pdom(
          static_cast<size_t>(nb) + 1,
          std::vector<std::uint64_t>(static_cast<size_t>(words), ~0ull));
      auto set_only = [&](int node) {
        std::fill(pdom[static_cast<size_t>(node)].begin(), pdom[static_cast<size_t>(node)].end(),
                  0ull);
        pdom[static_cast<size_t>(node)][static_cast<size_t>(node) / 64] |= 1ull << (node % 64);
      };
      set_only(exit_node);
      bool changed = true;
      while (changed) {
        changed = false;
        for (int b = nb - 1; b >= 0; --b) {
          std::vector<std::uint64_t> acc(static_cast<size_t>(words), ~0ull);
          if (g[static_cast<size_t>(b)].empty()) std::fill(acc.begin(), acc.end(), 0ull);
          for (int t : g[static_cast<size_t>(b)])
            for (int w = 0; w < words; ++w)
              acc[static_cast<size_t>(w)] &= pdom[static_cast<size_t>(t)][static_cast<size_t>(w)];
          acc[static_cast<size_t>(b) / 64] |= 1ull << (b % 64);
          if (acc != pdom[static_cast<size_t>(b)]) {
            pdom[static_cast<size_t>(b)] = std::move(acc);
            changed = true;
          }
        }
      }
      auto in_set = [&](int node, int x) {
        return (pdom[static_cast<size_t>(node)][static_cast<size_t>(x) / 64] >> (x % 64)) & 1ull;
      };
      auto count = [&](int node) {
        int c = 0;
        for (auto w : pdom[static_cast<size_t>(node)]) c += __builtin_popcountll(w);
        return c;
      };
      std::vector<int> out(static_cast<size_t>(nb), -1);
      for (int b = 0; b < nb; ++b) {
        if (!reaches[static_cast<size_t>(b)]) continue;
        // The immediate post-dominator: the strict post-dominator with the largest set.
        int best = -1, best_count = -1;
        for (int x = 0; x <= nb; ++x) {
          if (x == b || !in_set(b, x)) continue;
          const int c = count(x);
          if (c > best_count) {
            best = x;
            best_count = c;
          }
        }
        out[static_cast<size_t>(b)] = best < 0 ? exit_node : best;
      }
      return out;
    };
    // Lanes that branch to a block that only returns (nvcc merges a kernel's returns into
    // one `ret` block) leave the warp there: like the hardware, which exits them, the
    // others reconverge without waiting for them. So reconvergence points come from the
    // graph without the edges into such blocks (where a block has another successor); a
    // branch whose block cannot reach the exit in that graph (a loop left only by
    // returning) keeps its point in the full graph.
    auto returns_only = [&](int b) {
      if (b == exit_node) return true;
      const Instr& first = k.code[static_cast<size_t>(starts[static_cast<size_t>(b)])];
      return first.guard < 0 &&
             (first.op == Opc::Ret || first.op == Opc::Exit || first.op == Opc::Trap);
    };
    std::vector<std::vector<int>> staying(static_cast<size_t>(nb));
    for (int b = 0; b < nb; ++b) {
      const auto& all = succ[static_cast<size_t>(b)];
      for (int t : all)
        if (!returns_only(t)) staying[static_cast<size_t>(b)].push_back(t);
      if (staying[static_cast<size_t>(b)].empty()) staying[static_cast<size_t>(b)] = all;
    }
    const std::vector<int> full = ipdoms(succ), without_returns = ipdoms(staying);
    for (int i = 0; i < n; ++i) {
      Instr& in = k.code[static_cast<size_t>(i)];
      if (in.op != Opc::Bra) continue;
      const int b = block_of[static_cast<size_t>(i)];
      int best = without_returns[static_cast<size_t>(b)];
      if (best < 0) best = full[static_cast<size_t>(b)];
      in.reconv = (best < 0 || best == exit_node) ? -1 : starts[static_cast<size_t>(best)];
    }
  }
};

}  // namespace

Program decode(const Module& m, std::string_view source, std::string_view main_file_hint) {
  return Decoder(m, source, main_file_hint).run();
}

}  // namespace bankcheck::ptx
