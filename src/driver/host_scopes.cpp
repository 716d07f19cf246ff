// The host-code reader's scopes: the file's functions (free, methods, operator()), their
// parameters and template parameters, where a name gets its value (the last declaration or
// assignment before a point of a function, a call's bound arguments, the file scope, the
// headers), and the scopes a launch runs in, one per call of its launcher.
#include <algorithm>
#include <set>

#include "bankcheck/explain/declarations.hpp"
#include "host_reader.hpp"

namespace bankcheck::driver::host_code {

using explain::angle_backward;
using explain::angle_forward;
using explain::join;
using explain::match_backward;
using explain::match_forward;
using explain::split_commas;
using explain::tokenize;

Reader::Reader(const HostSource& hs, std::string_view headers,
               const std::map<std::string, std::string>& command_line,
               const HostValues& host_values)
    : host_values_(host_values), origin_(hs.origin) {
  const std::string_view source = hs.text;
  // nvcc's host pass: __CUDACC__ and __NVCC__ defined, __CUDA_ARCH__ not; then the command
  // line's -D, the headers, the file, each as its taken branches leave it.
  explain::Macros macros;
  std::string predefined =
      "#define __CUDACC__ 1\n#define __NVCC__ 1\n#define __cplusplus 201703L\n";
  for (const auto& [k, v] : command_line) predefined += fmt::format("#define {} {}\n", k, v);
  explain::taken_branches(predefined, macros);
  const std::string htext = explain::taken_branches(headers, macros);
  const std::string stext = explain::taken_branches(source, macros);
  text_ = stext;
  code_ = explain::code_only(stext);
  const std::string& code = code_;
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

void Reader::find_functions() {
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
      owner_[i] = std::all_of(stack.begin(), stack.end(), [](int x) { return x == -1; }) ? -1 : -2;
    }
  }
}

int Reader::add_function(std::size_t close_paren, std::size_t open_brace) {
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
  for (auto [a, b] : split_commas(t_, open + 1, close_paren, true)) {
    const std::size_t d = explain::default_value(t_, a, b);
    f.params.push_back(explain::parameter_name(TokenSpan(t_).subspan(a, d - a)));
    f.param_defaults.push_back(d < b ? std::make_pair(d + 1, b) : std::make_pair(b, b));
  }
  for (std::size_t j = open + 1; j < close_paren; ++j)
    if (owner_[j] == -1) owner_[j] = -3;
  if (f.params.size() == 1 && f.params[0].empty()) {
    f.params.clear();
    f.param_defaults.clear();
  }
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

std::optional<Binding> Reader::find_binding(const Tokens& t, std::size_t from, std::size_t to,
                                            const std::string& name,
                                            const std::function<bool(std::size_t)>& owned) const {
  std::optional<Binding> best;
  for (std::size_t j = from; j + 1 < to; ++j) {
    if (!t[j].ident() || t[j].text != name || !owned(j)) continue;
    if (j > 0 && (t[j - 1].text == "." || t[j - 1].text == "->" || t[j - 1].text == "::")) continue;
    std::size_t after = j + 1;  // `void* args[] = {...}`: the brackets skipped
    if (j > 0 && (t[j - 1].ident() || t[j - 1].text == "*"))
      while (after < to && t[after].text == "[") after = match_forward(t, after) + 1;
    if (after >= t.size()) continue;
    const std::string& n = t[after].text;
    // `const char* s = getenv("N")` (or `*p = 4`): no integer to evaluate or to ask for.
    const bool pointer = j > 0 && t[j - 1].is("*");
    if (n == "=" && after != j + 1) {
      best = Binding{after + 1, expr_end(t, after + 1), false, pointer};
    } else if (n == "=") {
      best = Binding{j + 2, expr_end(t, j + 2), false, pointer};
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

std::optional<Reader::Found> Reader::lookup(const std::string& name, const Scope* s) const {
  if (s && s->fn) {
    const Function& f = *s->fn;
    auto owned = [&](std::size_t j) { return &fns_[static_cast<std::size_t>(owner_[j])] == &f; };
    if (auto b = find_binding(t_, f.body_open + 1, std::min(s->limit, f.body_close), name,
                              [&](std::size_t j) { return owner_[j] >= 0 && owned(j); }))
      return Found{*b, s};
    if (auto it = s->bound.find(name); it != s->bound.end())
      return Found{it->second.first, it->second.second};
  }
  if (auto b = find_binding(t_, 0, t_.size(), name, [&](std::size_t j) { return owner_[j] == -1; }))
    return Found{*b, nullptr};
  if (auto b = find_binding(header_tokens_, 0, header_tokens_.size(), name,
                            [](std::size_t) { return true; }))
    return Found{*b, nullptr, true};
  return std::nullopt;
}

std::string Reader::describe(const Scope* s) const {
  if (!s || !s->fn) return "file scope";
  std::string out = (s->fn->cls.empty() ? "" : s->fn->cls + "::") + s->fn->name;
  if (!s->caller && s->fn->name != "main" && !s->fn->params.empty())
    out += " (which no function of the file calls)";
  if (s->caller && s->caller->fn)
    out += fmt::format(" (called from {} at {})", s->caller->fn->name, place(s->caller->limit));
  return out;
}

std::vector<const Scope*> Reader::scopes_for(const Function& fn, std::size_t at, int depth) {
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
      if (!t_[j].ident() || !names.count(t_[j].text) || j == fn.name_tok || owner_[j] < 0) continue;
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

std::string Reader::written(std::size_t from, std::size_t to) const {
  if (from >= to || to > t_.size()) return {};
  const std::size_t begin = t_[from].pos, end = t_[to - 1].pos + t_[to - 1].text.size();
  if (begin >= end || end > text_.size()) return join(t_, from, to);
  // The file's text, whose literals code_ blanked (`getenv("N")`), without its comments.
  std::string out;
  char quote = 0;
  for (std::size_t i = begin; i < end; ++i) {
    char c = text_[i];
    if (quote) {
      if (c == '\\' && i + 1 < end) {
        out += c;
        c = text_[++i];
      } else if (c == quote) {
        quote = 0;
      }
      out += c;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c == '/' && i + 1 < end && (text_[i + 1] == '/' || text_[i + 1] == '*')) {
      const bool line = text_[i + 1] == '/';
      const std::size_t close = line ? text_.find('\n', i) : text_.find("*/", i + 2);
      i = close == std::string::npos ? end : close + (line ? 0 : 1);
      c = ' ';
    }
    const bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!blank)
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace bankcheck::driver::host_code
