// PTX lexer: hand-written scanner from PTX text to tokens (see lexer.hpp); also decodes
// integer, hex-float and decimal-float literals. Linear time, no regex, no allocation per token.
#include "lexer.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <limits>
#include <system_error>

namespace bankcheck::ptx::detail {
namespace {

enum : std::uint8_t { kIdStart = 1, kIdChar = 2, kDigit = 4, kSpace = 8, kPunct = 16 };

constexpr std::array<std::uint8_t, 256> make_classes() {
  std::array<std::uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kIdStart | kIdChar;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kIdStart | kIdChar;
  t['_'] = kIdStart | kIdChar;
  t['$'] = kIdStart | kIdChar;
  for (int c = '0'; c <= '9'; ++c) t[c] = kIdChar | kDigit;
  t[' '] = t['\t'] = t['\r'] = t['\v'] = t['\f'] = kSpace;
  for (char c : std::string_view(",;:{}[]()<>+-!@|=")) t[static_cast<unsigned char>(c)] = kPunct;
  return t;
}
constexpr std::array<std::uint8_t, 256> kClass = make_classes();

inline bool has(char c, std::uint8_t cls) { return kClass[static_cast<unsigned char>(c)] & cls; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

std::string describe_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return std::string("unexpected character '") + c + "'";
  static const char* digits = "0123456789abcdef";
  return std::string("unexpected byte 0x") + digits[u >> 4] + digits[u & 15];
}

}  // namespace

std::string_view Lexer::line_text(std::size_t offset) const {
  if (offset > src_.size()) offset = src_.size();
  std::size_t b = offset;
  while (b > 0 && src_[b - 1] != '\n') --b;
  std::size_t e = offset;
  while (e < src_.size() && src_[e] != '\n') ++e;
  if (e > b && src_[e - 1] == '\r') --e;
  return src_.substr(b, e - b);
}

void Lexer::fail(std::size_t offset, int line, int col, const std::string& message) const {
  throw ParseError(message, std::string(source_), PtxPos{line, col},
                   std::string(line_text(offset)));
}

void Lexer::skip_space_and_comments() {
  const std::size_t n = src_.size();
  const char* s = src_.data();
  while (i_ < n) {
    const char c = s[i_];
    if (c == '\n') {
      ++i_;
      ++line_;
      line_start_ = i_;
    } else if (has(c, kSpace)) {
      ++i_;
    } else if (c == '/' && i_ + 1 < n && s[i_ + 1] == '/') {
      const void* nl = std::memchr(s + i_, '\n', n - i_);
      i_ = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - s) : n;
    } else if (c == '/' && i_ + 1 < n && s[i_ + 1] == '*') {
      const std::size_t start = i_;
      const int start_line = line_;
      const int start_col = static_cast<int>(start - line_start_ + 1);
      i_ += 2;
      for (;;) {
        if (i_ + 1 >= n) {
          fail(start, start_line, start_col, "unterminated block comment");
        }
        if (s[i_] == '*' && s[i_ + 1] == '/') {
          i_ += 2;
          break;
        }
        if (s[i_] == '\n') {
          ++line_;
          line_start_ = i_ + 1;
        }
        ++i_;
      }
    } else {
      break;
    }
  }
}

std::size_t Lexer::skip_braced() {
  const std::size_t n = src_.size();
  const char* s = src_.data();
  int depth = 1;
  while (i_ < n) {
    const char c = s[i_];
    if (c == '\n') {
      ++i_;
      ++line_;
      line_start_ = i_;
    } else if (c == '{') {
      ++depth;
      ++i_;
    } else if (c == '}') {
      ++i_;
      if (--depth == 0) return i_;
    } else if (c == '"') {  // a string ends at its unescaped quote or at the line's end
      for (++i_; i_ < n && s[i_] != '"' && s[i_] != '\n'; ++i_)
        if (s[i_] == '\\' && i_ + 1 < n && s[i_ + 1] != '\n') ++i_;
      if (i_ < n && s[i_] == '"') ++i_;
    } else if (c == '/' && i_ + 1 < n && (s[i_ + 1] == '/' || s[i_ + 1] == '*')) {
      skip_space_and_comments();
    } else {
      ++i_;
    }
  }
  return 0;
}

Token Lexer::next() {
  skip_space_and_comments();
  const std::size_t n = src_.size();
  const char* s = src_.data();
  Token t;
  t.offset = i_;
  t.line = line_;
  t.col = static_cast<int>(i_ - line_start_ + 1);
  if (i_ >= n) {
    t.kind = Tok::End;
    t.text = src_.substr(n, 0);
    return t;
  }
  const std::size_t start = i_;
  const char c = s[i_];
  // Identifier-like words: a start, then identifier characters, with '.' and '::' joining
  // further parts (ld.shared.v4.f32, %tid.x, .shared::cluster).
  // A directive or type (.reg, .b32) ends at the next '.': CUDA's headers write
  // `.reg.b32 f;` in inline assembly.
  const bool directive = c == '.';
  auto scan_word_tail = [&] {
    while (i_ < n) {
      const char d = s[i_];
      if (has(d, kIdChar)) {
        ++i_;
      } else if (d == '.' && !directive && i_ + 1 < n && has(s[i_ + 1], kIdChar)) {
        i_ += 2;
      } else if (d == ':' && i_ + 2 < n && s[i_ + 1] == ':' && has(s[i_ + 2], kIdChar)) {
        i_ += 3;
      } else {
        break;
      }
    }
  };
  if (has(c, kIdStart)) {
    ++i_;
    scan_word_tail();
    t.kind = Tok::Word;
  } else if (c == '.' || c == '%') {
    if (i_ + 1 >= n || !has(s[i_ + 1], kIdChar)) fail(t, describe_char(c));
    i_ += 2;
    scan_word_tail();
    t.kind = c == '.' ? Tok::Dot : Tok::Reg;
  } else if (has(c, kDigit)) {
    t.kind = Tok::Number;
    const char p = i_ + 1 < n ? s[i_ + 1] : '\0';
    if (c == '0' && (p == 'x' || p == 'X' || p == 'b' || p == 'B' || p == 'f' || p == 'F' ||
                     p == 'd' || p == 'D')) {
      i_ += 2;
    } else {
      while (i_ < n && has(s[i_], kDigit)) ++i_;
      if (i_ + 1 < n && s[i_] == '.' && has(s[i_ + 1], kDigit)) {
        ++i_;
        while (i_ < n && has(s[i_], kDigit)) ++i_;
      }
      if (i_ < n && (s[i_] == 'e' || s[i_] == 'E')) {
        std::size_t j = i_ + 1;
        if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
        if (j < n && has(s[j], kDigit)) {
          i_ = j;
          while (i_ < n && has(s[i_], kDigit)) ++i_;
        }
      }
    }
    // Suffixes and stray letters stay in the token; decode_number judges them.
    while (i_ < n && has(s[i_], kIdChar)) ++i_;
  } else if (c == '"') {
    ++i_;
    for (;;) {
      if (i_ >= n || s[i_] == '\n') fail(t, "unterminated string");
      if (s[i_] == '\\' && i_ + 1 < n && s[i_ + 1] != '\n') {
        i_ += 2;
        continue;
      }
      if (s[i_] == '"') {
        ++i_;
        break;
      }
      ++i_;
    }
    t.kind = Tok::String;
  } else if (has(c, kPunct)) {
    ++i_;
    t.kind = Tok::Punct;
    t.punct = c;
  } else {
    fail(t, describe_char(c));
  }
  t.text = src_.substr(start, i_ - start);
  return t;
}

std::string decode_number(std::string_view text, Number& out) {
  out = Number{};
  const auto bad = [&] { return "invalid number '" + std::string(text) + "'"; };
  if (text.empty()) return bad();
  // Hex floats: 0fXXXXXXXX (f32 bits) and 0dXXXXXXXXXXXXXXXX (f64 bits).
  if (text.size() >= 2 && text[0] == '0' &&
      (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D')) {
    const bool is32 = text[1] == 'f' || text[1] == 'F';
    const std::size_t digits = is32 ? 8 : 16;
    if (text.size() != 2 + digits) return bad();
    std::uint64_t bits = 0;
    for (std::size_t k = 2; k < text.size(); ++k) {
      const int d = hex_value(text[k]);
      if (d > 15) return bad();
      bits = bits << 4 | static_cast<std::uint64_t>(d);
    }
    out.is_float = true;
    out.bits = bits;
    out.fbits = is32 ? 32 : 64;
    out.fvalue = is32 ? static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)))
                      : std::bit_cast<double>(bits);
    return {};
  }
  // Decimal floating literal: digits with '.' or an exponent.
  bool decimal_float = false;
  for (char c : text) {
    if (c == '.' ||
        ((c == 'e' || c == 'E') && !(text.size() > 1 && (text[1] == 'x' || text[1] == 'X')))) {
      decimal_float = true;
      break;
    }
  }
  if (decimal_float) {
    double v = 0;
    const auto [p, ec] =
        std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
    if (ec != std::errc() || p != text.data() + text.size()) return bad();
    out.is_float = true;
    out.fvalue = v;
    out.bits = std::bit_cast<std::uint64_t>(v);
    out.fbits = 64;
    return {};
  }
  // Integers: 0x hex, 0b binary, 0 octal, decimal; optional U suffix.
  if (text.back() == 'U' || text.back() == 'u') text.remove_suffix(1);
  if (text.empty()) return bad();
  unsigned base = 10;
  std::size_t k = 0;
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    k = 2;
  } else if (text.size() >= 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    k = 2;
  } else if (text.size() >= 2 && text[0] == '0') {
    base = 8;
    k = 1;
  }
  if (k >= text.size()) return bad();
  std::uint64_t v = 0;
  for (; k < text.size(); ++k) {
    const int d = hex_value(text[k]);
    if (d < 0 || static_cast<unsigned>(d) >= base) return bad();
    if (v > (std::numeric_limits<std::uint64_t>::max() - static_cast<unsigned>(d)) / base) {
      return "integer literal '" + std::string(text) + "' does not fit in 64 bits";
    }
    v = v * base + static_cast<unsigned>(d);
  }
  out.value = v;
  return {};
}

std::string decode_string(std::string_view text) {
  if (text.size() >= 2) text = text.substr(1, text.size() - 2);
  std::string out;
  out.reserve(text.size());
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (text[k] == '\\' && k + 1 < text.size()) {
      const char e = text[++k];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7': {
          // nvcc writes a file name's non-ASCII bytes as octal escapes: back to the bytes,
          // so that the name matches the input as it was typed.
          unsigned v = static_cast<unsigned>(e - '0');
          for (int d = 0; d < 2 && k + 1 < text.size() && text[k + 1] >= '0' && text[k + 1] <= '7';
               ++d)
            v = v * 8 + static_cast<unsigned>(text[++k] - '0');
          out += static_cast<char>(v & 0xFF);
          break;
        }
        default:
          out += '\\';
          out += e;
      }
    } else {
      out += text[k];
    }
  }
  return out;
}

}  // namespace bankcheck::ptx::detail
