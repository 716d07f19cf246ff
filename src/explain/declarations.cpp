// Pieces of C++ declarations over tokens (see declarations.hpp).
#include "bankcheck/explain/declarations.hpp"

#include <algorithm>
#include <string_view>

namespace bankcheck::explain {
namespace {

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

}  // namespace

bool is_attribute_call(const Token& t) {
  const std::string& s = t.text;
  return t.ident() && ((s.size() > 4 && s.starts_with("__") && s.ends_with("__")) ||
                       s == "alignas" || s == "__declspec" || s == "decltype");
}

std::string parameter_name(TokenSpan all) {
  // Drop [[attributes]] and attribute calls.
  Tokens toks;
  for (std::size_t i = 0; i < all.size();) {
    if (all[i].is("[") && i + 1 < all.size() && all[i + 1].is("[")) {
      i = past_group(all, i);
      continue;
    }
    if (is_attribute_call(all[i]) && i + 1 < all.size() && all[i + 1].is("(")) {
      i = past_group(all, i + 1);
      continue;
    }
    toks.push_back(all[i++]);
  }

  // A declarator in parentheses: void (*cb)(int), int (&a)[4].
  for (std::size_t i = 0; i + 1 < toks.size(); ++i) {
    const Token& next = toks[i + 1];
    if (toks[i].is("(") && (next.is("*") || next.is("&") || next.is("&&") || next.is("^"))) {
      const std::size_t end = past_group(toks, i);
      std::string name;
      for (std::size_t j = i + 1; j < end; ++j)
        if (toks[j].ident() && !is_type_keyword(toks[j].text)) name = toks[j].text;
      return name;
    }
  }

  // Trailing array bounds: float a[4][4].
  while (!toks.empty() && toks.back().is("]")) {
    const std::size_t open = match_backward(toks, toks.size() - 1);
    if (open >= toks.size()) break;
    toks.resize(open);
  }
  if (toks.size() < 2) return "";  // "T", "int": a type alone
  const Token& last = toks.back();
  if (!last.ident() || is_type_keyword(last.text)) return "";
  if (toks[toks.size() - 2].is("::")) return "";  // ns::Type
  // Something before the name must be a type, not only qualifiers ("const T" is unnamed).
  for (std::size_t i = 0; i + 1 < toks.size(); ++i)
    if (!is_qualifier(toks[i].text)) return last.text;
  return "";
}

std::size_t default_value(TokenSpan t, std::size_t from, std::size_t to) {
  int depth = 0, angle = 0;
  for (std::size_t e = from; e < to && e < t.size(); ++e) {
    if (is_open(t[e])) {
      ++depth;
    } else if (is_close(t[e])) {
      --depth;
    } else if (depth == 0) {
      if (t[e].is("<")) ++angle;
      angle = std::max(0, angle - angle_closes(t[e]));
      if (angle == 0 && t[e].is("=")) return e;
    }
  }
  return to;
}

std::vector<TemplateParam> template_parameters(TokenSpan t, std::size_t open) {
  const std::size_t close = angle_forward(t, open);
  if (close >= t.size()) return {};
  std::vector<TemplateParam> out;
  for (auto [a, b] : split_commas(t, open + 1, close, true)) {
    const std::size_t e = default_value(t, a, b);
    TemplateParam p;
    for (std::size_t q = a; q < e; ++q) {
      p.pack = p.pack || t[q].is("...");
      if (t[q].ident()) p.name = t[q].text;
    }
    p.type = a < e && (t[a].is("typename") || t[a].is("class") || t[a].is("template"));
    out.push_back(p);
  }
  return out;
}

std::size_t declaration_start(TokenSpan t, std::size_t at) {
  std::size_t from = std::min(at, t.size());
  while (from > 0 && !t[from - 1].is(";") && !t[from - 1].is("{") && !t[from - 1].is("}")) --from;
  return from;
}

}  // namespace bankcheck::explain
