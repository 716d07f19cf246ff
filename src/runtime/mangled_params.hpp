// The byte size of each parameter of a kernel, read from its Itanium-mangled name, for the
// record executor (the test double), which has no module to read them from. Covers what a
// name can tell: built-in types, pointers and references, arrays, vectors, and template
// parameters bound to those; a class type's size is not in its name.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace bankcheck::runtime {

// One entry per parameter, in order; 0 where the name does not tell the size (a class type).
// nullopt when the name is not a mangled function name this reader understands.
// Example: parameter_sizes("_Z5scaleIfEvPT_S0_i") == {8, 4, 4} (float*, float, int).
std::optional<std::vector<std::size_t>> parameter_sizes(std::string_view mangled);

}  // namespace bankcheck::runtime
