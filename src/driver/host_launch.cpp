// Launches read from the host code: a token reader over explain::code_only (comments,
// literals and directives already blanked) of the preprocessor's taken branches, functions
// and their parameters, declarations per function, launch sites, launcher calls, and an
// evaluator that resolves names through them (helper functions and function-like macros
// called with their arguments' values), noting the names it lacks and why.
#include "bankcheck/driver/host_launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "bankcheck/explain/cuda_source.hpp"
#include "bankcheck/explain/declarations.hpp"
#include "bankcheck/explain/evaluate.hpp"
#include "bankcheck/explain/tokens.hpp"
#include "host_code.hpp"

namespace bankcheck::driver {
namespace {

using explain::angle_backward;
using explain::angle_forward;
using explain::join;
using explain::match_backward;
using explain::match_forward;
using explain::split_commas;
using explain::Token;
using explain::tokenize;
using explain::Tokens;
using explain::TokenSpan;
using host_code::class_body;
using host_code::declares;
using host_code::expr_end;
using host_code::is_type_word;
using host_code::join_chevrons;
using host_code::punct;
using host_code::sizeof_type;

struct Function {
  std::string name;
  std::vector<std::string> params, tparams;
  std::size_t body_open = 0, body_close = 0;  // token indices of { and }
  std::size_t name_tok = 0;
  bool global = false;
  std::string cls;  // the class of a method ("" for a free function)
};

// One place where a name gets its value.
struct Binding {
  std::size_t from = 0, to = 0;  // the expression's tokens (for a dim3 constructor: the list)
  bool ctor = false;             // `dim3 b(16, 16)`: [from, to) is the argument list
};

class Reader;

// Where names are looked up: a function's body up to a token, its parameters bound to the
// arguments of one call (evaluated in the caller's scope), then the file scope.
struct Scope {
  const Function* fn = nullptr;
  std::size_t limit = 0;  // declarations before this token count
  std::map<std::string, std::pair<Binding, const Scope*>> bound;
  std::map<std::string, std::int64_t> values;  // a called function's parameters
  const Scope* caller = nullptr;
};

struct Dim {
  std::optional<std::int64_t> v[3];
};

class Reader {
 public:
  Reader(const HostSource& hs, std::string_view headers,
         const std::map<std::string, std::string>& command_line, const HostValues& host_values)
      : host_values_(host_values), origin_(hs.origin) {
    const std::string_view source = hs.text;
    // nvcc's host pass: __CUDACC__ and __NVCC__ defined, __CUDA_ARCH__ not; then the command
    // line's -D, the headers, the file, each as its taken branches leave it.
    explain::Macros macros;
    std::string predefined = "#define __CUDACC__ 1\n#define __NVCC__ 1\n#define __cplusplus 201703L\n";
    for (const auto& [k, v] : command_line) predefined += fmt::format("#define {} {}\n", k, v);
    explain::taken_branches(predefined, macros);
    const std::string htext = explain::taken_branches(headers, macros);
    const std::string stext = explain::taken_branches(source, macros);
    const std::string code = explain::code_only(stext);
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < code.size(); ++i)
      if (code[i] == '\n') line_starts_.push_back(i + 1);
    t_ = join_chevrons(tokenize(code));
    defines_ = std::move(macros.object);
    function_macros_ = std::move(macros.function);
    header_tokens_ = tokenize(explain::code_only(htext));
    owner_.assign(t_.size(), -1);
    find_functions();
  }

  std::vector<HostLaunch> launches() {
    std::vector<HostLaunch> out;
    for (std::size_t i = 0; i < t_.size(); ++i) {
      const int f = owner_[i];
      if (f < 0 || fns_[static_cast<std::size_t>(f)].global) continue;
      if (t_[i].text == "<<<") chevron_launch(i, out);
      if (t_[i].ident() &&
          (t_[i].text == "cudaLaunchKernel" || t_[i].text == "cudaLaunchKernelEx") &&
          i + 1 < t_.size() && t_[i + 1].text == "(")
        api_launch(i, out);
    }
    for (std::size_t k = 0; k < out.size(); ++k) out[k].index = static_cast<int>(k + 1);
    return out;
  }

 private:
  Tokens t_, header_tokens_;
  std::vector<std::size_t> line_starts_;
  std::map<std::string, std::string> defines_;
  std::map<std::string, explain::FunctionMacro> function_macros_;
  HostValues host_values_;
  std::vector<std::pair<std::string, int>> origin_;  // per line of the text (HostSource)
  // The names whose values an evaluation lacked, with why (HostLaunch::needs, ::why).
  std::vector<std::string> missing_;
  std::map<std::string, std::string> why_;
  std::vector<std::string> used_;  // the --host-arg names a launch's evaluation used
  std::vector<Function> fns_;
  std::vector<std::string> classes_;  // find_functions' class names of open braces
  std::vector<int> owner_;  // per token: function index, -1 namespace level, -2 other braces
  std::vector<std::unique_ptr<Scope>> scopes_;
  int depth_ = 0;
  // Names resolved and calls evaluated in all: a bound on the work of hostile input (a
  // function or macro that calls itself twice), far above what real host code needs.
  static constexpr long kMaxWork = 1'000'000;
  long work_ = 0;

  // The line of the read text (1-based), and where it comes from: the input's or an included
  // .cu's line (HostSource::origin).
  int code_line(std::size_t tok) const {
    const std::size_t pos = t_[tok].pos;
    return static_cast<int>(std::upper_bound(line_starts_.begin(), line_starts_.end(), pos) -
                            line_starts_.begin());
  }
  const std::pair<std::string, int>* origin(std::size_t tok) const {
    const auto l = static_cast<std::size_t>(code_line(tok) - 1);
    return l < origin_.size() ? &origin_[l] : nullptr;
  }
  int line_of(std::size_t tok) const {
    const auto* o = origin(tok);
    return o ? o->second : code_line(tok);
  }
  std::string file_of(std::size_t tok) const {
    const auto* o = origin(tok);
    return o ? o->first : std::string();
  }
  // "line 12" in the input, "kernels.cu:12" in an included file.
  std::string place(std::size_t tok) const {
    const std::string f = file_of(tok);
    return f.empty() ? fmt::format("line {}", line_of(tok)) : fmt::format("{}:{}", f, line_of(tok));
  }
  int col_of(std::size_t tok) const {
    const int line = code_line(tok);
    return static_cast<int>(t_[tok].pos - line_starts_[static_cast<std::size_t>(line - 1)]) + 1;
  }

  void find_functions() {
    std::vector<int> stack;  // owner for each open brace
    classes_.clear();        // the class each open brace is the body of, or ""
    for (std::size_t i = 0; i < t_.size(); ++i) {
      const std::string& s = t_[i].text;
      if (s == "{") {
        const bool top = std::all_of(stack.begin(), stack.end(), [](int o) { return o == -1; });
        int owner = -2;
        if (!stack.empty() && stack.back() >= 0) {
          owner = stack.back();
        } else if (top) {
          std::size_t p = i;
          while (p > 0 && (t_[p - 1].text == "const" || t_[p - 1].text == "noexcept" ||
                           t_[p - 1].text == "override"))
            --p;
          if (p > 0 && t_[p - 1].text == ")") {
            owner = add_function(p - 1, i);
          } else if (class_body(t_, p) || (p > 0 && t_[p - 1].text == "extern") ||
                     (p > 1 && t_[p - 2].text == "namespace") ||
                     (p > 0 && t_[p - 1].text == "namespace") ||
                     (p > 0 && t_[p - 1].text == "enum") || (p > 1 && t_[p - 2].text == "enum") ||
                     (p > 2 && t_[p - 3].text == "enum")) {
            owner = -1;
          }
        }
        stack.push_back(owner);
        classes_.push_back(owner == -1 && top ? class_body(t_, i).value_or("") : std::string());
        owner_[i] = owner >= 0 ? owner : (top ? -1 : -2);
        continue;
      }
      if (s == "}" && !stack.empty()) {
        const int o = stack.back();
        stack.pop_back();
        classes_.pop_back();
        if (o >= 0 && (stack.empty() || stack.back() < 0))
          fns_[static_cast<std::size_t>(o)].body_close = i;
        owner_[i] = o >= 0 ? o : -2;
        continue;
      }
      if (stack.empty()) {
        owner_[i] = -1;
      } else if (stack.back() >= 0) {
        owner_[i] = stack.back();
      } else {  // enum bodies are pushed as namespace level: their enumerators are constants
        owner_[i] =
            std::all_of(stack.begin(), stack.end(), [](int x) { return x == -1; }) ? -1 : -2;
      }
    }
  }

  int add_function(std::size_t close_paren, std::size_t open_brace) {
    const std::size_t open = match_backward(t_, close_paren);
    if (open == t_.size() || open == 0) return -2;
    Function f;
    f.name_tok = open - 1;
    if (open >= 3 && t_[open - 1].is(")") && t_[open - 2].is("(") && t_[open - 3].is("operator"))
      f.name_tok = open - 3;  // operator()
    else if (!t_[open - 1].ident())
      return -2;
    // A constructor's member initialiser (`G::G(int m) : M(m) {`) names no function.
    if (open >= 2 && (t_[open - 2].is(":") || t_[open - 2].is(","))) return -2;
    f.name = f.name_tok == open - 1 ? t_[open - 1].text : "operator()";
    for (auto c = classes_.rbegin(); c != classes_.rend() && f.cls.empty(); ++c) f.cls = *c;
    if (f.name_tok >= 2 && t_[f.name_tok - 1].is("::") && t_[f.name_tok - 2].ident())
      f.cls = t_[f.name_tok - 2].text;  // Class::method
    if (f.name == "__launch_bounds__") return -2;
    f.body_open = open_brace;
    for (auto [a, b] : split_commas(t_, open + 1, close_paren, true))
      f.params.push_back(
          explain::parameter_name(TokenSpan(t_).subspan(a, explain::default_value(t_, a, b) - a)));
    if (f.params.size() == 1 && f.params[0].empty()) f.params.clear();
    // The header: back to the previous ; { } at namespace level.
    for (std::size_t j = explain::declaration_start(t_, open - 1); j < open; ++j) {
      if (t_[j].text == "__global__") f.global = true;
      if (t_[j].text == "template" && j + 1 < open && t_[j + 1].text == "<")
        for (const explain::TemplateParam& p :
             explain::template_parameters(TokenSpan(t_).first(open), j + 1))
          f.tparams.push_back(p.name);
    }
    fns_.push_back(std::move(f));
    return static_cast<int>(fns_.size() - 1);
  }

  // The last declaration or assignment of `name` in tokens [from, to) of `t` whose owner
  // passes `owned`.
  std::optional<Binding> find_binding(const Tokens& t, std::size_t from, std::size_t to,
                                      const std::string& name,
                                      const std::function<bool(std::size_t)>& owned) const {
    std::optional<Binding> best;
    for (std::size_t j = from; j + 1 < to; ++j) {
      if (!t[j].ident() || t[j].text != name || !owned(j)) continue;
      if (j > 0 && (t[j - 1].text == "." || t[j - 1].text == "->" || t[j - 1].text == "::"))
        continue;
      std::size_t after = j + 1;  // `void* args[] = {...}`: the brackets skipped
      if (j > 0 && (t[j - 1].ident() || t[j - 1].text == "*"))
        while (after < to && t[after].text == "[") after = match_forward(t, after) + 1;
      if (after >= t.size()) continue;
      const std::string& n = t[after].text;
      if (n == "=" && after != j + 1) {
        best = Binding{after + 1, expr_end(t, after + 1), false};
      } else if (n == "=") {
        best = Binding{j + 2, expr_end(t, j + 2), false};
      } else if ((n == "(" || n == "{") && j > 0 &&
                 (t[j - 1].ident() || t[j - 1].text == ">" ||
                  (t[j - 1].text == "," && declares(t, j - 1))) &&
                 t[j - 1].text != "return" && t[j - 1].text != "else") {
        const std::size_t close = match_forward(t, j + 1);
        if (close < t.size() && close + 1 < t.size() &&
            (t[close + 1].text == ";" || t[close + 1].text == ","))
          best = Binding{j + 2, close, true};
      }
    }
    return best;
  }

  // Where `name` gets its value in `scope`: the function's body before the limit, the
  // call's bound parameters, the file scope, the headers. nullopt when nowhere.
  struct Found {
    Binding b;
    const Scope* scope = nullptr;  // null: file scope (main tokens) or a header
    bool header = false;
  };
  std::optional<Found> lookup(const std::string& name, const Scope* s) const {
    if (s && s->fn) {
      const Function& f = *s->fn;
      auto owned = [&](std::size_t j) { return &fns_[static_cast<std::size_t>(owner_[j])] == &f; };
      if (auto b = find_binding(t_, f.body_open + 1, std::min(s->limit, f.body_close), name,
                                [&](std::size_t j) { return owner_[j] >= 0 && owned(j); }))
        return Found{*b, s};
      if (auto it = s->bound.find(name); it != s->bound.end())
        return Found{it->second.first, it->second.second};
    }
    if (auto b =
            find_binding(t_, 0, t_.size(), name, [&](std::size_t j) { return owner_[j] == -1; }))
      return Found{*b, nullptr};
    if (auto b = find_binding(header_tokens_, 0, header_tokens_.size(), name,
                              [](std::size_t) { return true; }))
      return Found{*b, nullptr, true};
    return std::nullopt;
  }

  const Tokens& toks(const Found& f) const { return f.header ? header_tokens_ : t_; }

  // An integer expression, tokens [from, to) of `t`, in `scope`: its casts dropped (C casts
  // to scalar types, static_cast<T>, reinterpret_cast<T>), then evaluated with names resolved
  // through `operand`.
  std::optional<std::int64_t> eval_int(TokenSpan t, std::size_t from, std::size_t to,
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
      if ((t[j].is("static_cast") || t[j].is("reinterpret_cast")) && j + 1 < to &&
          t[j + 1].is("<")) {
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
    // Not a constant: the other plain names it lacks too, so that they are asked at once.
    if (!v && !missing_.empty())
      for (std::size_t j = 0; j < expr.size(); ++j) {
        const Token& k = expr[j];
        if (!k.ident() || known.count(k.text) || is_type_word(k.text) ||
            std::find(missing_.begin(), missing_.end(), k.text) != missing_.end())
          continue;
        const bool member = j > 0 && (expr[j - 1].is(".") || expr[j - 1].is("->") ||
                                      expr[j - 1].is("::") || expr[j - 1].is("sizeof"));
        const bool in_sizeof = j > 1 && expr[j - 1].is("(") && expr[j - 2].is("sizeof");
        if (member || in_sizeof) continue;
        if (j + 1 < expr.size() && (expr[j + 1].is("(") || expr[j + 1].is("::") ||
                                    expr[j + 1].is("<") || expr[j + 1].is(".")))
          continue;
        if (auto r = resolve_int(k.text, scope)) known[k.text] = *r;
      }
    --depth_;
    return v;
  }

  // The operand at e[at] (an identifier) of an expression in `scope`: true and false, std::,
  // sizeof(T), NAME.x / .y / .z of a dim3, min(a, b) and max(a, b), else a name's value.
  std::optional<explain::Operand> operand(TokenSpan e, std::size_t at, const Scope* scope,
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

  bool function_named(const std::string& name) const {
    return function_macros_.count(name) ||
           std::any_of(fns_.begin(), fns_.end(),
                       [&](const Function& f) { return !f.global && f.name == name; });
  }

  // The value of the call e[name] ... e[close] (`(` at e[open]) in `scope`: a function-like
  // macro expanded and evaluated; a function of the file evaluated (call_function); else
  // min, max and ceil_div (std::, cute::, cutlass::). nullopt for any other call.
  std::optional<std::int64_t> call_value(TokenSpan e, std::size_t name, std::size_t open,
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

  // A function of the file called with `values` (and the template arguments written at
  // e[targs], a `<`, when there): its parameters take the values, and its body is read
  // statement by statement: declarations count for the names after them, `if (c) return x;`
  // returns x when c holds, `return x;` returns x. A loop, switch or goto in the body, or a
  // return it does not reach: not evaluated.
  std::optional<std::int64_t> call_function(const Function& fn,
                                            const std::vector<std::int64_t>& values, TokenSpan e,
                                            std::size_t targs, const Scope* caller) {
    if (depth_ > 40 || ++work_ > kMaxWork) return std::nullopt;
    auto s = std::make_unique<Scope>();
    s->fn = &fn;
    for (std::size_t p = 0; p < fn.params.size(); ++p)
      if (!fn.params[p].empty()) s->values[fn.params[p]] = values[p];
    if (targs < e.size() && e[targs].is("<")) {
      const std::size_t c = angle_forward(e, targs);
      const auto ta = split_commas(e, targs + 1, std::min(c, e.size()), true);
      for (std::size_t p = 0; p < fn.tparams.size() && p < ta.size(); ++p)
        if (auto v = eval_int(e, ta[p].first, ta[p].second, caller))
          s->values[fn.tparams[p]] = *v;
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
      while (j < fn.body_close && !t_[j].is(";")) j = explain::is_close(t_[j]) ? j + 1 : expr_end(t_, j + 1);
      ++j;
    }
    --depth_;
    return result;
  }

  std::optional<std::int64_t> resolve_int(const std::string& name, const Scope* scope) {
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
      if (!v && missing_.size() == missing_before && !f->header)
        note_missing(name, fmt::format("`{}` at {}, which bankcheck does not evaluate",
                                       join(t_, f->b.from, f->b.to), place(f->b.from)));
      return v;
    }
    if (auto it = defines_.find(name); it != defines_.end()) {
      const auto tt = tokenize(it->second);
      ++depth_;
      auto v = eval_int(tt, 0, tt.size(), scope);
      --depth_;
      return v;
    }
    if (missing_.size() == missing_before) note_missing(name, unknown_reason(name, scope));
    return std::nullopt;
  }

  void note_missing(const std::string& name, std::string why) {
    if (std::find(missing_.begin(), missing_.end(), name) == missing_.end())
      missing_.push_back(name);
    why_.emplace(name, std::move(why));
  }

  // Why a name that nothing binds has no value: a launcher's parameter nobody passes, a
  // variable a runtime call writes through `&name`, or a name the file does not define.
  std::string unknown_reason(const std::string& name, const Scope* scope) const {
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

  // "set at run time by F (line L)" when tokens [from, to) pass `&name` to a call F
  // (`cudaDeviceGetAttribute(&sms, ...)`, `cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n,
  // ...)`): the call writes the value at run time.
  std::optional<std::string> written_through(const std::string& name, std::size_t from,
                                             std::size_t to) const {
    if (const auto call = host_code::address_passed(t_, name, from, to))
      return fmt::format("set at run time by {} ({})", t_[*call].text, place(*call));
    return std::nullopt;
  }

  // A dim3 expression: dim3(a, b, c), dim3{...}, {a, b}, a dim3 variable, or an integer.
  Dim eval_dim(TokenSpan t, std::size_t from, std::size_t to, const Scope* scope) {
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

  static std::optional<Dim3> to_dim3(const Dim& d) {
    for (const auto& v : d.v)
      if (!v || *v <= 0 || *v > 0x7fffffff) return std::nullopt;
    return Dim3{static_cast<std::uint32_t>(*d.v[0]), static_cast<std::uint32_t>(*d.v[1]),
                static_cast<std::uint32_t>(*d.v[2])};
  }

  // A float literal through names: "1.5f", "-2.0".
  std::optional<std::string> eval_float(const Tokens& t, std::size_t from, std::size_t to,
                                        const Scope* scope, int depth = 0) {
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

  // A pointer argument: "null", "zeros:BYTES" from the cudaMalloc of the same variable, or
  // nullopt (the default buffer).
  std::optional<std::string> eval_pointer(const Tokens& t, std::size_t from, std::size_t to,
                                          const Scope* scope, int depth = 0) {
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

  std::string describe(const Scope* s) const {
    if (!s || !s->fn) return "file scope";
    std::string out = (s->fn->cls.empty() ? "" : s->fn->cls + "::") + s->fn->name;
    if (!s->caller && s->fn->name != "main" && !s->fn->params.empty())
      out += " (which no function of the file calls)";
    if (s->caller && s->caller->fn)
      out += fmt::format(" (called from {} at {})", s->caller->fn->name,
                         place(s->caller->limit));
    return out;
  }

  // The scopes a launch in `fn` runs in: one per call of `fn` from another function (its
  // parameters bound), recursively; the bare function when nobody calls it.
  std::vector<const Scope*> scopes_for(const Function& fn, std::size_t at, int depth = 0) {
    std::vector<const Scope*> out;
    std::vector<const Scope*> callers_scopes;
    // The names a call uses: the function's, or for operator() the objects of its class
    // (`GemmLauncher launch; launch(A, B, M);`).
    std::set<std::string> names{fn.name};
    if (fn.name == "operator()") {
      names.clear();
      for (std::size_t k = 0; k + 2 < t_.size(); ++k)
        if (!fn.cls.empty() && t_[k].is(fn.cls) && t_[k + 1].ident() &&
            (t_[k + 2].is(";") || t_[k + 2].is("{") || t_[k + 2].is("=") || t_[k + 2].is("(")))
          names.insert(t_[k + 1].text);
    }
    if (depth < 4 && fn.name != "main") {
      for (std::size_t j = 0; j + 1 < t_.size(); ++j) {
        if (!t_[j].ident() || !names.count(t_[j].text) || j == fn.name_tok || owner_[j] < 0)
          continue;
        if (j > 0 && !fn.cls.empty() && t_[j - 1].is(fn.cls)) continue;  // the declaration
        const Function& caller = fns_[static_cast<std::size_t>(owner_[j])];
        if (&caller == &fn || caller.global) continue;
        std::size_t open = j + 1;
        std::vector<std::pair<std::size_t, std::size_t>> targs;
        if (t_[open].text == "<") {
          const std::size_t c = angle_forward(t_, open);
          if (c >= t_.size()) continue;
          targs = split_commas(t_, open + 1, c, true);
          open = c + 1;
        }
        if (open >= t_.size() || t_[open].text != "(") continue;
        const std::size_t close = match_forward(t_, open);
        const auto args = split_commas(t_, open + 1, close, true);
        for (const Scope* cs : scopes_for(caller, j, depth + 1)) {
          auto s = std::make_unique<Scope>();
          s->fn = &fn;
          s->limit = at;
          s->caller = cs;
          for (std::size_t p = 0; p < fn.params.size() && p < args.size(); ++p)
            if (!fn.params[p].empty())
              s->bound[fn.params[p]] = {Binding{args[p].first, args[p].second, false}, cs};
          for (std::size_t p = 0; p < fn.tparams.size() && p < targs.size(); ++p)
            if (!fn.tparams[p].empty())
              s->bound[fn.tparams[p]] = {Binding{targs[p].first, targs[p].second, false}, cs};
          // the caller scope's limit is the call
          auto c2 = std::make_unique<Scope>(*cs);
          c2->limit = j;
          s->caller = c2.get();
          for (auto& [k, v] : s->bound) v.second = c2.get();
          scopes_.push_back(std::move(c2));
          out.push_back(s.get());
          scopes_.push_back(std::move(s));
        }
      }
    }
    if (out.empty()) {
      auto s = std::make_unique<Scope>();
      s->fn = &fn;
      s->limit = at;
      out.push_back(s.get());
      scopes_.push_back(std::move(s));
    }
    return out;
  }

  // A template argument: an integer, or a type's text with template parameters replaced.
  std::string eval_targ(std::size_t from, std::size_t to, const Scope* s, bool& known) {
    if (to - from == 1 && (t_[from].text == "true" || t_[from].text == "false"))
      return t_[from].text;  // as written, and as the demangled name spells it
    if (auto v = eval_int(t_, from, to, s)) return std::to_string(*v);
    if (to - from == 1 && s)
      if (auto it = s->bound.find(t_[from].text); it != s->bound.end()) {
        const Binding& b = it->second.first;
        return eval_targ(b.from, b.to, it->second.second, known);
      }
    const std::string text = join(t_, from, to);
    // A template parameter of a launcher nobody calls stays unknown.
    for (const Scope* q = s; q && q->fn; q = q->caller)
      for (std::size_t j = from; j < to; ++j)
        if (std::find(q->fn->tparams.begin(), q->fn->tparams.end(), t_[j].text) !=
                q->fn->tparams.end() &&
            !q->bound.count(t_[j].text))
          known = false;
    return text;
  }

  void fill(HostLaunch& h, const Scope* s, std::size_t grid_a, std::size_t grid_b,
            std::size_t block_a, std::size_t block_b,
            std::optional<std::pair<std::size_t, std::size_t>> smem,
            const std::vector<std::pair<std::size_t, std::size_t>>& args) {
    h.via = describe(s);
    // The names each setting lacks, when it is unset.
    auto needs = [&](bool unset) {
      std::vector<std::string> names;
      if (unset)
        for (const auto& n : missing_) {
          names.push_back(n);
          h.why[n] = why_[n];
        }
      missing_.clear();
      return names;
    };
    missing_.clear();
    used_.clear();
    h.grid = to_dim3(eval_dim(t_, grid_a, grid_b, s));
    h.needs["grid"] = needs(!h.grid);
    h.block = to_dim3(eval_dim(t_, block_a, block_b, s));
    h.needs["block"] = needs(!h.block);
    h.grid_expr = join(t_, grid_a, grid_b);
    h.block_expr = join(t_, block_a, block_b);
    if (smem) {
      h.smem_expr = join(t_, smem->first, smem->second);
      if (auto v = eval_int(t_, smem->first, smem->second, s); v && *v >= 0)
        h.smem = static_cast<std::uint64_t>(*v);
    } else {
      h.smem = 0;
    }
    h.needs["smem"] = needs(!h.smem);
    for (auto [a, b] : args) {
      HostArg arg;
      arg.expr = join(t_, a, b);
      if (auto v = eval_int(t_, a, b, s))
        arg.value = std::to_string(*v);
      else if (auto f = eval_float(t_, a, b, s))
        arg.value = *f;
      else
        arg.value = eval_pointer(t_, a, b, s);
      arg.needs = needs(!arg.value);
      h.args.push_back(std::move(arg));
    }
    h.host_values_used = used_;
  }

  // The kernel named before position `end` (exclusive), with template arguments: the
  // tokens of its name and of its argument list.
  struct Named {
    std::string name;
    std::vector<std::pair<std::size_t, std::size_t>> targs;
    bool ok = false;
  };
  Named kernel_before(std::size_t end, std::size_t floor) const {
    Named n;
    std::size_t j = end;
    if (j > floor && t_[j - 1].text == ">") {
      const std::size_t o = angle_backward(t_, j - 1);
      if (o >= t_.size() || o <= floor) return n;
      n.targs = split_commas(t_, o + 1, j - 1, true);
      j = o;
    }
    if (j <= floor || !t_[j - 1].ident()) return n;
    std::size_t a = j - 1;
    while (a >= floor + 2 && t_[a - 1].text == "::" && t_[a - 2].ident()) a -= 2;
    n.name = join(t_, a, j);
    n.ok = true;
    return n;
  }

  void chevron_launch(std::size_t i, std::vector<HostLaunch>& out) {
    const std::size_t end = [&] {
      for (std::size_t j = i + 1; j < t_.size(); ++j)
        if (t_[j].text == ">>>") return j;
      return t_.size();
    }();
    if (end + 1 >= t_.size() || t_[end + 1].text != "(") return;
    const Function& fn = fns_[static_cast<std::size_t>(owner_[i])];
    const Named k = kernel_before(i, fn.body_open);
    if (!k.ok) return;
    const auto cfg = split_commas(t_, i + 1, end, false);
    if (cfg.size() < 2) return;
    const std::size_t close = match_forward(t_, end + 1);
    const auto args = split_commas(t_, end + 2, close, false);
    for (const Scope* s : scopes_for(fn, i)) {
      HostLaunch h;
      h.kernel = k.name;
      h.form = "<<<>>>";
      h.line = line_of(i);
      h.file = file_of(i);
      h.col = col_of(i);
      for (auto [a, b] : k.targs)
        h.template_args.push_back(eval_targ(a, b, s, h.template_args_known));
      std::optional<std::pair<std::size_t, std::size_t>> smem;
      if (cfg.size() >= 3) smem = cfg[2];
      fill(h, s, cfg[0].first, cfg[0].second, cfg[1].first, cfg[1].second, smem, args);
      out.push_back(std::move(h));
    }
  }

  // cudaLaunchKernel((void*)k, grid, block, args, smem, stream) with `void* args[] = {&a,
  // ...}`; cudaLaunchKernelEx(&config, k, a, b, ...) with config.gridDim / blockDim /
  // dynamicSmemBytes assigned.
  void api_launch(std::size_t i, std::vector<HostLaunch>& out) {
    const Function& fn = fns_[static_cast<std::size_t>(owner_[i])];
    const std::size_t close = match_forward(t_, i + 1);
    const auto parts = split_commas(t_, i + 2, close, true);
    const bool ex = t_[i].text == "cudaLaunchKernelEx";
    if (parts.size() < (ex ? 2u : 4u)) return;
    // The kernel: the last name (with template arguments) of its part.
    auto [ka, kb] = parts[ex ? 1 : 0];
    while (kb > ka && t_[kb - 1].text == ")") --kb;
    const Named k = kernel_before(kb, ka > 0 ? ka - 1 : 0);
    if (!k.ok) return;
    for (const Scope* s : scopes_for(fn, i)) {
      HostLaunch h;
      h.kernel = k.name;
      while (h.kernel.starts_with("&")) h.kernel.erase(0, 1);
      h.form = t_[i].text;
      h.line = line_of(i);
      h.file = file_of(i);
      h.col = col_of(i);
      for (auto [a, b] : k.targs)
        h.template_args.push_back(eval_targ(a, b, s, h.template_args_known));
      std::vector<std::pair<std::size_t, std::size_t>> args;
      if (!ex) {
        // the args array
        auto [aa, ab] = parts[3];
        if (ab == aa + 1 && t_[aa].ident())
          if (auto f = lookup(t_[aa].text, s);
              f && !f->header && f->b.from < t_.size() && t_[f->b.from].text == "{") {
            const std::size_t c = match_forward(t_, f->b.from);
            for (auto [x, y] : split_commas(t_, f->b.from + 1, c, true)) {
              while (x < y && (t_[x].text == "&" || t_[x].text == "(")) {
                if (t_[x].text == "(") x = match_forward(t_, x);
                ++x;
              }
              args.push_back({x, y});
            }
          }
        std::optional<std::pair<std::size_t, std::size_t>> smem;
        if (parts.size() >= 5) smem = parts[4];
        fill(h, s, parts[1].first, parts[1].second, parts[2].first, parts[2].second, smem, args);
      } else {
        for (std::size_t p = 2; p < parts.size(); ++p) args.push_back(parts[p]);
        auto [ca, cb] = parts[0];
        while (ca < cb && t_[ca].text == "&") ++ca;
        if (cb != ca + 1) continue;
        const std::string cfg = t_[ca].text;
        std::optional<std::pair<std::size_t, std::size_t>> g, b, m;
        for (std::size_t j = fn.body_open; j + 3 < i; ++j)
          if (t_[j].text == cfg && (t_[j + 1].text == "." || t_[j + 1].text == "->") &&
              t_[j + 3].text == "=") {
            const std::pair<std::size_t, std::size_t> r{j + 4, expr_end(t_, j + 4)};
            if (t_[j + 2].text == "gridDim") g = r;
            if (t_[j + 2].text == "blockDim") b = r;
            if (t_[j + 2].text == "dynamicSmemBytes") m = r;
          }
        if (!g || !b) continue;
        fill(h, s, g->first, g->second, b->first, b->second, m, args);
      }
      out.push_back(std::move(h));
    }
  }
};

}  // namespace

std::vector<HostLaunch> find_host_launches(std::string_view source, std::string_view headers,
                                           const std::map<std::string, std::string>& defines,
                                           const HostValues& host_values) {
  return find_host_launches(HostSource{std::string(source), {}}, headers, defines, host_values);
}

std::vector<HostLaunch> find_host_launches(const HostSource& source, std::string_view headers,
                                           const std::map<std::string, std::string>& defines,
                                           const HostValues& host_values) {
  try {
    Reader r(source, headers, defines, host_values);
    return r.launches();
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace bankcheck::driver
