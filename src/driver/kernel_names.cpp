// Kernel names: demangling PTX entry names, matching them against what a user types, and
// reading a kernel's parameter names from its CUDA source.
#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "bankcheck/driver/launch.hpp"
#include "bankcheck/explain/cuda_source.hpp"

namespace bankcheck::driver {
namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The part after the last "::" outside <...> and (...): "ns::k<a::b>" -> "k<a::b>",
// "(anonymous namespace)::f" -> "f".
std::string_view unqualified(std::string_view name) {
  int paren = 0, angle = 0;
  std::size_t cut = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '(')
      ++paren;
    else if (c == ')')
      --paren;
    else if (paren == 0 && c == '<')
      ++angle;
    else if (paren == 0 && c == '>')
      --angle;
    else if (paren == 0 && angle == 0 && c == ':' && i + 1 < name.size() && name[i + 1] == ':')
      cut = i + 2;
  }
  return name.substr(cut);
}

// Drops a trailing template argument list: "ns::k<int>" -> "ns::k".
std::string_view without_template_args(std::string_view name) {
  if (!name.ends_with('>')) return name;
  int paren = 0, angle = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    char c = name[i];
    if (c == ')')
      ++paren;
    else if (c == '(')
      --paren;
    else if (paren == 0 && c == '>')
      ++angle;
    else if (paren == 0 && c == '<' && --angle == 0)
      return name.substr(0, i);
  }
  return name;
}

// Blanks kept only between two identifier characters ("unsigned int"), one of them.
std::string squeeze_blanks(std::string_view s) {
  std::string out;
  bool pending = false;
  for (char c : s) {
    if (is_space(c)) {
      pending = true;
      continue;
    }
    if (pending && !out.empty() && is_ident_char(out.back()) && is_ident_char(c)) out += ' ';
    pending = false;
    out += c;
  }
  return out;
}

// ---- Source scanning for kernel_param_names ----

std::vector<std::string_view> tokenize(std::string_view code) {
  std::vector<std::string_view> toks;
  std::size_t i = 0;
  const std::size_t n = code.size();
  while (i < n) {
    char c = code[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    if (is_ident_start(c)) {
      while (j < n && is_ident_char(code[j])) ++j;
    } else if (c >= '0' && c <= '9') {
      while (j < n &&
             (is_ident_char(code[j]) || code[j] == '.' || code[j] == '\'' ||
              ((code[j] == '+' || code[j] == '-') && (code[j - 1] == 'e' || code[j - 1] == 'E' ||
                                                      code[j - 1] == 'p' || code[j - 1] == 'P'))))
        ++j;
    } else if (code.substr(i).starts_with("::") || code.substr(i).starts_with("&&") ||
               code.substr(i).starts_with("->")) {
      j = i + 2;
    } else if (code.substr(i).starts_with("...")) {
      j = i + 3;
    }
    toks.push_back(code.substr(i, j - i));
    i = j;
  }
  return toks;
}

// Index just past the group that opens at toks[i] ("(", "[", "{" or "<"), or toks.size().
// Angle brackets count only outside parentheses.
std::size_t skip_group(const std::vector<std::string_view>& toks, std::size_t i) {
  int paren = 0, angle = 0;
  for (std::size_t j = i; j < toks.size(); ++j) {
    std::string_view t = toks[j];
    if (t == "(" || t == "[" || t == "{")
      ++paren;
    else if (t == ")" || t == "]" || t == "}")
      --paren;
    else if (paren == 0 && t == "<")
      ++angle;
    else if (paren == 0 && t == ">")
      --angle;
    if (paren == 0 && angle == 0) return j + 1;
    if (paren < 0) return j;  // unbalanced: stop at the closer
  }
  return toks.size();
}

bool is_identifier(std::string_view t) { return !t.empty() && is_ident_start(t.front()); }

// Words that can end a parameter declaration without being its name.
bool is_type_keyword(std::string_view t) {
  static constexpr std::string_view kWords[] = {
      "void",   "bool",  "char",     "char8_t",  "char16_t",   "char32_t",     "wchar_t",
      "short",  "int",   "long",     "signed",   "unsigned",   "float",        "double",
      "auto",   "const", "volatile", "restrict", "__restrict", "__restrict__", "__grid_constant__",
      "struct", "class", "union",    "enum",     "typename",   "register"};
  for (auto w : kWords)
    if (t == w) return true;
  return false;
}

// Qualifiers that do not make a type by themselves ("const T" names nothing).
bool is_qualifier(std::string_view t) {
  return t == "const" || t == "volatile" || t == "restrict" || t == "__restrict" ||
         t == "__restrict__" || t == "__grid_constant__" || t == "struct" || t == "class" ||
         t == "union" || t == "enum" || t == "typename" || t == "register";
}

// Attribute-like names followed by a parenthesised argument: __launch_bounds__(256),
// __align__(16), __attribute__((x)), alignas(16), ...
bool is_attribute_call(std::string_view t) {
  return (t.size() > 4 && t.starts_with("__") && t.ends_with("__")) || t == "alignas" ||
         t == "__declspec" || t == "decltype";
}

// The name declared by one parameter (tokens without the default value); "" if none.
std::string param_name(std::vector<std::string_view> toks) {
  // Drop [[attributes]] and attribute calls.
  std::vector<std::string_view> kept;
  for (std::size_t i = 0; i < toks.size();) {
    if (toks[i] == "[" && i + 1 < toks.size() && toks[i + 1] == "[") {
      i = skip_group(toks, i);
      continue;
    }
    if (is_attribute_call(toks[i]) && i + 1 < toks.size() && toks[i + 1] == "(") {
      i = skip_group(toks, i + 1);
      continue;
    }
    kept.push_back(toks[i++]);
  }
  toks = std::move(kept);

  // A declarator in parentheses: void (*cb)(int), int (&a)[4].
  for (std::size_t i = 0; i + 1 < toks.size(); ++i) {
    if (toks[i] == "(" &&
        (toks[i + 1] == "*" || toks[i + 1] == "&" || toks[i + 1] == "&&" || toks[i + 1] == "^")) {
      std::size_t end = skip_group(toks, i);
      std::string name;
      for (std::size_t j = i + 1; j < end; ++j)
        if (is_identifier(toks[j]) && !is_type_keyword(toks[j])) name = std::string(toks[j]);
      return name;
    }
  }

  // Trailing array bounds: float a[4][4].
  while (!toks.empty() && toks.back() == "]") {
    std::size_t open = toks.size();
    int depth = 0;
    while (open-- > 0) {
      if (toks[open] == "]")
        ++depth;
      else if (toks[open] == "[" && --depth == 0)
        break;
    }
    if (open >= toks.size()) break;
    toks.resize(open);
  }
  if (toks.size() < 2) return "";  // "T", "int": a type alone
  std::string_view last = toks.back();
  if (!is_identifier(last) || is_type_keyword(last)) return "";
  if (toks[toks.size() - 2] == "::") return "";  // ns::Type
  // Something before the name must be a type, not only qualifiers ("const T" is unnamed).
  for (std::size_t i = 0; i + 1 < toks.size(); ++i)
    if (!is_qualifier(toks[i])) return std::string(last);
  return "";
}

struct Candidate {
  std::vector<std::string> names;
  bool definition = false;
};

// Reads the parameter list that opens at toks[open] ("(") and what follows it.
Candidate read_candidate(const std::vector<std::string_view>& toks, std::size_t open) {
  Candidate cand;
  std::size_t close = skip_group(toks, open) - 1;  // index of ")"
  std::vector<std::vector<std::string_view>> params(1);
  bool in_default = false;
  int depth = 0, angle = 0;
  for (std::size_t j = open + 1; j < close; ++j) {
    std::string_view t = toks[j];
    if (t == "(" || t == "[" || t == "{")
      ++depth;
    else if (t == ")" || t == "]" || t == "}")
      --depth;
    else if (depth == 0 && !in_default && t == "<")
      ++angle;
    else if (depth == 0 && !in_default && t == ">")
      --angle;
    if (depth == 0 && angle <= 0 && t == ",") {
      params.emplace_back();
      in_default = false;
      angle = 0;
      continue;
    }
    if (depth == 0 && angle <= 0 && t == "=") in_default = true;
    if (!in_default) params.back().push_back(t);
  }
  bool no_params = params.size() == 1 &&
                   (params[0].empty() || (params[0].size() == 1 && params[0][0] == "void"));
  if (!no_params)
    for (auto& p : params) cand.names.push_back(param_name(p));

  for (std::size_t j = close + 1; j < toks.size(); ++j) {
    if (toks[j] == "{") {
      cand.definition = true;
      break;
    }
    if (toks[j] == ";" || toks[j] == "}" || toks[j] == "=") break;
    if (toks[j] == "(") j = skip_group(toks, j) - 1;
  }
  return cand;
}

}  // namespace

std::string demangle(const std::string& name) {
  // Only _Z names: __cxa_demangle also reads bare type encodings ("i" -> "int").
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || out == nullptr) return name;
  return out.get();
}

std::string base_name(const std::string& demangled) {
  std::string_view s = trim(demangled);
  if (!s.ends_with(')')) return std::string(s);
  // The '(' that opens the final parameter list.
  int depth = 0;
  std::size_t open = std::string_view::npos;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')')
      ++depth;
    else if (s[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos || open == 0) return std::string(s);
  // Back to the blank that ends the return type, outside <...> and (...).
  int paren = 0, angle = 0;
  std::size_t begin = 0;
  for (std::size_t i = open; i-- > 0;) {
    char c = s[i];
    if (c == ')')
      ++paren;
    else if (c == '(')
      --paren;
    else if (paren == 0 && c == '>')
      ++angle;
    else if (paren == 0 && c == '<')
      --angle;
    else if (paren == 0 && angle == 0 && c == ' ') {
      begin = i + 1;
      break;
    }
  }
  return std::string(trim(s.substr(begin, open - begin)));
}

bool kernel_matches(const std::string& mangled, const std::string& wanted) {
  const std::string want = squeeze_blanks(wanted);
  if (want.empty()) return false;
  if (want == mangled) return true;
  const std::string full = demangle(mangled);
  const std::string base = base_name(full);
  const std::string_view short_name = unqualified(base);
  for (std::string_view form :
       {std::string_view(full), std::string_view(base), without_template_args(base), short_name,
        without_template_args(short_name)})
    if (squeeze_blanks(form) == want) return true;
  return false;
}

std::vector<std::string> kernel_param_names(std::string_view source_text,
                                            std::string_view kernel_base) {
  const std::string wanted_full = base_name(std::string(kernel_base));
  const std::string wanted(trim(without_template_args(unqualified(wanted_full))));
  if (wanted.empty()) return {};

  const std::string code = explain::code_only(source_text);
  const std::vector<std::string_view> toks = tokenize(code);
  std::vector<Candidate> found;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    if (toks[i] != "__global__") continue;
    // Forward to the first NAME( or NAME<...>( that is not an attribute call.
    for (std::size_t j = i + 1; j < toks.size();) {
      std::string_view t = toks[j];
      if (t == ";" || t == "{" || t == "}" || t == ")") break;
      if (t == "[" || t == "(") {
        j = skip_group(toks, j);
        continue;
      }
      if (!is_identifier(t) || j + 1 >= toks.size()) {
        ++j;
        continue;
      }
      std::string_view next = toks[j + 1];
      if (next == "(" && is_attribute_call(t)) {
        j = skip_group(toks, j + 1);
        continue;
      }
      std::size_t open = std::string_view::npos;
      std::size_t after = j + 1;
      if (next == "(") {
        open = j + 1;
      } else if (next == "<") {
        after = skip_group(toks, j + 1);
        if (after < toks.size() && toks[after] == "(") open = after;
      }
      if (open != std::string_view::npos) {
        if (t == wanted) found.push_back(read_candidate(toks, open));
        break;
      }
      j = after;
    }
  }

  std::vector<const Candidate*> defs, decls;
  for (const auto& c : found) (c.definition ? defs : decls).push_back(&c);
  if (defs.size() == 1) return defs[0]->names;
  if (!defs.empty() || decls.empty()) return {};
  // Declarations only (prototypes, explicit instantiations): they must agree.
  std::vector<std::string> names = decls[0]->names;
  for (const Candidate* d : decls) {
    if (d->names.size() != names.size()) return {};
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (names[k].empty())
        names[k] = d->names[k];
      else if (!d->names[k].empty() && d->names[k] != names[k])
        return {};
    }
  }
  return names;
}

}  // namespace bankcheck::driver
