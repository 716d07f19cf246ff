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
