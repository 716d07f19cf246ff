// Recursive-descent parser and per-lane evaluator for `explain` (see parser.hpp).
#include "parser.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "bankcheck/explain/expr.hpp"
#include "bankcheck/model/access.hpp"

namespace bankcheck::explain::detail {
namespace {

using Op = Node::Op;

constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 32;  // addresses are 32-bit

// The punctuators of expressions, declarations and types; any other is a lexical error.
bool known_punct(std::string_view p) {
  static constexpr std::string_view kOneChar = "+-*/%<>&^|~!?:()[]{}.,;";
  return (p.size() == 1 && kOneChar.find(p[0]) != std::string_view::npos) ||
         binary_operator(p) != nullptr;
}

bool is_qualifier(std::string_view w) {
  return w == "const" || w == "volatile" || w == "__shared__" || w == "static" || w == "extern";
}

NodePtr make(Op op, int pos) {
  auto n = std::make_unique<Node>();
  n->op = op;
  n->pos = pos;
  return n;
}

NodePtr number(std::int64_t value, int pos) {
  NodePtr n = make(Op::Num, pos);
  n->value = value;
  return n;
}

}  // namespace

std::int64_t eval(const Node& n, const LaneValues& lane) {
  switch (n.op) {
    case Op::Num:
      return n.value;
    case Op::Var:
      return lane[n.slot];
    case Op::Neg:
      return negate(eval(*n.a, lane));
    case Op::BitNot:
      return ~eval(*n.a, lane);
    case Op::LogNot:
      return eval(*n.a, lane) == 0;
    case Op::Cast: {
      const std::int64_t v = eval(*n.a, lane);
      if (n.cast_bits == 1) return v != 0;  // bool
      if (n.cast_bits >= 64) return v;
      const std::uint64_t mask = (std::uint64_t{1} << n.cast_bits) - 1;
      std::uint64_t r = static_cast<std::uint64_t>(v) & mask;
      if (n.cast_signed && (r >> (n.cast_bits - 1)) & 1) r |= ~mask;  // sign-extend
      return static_cast<std::int64_t>(r);
    }
    case Op::Cond:
      return eval(*n.a, lane) != 0 ? eval(*n.b, lane) : eval(*n.c, lane);
    case Op::Binary:
      break;
  }
  const std::int64_t a = eval(*n.a, lane);
  if (n.binary == BinaryOp::LogAnd && a == 0) return 0;  // && and || evaluate lazily
  if (n.binary == BinaryOp::LogOr && a != 0) return 1;
  std::string error;
  const std::int64_t v = apply(n.binary, a, eval(*n.b, lane), &error);
  if (!error.empty()) throw EvalError{n.pos, error};
  return v;
}

std::vector<Token> lex(std::string_view text) {
  std::vector<Token> out;
  for (const explain::Token& s : tokenize(text)) {
    Token t;
    t.pos = static_cast<int>(s.pos);
    t.text = s.text;
    if (s.ident()) {
      t.kind = TokKind::Ident;
    } else if (s.number()) {
      const IntegerLiteral lit = integer_literal(s.text);
      t.kind = lit.ok() ? TokKind::Number : TokKind::Bad;
      t.value = lit.value;
      if (!lit.ok()) {
        t.text = lit.error;
        t.pos += static_cast<int>(lit.error_at);
      }
    } else if (known_punct(s.text) || s.text.size() > 1) {
      t.kind = TokKind::Punct;  // a C++ punctuator no expression has is a syntax error
    } else {
      t.kind = TokKind::Bad;
      t.text = "unexpected character '" + s.text + "'";
    }
    out.push_back(std::move(t));
    if (out.back().kind == TokKind::Bad) break;  // nothing after a lexical error is looked at
  }
  Token end;
  end.kind = TokKind::End;
  end.pos = static_cast<int>(text.size());
  out.push_back(end);
  return out;
}

// ---- token handling -------------------------------------------------------------------

Parser::Parser(std::string source, std::string text, const Scope& scope)
    : source_(std::move(source)), text_(std::move(text)), scope_(scope), tokens_(lex(text_)) {}

void Parser::fail(int pos, const std::string& message) const {
  throw ExprError(message, source_, text_, pos + 1);
}

const Token& Parser::peek(std::size_t ahead) const {
  const std::size_t last = std::min(next_ + ahead, tokens_.size() - 1);
  // A lexical error surfaces as soon as the parser looks at (or past) it.
  for (std::size_t i = next_; i <= last; ++i)
    if (tokens_[i].kind == TokKind::Bad) fail(tokens_[i].pos, tokens_[i].text);
  return tokens_[last];
}

Token Parser::take() {
  Token t = peek();
  if (next_ + 1 < tokens_.size()) ++next_;
  return t;
}

bool Parser::at(std::string_view punct, std::size_t ahead) const {
  const Token& t = peek(ahead);
  return t.kind == TokKind::Punct && t.text == punct;
}

bool Parser::accept(std::string_view punct) {
  if (!at(punct)) return false;
  take();
  return true;
}

void Parser::expect(std::string_view punct) {
  if (!accept(punct)) fail(peek().pos, "expected '" + std::string(punct) + "'");
}

std::string Parser::describe(const Token& t) const {
  return t.kind == TokKind::End ? "end of input" : "'" + t.text + "'";
}

void Parser::expect_end() const {
  const Token& t = peek();
  if (t.kind != TokKind::End) fail(t.pos, "unexpected " + describe(t));
}

// ---- expressions ----------------------------------------------------------------------

NodePtr Parser::whole_expression() {
  per_thread_ = true;
  NodePtr e = expression();
  expect_end();
  return e;
}

NodePtr Parser::expression() { return conditional(); }

// Recursive descent: every nesting level (a parenthesis, a cast, a prefix operator, a
// subscript, a conditional's branch, a struct inside a struct) passes unary(),
// conditional() or struct_type(), so one depth limit bounds the stack for any input. A
// chain of binary operators (a + b + c ...) is parsed by a loop but evaluated and freed by
// recursion along its left operands: each of its operators counts as a level too.
constexpr int kMaxDepth = kMaxNesting;

// Raises the parser's depth for one scope; past kMaxDepth the input is refused at `pos`.
struct DepthGuard {
  DepthGuard(const Parser& p, int& depth, int pos, const char* what = "expression")
      : depth_(depth) {
    if (++depth_ <= kMaxDepth) return;
    --depth_;
    p.fail(pos,
           std::string(what) + " nested more than " + std::to_string(kMaxDepth) + " levels deep");
  }
  ~DepthGuard() { --depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  int& depth_;
};

NodePtr Parser::conditional() {
  NodePtr cond = binary(1);
  if (!at("?")) return cond;
  const DepthGuard guard(*this, depth_, peek().pos);
  NodePtr n = make(Op::Cond, take().pos);
  n->a = std::move(cond);
  n->b = expression();
  expect(":");
  n->c = conditional();
  return n;
}

NodePtr Parser::binary(int min_prec) {
  NodePtr lhs = unary();
  const int depth = depth_;
  struct Restore {  // the chain's levels end with it
    int& d;
    const int to;
    ~Restore() { d = to; }
  } restore{depth_, depth};
  for (;;) {
    const Token& t = peek();
    const BinaryOperator* op = t.kind == TokKind::Punct ? binary_operator(t.text) : nullptr;
    if (!op || op->precedence < min_prec) return lhs;
    if (++depth_ > kMaxDepth)
      fail(peek().pos, "expression nested more than " + std::to_string(kMaxDepth) + " levels deep");
    NodePtr n = make(Op::Binary, take().pos);
    n->binary = op->op;
    n->a = std::move(lhs);
    n->b = binary(op->precedence + 1);  // left-associative
    lhs = std::move(n);
  }
}

NodePtr Parser::unary() {
  const Token t = peek();
  const DepthGuard guard(*this, depth_, t.pos);
  if (t.kind == TokKind::Punct) {
    if (t.text == "+") {
      take();
      return unary();
    }
    if (t.text == "-" || t.text == "~" || t.text == "!") {
      take();
      NodePtr n = make(t.text == "-" ? Op::Neg : t.text == "~" ? Op::BitNot : Op::LogNot, t.pos);
      n->a = unary();
      return n;
    }
    if (t.text == "(") {
      take();
      if (type_starts(0)) {  // a cast: (TYPE) operand
        const int type_pos = peek().pos;
        const TypePtr type = type_name();
        expect(")");
        if (type->kind != Type::Kind::Scalar || !type->is_integer)
          fail(type_pos, "cast to '" + type->name + "' is not supported (expressions are integer)");
        NodePtr n = make(Op::Cast, t.pos);
        n->cast_bits = type->name == "bool" ? 1 : static_cast<int>(type->size * 8);
        n->cast_signed = type->is_signed;
        n->a = unary();
        return n;
      }
      NodePtr e = expression();
      expect(")");
      return e;
    }
  }
  if (t.kind == TokKind::Number) {
    take();
    return number(t.value, t.pos);
  }
  if (t.kind == TokKind::Ident) {
    if (t.text == "sizeof") {
      take();
      expect("(");
      const TypePtr type = type_name();
      expect(")");
      return number(static_cast<std::int64_t>(type->size), t.pos);
    }
    return identifier();
  }
  fail(t.pos, "expected expression");
}

// NAME or NAME.member... (threadIdx.x, blockDim.y, a --set name with dots).
NodePtr Parser::identifier() {
  const Token first = take();
  std::string name = first.text;
  while (at(".")) {
    take();
    const Token& m = peek();
    if (m.kind != TokKind::Ident) fail(m.pos, "expected a name after '.'");
    name += '.';  // appended apart: GCC 12 warns on "." + a temporary (-Wrestrict)
    name += take().text;
  }
  return resolve(name, first.pos);
}

NodePtr Parser::resolve(const std::string& name, int pos) const {
  if (scope_.vars) {
    auto it = scope_.vars->find(name);
    if (it != scope_.vars->end()) return number(it->second, pos);
  }
  static const std::map<std::string_view, int> kThread = {
      {"threadIdx.x", kThreadX}, {"threadIdx.y", kThreadY},
      {"threadIdx.z", kThreadZ}, {"tid", kTid},
      {"lane", kLane},           {"warp", kWarp}};
  if (auto it = kThread.find(name); it != kThread.end()) {
    if (!per_thread_)
      fail(pos, "'" + name + "' differs between threads; a constant is needed here");
    NodePtr n = make(Op::Var, pos);
    n->slot = it->second;
    return n;
  }
  static constexpr std::string_view kAxes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    const std::string axis(kAxes[i]);
    if (name == "blockDim." + axis) return number(scope_.block[i], pos);
    if (name == "blockIdx." + axis) return number(0, pos);
    if (name == "gridDim." + axis) return number(1, pos);
  }
  if (name == "warpSize") return number(model::kWarpSize, pos);
  std::string message = "unknown identifier '" + name + "'";
  if (!scope_.hint_name.empty() && name == scope_.hint_name)
    message += scope_.hint;
  else if (name.find('.') == std::string::npos)
    // A name of the user's code (a loop variable, a size): explain takes its value as a flag.
    message += " (give its value with --set " + name + "=VALUE)";
  fail(pos, message);
}

// ---- types and declarations -------------------------------------------------------------

bool Parser::type_starts(std::size_t ahead) const {
  const Token& t = peek(ahead);
  return t.kind == TokKind::Ident && (is_int_keyword(t.text) || is_qualifier(t.text) ||
                                      t.text == "struct" || find_builtin(t.text) != nullptr);
}

void Parser::skip_qualifiers() {
  while (peek().kind == TokKind::Ident && is_qualifier(peek().text)) take();
}

TypePtr Parser::type_name() {
  skip_qualifiers();
  const Token t = peek();
  if (t.kind != TokKind::Ident) fail(t.pos, "expected a type");
  TypePtr type;
  if (t.text == "struct") {
    type = struct_type();
  } else if (is_int_keyword(t.text)) {
    std::vector<std::string> words;
    std::string spelled;
    while (peek().kind == TokKind::Ident && is_int_keyword(peek().text)) {
      words.push_back(take().text);
      spelled += (spelled.empty() ? "" : " ") + words.back();
    }
    const std::string name = canonical_int_name(words);
    if (name.empty()) fail(t.pos, "invalid type '" + spelled + "'");
    type = find_builtin(name);
  } else {
    type = find_builtin(t.text);
    if (!type) fail(t.pos, "unknown type '" + t.text + "'");
    take();
  }
  skip_qualifiers();
  return type;
}

// struct [TAG] { TYPE NAME[DIMS], NAME...; ... }
TypePtr Parser::struct_type() {
  const DepthGuard guard(*this, depth_, peek().pos, "struct");
  const int struct_pos = take().pos;
  if (peek().kind == TokKind::Ident && at("{", 1)) take();  // a tag: ignored
  expect("{");
  std::vector<std::pair<std::string, TypePtr>> members;
  while (!accept("}")) {
    const TypePtr type = type_name();
    for (;;) {
      const Token name = peek();
      if (name.kind != TokKind::Ident) fail(name.pos, "expected a member name");
      take();
      for (const auto& m : members)
        if (m.first == name.text) fail(name.pos, "duplicate member '" + name.text + "'");
      members.emplace_back(name.text, array_dims(type, false));
      if (!accept(",")) break;
    }
    if (!accept(";") && !at("}")) fail(peek().pos, "expected ';'");
  }
  if (members.empty()) fail(struct_pos, "empty struct");
  TypePtr type = make_struct(members);
  if (type->size >= kMaxBytes) fail(struct_pos, "struct too large");
  return type;
}

// [D1][D2]... after a name; each Dk a positive constant expression (the first may be empty
// when `allow_unbounded_first`: an unbounded array).
TypePtr Parser::array_dims(TypePtr elem, bool allow_unbounded_first) {
  struct Dim {
    std::uint64_t count;
    int pos;
  };
  std::vector<Dim> dims;
  while (at("[")) {
    const int bracket = take().pos;
    if (dims.empty() && allow_unbounded_first && at("]")) {
      take();
      dims.push_back({0, bracket});
      continue;
    }
    const int pos = peek().pos;
    const bool saved = per_thread_;
    per_thread_ = false;
    NodePtr e = expression();
    per_thread_ = saved;
    expect("]");
    std::int64_t v = 0;
    try {
      v = eval(*e, LaneValues{});
    } catch (const EvalError& err) {
      fail(err.pos, err.message);
    }
    if (v <= 0) fail(pos, "array size must be positive, got " + std::to_string(v));
    dims.push_back({static_cast<std::uint64_t>(v), pos});
  }
  TypePtr type = std::move(elem);
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    if (it->count > 0 && type->size > 0 && it->count > (kMaxBytes - 1) / type->size)
      fail(it->pos, "array too large (more than 4 GiB)");
    type = make_array(type, it->count);
  }
  return type;
}

TypePtr Parser::whole_type() {
  TypePtr type = type_name();
  expect_end();
  return type;
}

Declaration Parser::whole_declaration() {
  Declaration d;
  const TypePtr elem = type_name();
  const Token name = peek();
  if (name.kind != TokKind::Ident || type_starts(0)) fail(name.pos, "expected an array name");
  take();
  d.name = name.text;
  d.name_pos = name.pos;
  d.type = array_dims(elem, true);
  accept(";");
  expect_end();
  return d;
}

std::vector<Step> Parser::whole_access(const std::string& name, int* name_pos) {
  per_thread_ = true;
  const Token t = peek();
  if (t.kind != TokKind::Ident || t.text != name)
    fail(t.pos, "expected the array name '" + name + "'");
  take();
  *name_pos = t.pos;
  std::vector<Step> steps;
  for (;;) {
    if (accept("[")) {
      Step s;
      s.pos = peek().pos;
      s.index = expression();
      expect("]");
      steps.push_back(std::move(s));
    } else if (accept(".")) {
      const Token m = peek();
      if (m.kind != TokKind::Ident) fail(m.pos, "expected a member name");
      take();
      steps.push_back(Step{nullptr, m.text, m.pos});
    } else {
      break;
    }
  }
  expect_end();
  return steps;
}

}  // namespace bankcheck::explain::detail
