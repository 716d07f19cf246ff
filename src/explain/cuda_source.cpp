// The one reader of CUDA C++ source text: code apart from comments, literals and
// directives; object-like macros; integer constants through the token evaluator.
#include "bankcheck/explain/cuda_source.hpp"

#include <algorithm>

#include "bankcheck/explain/evaluate.hpp"
#include "bankcheck/explain/tokens.hpp"

namespace bankcheck::explain {

std::string code_only(std::string_view src, Directives directives) {
  std::string out(src);
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  bool line_start = true;  // only blanks so far on this line
  std::size_t i = 0;
  const std::size_t n = src.size();
  while (i < n) {
    char c = src[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (line_start && c == '#' && directives == Directives::Blank) {
      // A directive, with backslash continuations.
      std::size_t j = i;
      while (j < n && !(src[j] == '\n' && (j == 0 || src[j - 1] != '\\'))) ++j;
      blank(i, j);
      i = j;
      continue;
    }
    if (!is_blank(c)) line_start = false;
    if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      std::size_t j = src.find('\n', i);
      if (j == std::string_view::npos) j = n;
      blank(i, j);
      i = j;
      continue;
    }
    if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      std::size_t j = src.find("*/", i + 2);
      j = j == std::string_view::npos ? n : j + 2;
      blank(i, j);
      i = j;
      continue;
    }
    if (c == '"' && i > 0 && src[i - 1] == 'R' &&
        (i < 2 || !is_ident_char(src[i - 2]) || src[i - 2] == '8' || src[i - 2] == 'u' ||
         src[i - 2] == 'U' || src[i - 2] == 'L')) {
      // Raw string R"delim( ... )delim".
      std::size_t open = src.find('(', i);
      if (open != std::string_view::npos) {
        std::string close = ")";  // appended piecewise: GCC 12's -Wrestrict
        close.append(src.substr(i + 1, open - i - 1)) += '"';
        std::size_t j = src.find(close, open);
        j = j == std::string_view::npos ? n : j + close.size();
        blank(i, j);
        i = j;
        continue;
      }
    }
    if (c == '"' || c == '\'') {
      if (c == '\'' && i > 0 && is_ident_char(src[i - 1])) {
        // A digit separator (1'000) when the token it is in starts with a digit.
        std::size_t t = i;
        while (t > 0 && (is_ident_char(src[t - 1]) || src[t - 1] == '\'')) --t;
        if (src[t] >= '0' && src[t] <= '9') {
          ++i;
          continue;
        }
      }
      std::size_t j = i + 1;
      while (j < n && src[j] != c && src[j] != '\n') j += src[j] == '\\' ? 2 : 1;
      j = std::min(n, j + 1);
      blank(i, j);
      i = j;
      continue;
    }
    ++i;
  }
  return out;
}

std::vector<std::string> code_lines(std::string_view text, Directives directives) {
  const std::string code = code_only(text, directives);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < code.size()) {
    std::size_t nl = code.find('\n', start);
    if (nl == std::string::npos) nl = code.size();
    lines.push_back(code.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::map<std::string, std::string> object_defines(std::string_view text) {
  std::map<std::string, std::string> out;
  const std::vector<std::string> lines = code_lines(text, Directives::Keep);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = trim_blanks(lines[i]);
    if (!t.starts_with('#')) continue;
    t = trim_blanks(t.substr(1));
    if (!t.starts_with("define") || t.size() == 6 || !is_blank(t[6])) continue;
    t = trim_blanks(t.substr(6));
    std::size_t q = 0;
    while (q < t.size() && is_ident_char(t[q])) ++q;
    if (q == 0 || (q < t.size() && t[q] == '(')) continue;  // function-like
    const std::string name(t.substr(0, q));
    std::string value(t.substr(q));
    while (!value.empty() && value.back() == '\\' && i + 1 < lines.size()) {
      value.pop_back();
      value += ' ';
      value += lines[++i];
    }
    out.emplace(name, std::string(trim_blanks(value)));
  }
  return out;
}

std::optional<std::int64_t> eval_constant(
    std::string_view expr,
    const std::function<std::optional<std::int64_t>(const std::string&)>& lookup) {
  return evaluate(tokenize(expr), by_name(lookup));
}

}  // namespace bankcheck::explain

namespace bankcheck::explain {
namespace {

// The value of an object-like macro's text in a condition; names not defined are 0.
// `budget`: macro replacements left (a macro that names another twice would otherwise double
// the work at each level).
std::optional<std::int64_t> condition_value(TokenSpan t, const Macros& macros, int depth,
                                            int& budget) {
  if (depth > 32 || --budget < 0) return std::nullopt;
  Tokens expr;  // `defined X` and `defined(X)` replaced by 1 or 0
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!t[i].is("defined")) {
      expr.push_back(t[i]);
      continue;
    }
    std::size_t n = i + 1;
    const bool paren = n < t.size() && t[n].is("(");
    if (paren) ++n;
    if (n >= t.size() || !t[n].ident() || (paren && (n + 1 >= t.size() || !t[n + 1].is(")"))))
      return std::nullopt;
    expr.push_back(Token{TokKind::Number, macros.defined(t[n].text) ? "1" : "0", t[i].pos});
    i = paren ? n + 1 : n;
  }
  return evaluate(expr, [&](TokenSpan e, std::size_t at) -> std::optional<Operand> {
    const Token& k = e[at];
    if (at + 1 < e.size() && e[at + 1].is("(")) return std::nullopt;  // a call
    if (k.is("true") || k.is("false")) return Operand{k.is("true") ? 1 : 0, at + 1};
    const auto it = macros.object.find(k.text);
    if (it == macros.object.end()) return Operand{0, at + 1};
    const Tokens value = tokenize(it->second);
    const auto v = condition_value(value, macros, depth + 1, budget);
    if (!v) return std::nullopt;
    return Operand{*v, at + 1};
  });
}

// `#define NAME value` or `#define NAME(a, b) body`, the text after "define".
void define(std::string_view t, Macros& macros) {
  t = trim_blanks(t);
  std::size_t q = 0;
  while (q < t.size() && is_ident_char(t[q])) ++q;
  if (q == 0) return;
  const std::string name(t.substr(0, q));
  if (q < t.size() && t[q] == '(') {
    const std::size_t close = t.find(')', q);
    if (close == std::string_view::npos) return;
    FunctionMacro m;
    for (const Token& p : tokenize(t.substr(q + 1, close - q - 1)))
      if (p.ident() || p.is("...")) m.params.push_back(p.text);
    m.body = std::string(trim_blanks(t.substr(close + 1)));
    macros.object.erase(name);
    macros.function[name] = std::move(m);
    return;
  }
  macros.function.erase(name);
  macros.object[name] = std::string(trim_blanks(t.substr(q)));
}

}  // namespace

std::optional<std::int64_t> preprocessor_condition(std::string_view condition,
                                                  const Macros& macros) {
  int budget = 100'000;
  return condition_value(tokenize(condition), macros, 0, budget);
}

std::string taken_branches(std::string_view text, Macros& macros) {
  const std::vector<std::string> lines = code_lines(text, Directives::Keep);
  std::string out(text);
  std::vector<std::size_t> starts{0};  // of each line in `out`
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i] == '\n') starts.push_back(i + 1);
  auto blank_line = [&](std::size_t line) {
    for (std::size_t k = starts[line]; k < out.size() && out[k] != '\n'; ++k) out[k] = ' ';
  };
  struct Level {
    bool outer_on;  // the enclosing branch is taken
    bool taken;     // a branch of this #if has been taken
  };
  std::vector<Level> levels;
  bool on = true;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = trim_blanks(lines[i]);
    if (!t.starts_with('#')) {
      if (!on) blank_line(i);
      continue;
    }
    std::string directive(t.substr(1));  // with its continuation lines
    const std::size_t first = i;
    while (!directive.empty() && directive.back() == '\\' && i + 1 < lines.size()) {
      directive.pop_back();
      (directive += ' ') += lines[++i];
    }
    std::string_view d = trim_blanks(directive);
    std::size_t w = 0;
    while (w < d.size() && is_ident_char(d[w])) ++w;
    const std::string_view word = d.substr(0, w), rest = trim_blanks(d.substr(w));
    auto condition = [&]() -> bool {
      if (word == "ifdef" || word == "ifndef" || word == "elifdef" || word == "elifndef") {
        std::size_t n = 0;
        while (n < rest.size() && is_ident_char(rest[n])) ++n;
        const bool def = macros.defined(std::string(rest.substr(0, n)));
        return word.ends_with("ndef") ? !def : def;
      }
      return preprocessor_condition(rest, macros).value_or(0) != 0;
    };
    if (word == "if" || word == "ifdef" || word == "ifndef") {
      const bool c = on && condition();
      levels.push_back({on, c});
      on = c;
    } else if (word.starts_with("elif") && !levels.empty()) {
      Level& l = levels.back();
      on = l.outer_on && !l.taken && condition();
      l.taken = l.taken || on;
    } else if (word == "else" && !levels.empty()) {
      Level& l = levels.back();
      on = l.outer_on && !l.taken;
      l.taken = true;
    } else if (word == "endif" && !levels.empty()) {
      on = levels.back().outer_on;
      levels.pop_back();
    } else if (on && word == "define") {
      define(rest, macros);
    } else if (on && word == "undef") {
      const std::string name(rest.substr(0, rest.find_first_of(" \t")));
      macros.object.erase(name);
      macros.function.erase(name);
    } else if (!on) {
      for (std::size_t k = first; k <= i; ++k) blank_line(k);
    }
  }
  return out;
}

}  // namespace bankcheck::explain
