// Recursive-descent parser and evaluator for `bankcheck explain`: integer expressions (an AST
// compiled once, evaluated per lane), type names, the one-array declaration of --decl and the
// subscript/member chain of an access.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/explain/evaluate.hpp"
#include "types.hpp"

namespace bankcheck::explain::detail {

// The shared tokens (bankcheck/explain/tokens.hpp) as the parser reads them: numbers with
// their values, and the first lexical error as a Bad token.
enum class TokKind { Ident, Number, Punct, End, Bad };

struct Token {
  TokKind kind = TokKind::End;
  std::string text;        // Ident: the name; Punct: the operator; Bad: the error message
  std::int64_t value = 0;  // Number: the value (literals above INT64_MAX wrap, as in C)
  int pos = 0;             // 0-based offset of the token (Bad: of the offending character)
};

// `text` as tokens, always ending with one End token (at text.size()). A lexical error (a bad
// integer literal, a character no expression uses) does not throw: it becomes a Bad token and
// ends the list there, so the parser reports errors left to right.
std::vector<Token> lex(std::string_view text);

// The per-thread values an expression can read; everything else is folded to a constant at
// parse time.
enum Slot : int { kThreadX, kThreadY, kThreadZ, kTid, kLane, kWarp, kSlotCount };
using LaneValues = std::array<std::int64_t, kSlotCount>;

struct Node {
  enum class Op { Num, Var, Neg, BitNot, LogNot, Cast, Binary, Cond };
  Op op = Op::Num;
  BinaryOp binary = BinaryOp::Add;  // Binary: evaluate.hpp's operator
  int pos = 0;                      // 0-based: the operator (or the operand for leaves)
  std::int64_t value = 0;           // Num
  int slot = 0;                     // Var
  int cast_bits = 64;               // Cast: width of the target integer type (1 for bool)
  bool cast_signed = true;          // Cast
  std::unique_ptr<Node> a, b, c;
};
using NodePtr = std::unique_ptr<Node>;

// An evaluation error (division by zero, bad shift) at 0-based position `pos`.
struct EvalError {
  int pos = 0;
  std::string message;
};

// C semantics on int64 (wrapping where C would overflow); && || ?: evaluate lazily.
// Throws EvalError.
std::int64_t eval(const Node& node, const LaneValues& lane);

// What identifiers mean while parsing.
struct Scope {
  const std::map<std::string, std::int64_t>* vars = nullptr;  // --set, shadows everything
  std::array<std::uint32_t, 3> block = {32, 1, 1};
  std::string hint_name;  // an unknown identifier spelled so gets `hint` appended
  std::string hint;
};

// One link of an access chain: `[index]` or `.member`.
struct Step {
  NodePtr index;  // null for a member
  std::string member;
  int pos = 0;  // the index expression's first token, or the member name
};

struct Declaration {
  std::string name;
  int name_pos = 0;
  TypePtr type;  // an array type (or the element type for a scalar declaration)
};

// Parses one command-line argument. Every error is thrown as ExprError naming `source` and
// `text`, with the column of the offending token.
class Parser {
 public:
  Parser(std::string source, std::string text, const Scope& scope);

  NodePtr whole_expression();       // an integer expression of the thread
  TypePtr whole_type();             // a type name
  Declaration whole_declaration();  // [__shared__] TYPE NAME[D1]...[Dn] [;]
  // NAME followed by any chain of [index] and .member; `name_pos` receives NAME's position.
  std::vector<Step> whole_access(const std::string& name, int* name_pos);

  [[noreturn]] void fail(int pos, const std::string& message) const;
  const std::string& source() const { return source_; }
  const std::string& text() const { return text_; }

 private:
  const Token& peek(std::size_t ahead = 0) const;
  Token take();
  bool at(std::string_view punct, std::size_t ahead = 0) const;
  bool accept(std::string_view punct);
  void expect(std::string_view punct);
  void expect_end() const;
  std::string describe(const Token& t) const;

  NodePtr expression();
  NodePtr conditional();
  NodePtr binary(int min_prec);
  NodePtr unary();
  NodePtr identifier();
  NodePtr resolve(const std::string& name, int pos) const;

  bool type_starts(std::size_t ahead) const;
  void skip_qualifiers();
  TypePtr type_name();
  TypePtr struct_type();
  TypePtr array_dims(TypePtr elem, bool allow_unbounded_first);

  std::string source_;
  std::string text_;
  const Scope& scope_;
  std::vector<Token> tokens_;
  // Nesting: parentheses, casts, prefix operators, conditionals, chained binary operators
  // and structs in structs (parser.cpp, kMaxDepth).
  int depth_ = 0;
  std::size_t next_ = 0;
  bool per_thread_ = true;  // false inside array dimensions: thread values are not allowed
};

}  // namespace bankcheck::explain::detail
