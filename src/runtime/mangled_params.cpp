// A reader of the Itanium C++ ABI mangling ("External Names", itanium-cxx-abi.github.io)
// that follows only what parameter sizes need: the name (to skip it and to learn the
// function's template arguments), the substitution table (S_, S0_, ...: a repeated type is
// written as a reference to its first appearance) and each parameter's type.
#include "mangled_params.hpp"

#include <cctype>

namespace bankcheck::runtime {

namespace {

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  std::optional<std::vector<std::size_t>> parameters() {
    if (!eat("_Z")) return std::nullopt;
    const bool is_template = name();
    if (failed_) return std::nullopt;
    if (is_template) type();  // a function template's mangling carries its return type
    std::vector<std::size_t> sizes;
    if (s_.substr(pos_) == "v") return sizes;  // no parameters
    while (!failed_ && pos_ < s_.size()) sizes.push_back(type());
    if (failed_) return std::nullopt;
    return sizes;
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
  bool failed_ = false;
  std::vector<std::size_t> subs_;     // substitution candidates: a type's size, 0 otherwise
  std::vector<std::size_t> tparams_;  // the function's template arguments (T_, T0_, ...)

  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0';
  }
  bool eat(std::string_view t) {
    if (s_.substr(pos_, t.size()) != t) return false;
    pos_ += t.size();
    return true;
  }
  std::size_t fail() {
    failed_ = true;
    pos_ = s_.size();
    return 0;
  }

  // <number>
  std::size_t number() {
    std::size_t n = 0;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) return fail();
    while (std::isdigit(static_cast<unsigned char>(peek()))) n = n * 10 + (s_[pos_++] - '0');
    return n;
  }

  // <source-name> ::= <length> <identifier>
  void source_name() {
    const std::size_t n = number();
    if (failed_ || pos_ + n > s_.size()) {
      fail();
      return;
    }
    pos_ += n;
  }

  // <seq-id> '_' after S or T: '_' is 0, "0_" is 1, "A_" is 11 (base 36 plus one).
  std::optional<std::size_t> seq_id() {
    if (eat("_")) return 0;
    std::size_t n = 0;
    while (std::isdigit(static_cast<unsigned char>(peek())) ||
           std::isupper(static_cast<unsigned char>(peek()))) {
      const char c = s_[pos_++];
      n = n * 36 + (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c - 'A' + 10);
    }
    if (!eat("_")) return std::nullopt;
    return n + 1;
  }

  // <template-args> ::= I <template-arg>+ E; the sizes of type arguments go to `into`.
  void template_args(std::vector<std::size_t>* into) {
    if (!eat("I")) {
      fail();
      return;
    }
    while (!failed_ && !eat("E")) {
      if (pos_ >= s_.size()) {
        fail();
        return;
      }
      if (eat("L")) {  // a literal: L <type> <value> E
        type();
        while (pos_ < s_.size() && peek() != 'E') ++pos_;
        eat("E");
        if (into) into->push_back(0);
      } else if (peek() == 'X' || peek() == 'J') {  // expressions and packs: not read
        fail();
        return;
      } else {
        const std::size_t size = type();
        if (into) into->push_back(size);
      }
    }
  }

  // A function's <name>; true when template arguments follow (a function template).
  bool name() {
    if (peek() == 'N') return nested(/*is_type=*/false);
    if (eat("St")) {
      source_name();
    } else if (std::isdigit(static_cast<unsigned char>(peek()))) {
      source_name();
    } else {
      fail();
      return false;
    }
    if (peek() != 'I') return false;
    subs_.push_back(0);  // <unscoped-template-name>
    template_args(&tparams_);
    return true;
  }

  // <nested-name> ::= N [<CV-qualifiers>] [<ref-qualifier>] <prefix> <unqualified-name> E.
  // Every prefix (a template's name before its arguments included) is a substitution
  // candidate; for a type, the whole name too. Returns whether the last component carries
  // template arguments.
  bool nested(bool is_type) {
    eat("N");
    while (peek() == 'r' || peek() == 'V' || peek() == 'K' || peek() == 'R' || peek() == 'O')
      ++pos_;
    bool last_template = false;
    bool first = true;
    while (!failed_ && !eat("E")) {
      if (!first) subs_.push_back(0);  // the prefix so far
      first = false;
      last_template = false;
      if (eat("St")) {
        source_name();
      } else if (peek() == 'S') {
        ++pos_;
        if (!seq_id()) return fail(), false;
      } else if (std::isdigit(static_cast<unsigned char>(peek()))) {
        source_name();
      } else {
        return fail(), false;
      }
      if (peek() == 'I') {
        subs_.push_back(0);  // <template-prefix>
        // Only the function's own (outermost, last) template arguments bind T_.
        std::vector<std::size_t> args;
        template_args(&args);
        if (peek() == 'E' && !is_type) tparams_ = args;
        last_template = true;
      }
    }
    if (is_type) subs_.push_back(0);  // a type's whole name
    return last_template;
  }

  // A <type>; returns its size in bytes (0 when not told) and records candidates.
  std::size_t type() {
    if (failed_ || pos_ >= s_.size()) return fail();
    const char c = s_[pos_++];
    switch (c) {
      case 'v':
        return 0;
      case 'b':
      case 'c':
      case 'a':
      case 'h':
        return 1;
      case 's':
      case 't':
        return 2;
      case 'w':
      case 'i':
      case 'j':
      case 'f':
        return 4;
      case 'l':
      case 'm':
      case 'x':
      case 'y':
      case 'd':
        return 8;
      case 'n':
      case 'o':
      case 'e':
      case 'g':
        return 16;
      case 'P':
      case 'R':
      case 'O':
        type();
        subs_.push_back(8);
        return 8;
      case 'K':
      case 'V':
      case 'r': {
        const std::size_t size = type();
        subs_.push_back(size);
        return size;
      }
      case 'A': {  // A <number> _ <type>
        const std::size_t n = number();
        if (!eat("_")) return fail();
        const std::size_t size = n * type();
        subs_.push_back(size);
        return size;
      }
      case 'D':
        return d_type();
      case 'T': {
        const auto id = seq_id();
        if (!id || *id >= tparams_.size() || peek() == 'I') return fail();
        const std::size_t size = tparams_[*id];
        subs_.push_back(size);
        return size;
      }
      case 'S': {
        if (eat("t")) {  // std::name: a class
          source_name();
          subs_.push_back(0);
          if (peek() == 'I') {
            template_args(nullptr);
            subs_.push_back(0);
          }
          return 0;
        }
        if (std::islower(static_cast<unsigned char>(peek()))) {  // Sa, Ss, ...: library classes
          ++pos_;
          return 0;
        }
        const auto id = seq_id();
        if (!id || *id >= subs_.size()) return fail();
        const std::size_t size = subs_[*id];
        if (peek() == 'I') {
          template_args(nullptr);
          subs_.push_back(0);
          return 0;
        }
        return size;
      }
      case 'N':
        --pos_;
        nested(/*is_type=*/true);
        return 0;
      default:
        if (std::isdigit(static_cast<unsigned char>(c))) {  // a class by name
          --pos_;
          source_name();
          subs_.push_back(0);
          if (peek() == 'I') {
            template_args(nullptr);
            subs_.push_back(0);
          }
          return 0;
        }
        return fail();
    }
  }

  // The D<x> built-ins and vector types.
  std::size_t d_type() {
    const char c = peek();
    ++pos_;
    switch (c) {
      case 'h':
      case 's':
        return 2;  // half, char16_t
      case 'i':
        return 4;  // char32_t
      case 'u':
        return 1;  // char8_t
      case 'n':
        return 8;  // nullptr_t
      case 'F': {  // DF <bits> _: _Float16 and friends
        const std::size_t bits = number();
        if (!eat("_")) return fail();
        return bits / 8;
      }
      case 'v': {  // Dv <number> _ <type>: a vector of that many elements
        const std::size_t n = number();
        if (!eat("_")) return fail();
        const std::size_t size = n * type();
        subs_.push_back(size);
        return size;
      }
      default:
        return fail();
    }
  }
};

}  // namespace

std::optional<std::vector<std::size_t>> parameter_sizes(std::string_view mangled) {
  return Reader(mangled).parameters();
}

}  // namespace bankcheck::runtime
