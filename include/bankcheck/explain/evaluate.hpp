// Integer constant expressions over tokens (tokens.hpp), with C semantics on int64: the one
// evaluator of CUDA source constants (launch expressions of the host code, `__shared__`
// dimensions, #define values), and the binary operators explain's per-lane evaluator applies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "bankcheck/explain/tokens.hpp"

namespace bankcheck::explain {

enum class BinaryOp {
  Mul,
  Div,
  Mod,
  Add,
  Sub,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  BitAnd,
  BitXor,
  BitOr,
  LogAnd,
  LogOr
};

struct BinaryOperator {
  std::string_view text;
  int precedence;  // C's: higher binds tighter (|| 1 ... * / % 10)
  BinaryOp op;
};
// The binary operator a punctuator spells, or null.
const BinaryOperator* binary_operator(std::string_view punct);

// a OP b with C semantics on int64: wrapping where C would overflow, / and % truncating toward
// zero, >> of a negative arithmetic. On a division or modulo by zero, a negative shift count
// or one of 64 or more, `error` receives the message and 0 is returned. && and || are strict
// here: a caller that must not evaluate b skips the call.
// Example: apply(BinaryOp::Shl, 1, 65, &e) == 0 with e == "shift count 65 is 64 or more".
std::int64_t apply(BinaryOp op, std::int64_t a, std::int64_t b, std::string* error);
// -a, wrapping (-INT64_MIN == INT64_MIN).
std::int64_t negate(std::int64_t a);

// How deep an expression may nest: each parenthesis, prefix operator, conditional and each
// operator of a chain (a + b + c ...) is a level. Deeper input is refused, so that no input
// recurses without bound.
inline constexpr int kMaxNesting = 256;

// An operand a resolver read: its value and the token just past it.
struct Operand {
  std::int64_t value = 0;
  std::size_t end = 0;
};
// What the identifier at t[at] means. A resolver may read past the name (a member `d.x`, a call
// `min(a, b)`, `sizeof(T)`) and says where the operand ends; nullopt: the name is unknown and
// the expression not a constant.
using NameResolver = std::function<std::optional<Operand>(TokenSpan t, std::size_t at)>;
// A resolver of plain names: `lookup` gives a name's value or nullopt.
using NameLookup = std::function<std::optional<std::int64_t>(const std::string& name)>;
NameResolver by_name(const NameLookup& lookup);

// The value of the integer constant expression `t` (all of it): literals (integer_literal),
// names through `resolve`, parentheses, prefix + - ~ !, the binary operators above and ?:
// (&&, || and ?: evaluate lazily; a name in a branch not taken is not resolved: it may be
// a call or a run-time value).
// nullopt on a syntax error, a bad literal, an unknown name, an error of `apply` or nesting
// deeper than kMaxNesting. Example: evaluate(tokenize("TILE * 2 + 1"), {TILE: 32}) == 65.
std::optional<std::int64_t> evaluate(TokenSpan t, const NameResolver& resolve);

}  // namespace bankcheck::explain
