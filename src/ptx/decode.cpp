// decode(): gives the parsed PTX meaning. Opcodes and modifiers become Instr, registers
// get numbers, symbols get addresses in their space, branches get targets and
// reconvergence points (immediate post-dominators), memory instructions become sites with
// a source location in the user's file. Anything not understood is a DecodeError naming
// the PTX line.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "bankcheck/ptx/ir.hpp"
#include "decode_instr.hpp"
#include "inline_calls.hpp"
#include "post_dominators.hpp"

namespace bankcheck::ptx {
namespace {

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return a ? (v + a - 1) / a * a : v; }

using detail::parse_ty;

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
      {"%clock_hi", Special::ClockHi},
      {"%aggr_smem_size", Special::AggrSmemSize},
      {"%cluster_ctarank", Special::ClusterCtarank},
      {"%cluster_nctarank", Special::ClusterNctarank},
      {"%cluster_ctaid.x", Special::ClusterCtaidX},
      {"%cluster_ctaid.y", Special::ClusterCtaidY},
      {"%cluster_ctaid.z", Special::ClusterCtaidZ},
      {"%cluster_nctaid.x", Special::ClusterNctaidX},
      {"%cluster_nctaid.y", Special::ClusterNctaidY},
      {"%cluster_nctaid.z", Special::ClusterNctaidZ},
      {"%clusterid.x", Special::ClusteridX},
      {"%clusterid.y", Special::ClusteridY},
      {"%clusterid.z", Special::ClusteridZ},
      {"%nclusterid.x", Special::NclusteridX},
      {"%nclusterid.y", Special::NclusteridY},
      {"%nclusterid.z", Special::NclusteridZ},
      {"%is_explicit_cluster", Special::IsExplicitCluster},
  };
  for (auto& [s, v] : table)
    if (n == s) return v;
  const auto numbered = [&](std::string_view prefix) {
    if (n.substr(0, prefix.size()) != prefix || n.size() == prefix.size()) return false;
    for (char ch : n.substr(prefix.size()))
      if ((ch < '0' || ch > '9') && ch != '_' && ch != 'a' && ch != 'b' && ch != 'e' && ch != 'g' &&
          ch != 'i' && ch != 'n' && ch != 'd' && ch != 'c')
        return false;
    return true;
  };
  if (n == "%envreg1") return Special::Envreg1;
  if (n == "%envreg2") return Special::Envreg2;
  if (numbered("%envreg")) return Special::Envreg;
  if (numbered("%pm")) return Special::Pm;
  if (n.substr(0, 22) == "%reserved_smem_offset_") return Special::ReservedSmem;
  return std::nullopt;
}

// Where a symbol lives, for `mov r, sym` and `[sym+off]`.
struct SymbolInfo {
  Space space;
  std::uint64_t address;  // window offset (shared, local, param) or emulated address
};

// The bytes a variable takes: its elements (a vector counts each element) times its
// dimensions; an unsized one (extern, []) takes none.
std::uint64_t var_bytes(const Variable& v) {
  std::uint64_t n = 1;
  for (auto d : v.dims) n *= d < 0 ? 0 : static_cast<std::uint64_t>(d);
  auto t = parse_ty(v.type);
  const int eb = t ? std::max(1, ty_bytes(*t)) : 1;
  return n * static_cast<std::uint64_t>(eb) * static_cast<std::uint64_t>(v.vector);
}

// Module-scope .global and .const variables from `base`, each aligned to at least 256
// bytes, in declaration order, with their initial bytes.
std::vector<GlobalVar> layout_globals(const Module& m, std::uint64_t base) {
  std::vector<GlobalVar> out;
  std::uint64_t goff = 0;
  for (const auto& v : m.variables) {
    if (v.space != StateSpace::Global && v.space != StateSpace::Const) continue;
    GlobalVar g;
    g.name = v.name;
    g.space = v.space == StateSpace::Const ? Space::Const : Space::Global;
    g.bytes = var_bytes(v);
    g.align = v.align ? v.align : 8;
    g.init = v.init;
    goff = align_up(goff, static_cast<std::uint64_t>(std::max(g.align, 256)));
    g.address = base + goff;
    goff += std::max<std::uint64_t>(g.bytes, 1);
    out.push_back(std::move(g));
  }
  return out;
}

class Decoder : private detail::OperandDecoder {
 public:
  Decoder(const Module& m, std::string_view source, std::string_view hint, std::uint64_t base,
          const std::map<std::string, std::uint64_t>* external)
      : m_(m), source_(source), base_(base), external_(external) {
    prog_.files = m.files;
    prog_.main_file = find_main_file(hint);
  }

  Program run() {
    // Module-scope .global/.const variables: emulated addresses from the base.
    for (GlobalVar& g : layout_globals(m_, base_)) {
      if (external_ && external_->count(g.name)) continue;  // another module's
      globals_offset_[g.name] = g.address - base_;
      prog_.globals.push_back(std::move(g));
    }
    place_relocations();
    for (const auto& f : m_.functions) {
      if (!f.is_entry || f.is_extern) continue;
      if (f.body_skipped) {
        prog_.skipped.push_back(f.name);
        continue;
      }
      // An unsupported construct stops its own kernel only: the others are still analysed.
      try {
        prog_.kernels.push_back(decode_kernel(detail::inline_calls(
            m_, f, [&](const Instruction& in, const std::string& msg) { return error(in, msg); })));
      } catch (const DecodeError& e) {
        prog_.unsupported.push_back({f.name, e.what(), e.line, e.text, e.pos, e.families});
        call_params_.clear();  // what decode_kernel would have reset at its end
        call_param_access_ = false;
        reg_index_.clear();
        pred_index_.clear();
        reg_type_.clear();
        syms_ = nullptr;
      }
    }
    return std::move(prog_);
  }

 private:
  const Module& m_;
  std::string source_;
  std::uint64_t base_;
  Program prog_;
  std::unordered_map<std::string, std::uint64_t> globals_offset_;
  const std::map<std::string, std::uint64_t>* external_ = nullptr;

  // Whether `name` is a device function of the module (declared or defined): its name used as
  // a value is its address (function_address).
  bool is_function(const std::string& name) const {
    for (const Function& f : m_.functions)
      if (f.name == name && !f.is_entry) return true;
    return false;
  }

  // Where `name` is: a function's address, a variable's (here or in another module); nullopt
  // when it is neither.
  std::optional<std::uint64_t> symbol_address(const std::string& name) const {
    if (is_function(name)) return function_address(name);
    if (const auto it = globals_offset_.find(name); it != globals_offset_.end())
      return base_ + it->second;
    if (external_)
      if (const auto it = external_->find(name); it != external_->end()) return it->second;
    return std::nullopt;
  }

  // The addresses in the variables' initializers (a function-pointer table, a pointer to a
  // variable), written into their initial bytes.
  void place_relocations() {
    for (GlobalVar& g : prog_.globals)
      for (const Variable& v : m_.variables) {
        if (v.name != g.name) continue;
        for (const Relocation& r : v.relocations) {
          const std::optional<std::uint64_t> a = symbol_address(r.symbol);
          if (!a) continue;
          const std::uint64_t value = *a + static_cast<std::uint64_t>(r.addend);
          if (g.init.size() < r.offset + 8) g.init.resize(r.offset + 8, 0);
          std::memcpy(g.init.data() + r.offset, &value, 8);
        }
      }
  }

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

  DecodeError error(const Instruction& in, const std::string& msg) const override {
    DecodeError e(msg, source_, in.pos.line, in.text);
    e.pos = resolve_loc(in.loc_chain);
    return e;
  }
  [[noreturn]] void fail(const Instruction& in, const std::string& msg) const {
    throw error(in, msg);
  }

  Kernel decode_kernel(const Function& f) {
    Kernel k;
    k.name = f.name;
    // The cluster shape the kernel requires (__cluster_dims__), and whether it names one.
    for (const auto& [d, values] : f.directives) {
      if (d == ".reqnctapercluster")
        for (std::size_t i = 0; i < 3; ++i)
          k.cluster[i] = i < values.size() ? static_cast<std::uint32_t>(values[i]) : 1;
      if (d == ".explicitcluster") k.explicit_cluster = true;
    }
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
    // The carry flag of extended-precision arithmetic (add.cc, addc, ...): a predicate no
    // PTX name can clash with, only in kernels that use it.
    for (const auto& st : f.body) {
      const auto& in = st.instruction;
      if (st.is_label) continue;
      if (in.opcode == "addc" || in.opcode == "subc" || in.opcode == "madc" ||
          std::find(in.modifiers.begin(), in.modifiers.end(), ".cc") != in.modifiers.end()) {
        pred_index_["%cc"] = k.num_preds++;
        k.pred_names.push_back("%cc");
        break;
      }
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
      syms.emplace(name, SymbolInfo{g ? g->space : Space::Global, base_ + goff});
    }
    if (external_)
      for (const auto& [name, address] : *external_) {
        Space space = Space::Global;
        for (const Variable& v : m_.variables)
          if (v.name == name && v.space == StateSpace::Const) space = Space::Const;
        syms.emplace(name, SymbolInfo{space, address});
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
    // Instructions. One refused does not stop the others' decoding: the refusal names
    // every unsupported family the kernel uses (refuse_kernel).
    std::vector<std::string> branch_labels;
    std::vector<RefusedFamily> refused;
    std::unique_ptr<DecodeError> first_refusal;
    for (const auto& st : f.body) {
      if (st.is_label) continue;
      const Instruction& in = st.instruction;
      Instr ins;
      try {
        ins = decode_instr(in);
        if (ins.op == Opc::Bra) {
          const auto& op = in.operands.back();
          auto it = labels.find(op.name);
          if (it == labels.end()) fail(in, "branch to unknown label '" + op.name + "'");
          ins.target = it->second;
        }
      } catch (const DecodeError& e) {
        if (!first_refusal) first_refusal = std::make_unique<DecodeError>(e);
        note_refusal(refused, in, e);
        continue;
      }
      if (first_refusal) continue;  // the kernel is refused: no code to build
      ins.loc = static_cast<std::int32_t>(k.locs.size());
      k.locs.push_back(resolve_loc(in.loc_chain));
      k.ptx_lines.push_back(in.pos.line);
      k.texts.push_back(in.text);
      const auto new_site = [&] {
        Site s;
        s.instr = static_cast<std::uint32_t>(k.code.size());
        s.file = k.locs.back().file;
        s.line = k.locs.back().line;
        s.col = k.locs.back().col;
        s.ptx_line = in.pos.line;
        s.text = in.text;
        // Nsight Compute counts an inlined instruction once in each file of its inline
        // stack, on that file's innermost frame: an atomicAdd on the caller's line and on
        // the header's, a lambda's body line only (bench/check/measured/h100: histogram, sgemm).
        for (const auto& l : in.loc_chain)
          if (l.line > 0 && l.file != s.file &&
              std::none_of(s.inlined.begin(), s.inlined.end(),
                           [&](const SourcePos& p) { return p.file == l.file; }))
            s.inlined.push_back({l.file, l.line, l.col});
        if (in.loc_chain.size() > 1)
          for (const auto& l : in.loc_chain)
            if (l.line > 0) s.stack.push_back({l.file, l.line, l.col});
        k.sites.push_back(std::move(s));
        return static_cast<std::int32_t>(k.sites.size() - 1);
      };
      if (ins.op == Opc::Ld || ins.op == Opc::St || ins.op == Opc::Atom || ins.op == Opc::Red) {
        if (ins.space != Space::Param && !call_param_access_) ins.site = new_site();
      }
      // The tensor-core data movers; cp.async and cp.async.bulk (with or without a tensor
      // map) have two sites: their shared side (`site`: LDGSTS, or the TMA unit's side)
      // and their global side (`site2`); wgmma.mma_async one, its shared operands' reads.
      const bool copy =
          ins.op == Opc::CpAsync || ins.op == Opc::CpAsyncBulk || ins.op == Opc::CpAsyncBulkTensor;
      const bool wgmma = ins.op == Opc::Wgmma && ins.mod.wg.op == WgmmaOp::Mma;
      if (ins.op == Opc::Ldmatrix || ins.op == Opc::Stmatrix || ins.op == Opc::WmmaLoad ||
          ins.op == Opc::WmmaStore || copy || wgmma)
        ins.site = new_site();
      if (copy) ins.site2 = new_site();
      k.code.push_back(ins);
    }
    if (first_refusal) {
      first_refusal->families = std::move(refused);
      throw *first_refusal;
    }
    compute_reconvergence(k);
    call_params_.clear();
    reg_index_.clear();
    pred_index_.clear();
    reg_type_.clear();
    syms_ = nullptr;
    return k;
  }

  // One refused instruction into its family's entry (the first of each family keeps its
  // place, reason and location).
  void note_refusal(std::vector<RefusedFamily>& out, const Instruction& in,
                    const DecodeError& e) const {
    const std::string family = instruction_family(in.opcode, in.modifiers);
    for (RefusedFamily& r : out)
      if (r.family == family) {
        ++r.count;
        return;
      }
    // Where the instruction is written: the innermost frame with a line (a header's
    // helper's own line), not the call site the sites are counted on.
    SourcePos pos = e.pos;
    for (const auto& l : in.loc_chain)
      if (l.line > 0) {
        pos = {l.file, l.line, l.col};
        break;
      }
    out.push_back({family, e.what(), 1, e.line, e.text, pos});
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
    // Otherwise the innermost frame with a line, where Nsight Compute counts it (a
    // cooperative_groups reduce's load on reduce.h:194, inlined at reduce.h:245).
    for (const auto& l : chain)
      if (l.line > 0) return {l.file, l.line, l.col};
    return {chain.back().file, chain.back().line, chain.back().col};
  }

  std::set<std::string> call_params_;  // function-scope .param variables (call sequences)
  bool call_param_access_ = false;     // the instruction being decoded accesses one
  std::unordered_map<std::string, std::uint32_t> reg_index_, pred_index_;
  std::unordered_map<std::string, std::string> reg_type_;
  std::unordered_map<std::string, SymbolInfo>* syms_ = nullptr;

  Opnd operand(const Instruction& in, const Operand& o, Ty ty) override {
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
        if (o.name == "WARP_SZ") {  // the PTX constant warpSize compiles to
          r.kind = Opnd::Kind::Imm;
          r.imm = 32;
          return r;
        }
        auto it = syms_->find(o.name);
        if (it == syms_->end()) {
          if (!is_function(o.name)) fail(in, "unknown symbol '" + o.name + "'");
          r.kind = Opnd::Kind::Imm;  // a function's address
          r.imm = function_address(o.name) + static_cast<std::uint64_t>(o.imm);
          return r;
        }
        r.kind = Opnd::Kind::SymAddr;
        r.imm = it->second.address + static_cast<std::uint64_t>(o.imm);  // sym+offset
        r.reg = static_cast<std::uint32_t>(it->second.space);
        return r;
      }
      default:
        fail(in, "unexpected operand");
    }
  }

  MemRef memref(const Instruction& in, const Operand& o, Space& space) override {
    if (o.kind != Operand::Kind::Address) fail(in, "expected an address operand [..]");
    MemRef m;
    m.offset = o.imm;
    if (o.base_is_reg) {
      auto it = reg_index_.find(o.name);
      if (it == reg_index_.end()) fail(in, "register '" + o.name + "' is not declared");
      m.has_reg = true;
      m.reg = it->second;
      const auto t = reg_type_.find(o.name);
      m.wrap32 = t != reg_type_.end() && parse_ty(t->second) && ty_bytes(*parse_ty(t->second)) == 4;
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
    // A shared-space address is 32 bits whatever the register holding it: the hardware
    // (LDS, STS, ATOMS, LDSM, LDGSTS) takes the low word, so a 64-bit base wraps too.
    if (space == Space::Shared) m.wrap32 = true;
    return m;
  }

  // One instruction (decode_instr.cpp), with its guard.
  Instr decode_instr(const Instruction& in) {
    std::int16_t guard = -1;
    if (in.guard) {
      auto it = pred_index_.find(*in.guard);
      if (it == pred_index_.end()) fail(in, "guard predicate '" + *in.guard + "' is not declared");
      guard = static_cast<std::int16_t>(it->second);
    }
    call_param_access_ = false;
    Instr ins = detail::decode_instr(in, *this);
    ins.guard = guard;
    ins.guard_neg = in.guard.has_value() && in.guard_negated;
    return ins;
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
    // -1: the block cannot reach the exit in `g`).
    auto ipdoms = [](const std::vector<std::vector<int>>& g) {
      return detail::immediate_post_dominators(g);
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

Program decode(const Module& m, std::string_view source, std::string_view main_file_hint,
               std::uint64_t global_base, const std::map<std::string, std::uint64_t>* external) {
  return Decoder(m, source, main_file_hint, global_base, external).run();
}

std::uint64_t globals_extent(const Module& m) {
  std::uint64_t end = 0;
  for (const GlobalVar& g : layout_globals(m, 0))
    end = std::max(end, g.address + std::max<std::uint64_t>(g.bytes, 1));
  return end;
}

}  // namespace bankcheck::ptx
