// The one reader of CUDA C++ source text: comments, string and character literals (raw
// strings too), digit separators, preprocessor directives with their continuations, and
// object-like #define. The driver (kernel parameter names), the fix advisor (__shared__
// declarations and their dimensions) and explain read source through it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankcheck::explain {

// What code_only keeps.
enum class Directives { Blank, Keep };

// The text with comments and string and character literals replaced by blanks (and, with
// Directives::Blank, preprocessor lines too), newlines kept: every code character keeps its
// line and column, so positions found in the result index the original.
// Example: code_only("a = \"//\"; // c\n") == "a =     ;     \n".
std::string code_only(std::string_view text, Directives directives = Directives::Blank);

// code_only, split into lines (no newline characters; a final line without a newline kept).
std::vector<std::string> code_lines(std::string_view text,
                                    Directives directives = Directives::Blank);

// Every object-like `#define NAME value` (not function-like `NAME(`), its value with
// comments removed, continuation lines joined and blanks trimmed; the first definition of a
// name wins.
std::map<std::string, std::string> object_defines(std::string_view text);

// The value of an integer constant expression with C semantics on int64: its tokens
// (tokens.hpp) through the token evaluator (evaluate.hpp). Every identifier is looked up in
// `lookup` (nullopt: the expression is not a constant); nullopt too on a syntax error, a
// division by zero or a bad shift. Example: eval_constant("TILE * 2 + 1", {TILE: 32}) == 65.
std::optional<std::int64_t> eval_constant(
    std::string_view expr,
    const std::function<std::optional<std::int64_t>(const std::string&)>& lookup);

// The macros a text defines, as the preprocessor leaves them at its end.
struct FunctionMacro {
  std::vector<std::string> params;
  std::string body;
};
struct Macros {
  std::map<std::string, std::string> object;         // NAME -> value
  std::map<std::string, FunctionMacro> function;     // NAME(params) -> body
  bool defined(const std::string& name) const {
    return object.count(name) > 0 || function.count(name) > 0;
  }
};

// The text as the preprocessor's conditionals leave it: the lines of #if / #ifdef / #ifndef /
// #elif / #else branches not taken are blanked (newlines kept, so lines and columns stay),
// and `macros` ends as the macros defined after the text, in order: each taken #define sets
// its name, #undef removes it. `macros` starts with what was defined before (the command
// line's -D, a previous header's). A condition is evaluated as C's preprocessor does:
// `defined NAME` and `defined(NAME)`, macros replaced by their values, every other name 0;
// one that cannot be evaluated (a function-like macro's call, __has_include, a syntax error)
// is taken as false. `#include` is not followed here (the driver reads local headers).
// Example: with USE_WIDE defined, "#ifdef USE_WIDE / #define T 64 / #else / #define T 32 /
// #endif" (one directive a line) defines T as 64 and blanks the line "#define T 32".
std::string taken_branches(std::string_view text, Macros& macros);

// The value of a preprocessor condition (#if, #elif) over `macros`, or nullopt when it cannot
// be evaluated.
std::optional<std::int64_t> preprocessor_condition(std::string_view condition,
                                                  const Macros& macros);

}  // namespace bankcheck::explain
