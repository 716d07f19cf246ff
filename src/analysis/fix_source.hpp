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

// The value text of `#define NAME value`, `const int NAME = value` or `enum { NAME = value }`.
std::optional<std::string> definition(const std::string& name, const std::vector<std::string>& src);
// The same, looked for in lines [first, last) (0-based) only: a kernel's own constants.
std::optional<std::string> definition_in(const std::string& name,
                                         const std::vector<std::string>& src, std::size_t first,
                                         std::size_t last);

// A kernel's demangled base name split: "ns::k<64, 8u>" -> base "k", args {"64", "8u"}.
struct KernelName {
  std::string base;
  std::vector<std::string> args;
  bool has_args = false;
};
KernelName split_kernel_name(const std::string& name);

// One parameter of a template header: `int BM = 64` -> {"BM", type false, pack false}.
struct TemplateParam {
  std::string name;
  bool type = false;  // typename, class or a template template parameter
  bool pack = false;  // a parameter pack (it and those after it are not bound)
};
// The parameters of the template header of the declaration at `line` (0-based), column
// `col` (the declared name): empty when it is not a template.
std::vector<TemplateParam> template_params(const std::vector<std::string>& src, int line,
                                           std::size_t col);

}  // namespace bankcheck::analysis
