// The host-code reader's pieces that need no scope (host_code.cpp); private to the driver.
#pragma once

#include <cstddef>
#include <optional>
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

// When the `{` at i opens a class body (`struct S {`, `class G : public B {`): the class's
// name ("" when it has none); nullopt for any other brace.
std::optional<std::string> class_body(const Tokens& t, std::size_t i);

// The end of an expression starting at `from`: the first ; or , or closing bracket at
// depth 0; t.size() when none.
std::size_t expr_end(const Tokens& t, std::size_t from);

// The name token of the first call in tokens [from, to) that takes `&name` as an argument
// (`cudaDeviceGetAttribute(&sms, ...)`: a value written at run time); cudaMalloc's aside.
std::optional<std::size_t> address_passed(const Tokens& t, const std::string& name,
                                          std::size_t from, std::size_t to);

// The size of a scalar type by its name ("float" 4, "half" 2, "float4" 16); 0 when unknown.
int type_size(const std::string& ty);
// Whether `w` is a word of a scalar type's name (a C cast's).
bool is_type_word(const std::string& w);
// sizeof(T) of tokens [from, to): a scalar, a pointer, or a struct of scalar members defined
// in one of `files` (the file's and its headers' tokens); 0 when unknown.
int sizeof_type(TokenSpan t, std::size_t from, std::size_t to,
                const std::vector<const Tokens*>& files);

}  // namespace bankcheck::driver::host_code
