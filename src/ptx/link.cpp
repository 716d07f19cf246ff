// Device functions across translation units (-rdc=true): see link_functions in ir.hpp.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::ptx {

namespace {

const Function* defined_function(const Module& m, const std::string& name) {
  for (const Function& f : m.functions)
    if (!f.is_entry && !f.is_extern && !f.body.empty() && f.name == name) return &f;
  return nullptr;
}

const Variable* module_variable(const Module& m, const std::string& name) {
  for (const Variable& v : m.variables)
    if (v.name == name) return &v;
  return nullptr;
}

// The names an instruction's operands use as symbols (variables, functions, labels).
void symbols_of(const Operand& o, std::set<std::string>& out) {
  if ((o.kind == Operand::Kind::Symbol || (o.kind == Operand::Kind::Address && !o.base_is_reg)) &&
      !o.name.empty())
    out.insert(o.name);
  for (const Operand& e : o.elems) symbols_of(e, out);
}

// The functions `m`'s code calls or takes the address of (its initializers too: a table of
// function pointers) without a body in `m`.
std::vector<std::string> undefined_callees(const Module& m) {
  std::set<std::string> names;
  for (const Function& f : m.functions)
    for (const Statement& st : f.body)
      if (!st.is_label)
        for (const Operand& o : st.instruction.operands) symbols_of(o, names);
  for (const Variable& v : m.variables)
    for (const Relocation& r : v.relocations) names.insert(r.symbol);
  std::vector<std::string> out;
  for (const std::string& n : names) {
    bool declared = false;
    for (const Function& f : m.functions) declared = declared || f.name == n;
    if (declared && !defined_function(m, n)) out.push_back(n);
  }
  return out;
}

}  // namespace

std::set<std::string> link_functions(Module& m, const std::vector<const Module*>& others) {
  std::set<std::string> used;  // the other modules' variables the copies name
  std::vector<std::string> work = undefined_callees(m);
  std::set<std::string> seen(work.begin(), work.end());
  while (!work.empty()) {
    const std::string name = work.back();
    work.pop_back();
    if (defined_function(m, name)) continue;
    const Module* from = nullptr;
    const Function* f = nullptr;
    for (const Module* o : others)
      if ((f = defined_function(*o, name))) {
        from = o;
        break;
      }
    if (!f) continue;
    std::set<std::string> names;
    for (const Statement& st : f->body)
      if (!st.is_label)
        for (const Operand& o : st.instruction.operands) symbols_of(o, names);
    std::set<std::string> vars;
    std::vector<std::string> calls;
    bool clash = false;
    for (const std::string& n : names) {
      if (const Variable* v = module_variable(*from, n); v && !v->is_extern) {
        // The module's own variable of that name would be read instead: not linked.
        if (const Variable* mine = module_variable(m, n); mine && !mine->is_extern) clash = true;
        vars.insert(n);
        continue;
      }
      for (const Function& g : from->functions)
        if (g.name == n && !g.is_entry && !seen.count(n)) {
          seen.insert(n);
          calls.push_back(n);
        }
    }
    if (clash) continue;
    Function copy = *f;
    // Its locations in this module's file table.
    std::map<int, int> files;
    for (Statement& st : copy.body)
      for (SourceLoc& l : st.instruction.loc_chain) {
        auto it = files.find(l.file);
        if (it == files.end()) {
          const std::string path =
              l.file > 0 && static_cast<std::size_t>(l.file) < from->files.size()
                  ? from->files[static_cast<std::size_t>(l.file)]
                  : std::string();
          int index = 0;
          for (std::size_t i = 1; i < m.files.size() && !path.empty(); ++i)
            if (m.files[i] == path) index = static_cast<int>(i);
          if (!index && !path.empty()) {
            if (m.files.empty()) m.files.emplace_back();
            m.files.push_back(path);
            index = static_cast<int>(m.files.size() - 1);
          }
          it = files.emplace(l.file, index).first;
        }
        l.file = it->second;
      }
    m.functions.push_back(std::move(copy));
    used.insert(vars.begin(), vars.end());
    work.insert(work.end(), calls.begin(), calls.end());
  }
  return used;
}

}  // namespace bankcheck::ptx
