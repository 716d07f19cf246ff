// The host-code reader's pieces that need no scope (host_code.cpp); private to the driver.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bankcheck/explain/tokens.hpp"

namespace bankcheck::driver::host_code {

using explain::Token;
using explain::Tokens;
using explain::TokenSpan;

// A punctuator token made by the reader (a joined chevron, a macro's parenthesis).
Token punct(const char* text, std::size_t pos);

// The launch chevrons written with blanks inside (`k << < g, b >> > (p)`) joined into the
// `<<<` and `>>>` tokens nvcc reads there.
Tokens join_chevrons(Tokens t);

// Whether the comma at `comma` separates the declarators of a declaration (`dim3 grid(x),
// block(y);`), not the arguments of a call.
bool declares(const Tokens& t, std::size_t comma);

// The size of a scalar type by its name ("float" 4, "half" 2, "float4" 16); 0 when unknown.
int type_size(const std::string& ty);
// Whether `w` is a word of a scalar type's name (a C cast's).
bool is_type_word(const std::string& w);
// sizeof(T) of tokens [from, to): a scalar, a pointer, or a struct of scalar members defined
// in one of `files` (the file's and its headers' tokens); 0 when unknown.
int sizeof_type(TokenSpan t, std::size_t from, std::size_t to,
                const std::vector<const Tokens*>& files);

}  // namespace bankcheck::driver::host_code
