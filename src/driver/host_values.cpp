// The host-code reader's evaluator: integer, dim3, float and pointer values of host
// expressions, names resolved through the reader's scopes (helper functions and function-like
// macros called with their arguments' values), noting the names it lacks and why.
#include <algorithm>

#include "host_reader.hpp"

namespace bankcheck::driver::host_code {

using explain::angle_backward;
using explain::angle_forward;
using explain::join;
using explain::match_backward;
using explain::match_forward;
using explain::split_commas;
using explain::tokenize;

std::optional<std::int64_t> Reader::eval_int(TokenSpan t, std::size_t from, std::size_t to,
                                             const Scope* scope) {
  if (from >= to || depth_ > 40) return std::nullopt;
  ++depth_;
  Tokens expr;
  for (std::size_t j = from; j < to; ++j) {
    if (t[j].is("sizeof") && j + 1 < to && t[j + 1].is("(")) {  // kept whole: (T) is no cast
      const std::size_t c = std::min(match_forward(t, j + 1), to - 1);
      expr.insert(expr.end(), t.begin() + static_cast<std::ptrdiff_t>(j),
                  t.begin() + static_cast<std::ptrdiff_t>(c + 1));
      j = c;
      continue;
    }
    if ((t[j].is("static_cast") || t[j].is("reinterpret_cast")) && j + 1 < to && t[j + 1].is("<")) {
      j = angle_forward(t, j + 1);
      continue;
    }
    if (t[j].is("(") && j + 1 < to && is_type_word(t[j + 1].text)) {  // a C cast
      const std::size_t c = match_forward(t, j);
      bool all_type = true;
      for (std::size_t q = j + 1; q < c; ++q)
        if (!is_type_word(t[q].text) && !t[q].is("*") && !t[q].is("::")) all_type = false;
      if (all_type && c < to) {
        j = c;
        continue;
      }
    }
    expr.push_back(t[j]);
  }
  std::map<std::string, std::int64_t> known;  // each name resolved once
  const auto v = explain::evaluate(
      expr, [&](TokenSpan e, std::size_t at) { return operand(e, at, scope, known); });
  // Not a constant: the other plain names it lacks too, so that they are asked at once;
  // not those in the arguments of a call bankcheck does not evaluate (`atoi(argv[++i])`) or
  // subscripted (`argv[1]`): no integer given for them would make the expression one.
  if (!v && !missing_.empty()) {
    std::vector<char> opaque(expr.size(), 0);
    for (std::size_t j = 0; j + 1 < expr.size(); ++j) {
      const std::string& w = expr[j].text;
      const bool evaluated = function_named(w) || w == "min" || w == "max" || w == "ceil_div" ||
                             w == "div_up" || w == "sizeof";
      if (!expr[j].ident() || !expr[j + 1].is("(") || evaluated) continue;
      const std::size_t c = std::min(match_forward(expr, j + 1), expr.size());
      std::fill(opaque.begin() + static_cast<std::ptrdiff_t>(j + 1),
                opaque.begin() + static_cast<std::ptrdiff_t>(c), 1);
    }
    for (std::size_t j = 0; j < expr.size(); ++j) {
      const Token& k = expr[j];
      if (!k.ident() || known.count(k.text) || is_type_word(k.text) || opaque[j] ||
          std::find(missing_.begin(), missing_.end(), k.text) != missing_.end())
        continue;
      if (j + 1 < expr.size() && expr[j + 1].is("[")) continue;
      const bool member = j > 0 && (expr[j - 1].is(".") || expr[j - 1].is("->") ||
                                    expr[j - 1].is("::") || expr[j - 1].is("sizeof"));
      const bool in_sizeof = j > 1 && expr[j - 1].is("(") && expr[j - 2].is("sizeof");
      if (member || in_sizeof) continue;
      if (j + 1 < expr.size() && (expr[j + 1].is("(") || expr[j + 1].is("::") ||
                                  expr[j + 1].is("<") || expr[j + 1].is(".")))
        continue;
      if (auto r = resolve_int(k.text, scope)) known[k.text] = *r;
    }
  }
  --depth_;
  return v;
}

std::optional<explain::Operand> Reader::operand(TokenSpan e, std::size_t at, const Scope* scope,
                                                std::map<std::string, std::int64_t>& known) {
  const Token& k = e[at];
  const bool call = at + 1 < e.size() && e[at + 1].is("(");
  if (k.is("true") || k.is("false")) return explain::Operand{k.is("true") ? 1 : 0, at + 1};
  // Qualified names (`std::min`, `Tile::BM`, `cute::ceil_div`) and `this->m` read as the
  // last name: the file's own names are not overloaded across namespaces in practice.
  if (at + 2 < e.size() && (e[at + 1].is("::") || (k.is("this") && e[at + 1].is("->"))))
    return operand(e, at + 2, scope, known);
  if (k.is("sizeof") && call) {
    const std::size_t c = match_forward(e, at + 1);
    const int sz = sizeof_type(e, at + 2, c, {&t_, &header_tokens_});
    if (!sz || c >= e.size()) return std::nullopt;
    return explain::Operand{sz, c + 1};
  }
  if (at + 2 < e.size() && e[at + 1].is(".") && e[at + 2].ident()) {
    const std::string& m = e[at + 2].text;
    const int c = m == "x" ? 0 : m == "y" ? 1 : m == "z" ? 2 : -1;
    if (c < 0) return std::nullopt;
    const Dim d = eval_dim(e, at, at + 1, scope);
    if (!d.v[c]) return std::nullopt;
    return explain::Operand{*d.v[c], at + 3};
  }
  if (!k.ident()) return std::nullopt;
  // A call: `f(a, b)` or `f<T, 4>(a, b)`, of a function or function-like macro of the file,
  // min/max, ceil_div.
  std::size_t open = at + 1;
  if (open < e.size() && e[open].is("<") &&
      (function_named(k.text) || k.is("min") || k.is("max"))) {
    const std::size_t c = angle_forward(e, open);
    if (c < e.size() && c + 1 < e.size() && e[c + 1].is("(")) open = c + 1;
  }
  if (open < e.size() && e[open].is("(")) {
    const std::size_t c = match_forward(e, open);
    if (c >= e.size()) return std::nullopt;
    const auto v = call_value(e, at, open, c, scope);
    if (!v) return std::nullopt;
    return explain::Operand{*v, c + 1};
  }
  if (!known.count(k.text)) {
    const auto v = resolve_int(k.text, scope);
    if (!v) return std::nullopt;
    known[k.text] = *v;
  }
  return explain::Operand{known[k.text], at + 1};
}

std::optional<std::int64_t> Reader::call_value(TokenSpan e, std::size_t name, std::size_t open,
                                               std::size_t close, const Scope* scope) {
  const std::string& f = e[name].text;
  const auto parts = split_commas(e, open + 1, close, false);
  if (auto m = function_macros_.find(f); m != function_macros_.end()) {
    if (parts.size() != m->second.params.size() || depth_ > 40 || ++work_ > kMaxWork)
      return std::nullopt;
    Tokens body = tokenize(m->second.body), expanded;
    for (const Token& b : body) {
      const auto p = std::find(m->second.params.begin(), m->second.params.end(), b.text);
      if (!b.ident() || p == m->second.params.end()) {
        expanded.push_back(b);
        continue;
      }
      const auto [a, z] = parts[static_cast<std::size_t>(p - m->second.params.begin())];
      expanded.push_back(punct("(", b.pos));
      expanded.insert(expanded.end(), e.begin() + static_cast<std::ptrdiff_t>(a),
                      e.begin() + static_cast<std::ptrdiff_t>(z));
      expanded.push_back(punct(")", b.pos));
    }
    ++depth_;
    const auto v = eval_int(expanded, 0, expanded.size(), scope);
    --depth_;
    return v;
  }
  const bool builtin = f == "min" || f == "max" || f == "ceil_div" || f == "div_up";
  if (!builtin && !function_named(f)) return std::nullopt;  // its arguments' names unasked
  std::vector<std::int64_t> values;
  for (const auto& [a, z] : parts) {
    const auto v = eval_int(e, a, z, scope);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  for (const Function& fn : fns_)
    if (!fn.global && fn.name == f && fn.params.size() == values.size() && fn.body_close)
      return call_function(fn, values, e, name + 1 < open ? name + 1 : open, scope);
  if ((f == "min" || f == "max") && values.size() == 2)
    return f == "min" ? std::min(values[0], values[1]) : std::max(values[0], values[1]);
  if ((f == "ceil_div" || f == "div_up") && values.size() == 2 && values[1] != 0)
    return (values[0] + values[1] - 1) / values[1];
  return std::nullopt;
}

std::optional<std::int64_t> Reader::call_function(const Function& fn,
                                                  const std::vector<std::int64_t>& values,
                                                  TokenSpan e, std::size_t targs,
                                                  const Scope* caller) {
  if (depth_ > 40 || ++work_ > kMaxWork) return std::nullopt;
  auto s = std::make_unique<Scope>();
  s->fn = &fn;
  for (std::size_t p = 0; p < fn.params.size(); ++p)
    if (!fn.params[p].empty()) s->values[fn.params[p]] = values[p];
  if (targs < e.size() && e[targs].is("<")) {
    const std::size_t c = angle_forward(e, targs);
    const auto ta = split_commas(e, targs + 1, std::min(c, e.size()), true);
    for (std::size_t p = 0; p < fn.tparams.size() && p < ta.size(); ++p)
      if (auto v = eval_int(e, ta[p].first, ta[p].second, caller)) s->values[fn.tparams[p]] = *v;
  }
  Scope* sc = s.get();
  scopes_.push_back(std::move(s));
  ++depth_;
  std::optional<std::int64_t> result;
  for (std::size_t j = fn.body_open + 1; j < fn.body_close;) {
    const std::string& w = t_[j].text;
    if (w == "for" || w == "while" || w == "do" || w == "switch" || w == "goto") break;
    sc->limit = j;
    if (w == "return") {
      result = eval_int(t_, j + 1, expr_end(t_, j + 1), sc);
      break;
    }
    if (w == "if" && j + 1 < fn.body_close && t_[j + 1].is("(")) {
      const std::size_t c = match_forward(t_, j + 1);
      std::size_t r = c + 1;
      if (r < fn.body_close && t_[r].is("{")) ++r;
      if (c >= fn.body_close || r >= fn.body_close || !t_[r].is("return")) break;
      const auto cond = eval_int(t_, j + 2, c, sc);
      if (!cond) break;
      if (*cond) {
        result = eval_int(t_, r + 1, expr_end(t_, r + 1), sc);
        break;
      }
      j = expr_end(t_, r + 1) + 1;
      if (j < fn.body_close && t_[j].is("}")) ++j;
      if (j < fn.body_close && t_[j].is("else")) ++j;
      if (j < fn.body_close && t_[j].is("{")) ++j;
      continue;
    }
    // Past the statement: its `;` outside brackets, or a block.
    if (w == "{") {
      j = match_forward(t_, j) + 1;
      continue;
    }
    j = expr_end(t_, j);
    while (j < fn.body_close && !t_[j].is(";"))
      j = explain::is_close(t_[j]) ? j + 1 : expr_end(t_, j + 1);
    ++j;
  }
  --depth_;
  return result;
}

std::optional<std::int64_t> Reader::resolve_int(const std::string& name, const Scope* scope) {
  if (depth_ > 40 || ++work_ > kMaxWork) return std::nullopt;
  if (auto it = host_values_.find(name); it != host_values_.end()) {
    if (std::find(used_.begin(), used_.end(), name) == used_.end()) used_.push_back(name);
    return it->second;
  }
  if (scope)
    if (auto it = scope->values.find(name); it != scope->values.end()) return it->second;
  // main's argc, not given: the program run without arguments, as its defaults are read
  // (`argc > 1 ? atoi(argv[1]) : 1024` is 1024); the report says so.
  if (name == "argc")
    for (const Scope* q = scope; q && q->fn; q = q->caller)
      if (q->fn->name == "main" && !q->fn->params.empty() && q->fn->params.front() == "argc") {
        const std::string assumed = "(argc = 1)";
        if (std::find(used_.begin(), used_.end(), assumed) == used_.end()) used_.push_back(assumed);
        return 1;
      }
  const std::size_t missing_before = missing_.size();
  if (auto f = lookup(name, scope)) {
    if (f->b.pointer) return std::nullopt;  // the integer that uses it is asked for instead
    // A call after the assignment that writes the variable through its address wins.
    if (!f->header && f->scope && f->scope->fn)
      if (auto w = written_through(name, f->b.to, std::min(f->scope->limit, t_.size()))) {
        note_missing(name, *w);
        return std::nullopt;
      }
    std::optional<std::int64_t> v;
    if (f->b.ctor) {
      const auto parts = split_commas(toks(*f), f->b.from, f->b.to, false);
      if (parts.size() == 1) v = eval_int(toks(*f), parts[0].first, parts[0].second, f->scope);
    } else {
      v = eval_int(toks(*f), f->b.from, f->b.to, f->scope);
    }
    if (!v && missing_.size() == missing_before && !f->header) {
      note_missing(name, fmt::format("`{}` at {}, which bankcheck does not evaluate",
                                     written(f->b.from, f->b.to), place(f->b.from)));
      note_default(name, *f);
    }
    return v;
  }
  if (auto it = defines_.find(name); it != defines_.end()) {
    const auto tt = tokenize(it->second);
    ++depth_;
    auto v = eval_int(tt, 0, tt.size(), scope);
    --depth_;
    return v;
  }
  if (missing_.size() == missing_before) {
    note_missing(name, unknown_reason(name, scope));
    note_parameter_default(name, scope);
  }
  return std::nullopt;
}

void Reader::note_missing(const std::string& name, std::string why) {
  if (std::find(missing_.begin(), missing_.end(), name) == missing_.end()) missing_.push_back(name);
  why_.emplace(name, std::move(why));
}

std::optional<std::int64_t> Reader::quiet_eval(TokenSpan t, std::size_t from, std::size_t to,
                                               const Scope* scope) {
  const auto missing = missing_;
  const auto why = why_;
  const auto used = used_;
  const auto v = eval_int(t, from, to, scope);
  missing_ = missing;
  why_ = why;
  used_ = used;
  return v;
}

void Reader::note_default(const std::string& name, const Found& f) {
  if (f.header || f.b.ctor || defaults_.count(name)) return;
  // The one branch of a `?:` at the binding's top level that evaluates.
  std::size_t question = f.b.to, colon = f.b.to;
  for (std::size_t j = f.b.from; j < f.b.to; ++j) {
    if (explain::is_open(t_[j])) {
      j = match_forward(t_, j);
      continue;
    }
    if (t_[j].is("?") && question == f.b.to) question = j;
    if (t_[j].is(":") && question != f.b.to) colon = j;  // the last: `a ? b : c ? d : e`
  }
  if (question < colon && colon < f.b.to) {
    const auto a = quiet_eval(t_, question + 1, colon, f.scope);
    const auto b = quiet_eval(t_, colon + 1, f.b.to, f.scope);
    if (a.has_value() != b.has_value() || (a && b && *a == *b)) {
      const std::size_t at = a ? question + 1 : colon + 1;
      defaults_[name] = {a ? *a : *b, place(at)};
      return;
    }
  }
  // The last earlier assignment (or the initialiser) in the same function, or at file scope,
  // that evaluates.
  const Function* fn = f.scope ? f.scope->fn : nullptr;
  auto owned = [&](std::size_t j) {
    return fn ? owner_[j] >= 0 && &fns_[static_cast<std::size_t>(owner_[j])] == fn
              : owner_[j] == -1;
  };
  std::size_t to = f.b.from > 0 ? f.b.from - 1 : 0;
  for (int tries = 0; tries < 8; ++tries) {
    const auto earlier = find_binding(t_, fn ? fn->body_open + 1 : 0, to, name, owned);
    if (!earlier || earlier->ctor) return;
    if (const auto v = quiet_eval(t_, earlier->from, earlier->to, f.scope)) {
      defaults_[name] = {*v, place(earlier->from)};
      return;
    }
    to = earlier->from > 0 ? earlier->from - 1 : 0;
  }
}

void Reader::note_parameter_default(const std::string& name, const Scope* scope) {
  for (const Scope* q = scope; q && q->fn; q = q->caller) {
    const auto& ps = q->fn->params;
    const auto p = std::find(ps.begin(), ps.end(), name);
    if (p == ps.end()) continue;
    const auto i = static_cast<std::size_t>(p - ps.begin());
    if (i >= q->fn->param_defaults.size()) return;
    const auto [a, b] = q->fn->param_defaults[i];
    if (a >= b || defaults_.count(name)) return;
    if (const auto v = quiet_eval(t_, a, b, nullptr)) defaults_[name] = {*v, place(a)};
    return;
  }
}

std::string Reader::unknown_reason(const std::string& name, const Scope* scope) const {
  for (const Scope* q = scope; q && q->fn; q = q->caller) {
    const auto& ps = q->fn->params;
    const auto& ts = q->fn->tparams;
    if (std::find(ps.begin(), ps.end(), name) != ps.end() ||
        std::find(ts.begin(), ts.end(), name) != ts.end())
      return q->fn->name == "main"
                 ? std::string("a parameter of main: a run-time value")
                 : fmt::format("a parameter of {}, which no function of the file calls",
                               q->fn->name);
  }
  if (auto w = written_through(name, 2, t_.size())) return *w;
  return "not defined in the file";
}

std::optional<std::string> Reader::written_through(const std::string& name, std::size_t from,
                                                   std::size_t to) const {
  if (const auto call = host_code::address_passed(t_, name, from, to))
    return fmt::format("set at run time by {} ({})", t_[*call].text, place(*call));
  return std::nullopt;
}

Dim Reader::eval_dim(TokenSpan t, std::size_t from, std::size_t to, const Scope* scope) {
  Dim d;
  if (from >= to || depth_ > 40) return d;
  auto from_list = [&](TokenSpan tt, std::size_t a, std::size_t b, const Scope* sc) {
    Dim r;
    const auto parts = split_commas(tt, a, b, false);
    if (parts.empty() || parts.size() > 3) return r;
    for (std::size_t c = 0; c < 3; ++c)
      r.v[c] = c < parts.size() ? eval_int(tt, parts[c].first, parts[c].second, sc)
                                : std::optional<std::int64_t>(1);
    return r;
  };
  if (t[from].text == "dim3" && from + 1 < to &&
      (t[from + 1].text == "(" || t[from + 1].text == "{"))
    return from_list(t, from + 2, match_forward(t, from + 1), scope);
  if (t[from].text == "{") return from_list(t, from + 1, match_forward(t, from), scope);
  if (to == from + 1 && t[from].ident()) {
    ++depth_;
    if (auto f = lookup(t[from].text, scope)) {
      if (f->b.ctor)
        d = from_list(toks(*f), f->b.from, f->b.to, f->scope);
      else
        d = eval_dim(toks(*f), f->b.from, f->b.to, f->scope);
      --depth_;
      return d;
    }
    --depth_;
  }
  d.v[0] = eval_int(t, from, to, scope);
  d.v[1] = d.v[2] = 1;
  return d;
}

std::optional<Dim3> Reader::to_dim3(const Dim& d) {
  for (const auto& v : d.v)
    if (!v || *v <= 0 || *v > 0x7fffffff) return std::nullopt;
  return Dim3{static_cast<std::uint32_t>(*d.v[0]), static_cast<std::uint32_t>(*d.v[1]),
              static_cast<std::uint32_t>(*d.v[2])};
}

std::optional<std::string> Reader::eval_float(const Tokens& t, std::size_t from, std::size_t to,
                                              const Scope* scope, int depth) {
  if (depth > 20 || from >= to) return std::nullopt;
  bool neg = false;
  if (t[from].text == "-" && to - from == 2) {
    neg = true;
    ++from;
  }
  if (to - from != 1) return std::nullopt;
  if (t[from].number()) {  // as --arg reads it: without digit separators
    std::string n = t[from].text;
    std::erase(n, '\'');
    return (neg ? "-" : "") + n;
  }
  if (t[from].ident()) {
    if (auto f = lookup(t[from].text, scope)) {
      const auto& tt = toks(*f);
      auto v = eval_float(tt, f->b.from, f->b.to, f->scope, depth + 1);
      if (v && neg) v = v->front() == '-' ? v->substr(1) : "-" + *v;
      return v;
    }
    if (auto it = defines_.find(t[from].text); it != defines_.end()) {
      const auto tt = tokenize(it->second);
      auto v = eval_float(tt, 0, tt.size(), scope, depth + 1);
      if (v && neg) v = v->front() == '-' ? v->substr(1) : "-" + *v;
      return v;
    }
  }
  return std::nullopt;
}

std::optional<std::string> Reader::eval_pointer(const Tokens& t, std::size_t from, std::size_t to,
                                                const Scope* scope, int depth) {
  if (depth > 20 || from >= to) return std::nullopt;
  while (from < to && t[from].text == "(" && match_forward(t, from) + 1 < to) {  // a cast
    from = match_forward(t, from) + 1;
  }
  if (to - from != 1) return std::nullopt;
  const std::string& n = t[from].text;
  if (n == "nullptr" || n == "NULL" || n == "0") return "null";
  if (!t[from].ident()) return std::nullopt;
  // The parameter of a launcher: the caller's argument.
  for (const Scope* s = scope; s; s = nullptr)
    if (auto it = s->bound.find(n); it != s->bound.end()) {
      const Binding& b = it->second.first;
      return eval_pointer(t_, b.from, b.to, it->second.second, depth + 1);
    }
  // cudaMalloc(&n, BYTES), cudaMalloc((void**)&n, BYTES), cudaMallocManaged(&n, BYTES, ...).
  const Function* fn = scope ? scope->fn : nullptr;
  for (std::size_t j = 0; j + 1 < t_.size(); ++j) {
    const auto& w = t_[j].text;
    if (w != "cudaMalloc" && w != "cudaMallocManaged" && w != "cudaMallocAsync") continue;
    if (t_[j + 1].text != "(") continue;
    const bool mine = owner_[j] >= 0 && &fns_[static_cast<std::size_t>(owner_[j])] == fn;
    if (!mine) continue;
    const std::size_t close = match_forward(t_, j + 1);
    const auto parts = split_commas(t_, j + 2, close, false);
    if (parts.size() < 2) continue;
    const auto [a, b] = parts[0];
    if (b == 0 || t_[b - 1].text != n || b - 2 < a || t_[b - 2].text != "&") continue;
    Scope at = scope ? *scope : Scope{};
    at.limit = j;
    const auto bytes = eval_int(t_, parts[1].first, parts[1].second, &at);
    if (bytes && *bytes > 0) return fmt::format("zeros:{}", *bytes);
  }
  return std::nullopt;
}

}  // namespace bankcheck::driver::host_code
