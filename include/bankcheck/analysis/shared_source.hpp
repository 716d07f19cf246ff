// What the fix advisor knows of the .cu source, as data: the `__shared__` declarations and
// the lines that subscript arrays. The front end reads them (driver/shared_source.hpp) and
// hands them in (AdviseInput::source); the analysis reads no source text itself.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace bankcheck::analysis {

// `NAME[i][j]` on a source line: where it starts and ends, and its subscripts.
struct Subscripted {
  std::size_t begin = 0, end = 0;  // 0-based columns: NAME, and one past the last ']'
  std::vector<std::string> index;  // the subscripts' texts: {"ty", "tx + 1"}
  // Each subscript's value when it is a constant of literals alone ("37", "2 * 16").
  std::vector<std::optional<long long>> literal;
};

// A `__shared__` declaration found in the .cu source.
struct SharedDecl {
  int line = 0;                                      // 1-based
  std::string text;                                  // the whole source line
  std::string type;                                  // "float"
  std::string name;                                  // "tile"
  std::vector<std::string> dims;                     // bracket texts: {"BS", "BS + 1"}
  std::vector<long long> dim_values;                 // evaluated, -1 where not evaluable
  std::size_t last_dim_begin = 0, last_dim_end = 0;  // the last bracket's text in `text`
  // Whether the last dimension stands on `line` (a declaration wrapped over lines may break
  // it): only then is a padding of it written into `text`.
  bool last_dim_on_line = true;
  // The lines after the declaration up to this one (1-based, excluded: the next line with a
  // __global__, or one past the last line) are its kernel's.
  int kernel_end = 0;
  // An array of a class type the main file defines (`__shared__ Particle p[256]`): the type's
  // name, and the line, column (0-based) and text of the `}` that closes its definition.
  std::string record;
  int record_close_line = 0;
  std::size_t record_close_col = 0;
  std::string record_close_text;
  // A member of a `__shared__ struct { ... } s;` (name "s.x"): the variable, and whether it is
  // a union (every member at offset 0). The members come in their order.
  std::string member_of;
  bool is_union = false;
};

// One line of the main file that subscripts an array: every `NAME[...]` of one name on it.
struct SubscriptLine {
  int line = 0;      // 1-based
  std::string text;  // the whole source line
  std::string name;  // "tile"
  std::vector<Subscripted> subscripts;
};

// The source as one kernel's fix advice reads it.
struct SharedSource {
  // Every `__shared__` array declaration, in the order a name's declaration is looked for: the
  // kernel's own (its definition up to the next __global__) first, then the rest of the file.
  // Dimensions are evaluated where the declaration stands: the kernel's template arguments and
  // constants, or a __device__ template's arguments as the kernel calls it.
  std::vector<SharedDecl> declarations;
  std::vector<SubscriptLine> subscripts;  // by line, then by name's first use on it
};

}  // namespace bankcheck::analysis
