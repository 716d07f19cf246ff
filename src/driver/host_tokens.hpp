// Tokens of host C++ for the launch reader (host_launch.cpp): identifiers, numbers, the
// operators it needs (`<<<`, `>>>`, `::`), and bracket matching and comma splitting on them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bankcheck::driver::host_tokens {

struct Tok {
  std::string text;
  std::size_t pos = 0;  // byte offset in the text
  bool ident = false, number = false;
};

// Tokens of code (comments and literals already blanked); digit separators dropped.
std::vector<Tok> tokenize(std::string_view code);

bool is_open(const std::string& t);
bool is_close(const std::string& t);
// The bracket matching the opening one at i (t.size() when none).
std::size_t match_forward(const std::vector<Tok>& t, std::size_t i);
// The opening bracket matching the closing one at i (t.size() when none).
std::size_t match_backward(const std::vector<Tok>& t, std::size_t i);
// The `<` of the `>` at i, and the `>` of the `<` at i, stopping at ; { } (t.size() when none).
std::size_t angle_backward(const std::vector<Tok>& t, std::size_t i);
std::size_t angle_forward(const std::vector<Tok>& t, std::size_t i);
// Token ranges [from, to) split at commas outside brackets (and outside <> when `angles`).
std::vector<std::pair<std::size_t, std::size_t>> split_commas(const std::vector<Tok>& t,
                                                              std::size_t from, std::size_t to,
                                                              bool angles);
// The tokens as text, blanks where C++ would print them: "(n + 255) / 256".
std::string join(const std::vector<Tok>& t, std::size_t from, std::size_t to);

}  // namespace bankcheck::driver::host_tokens
