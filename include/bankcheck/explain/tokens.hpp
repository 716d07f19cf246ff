// Tokens of CUDA C++ code: the one identifier rule, the one number rule, punctuators by
// maximal munch, and bracket matching, comma splitting and joining on them. Every reader of
// CUDA source (the host-code launch reader, kernel parameter names, `__shared__`
// declarations, kernel names) and explain's expression parser tokenize through here, after
// code_only (cuda_source.hpp) has blanked comments, literals and directives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bankcheck::explain {

// Identifiers: letters, digits, `_` and `$` (GCC's and nvcc's extension), not starting with a
// digit. ASCII only: any other byte is a punctuator of its own.
constexpr bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
constexpr bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
constexpr bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
// `s` without its leading and trailing blanks.
constexpr std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

enum class TokKind { Ident, Number, Punct };

struct Token {
  TokKind kind = TokKind::Punct;
  std::string text;     // as written (a number keeps its digit separators)
  std::size_t pos = 0;  // byte offset in the tokenized text
  std::size_t end() const { return pos + text.size(); }
  bool ident() const { return kind == TokKind::Ident; }
  bool number() const { return kind == TokKind::Number; }
  bool is(std::string_view s) const { return text == s; }
};
using Tokens = std::vector<Token>;
using TokenSpan = std::span<const Token>;
// Tokens [first, second) of some token list.
using TokenRange = std::pair<std::size_t, std::size_t>;

// The tokens of `code`. Identifiers as above; numbers as C++ preprocessing numbers (a digit,
// or `.` and a digit, then identifier characters, `.`, digit separators `'` and the signs of
// exponents: `e+` / `e-`, `p+` / `p-` in hexadecimal); punctuators by maximal munch over C++'s
// (with CUDA's `<<<` and `>>>`; `++` and `--` are two tokens each); any other character alone.
// Blanks separate tokens and are not kept. Postcondition: each token's text is code.substr(pos,
// text.size()), in order, and only blanks lie between them. Example: tokenize("k<<<n / 2,
// 64>>>(p)") is k <<< n / 2 , 64
// >>> ( p ).
Tokens tokenize(std::string_view code);

// The text of tokens [from, to) as `text` (the string they were read from) has it, from the
// first token's start to the last one's end; "" when empty.
std::string_view slice(std::string_view text, TokenSpan t, std::size_t from, std::size_t to);

// Brackets: ( [ { open, ) ] } close (of any kind: a well-formed source never mixes them).
bool is_open(const Token& t);
bool is_close(const Token& t);
// The bracket matching the opening one at i, and the opening one matching the closing one at
// i; t.size() when none. match_backward(t, match_forward(t, i)) == i where both match.
std::size_t match_forward(TokenSpan t, std::size_t i);
std::size_t match_backward(TokenSpan t, std::size_t i);
// Just past the group that opens at i, or t.size() when it does not close.
std::size_t past_group(TokenSpan t, std::size_t i);

// How many template argument lists a token closes: `>` 1, `>>` 2, `>>>` 3, else 0.
int angle_closes(const Token& t);
// The `>` (or `>>`, `>>>`) closing the template argument list that opens with the `<` at i,
// and the `<` opening the list that the `>` at i closes; ( ) and [ ] inside are skipped
// (`k<(N > 4)>`); t.size() when none before a ; { or } (a `<` that compares).
std::size_t angle_forward(TokenSpan t, std::size_t i);
std::size_t angle_backward(TokenSpan t, std::size_t i);

// Tokens [from, to) split at the commas outside brackets: ranges of tokens, the commas not in
// any. With `angles`, commas inside template argument lists do not split either, except in a
// default value (after a top-level `=`), where `<` and `>` compare. Empty when from == to.
// Postcondition: the ranges and the commas between them cover [from, to) in order.
std::vector<TokenRange> split_commas(TokenSpan t, std::size_t from, std::size_t to, bool angles);

// Tokens [from, to) as text, with blanks where C++ is usually written with them:
// join(tokenize("( n+255 )/256")) == "(n + 255) / 256".
std::string join(TokenSpan t, std::size_t from, std::size_t to);

// The value of an integer literal (a Number token's text): decimal, 0x hexadecimal, 0b binary
// or 0 octal, digit separators skipped, at most one u and two l as a suffix; values above
// INT64_MAX wrap as in C. Otherwise `error` says why, `error_at` where (an offset in `text`).
struct IntegerLiteral {
  std::int64_t value = 0;
  std::string error;  // empty when it is one
  std::size_t error_at = 0;
  bool ok() const { return error.empty(); }
};
IntegerLiteral integer_literal(std::string_view text);

}  // namespace bankcheck::explain
