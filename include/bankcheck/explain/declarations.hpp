// Pieces of C++ declarations over tokens (tokens.hpp): where a parameter's default value
// starts, the name a parameter declares, and the parameters of a template header. The host
// code's launch reader, kernel parameter names and the `__shared__` declaration reader all
// read declarations through these.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bankcheck/explain/tokens.hpp"

namespace bankcheck::explain {

// The `=` that starts the default value of the parameter in tokens [from, to), outside
// brackets and template argument lists; `to` when it has none.
// Example: in `int n = a < b` it is the `=`; in `Vec<N == 2> v` there is none.
std::size_t default_value(TokenSpan t, std::size_t from, std::size_t to);

// Whether `t` names an attribute that takes a parenthesised argument: __launch_bounds__(256),
// __align__(16), __attribute__((x)), alignas(16), __declspec(x), decltype(x).
bool is_attribute_call(const Token& t);

// The name a function parameter declares (its tokens without the default value); "" for an
// unnamed one. Attributes (`[[maybe_unused]]`, `__align__(16)`) are skipped; a declarator in
// parentheses names its parameter (`void (*cb)(int)`: cb); array bounds follow the name.
// Examples: `const float* __restrict__ in` -> in; `const T` -> ""; `ns::Params` -> "".
std::string parameter_name(TokenSpan param);

// One parameter of a template header: `int BM = 64` -> {"BM", type false, pack false}.
struct TemplateParam {
  std::string name;   // "" when unnamed
  bool type = false;  // typename, class or a template template parameter
  bool pack = false;  // a parameter pack
};
// The parameters of the template header whose `<` is at t[open], in order; empty when the
// header does not close.
std::vector<TemplateParam> template_parameters(TokenSpan t, std::size_t open);

// Where the declaration that ends before token `at` starts: just after the previous ; { or }
// (a template header has none of them).
std::size_t declaration_start(TokenSpan t, std::size_t at);

}  // namespace bankcheck::explain
