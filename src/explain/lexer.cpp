// Lexer for `explain` expressions and declarations (see lexer.hpp).
#include "lexer.hpp"

#include <array>
#include <cctype>
#include <limits>

namespace bankcheck::explain::detail {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

Token bad(int pos, std::string message) {
  Token t;
  t.kind = TokKind::Bad;
  t.text = std::move(message);
  t.pos = pos;
  return t;
}

// An integer literal starting at text[i]: decimal, 0x hex, 0b binary or 0 octal, with an
// optional u/l/ll suffix. Advances i past it.
Token lex_number(std::string_view text, std::size_t& i) {
  const std::size_t start = i;
  int base = 10;
  if (text[i] == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
    base = 16;
    i += 2;
  } else if (text[i] == '0' && i + 1 < text.size() && (text[i + 1] == 'b' || text[i + 1] == 'B')) {
    base = 2;
    i += 2;
  } else if (text[i] == '0') {
    base = 8;
  }
  const std::size_t digits_start = i;
  std::uint64_t value = 0;
  bool overflow = false;
  while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) {
    const int d = digit_value(text[i]);
    if (d >= base) {
      if (base == 16 || d >= 16) break;  // the suffix starts here
      // A decimal digit that the base does not allow (09, 0b2).
      if (d < 10)
        return bad(static_cast<int>(i), std::string("invalid digit '") + text[i] + "' in " +
                                            (base == 8 ? "octal" : "binary") + " literal");
      break;
    }
    if (value > (std::numeric_limits<std::uint64_t>::max() - d) / base) overflow = true;
    value = value * base + d;
    ++i;
  }
  if (i == digits_start && base != 8)
    return bad(static_cast<int>(start), "integer literal has no digits");
  if (overflow) return bad(static_cast<int>(start), "integer literal too large");
  if (i < text.size() && (text[i] == '.' || (base == 10 && (text[i] == 'e' || text[i] == 'E'))))
    return bad(static_cast<int>(start), "floating-point literals are not supported");
  // Suffix: any mix of at most one u and at most two l (ll written in one case).
  const std::size_t suffix_start = i;
  int us = 0, ls = 0;
  while (i < text.size() &&
         (text[i] == 'u' || text[i] == 'U' || text[i] == 'l' || text[i] == 'L')) {
    (text[i] == 'u' || text[i] == 'U') ? ++us : ++ls;
    ++i;
  }
  if (us > 1 || ls > 2 || (i < text.size() && is_ident_char(text[i]))) {
    std::size_t end = i;
    while (end < text.size() && is_ident_char(text[end])) ++end;
    return bad(static_cast<int>(suffix_start),
               "invalid suffix '" + std::string(text.substr(suffix_start, end - suffix_start)) +
                   "' on integer literal");
  }
  Token t;
  t.kind = TokKind::Number;
  t.text = std::string(text.substr(start, i - start));
  t.value = static_cast<std::int64_t>(value);
  t.pos = static_cast<int>(start);
  return t;
}

}  // namespace

std::vector<Token> tokenize(std::string_view text) {
  static constexpr std::array<std::string_view, 8> kTwoChar = {
      "<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};
  static constexpr std::string_view kOneChar = "+-*/%<>&^|~!?:()[]{}.,;";
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.pos = static_cast<int>(i);
    if (is_ident_start(c)) {
      const std::size_t start = i;
      while (i < text.size() && is_ident_char(text[i])) ++i;
      t.kind = TokKind::Ident;
      t.text = std::string(text.substr(start, i - start));
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      t = lex_number(text, i);
      if (t.kind == TokKind::Bad) {
        out.push_back(std::move(t));
        break;  // nothing after a lexical error is ever looked at
      }
    } else {
      t.kind = TokKind::Punct;
      const std::string_view two = text.substr(i, 2);
      bool matched = false;
      for (std::string_view op : kTwoChar) {
        if (two == op) {
          t.text = std::string(op);
          i += 2;
          matched = true;
          break;
        }
      }
      if (!matched) {
        if (kOneChar.find(c) == std::string_view::npos) {
          out.push_back(bad(static_cast<int>(i), std::string("unexpected character '") + c + "'"));
          break;
        }
        t.text = std::string(1, c);
        ++i;
      }
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.kind = TokKind::End;
  end.pos = static_cast<int>(text.size());
  out.push_back(end);
  return out;
}

}  // namespace bankcheck::explain::detail
