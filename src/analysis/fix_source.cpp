// The fix advisor's view of the .cu source: `__shared__` declarations, constant
// dimensions, and the subscripts of an array on a line (for the code change to print). The
// text is read through explain's CUDA source reader and its dimensions through explain's
// evaluator.
#include "fix_source.hpp"

#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "bankcheck/analysis/fix.hpp"
#include "bankcheck/explain/cuda_source.hpp"

namespace bankcheck::analysis {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Position of `word` as a whole identifier in `s` at or after `from`, or npos.
std::size_t find_word(const std::string& s, const std::string& word, std::size_t from = 0) {
  for (std::size_t p = s.find(word, from); p != std::string::npos; p = s.find(word, p + 1)) {
    const bool left = p == 0 || !ident_char(s[p - 1]);
    const bool right = p + word.size() >= s.size() || !ident_char(s[p + word.size()]);
    if (left && right) return p;
  }
  return std::string::npos;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// The code of one source line: comments and literals blanked, columns kept.
std::string code_of(const std::string& line) {
  return explain::code_only(line, explain::Directives::Keep);
}

// The source's lines as code (a /* */ comment over several lines blanked too).
std::vector<std::string> code_of(const std::vector<std::string>& src) {
  std::string text;
  for (const auto& l : src) text += l + "\n";
  std::vector<std::string> lines = explain::code_lines(text, explain::Directives::Keep);
  lines.resize(src.size());
  return lines;
}

std::string joined(const std::vector<std::string>& src) {
  std::string text;
  for (const auto& l : src) text += l + "\n";
  return text;
}

// Where a name in a dimension is looked up: the instantiation's template arguments, then
// constants in the kernel's body (lines [first, last)), then the whole file.
struct Scope {
  std::map<std::string, std::optional<long long>> bound;  // nullopt: a parameter not bound
  std::size_t first = 0, last = 0;
};

std::optional<long long> eval_in(const std::string& expr, const std::vector<std::string>& src,
                                 const Scope& scope, int depth) {
  if (depth > 8) return std::nullopt;
  const auto v =
      explain::eval_constant(expr, [&](const std::string& name) -> std::optional<std::int64_t> {
        if (auto it = scope.bound.find(name); it != scope.bound.end())
          return it->second ? std::optional<std::int64_t>(*it->second) : std::nullopt;
        auto def = definition_in(name, src, scope.first, scope.last);
        if (!def) def = definition(name, src);
        if (!def) return std::nullopt;
        const auto value = eval_in(*def, src, scope, depth + 1);
        return value ? std::optional<std::int64_t>(*value) : std::nullopt;
      });
  if (v) return static_cast<long long>(*v);
  return std::nullopt;
}

// The top-level comma-separated parts of `text`, each trimmed (brackets of any kind nest).
std::vector<std::string> top_level_parts(const std::string& text) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : text) {
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
  return out;
}

// The value of a demangled non-type template argument: "32", "64u", "8ul", "-1",
// "(unsigned char)3", "true"; nullopt for a type ("float") or anything else.
std::optional<long long> template_value(std::string a) {
  std::erase(a, ' ');
  if (a == "true") return 1;
  if (a == "false") return 0;
  if (a.starts_with("(")) {
    const auto c = a.find(')');
    if (c == std::string::npos) return std::nullopt;
    a = a.substr(c + 1);
  }
  while (!a.empty() && (a.back() == 'u' || a.back() == 'l' || a.back() == 'U' || a.back() == 'L'))
    a.pop_back();
  if (a.empty()) return std::nullopt;
  std::size_t used = 0;
  try {
    const long long v = std::stoll(a, &used, 0);
    if (used == a.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

KernelName split_kernel_name(const std::string& name) {
  KernelName k;
  std::string base = name;
  if (!base.empty() && base.back() == '>') {
    int depth = 0;
    for (std::size_t i = base.size(); i-- > 0;) {
      if (base[i] == '>') ++depth;
      if (base[i] == '<' && --depth == 0) {
        k.args = top_level_parts(base.substr(i + 1, base.size() - i - 2));
        k.has_args = true;
        base = base.substr(0, i);
        break;
      }
    }
  }
  const auto colons = base.rfind("::");
  k.base = trim(colons == std::string::npos ? base : base.substr(colons + 2));
  return k;
}

std::vector<TemplateParam> template_params(const std::vector<std::string>& src, int line,
                                           std::size_t col) {
  const std::vector<std::string> code = code_of(src);
  std::string text;
  for (int i = 0; i < line && static_cast<std::size_t>(i) < code.size(); ++i)
    text += code[i] + "\n";
  if (static_cast<std::size_t>(line) < code.size())
    text += code[static_cast<std::size_t>(line)].substr(0, col);
  // The declaration's start: after the previous ; { or } (a template header has none).
  const auto h = text.find_last_of(";{}");
  const std::size_t from = h == std::string::npos ? 0 : h + 1;
  const std::size_t t = find_word(text, "template", from);
  if (t == std::string::npos) return {};
  const std::size_t open = text.find('<', t);
  if (open == std::string::npos) return {};
  int depth = 0;
  std::size_t close = open;
  for (; close < text.size(); ++close) {
    if (text[close] == '<' || text[close] == '(') ++depth;
    if (text[close] == '>' || text[close] == ')') --depth;
    if (depth == 0) break;
  }
  if (close >= text.size()) return {};
  std::vector<TemplateParam> out;
  for (std::string p : top_level_parts(text.substr(open + 1, close - open - 1))) {
    TemplateParam tp;
    int d = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {  // the default value goes
      if (p[i] == '<' || p[i] == '(') ++d;
      if (p[i] == '>' || p[i] == ')') --d;
      if (p[i] == '=' && d == 0) {
        p = trim(p.substr(0, i));
        break;
      }
    }
    tp.pack = p.find("...") != std::string::npos;
    tp.type = p.starts_with("typename") || p.starts_with("class") || p.starts_with("template");
    std::size_t e = p.size();
    while (e > 0 && !ident_char(p[e - 1])) --e;
    std::size_t b = e;
    while (b > 0 && ident_char(p[b - 1])) --b;
    tp.name = p.substr(b, e - b);
    out.push_back(tp);
  }
  return out;
}

std::optional<std::string> definition(const std::string& name,
                                      const std::vector<std::string>& src) {
  return definition_in(name, src, 0, src.size());
}

std::optional<std::string> definition_in(const std::string& name,
                                         const std::vector<std::string>& src, std::size_t first,
                                         std::size_t last) {
  const std::vector<std::string> code = code_of(src);
  std::optional<std::map<std::string, std::string>> defines;  // read at the first directive
  for (std::size_t i = first; i < last && i < code.size(); ++i) {
    const std::string& line = code[i];
    const std::string t = trim(line);
    if (!t.empty() && t[0] == '#') {
      if (!defines) defines = explain::object_defines(joined(src));
      const std::size_t d = find_word(t, "define");
      if (d != std::string::npos && find_word(t, name, d) != std::string::npos)
        if (auto it = defines->find(name); it != defines->end()) return it->second;
      continue;
    }
    if (find_word(line, "const") == std::string::npos &&
        find_word(line, "constexpr") == std::string::npos &&
        find_word(line, "enum") == std::string::npos)
      continue;
    const std::size_t at = find_word(line, name);
    if (at == std::string::npos) continue;
    std::size_t p = at + name.size();
    while (p < line.size() && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
    if (p >= line.size() || line[p] != '=' || (p + 1 < line.size() && line[p + 1] == '=')) continue;
    ++p;
    int depth = 0;
    std::size_t q = p;
    for (; q < line.size(); ++q) {
      if (line[q] == '(') ++depth;
      if (line[q] == ')') --depth;
      if (depth == 0 && (line[q] == ',' || line[q] == ';' || line[q] == '}')) break;
    }
    return trim(line.substr(p, q - p));
  }
  return std::nullopt;
}

std::optional<long long> eval_constant(const std::string& expr,
                                       const std::vector<std::string>& source_lines) {
  return eval_in(expr, source_lines, Scope{}, 0);
}
std::vector<Subscripted> find_subscripts(const std::string& line, const std::string& name) {
  std::vector<Subscripted> out;
  const std::string code = code_of(line);
  for (std::size_t p = find_word(code, name); p != std::string::npos;
       p = find_word(code, name, p + 1)) {
    // Skip member accesses (s.tile) and declarations are handled by the caller.
    std::size_t q = p + name.size();
    Subscripted sub;
    sub.begin = p;
    while (true) {
      std::size_t r = q;
      while (r < code.size() && std::isspace(static_cast<unsigned char>(code[r]))) ++r;
      if (r >= code.size() || code[r] != '[') break;
      int depth = 0;
      std::size_t e = r;
      for (; e < code.size(); ++e) {
        if (code[e] == '[' || code[e] == '(') ++depth;
        if (code[e] == ']' || code[e] == ')') {
          --depth;
          if (depth == 0) break;
        }
      }
      if (e >= code.size()) break;
      sub.index.push_back(trim(code.substr(r + 1, e - r - 1)));
      q = e + 1;
    }
    sub.end = q;
    if (!sub.index.empty()) out.push_back(sub);
  }
  return out;
}

std::optional<SharedDecl> find_shared_decl(const std::vector<std::string>& src,
                                           const std::string& kernel, const std::string& name,
                                           const std::function<bool(const SharedDecl&)>& accept) {
  const std::vector<std::string> code_lines = code_of(src);
  const KernelName kn = split_kernel_name(kernel);
  // The kernel's definition line: `__global__` on it or on one of the two before.
  std::size_t start = src.size(), stop = src.size(), name_col = 0;
  for (std::size_t i = 0; i < src.size() && start == src.size(); ++i) {
    const std::string& code = code_lines[i];
    const std::size_t at = find_word(code, kn.base);
    if (at == std::string::npos) continue;
    std::size_t p = at + kn.base.size();
    while (p < code.size() && std::isspace(static_cast<unsigned char>(code[p]))) ++p;
    if (p < code.size() && code[p] != '(' && code[p] != '<') continue;
    for (std::size_t j = i >= 2 ? i - 2 : 0; j <= i; ++j)
      if (find_word(code_lines[j], "__global__") != std::string::npos) {
        start = i;
        name_col = at;
      }
  }
  if (start < src.size())
    for (std::size_t i = start + 1; i < src.size(); ++i)
      if (find_word(code_lines[i], "__global__") != std::string::npos) {
        stop = i;
        break;
      }
  // Inside the kernel, names mean its own constants and, for a template, the arguments of
  // the instantiation checked ("transpose_t<32>" binds W = 32).
  Scope kernel_scope;
  if (start < src.size()) {
    kernel_scope.first = start;
    kernel_scope.last = stop;
    // A parameter without a value (no arguments given, a pack) hides any other meaning of
    // its name: another kernel's constant of that name is not it.
    const auto params = template_params(src, static_cast<int>(start), name_col);
    bool pack = false;
    for (std::size_t a = 0; a < params.size(); ++a) {
      pack = pack || params[a].pack;
      if (params[a].name.empty()) continue;
      kernel_scope.bound[params[a].name] = !pack && !params[a].type && a < kn.args.size()
                                               ? template_value(kn.args[a])
                                               : std::nullopt;
    }
  }
  // A declaration in a __device__ function template the kernel calls with explicit
  // arguments (`mma_tile<4>(...)`, or the kernel's own parameters): the function's
  // parameters bound to them, when every such call in the kernel gives the same values.
  auto helper_scope = [&](std::size_t i) {
    Scope scope;
    if (start >= src.size()) return scope;
    std::size_t header = src.size(), fn_col = 0;
    std::string fn;
    for (std::size_t j = i + 1; j-- > 0 && header == src.size();) {
      const std::string& code = code_lines[j];
      if (find_word(code, "__global__") != std::string::npos) break;  // another kernel's
      const std::size_t dev = find_word(code, "__device__");
      const std::size_t paren = dev == std::string::npos ? dev : code.find('(', dev);
      if (paren == std::string::npos) continue;
      std::size_t e = paren;
      while (e > dev && std::isspace(static_cast<unsigned char>(code[e - 1]))) --e;
      std::size_t b = e;
      while (b > dev && ident_char(code[b - 1])) --b;
      if (b == e) continue;
      header = j;
      fn_col = b;
      fn = code.substr(b, e - b);
    }
    if (header == src.size()) return scope;
    const auto params = template_params(src, static_cast<int>(header), fn_col);
    if (params.empty()) return scope;
    std::optional<std::vector<std::optional<long long>>> values;
    bool agree = true;
    for (std::size_t k = start; k < stop && agree; ++k) {
      const std::string& code = code_lines[k];
      for (std::size_t at = find_word(code, fn); at != std::string::npos && agree;
           at = find_word(code, fn, at + 1)) {
        std::size_t lt = at + fn.size();
        while (lt < code.size() && std::isspace(static_cast<unsigned char>(code[lt]))) ++lt;
        if (lt >= code.size() || code[lt] != '<') continue;
        int depth = 0;
        std::size_t gt = lt;
        for (; gt < code.size(); ++gt) {
          if (code[gt] == '<' || code[gt] == '(') ++depth;
          if ((code[gt] == '>' || code[gt] == ')') && --depth == 0) break;
        }
        if (gt >= code.size()) continue;
        std::vector<std::optional<long long>> here;
        for (const auto& arg : top_level_parts(code.substr(lt + 1, gt - lt - 1)))
          here.push_back(eval_in(arg, src, kernel_scope, 0));
        if (values && *values != here) agree = false;
        values = here;
      }
    }
    if (!values || !agree) return scope;
    scope.first = header;
    scope.last = i + 1;
    for (std::size_t a = 0; a < params.size(); ++a)
      if (!params[a].name.empty())
        scope.bound[params[a].name] =
            !params[a].type && !params[a].pack && a < values->size() ? (*values)[a] : std::nullopt;
    return scope;
  };
  auto decl_at = [&](std::size_t i) -> std::optional<SharedDecl> {
    const std::string& code = code_lines[i];
    const std::size_t sh = find_word(code, "__shared__");
    if (sh == std::string::npos) return std::nullopt;
    const std::size_t at = find_word(code, name, sh);
    if (at == std::string::npos) return std::nullopt;
    SharedDecl d;
    d.line = static_cast<int>(i) + 1;
    d.text = src[i];
    d.name = name;
    // The type: the words between __shared__ and the name (qualifiers dropped).
    std::string between = code.substr(sh + 10, at - sh - 10);
    for (const char* q : {"volatile", "static", "extern", "const", "__align__"}) {
      for (std::size_t p = find_word(between, q); p != std::string::npos; p = find_word(between, q))
        between.erase(p, std::char_traits<char>::length(q));
    }
    d.type = trim(std::regex_replace(between, std::regex("\\(\\s*\\d+\\s*\\)"), ""));
    const auto subs = find_subscripts(code.substr(0, code.find(';', at)), name);
    for (const auto& s : subs)
      if (s.begin == at) {
        d.dims = s.index;
        // The last bracket's text range.
        std::size_t close = s.end - 1;  // the last ']'
        std::size_t open = code.rfind('[', close);
        int depth = 0;
        for (std::size_t k = close + 1; k-- > at;) {
          if (code[k] == ']') ++depth;
          if (code[k] == '[' && --depth == 0) {
            open = k;
            break;
          }
        }
        d.last_dim_begin = open + 1;
        d.last_dim_end = close;
      }
    if (d.dims.empty()) return std::nullopt;
    const bool in_kernel = i >= start && i < stop;
    const Scope scope = in_kernel ? kernel_scope : helper_scope(i);
    for (const auto& e : d.dims)
      d.dim_values.push_back(e.empty() ? -1 : eval_in(e, src, scope, 0).value_or(-1));
    if (accept && !accept(d)) return std::nullopt;
    return d;
  };
  if (start < src.size())
    for (std::size_t i = start; i < stop; ++i)
      if (auto d = decl_at(i)) return d;
  for (std::size_t i = 0; i < src.size(); ++i)
    if (auto d = decl_at(i)) return d;
  return std::nullopt;
}

}  // namespace bankcheck::analysis
