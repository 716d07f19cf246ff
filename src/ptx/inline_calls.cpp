// Out-of-line device functions (a .func nvcc did not inline, `call` with .param arguments
// and return values) inlined into the kernel that calls them before it is decoded: the
// callee's body is copied in place of the call with its registers, labels and local
// variables renamed apart, its parameters renamed to the caller's argument slots, and
// `ret` turned into a branch past the copy. Calls nested deeper than kMaxCallDepth
// (recursion) stop the kernel with that reason.
#include "inline_calls.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace bankcheck::ptx::detail {

namespace {

class Inliner {
 public:
  Inliner(const Module& m, Function& out, const CallError& error)
      : m_(m), out_(out), error_(error) {}

  void expand(const std::vector<Statement>& body, int depth, std::vector<Statement>& into) {
    for (const Statement& st : body) {
      if (!st.is_label && inline_indirect(st.instruction, depth, into)) continue;
      const Function* callee = st.is_label ? nullptr : callee_of(st.instruction);
      if (!callee) {
        into.push_back(st);
        continue;
      }
      count_copy(st.instruction, *callee, depth);
      inline_one(st.instruction, *callee, depth, into);
    }
  }

 private:
  // A call at `depth` about to copy `callee` in: refused when nested too deep (recursion) or
  // when the copies grow too large.
  void count_copy(const Instruction& call, const Function& callee, int depth) {
    if (depth >= kMaxCallDepth)
      throw error_(call, fmt::format("device function calls nested deeper than {} (recursion) "
                                     "are not supported",
                                     kMaxCallDepth));
    copied_ += callee.body.size();
    if (copied_ > kMaxInlined)
      throw error_(call, fmt::format("device function calls inline to more than {} instructions",
                                     kMaxInlined));
  }

  const Module& m_;
  Function& out_;
  const CallError& error_;
  int counter_ = 0;
  std::size_t copied_ = 0;  // statements copied so far
  static constexpr std::size_t kMaxInlined = 1'000'000;

  // call (ret...), %rd, (arg...), prototype: through a function pointer. Each function of
  // the module whose address is taken (an initializer's relocation, an operand naming it)
  // and whose parameters fit the call is compared with the pointer (its function_address)
  // and inlined where it matches; a pointer to none of them traps, as a jump into nothing
  // faults on the GPU. False when `in` is no such call or no function fits (it stays a call).
  bool inline_indirect(const Instruction& in, int depth, std::vector<Statement>& into) {
    if (in.opcode != "call") return false;
    const Operand* target = nullptr;
    std::size_t rets = 0, args = 0;
    for (const Operand& o : in.operands) {
      if (o.kind == Operand::Kind::Register && !target) target = &o;
      if (o.kind == Operand::Kind::Vector) (target ? args : rets) = o.elems.size();
    }
    if (!target) return false;
    std::vector<const Function*> fits;
    for (const Function& f : m_.functions)
      if (!f.is_entry && !f.is_extern && !f.body.empty() && address_taken(f.name) &&
          f.params.size() == args && f.returns.size() >= rets)
        fits.push_back(&f);
    if (fits.empty()) return false;
    const std::string prefix = fmt::format("__icall{}_", ++counter_);
    const std::string pred = "%" + prefix + "p", end = "$" + prefix + "end";
    out_.registers.push_back({".pred", pred, 0, in.pos});
    const auto op = [](Operand::Kind kind, std::string name, std::int64_t imm = 0) {
      Operand o;
      o.kind = kind;
      o.name = std::move(name);
      o.imm = imm;
      return o;
    };
    const auto emit = [&](std::string opcode, std::vector<std::string> mods,
                          std::vector<Operand> operands, std::optional<std::string> guard,
                          std::string text) {
      Statement s;
      s.instruction.opcode = std::move(opcode);
      s.instruction.modifiers = std::move(mods);
      s.instruction.operands = std::move(operands);
      s.instruction.guard = std::move(guard);
      s.instruction.pos = in.pos;
      s.instruction.loc_chain = in.loc_chain;
      s.instruction.text = std::move(text);
      into.push_back(std::move(s));
    };
    const auto label = [&](std::string name) {
      Statement s;
      s.is_label = true;
      s.label = std::move(name);
      into.push_back(std::move(s));
    };
    for (std::size_t i = 0; i < fits.size(); ++i) {
      const auto address = static_cast<std::int64_t>(function_address(fits[i]->name));
      emit("setp", {".eq", ".u64"},
           {op(Operand::Kind::Register, pred), *target, op(Operand::Kind::Immediate, "", address)},
           std::nullopt,
           fmt::format("setp.eq.u64 {}, {}, {:#x}; // {}", pred, target->name, address,
                       fits[i]->name));
      const std::string to = fmt::format("${}{}", prefix, i);
      emit("bra", {}, {op(Operand::Kind::Symbol, to)}, pred, fmt::format("@{} bra {};", pred, to));
    }
    emit("trap", {}, {}, std::nullopt, "trap; // a function pointer to no function");
    for (std::size_t i = 0; i < fits.size(); ++i) {
      label(fmt::format("${}{}", prefix, i));
      Instruction direct = in;  // the same call, to the function by name
      direct.operands.clear();
      bool after = false;
      for (const Operand& o : in.operands) {
        if (&o == target) {
          direct.operands.push_back(op(Operand::Kind::Symbol, fits[i]->name));
          after = true;
        } else if (o.kind == Operand::Kind::Vector || !after) {
          direct.operands.push_back(o);
        }  // the prototype's name goes
      }
      count_copy(in, *fits[i], depth);
      inline_one(direct, *fits[i], depth, into);
      emit("bra", {".uni"}, {op(Operand::Kind::Symbol, end)}, std::nullopt,
           fmt::format("bra.uni {};", end));
    }
    label(end);
    return true;
  }

  // Whether the module takes `name`'s address: a variable's initializer, or an instruction's
  // operand other than a call's target.
  bool address_taken(const std::string& name) {
    if (!taken_) {
      taken_.emplace();
      for (const Variable& v : m_.variables)
        for (const Relocation& r : v.relocations) taken_->insert(r.symbol);
      for (const Function& f : m_.functions)
        for (const Statement& st : f.body)
          if (!st.is_label && st.instruction.opcode != "call")
            for (const Operand& o : st.instruction.operands)
              if (o.kind == Operand::Kind::Symbol) taken_->insert(o.name);
    }
    return taken_->count(name) > 0;
  }
  std::optional<std::set<std::string>> taken_;

  // The .func with a body that `in` calls directly, if any (printf, assert's
  // __assertfail and indirect calls stay calls).
  const Function* callee_of(const Instruction& in) const {
    if (in.opcode != "call") return nullptr;
    for (const Operand& o : in.operands)
      if (o.kind == Operand::Kind::Symbol) {
        for (const Function& f : m_.functions)
          if (!f.is_entry && !f.is_extern && f.name == o.name && !f.body.empty()) return &f;
        return nullptr;
      }
    return nullptr;
  }

  void inline_one(const Instruction& call, const Function& f, int depth,
                  std::vector<Statement>& into) {
    const std::string prefix = fmt::format("__call{}_", ++counter_);
    std::map<std::string, std::string> ren;
    // call (ret...), f, (arg...): the lists are the vectors before and after the name.
    std::vector<const Operand*> rets, args;
    bool after = false;
    for (const Operand& o : call.operands) {
      if (o.kind == Operand::Kind::Symbol && o.name == f.name) {
        after = true;
        continue;
      }
      if (o.kind != Operand::Kind::Vector) continue;
      for (const Operand& e : o.elems) (after ? args : rets).push_back(&e);
    }
    if (args.size() != f.params.size() || rets.size() > f.returns.size())
      throw error_(call, "call with arguments that do not match " + f.name);
    for (size_t i = 0; i < args.size(); ++i) ren[f.params[i].name] = args[i]->name;
    for (size_t i = 0; i < rets.size(); ++i) ren[f.returns[i].name] = rets[i]->name;
    for (const RegisterDecl& r : f.registers) {
      RegisterDecl copy = r;
      copy.name = "%" + prefix + r.name.substr(r.name[0] == '%' ? 1 : 0);
      if (r.count == 0)
        ren[r.name] = copy.name;
      else
        for (int i = 0; i < r.count; ++i)
          ren[r.name + std::to_string(i)] = copy.name + std::to_string(i);
      out_.registers.push_back(copy);
    }
    for (const Variable& v : f.variables) {
      if (v.space == StateSpace::Shared) {  // one per kernel, however often it is called
        bool have = false;
        for (const Variable& w : out_.variables) have = have || w.name == v.name;
        if (!have) out_.variables.push_back(v);
        continue;
      }
      Variable copy = v;
      copy.name = prefix + v.name;
      ren[v.name] = copy.name;
      out_.variables.push_back(copy);
    }
    for (const Statement& st : f.body)
      if (st.is_label) ren[st.label] = "$" + prefix + st.label;
    const std::string end = "$" + prefix + "end";
    std::vector<Statement> body;
    for (const Statement& st : f.body) {
      Statement s = st;
      if (s.is_label) {
        s.label = ren[st.label];
        body.push_back(std::move(s));
        continue;
      }
      Instruction& in = s.instruction;
      if (in.guard)
        if (auto it = ren.find(*in.guard); it != ren.end()) in.guard = it->second;
      for (Operand& o : in.operands) rename(o, ren);
      if (in.opcode == "ret") {
        in.opcode = "bra";
        in.modifiers = {".uni"};
        Operand target;
        target.kind = Operand::Kind::Symbol;
        target.name = end;
        in.operands = {target};
      }
      body.push_back(std::move(s));
    }
    expand(body, depth + 1, into);
    Statement label;
    label.is_label = true;
    label.label = end;
    into.push_back(std::move(label));
  }

  static void rename(Operand& o, const std::map<std::string, std::string>& ren) {
    if (!o.name.empty())
      if (auto it = ren.find(o.name); it != ren.end()) o.name = it->second;
    for (Operand& e : o.elems) rename(e, ren);
  }
};

}  // namespace

Function inline_calls(const Module& m, const Function& f, const CallError& error) {
  bool calls = false;
  for (const Statement& st : f.body)
    calls = calls || (!st.is_label && st.instruction.opcode == "call");
  if (!calls) return f;
  Function out = f;
  out.body.clear();
  Inliner(m, out, error).expand(f.body, 0, out.body);
  return out;
}

}  // namespace bankcheck::ptx::detail
