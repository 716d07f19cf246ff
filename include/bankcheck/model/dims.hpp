// The one Dim3 of grids, blocks and CTA ids, and the one parser of "X[,Y[,Z]]".
#pragma once

#include <cstdint>
#include <string_view>

namespace bankcheck::model {

// A grid, a block or a CTA id: x fastest; missing dimensions are 1.
struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  constexpr std::uint64_t count() const { return std::uint64_t{x} * y * z; }
  friend constexpr bool operator==(const Dim3&, const Dim3&) = default;
};

// The one parser of "X[,Y[,Z]]" (--grid, --block, launch comments, explain's --block): up to
// three decimal components separated by commas; with `blanks`, blanks around each are
// allowed. It throws nothing: each command words the error in its own style from what this
// returns. `max` bounds a component's value, `max_digits` (0: none) its digits.
// Example: split_dims("32, 8", true, 1024, 6).dims == Dim3{32, 8, 1}.
struct DimsText {
  enum class Error { None, TooMany, Empty, NotDigits, TooLarge, Zero } error = Error::None;
  Dim3 dims;
  std::size_t start = 0;  // offset of the offending component (its text, not its blanks)
  int axis = 0;           // of the offending component: 0 = x
  std::string_view part;  // its text (without blanks)
};

constexpr DimsText split_dims(std::string_view text, bool blanks, std::uint64_t max,
                              std::size_t max_digits) {
  auto is_blank = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  DimsText r;
  std::uint32_t v[3] = {1, 1, 1};
  std::size_t pos = 0;
  for (int i = 0;; ++i) {
    const std::size_t comma = text.find(',', pos);
    std::string_view part =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    std::size_t start = pos;
    if (blanks) {
      while (!part.empty() && is_blank(part.front())) part.remove_prefix(1), ++start;
      while (!part.empty() && is_blank(part.back())) part.remove_suffix(1);
    }
    r.start = start;
    r.axis = i;
    r.part = part;
    if (i == 3) return r.error = DimsText::Error::TooMany, r;
    if (part.empty()) return r.error = DimsText::Error::Empty, r;
    std::uint64_t n = 0;
    for (const char c : part) {
      if (c < '0' || c > '9') return r.error = DimsText::Error::NotDigits, r;
      n = n > max ? n : n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (n > max || (max_digits && part.size() > max_digits))
      return r.error = DimsText::Error::TooLarge, r;
    if (n == 0) return r.error = DimsText::Error::Zero, r;
    v[i] = static_cast<std::uint32_t>(n);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  r.dims = Dim3{v[0], v[1], v[2]};
  return r;
}

}  // namespace bankcheck::model
