// Source-text helpers of the fix advisor (private to src/analysis).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace bankcheck::analysis {

// `NAME[i][j]` on a line: where it starts and ends, and its subscripts' texts.
struct Subscripted {
  std::size_t begin = 0, end = 0;
  std::vector<std::string> index;
};
std::vector<Subscripted> find_subscripts(const std::string& line, const std::string& name);

// The value text of `#define NAME value` or `const int NAME = value`.
std::optional<std::string> definition(const std::string& name, const std::vector<std::string>& src);

}  // namespace bankcheck::analysis
