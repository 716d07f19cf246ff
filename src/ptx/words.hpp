// PTX's words and literals, for the parser: the sizes of fundamental types, state-space
// and performance-directive names, dotted modifier lists, and initializer elements packed
// into bytes (f16 and bf16 rounded to nearest even).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "bankcheck/ptx/ast.hpp"
#include "lexer.hpp"

namespace bankcheck::ptx::detail {

// Element size in bytes of a PTX fundamental type; 0 for types without an initializer
// (.pred, .texref, ...); -1 for anything that is not a type.
int type_size(std::string_view t);
bool is_state_space(std::string_view d);
StateSpace state_space(std::string_view d);
bool is_perf_directive(std::string_view d);
// ".ptr.global.align" -> ".ptr", ".global", ".align" (a part keeps '::' joined names).
std::vector<std::string_view> split_dots(std::string_view text);
std::uint16_t float_to_half(float f);
std::uint16_t float_to_bf16(float f);
// Appends one initializer element of `size` bytes of v.type to v.init: a number (negated
// when `negative`), rounded into the element's float format, or its raw bits.
void write_element(Variable& v, int size, const Number& n, bool negative);

}  // namespace bankcheck::ptx::detail
