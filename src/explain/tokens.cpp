// Tokens of CUDA C++ code and bracket matching, comma splitting and joining on them (see
// tokens.hpp).
#include "bankcheck/explain/tokens.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace bankcheck::explain {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// C++'s punctuators of two or more characters (and CUDA's launch chevrons), longest first;
// but `++` and `--` are two tokens each: no constant has them, and `--x` in an expression
// means -(-x) to explain (and to the host code's constants, which never increment).
constexpr std::array<std::string_view, 26> kPunctuators = {
    "<<<", ">>>", "<<=", ">>=", "...", "->*", "::", "->", "<<", ">>", "<=", ">=", "==", "!=",
    "&&",  "||",  "+=",  "-=",  "*=",  "/=",  "%=", "&=", "|=", "^=", ".*", "##"};

// The length of the preprocessing number at code[i] (a digit, or '.' and a digit).
std::size_t number_length(std::string_view code, std::size_t i) {
  const bool hex =
      code[i] == '0' && i + 1 < code.size() && (code[i + 1] == 'x' || code[i + 1] == 'X');
  std::size_t j = i + 1;
  while (j < code.size()) {
    const char c = code[j];
    const char prev = code[j - 1];
    if (is_ident_char(c) || c == '.') {
      ++j;
    } else if (c == '\'' && j + 1 < code.size() && is_ident_char(code[j + 1])) {
      j += 2;  // a digit separator: 1'000
    } else if ((c == '+' || c == '-') &&
               (hex ? prev == 'p' || prev == 'P' : prev == 'e' || prev == 'E')) {
      ++j;  // an exponent's sign: 1e-3, 0x1p+4 (0x1e+2 is 0x1e + 2)
    } else {
      break;
    }
  }
  return j - i;
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

bool is_alnum(char c) { return is_ident_char(c) && c != '_' && c != '$'; }

// Where a `<` that compares shows itself: the statement ends before any `>`.
bool ends_statement(const Token& t) { return t.is(";") || t.is("{") || t.is("}"); }

}  // namespace

Tokens tokenize(std::string_view code) {
  Tokens out;
  std::size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    if (is_blank(c)) {
      ++i;
      continue;
    }
    Token t;
    t.pos = i;
    std::size_t len = 1;
    if (is_digit(c) || (c == '.' && i + 1 < code.size() && is_digit(code[i + 1]))) {
      t.kind = TokKind::Number;
      len = number_length(code, i);
    } else if (is_ident_start(c)) {
      t.kind = TokKind::Ident;
      while (i + len < code.size() && is_ident_char(code[i + len])) ++len;
    } else {
      t.kind = TokKind::Punct;
      for (std::string_view p : kPunctuators)
        if (code.substr(i, p.size()) == p) {
          len = p.size();
          break;
        }
    }
    t.text = std::string(code.substr(i, len));
    i += len;
    out.push_back(std::move(t));
  }
  return out;
}

std::string_view slice(std::string_view text, TokenSpan t, std::size_t from, std::size_t to) {
  if (from >= to || to > t.size()) return {};
  return text.substr(t[from].pos, t[to - 1].end() - t[from].pos);
}

bool is_open(const Token& t) { return t.is("(") || t.is("[") || t.is("{"); }
bool is_close(const Token& t) { return t.is(")") || t.is("]") || t.is("}"); }

std::size_t match_forward(TokenSpan t, std::size_t i) {
  int depth = 0;
  for (std::size_t j = i; j < t.size(); ++j) {
    if (is_open(t[j])) ++depth;
    if (is_close(t[j]) && --depth == 0) return j;
  }
  return t.size();
}

std::size_t match_backward(TokenSpan t, std::size_t i) {
  int depth = 0;
  for (std::size_t j = std::min(i + 1, t.size()); j-- > 0;) {
    if (is_close(t[j])) ++depth;
    if (is_open(t[j]) && --depth == 0) return j;
  }
  return t.size();
}

std::size_t past_group(TokenSpan t, std::size_t i) {
  const std::size_t close = match_forward(t, i);
  return close < t.size() ? close + 1 : t.size();
}

int angle_closes(const Token& t) {
  if (t.is(">")) return 1;
  if (t.is(">>")) return 2;
  if (t.is(">>>")) return 3;
  return 0;
}

std::size_t angle_forward(TokenSpan t, std::size_t i) {
  int depth = 0;
  for (std::size_t j = i; j < t.size(); ++j) {
    if (t[j].is("(") || t[j].is("[")) {
      j = match_forward(t, j);
      if (j >= t.size()) break;
      continue;
    }
    if (ends_statement(t[j])) break;
    if (t[j].is("<")) ++depth;
    if (const int n = angle_closes(t[j]); n > 0 && (depth -= n) <= 0) return j;
  }
  return t.size();
}

std::size_t angle_backward(TokenSpan t, std::size_t i) {
  int depth = 0;
  for (std::size_t j = std::min(i + 1, t.size()); j-- > 0;) {
    if (t[j].is(")") || t[j].is("]")) {
      j = match_backward(t, j);
      if (j >= t.size()) break;
      continue;
    }
    if (ends_statement(t[j])) break;
    depth += angle_closes(t[j]);
    if (t[j].is("<") && --depth == 0) return j;
  }
  return t.size();
}

std::vector<TokenRange> split_commas(TokenSpan t, std::size_t from, std::size_t to, bool angles) {
  std::vector<TokenRange> out;
  to = std::min(to, t.size());
  if (from >= to) return out;
  int depth = 0, angle = 0;
  bool in_default = false;
  std::size_t start = from;
  for (std::size_t j = from; j < to; ++j) {
    const Token& s = t[j];
    if (is_open(s)) {
      ++depth;
    } else if (is_close(s)) {
      --depth;
    } else if (angles && depth == 0 && !in_default) {
      if (s.is("<")) ++angle;
      angle = std::max(0, angle - angle_closes(s));
      if (s.is("=") && angle == 0) in_default = true;
    }
    if (s.is(",") && depth == 0 && angle == 0) {
      out.push_back({start, j});
      start = j + 1;
      in_default = false;
    }
  }
  out.push_back({start, to});
  return out;
}

std::string join(TokenSpan t, std::size_t from, std::size_t to) {
  std::string s;
  auto word = [](const Token& k) { return k.ident() || k.number(); };
  for (std::size_t j = from; j < to && j < t.size(); ++j) {
    if (j > from) {
      const Token& a = t[j - 1];
      const Token& b = t[j];
      const bool tight = b.is(",") || b.is(")") || b.is("]") || a.is("(") || a.is("[") ||
                         b.is("(") || b.is(".") || a.is(".") || b.is("::") || a.is("::") ||
                         b.is("<") || b.is(">") || a.is("<") || a.is("&") || b.is("[");
      if ((word(a) && word(b)) || !tight) s += ' ';
    }
    s += t[j].text;
  }
  return s;
}

IntegerLiteral integer_literal(std::string_view text) {
  IntegerLiteral r;
  auto fail = [&](std::size_t at, std::string message) {
    r.error = std::move(message);
    r.error_at = at;
    return r;
  };
  if (text.empty()) return fail(0, "integer literal has no digits");
  if (text[0] == '.') return fail(0, "floating-point literals are not supported");
  std::size_t i = 0;
  int base = 10;
  if (text[0] == '0' && text.size() > 1 && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    i = 2;
  } else if (text[0] == '0' && text.size() > 1 && (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    i = 2;
  } else if (text[0] == '0') {
    base = 8;
  }
  const std::size_t digits_start = i;
  std::uint64_t value = 0;
  bool overflow = false;
  while (i < text.size() && (is_alnum(text[i]) || text[i] == '\'')) {
    if (text[i] == '\'') {  // a digit separator
      ++i;
      continue;
    }
    const int d = digit_value(text[i]);
    if (d >= base) {
      if (base == 16 || d >= 16) break;  // the suffix starts here
      // A decimal digit that the base does not allow (09, 0b2).
      if (d < 10)
        return fail(i, std::string("invalid digit '") + text[i] + "' in " +
                           (base == 8 ? "octal" : "binary") + " literal");
      break;
    }
    if (value > (std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(d)) /
                    static_cast<std::uint64_t>(base))
      overflow = true;
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
    ++i;
  }
  if (i == digits_start && base != 8) return fail(0, "integer literal has no digits");
  if (overflow) return fail(0, "integer literal too large");
  if (i < text.size() && (text[i] == '.' || (base == 10 && (text[i] == 'e' || text[i] == 'E'))))
    return fail(0, "floating-point literals are not supported");
  // Suffix: any mix of at most one u and at most two l (ll written in one case).
  const std::size_t suffix_start = i;
  int us = 0, ls = 0;
  while (i < text.size() &&
         (text[i] == 'u' || text[i] == 'U' || text[i] == 'l' || text[i] == 'L')) {
    (text[i] == 'u' || text[i] == 'U') ? ++us : ++ls;
    ++i;
  }
  if (us > 1 || ls > 2 || i < text.size())
    return fail(suffix_start, "invalid suffix '" + std::string(text.substr(suffix_start)) +
                                  "' on integer literal");
  r.value = static_cast<std::int64_t>(value);
  return r;
}

}  // namespace bankcheck::explain
