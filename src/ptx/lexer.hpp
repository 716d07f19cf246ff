// PTX lexer (private to the PTX front end): turns PTX text into tokens with positions,
// skipping whitespace and comments; also the literal decoders the parser uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bankcheck/ptx/ast.hpp"

namespace bankcheck::ptx::detail {

enum class Tok : std::uint8_t {
  End,     // end of input
  Word,    // identifier or opcode: ld.shared.v4.f32, $L__BB0_2, _Z6kernelv, sm_90
  Dot,     // directive or qualifier: .reg, .b32, .shared::cluster, .ptr.global
  Reg,     // %r1, %tid.x, %SP (always starts with '%')
  Number,  // 42, 0x1F, 017, 0b1, 1U, 0f3F800000, 0d..., 1.5, 2e-3, 9.0
  String,  // "text" (the token text keeps the quotes)
  Punct,   // one of , ; : { } [ ] ( ) < > + - ! @ | =
};

struct Token {
  Tok kind = Tok::End;
  char punct = 0;  // the character, for Punct
  std::string_view text;
  std::size_t offset = 0;  // byte offset of the first character
  int line = 1;
  int col = 1;
  PtxPos pos() const { return PtxPos{line, col}; }
  std::size_t end() const { return offset + text.size(); }
  bool is(char c) const { return kind == Tok::Punct && punct == c; }
};

class Lexer {
 public:
  Lexer(std::string_view text, std::string_view source) : src_(text), source_(source) {}

  // The next token; Tok::End (repeatedly) at the end. Throws ParseError on a bad character,
  // an unterminated string or an unterminated block comment.
  Token next();

  // The text of the line holding `offset`, without its line break.
  std::string_view line_text(std::size_t offset) const;

  [[noreturn]] void fail(std::size_t offset, int line, int col, const std::string& message) const;
  [[noreturn]] void fail(const Token& t, const std::string& message) const {
    fail(t.offset, t.line, t.col, message);
  }

  std::string_view text() const { return src_; }

  // Right after next() returned a `{`: moves past its matching `}` without making tokens
  // (nested braces, comments and strings followed as next() would read them, lines counted)
  // and returns the offset one past that `}`; 0 when the input ends first. What lies between
  // is not checked: the parser skips the bodies of kernels nobody asked for this way.
  std::size_t skip_braced();

 private:
  void skip_space_and_comments();

  std::string_view src_;
  std::string_view source_;
  std::size_t i_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
};

// Decoded numeric literal.
struct Number {
  bool is_float = false;
  std::uint64_t value = 0;  // integer literal (two's complement when negated later)
  double fvalue = 0;        // float literal
  std::uint64_t bits = 0;   // float literal: raw bits (f32 bits in the low 32 for 0f)
  int fbits = 0;            // 32 (0f...) or 64 (0d... and decimal)
};

// Decodes a Tok::Number's text. Returns an empty string on success, else what is wrong.
std::string decode_number(std::string_view text, Number& out);

// Contents of a Tok::String without quotes, with \" \\ \n \t escapes resolved.
std::string decode_string(std::string_view text);

}  // namespace bankcheck::ptx::detail
