// The fix advisor's view of the .cu source, read by the front end: `__shared__` declarations
// with their dimensions evaluated where they stand, and the lines that subscript arrays
// (analysis/shared_source.hpp). Read over explain's tokens and evaluated by its token
// evaluator.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/analysis/shared_source.hpp"

namespace bankcheck::driver {

// What nvcc sees of the names besides the main file: the macros its command line defines
// (command_line_defines: -D, the flags after --, -p's entry) and the text of the local headers
// the file includes (local_headers_text, through the same -I directories).
struct SourceMacros {
  std::map<std::string, std::string> defines;
  std::string headers;
};

// What `source_lines` (the main file, one string a line) says for the kernel `kernel` (its
// demangled base name, "ns::k<64, 8u>": the template arguments bind its template parameters).
// Names in a dimension mean, in order: the kernel's template arguments, the command line's
// macros (`macros.defines`), constants in the kernel (`constexpr int BM = 64`), those of the
// file (#define, const, enum), then those of its headers (`macros.headers`). Empty for no
// lines (PTX input).
analysis::SharedSource read_shared_source(const std::vector<std::string>& source_lines,
                                          const std::string& kernel,
                                          const SourceMacros& macros = {});

// The first of read_shared_source's declarations of `name`: its declaration in `kernel`, else
// the first anywhere in the file.
std::optional<analysis::SharedDecl> find_shared_decl(const std::vector<std::string>& source_lines,
                                                     const std::string& kernel,
                                                     const std::string& name);

// An integer constant expression with names bound by `#define NAME value`,
// `const int NAME = value;`, `constexpr` and `enum { NAME = value }` in the source.
std::optional<long long> eval_constant(const std::string& expr,
                                       const std::vector<std::string>& source_lines);

}  // namespace bankcheck::driver
