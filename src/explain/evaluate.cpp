// Integer constant expressions over tokens (see evaluate.hpp): a recursive-descent evaluator
// with the grammar, the nesting levels and the semantics of explain's expression parser.
#include "bankcheck/explain/evaluate.hpp"

#include <limits>

namespace bankcheck::explain {
namespace {

constexpr BinaryOperator kBinary[] = {
    {"||", 1, BinaryOp::LogOr}, {"&&", 2, BinaryOp::LogAnd}, {"|", 3, BinaryOp::BitOr},
    {"^", 4, BinaryOp::BitXor}, {"&", 5, BinaryOp::BitAnd},  {"==", 6, BinaryOp::Eq},
    {"!=", 6, BinaryOp::Ne},    {"<", 7, BinaryOp::Lt},      {"<=", 7, BinaryOp::Le},
    {">", 7, BinaryOp::Gt},     {">=", 7, BinaryOp::Ge},     {"<<", 8, BinaryOp::Shl},
    {">>", 8, BinaryOp::Shr},   {"+", 9, BinaryOp::Add},     {"-", 9, BinaryOp::Sub},
    {"*", 10, BinaryOp::Mul},   {"/", 10, BinaryOp::Div},    {"%", 10, BinaryOp::Mod}};

std::int64_t wrap(std::uint64_t v) { return static_cast<std::int64_t>(v); }
std::uint64_t u(std::int64_t v) { return static_cast<std::uint64_t>(v); }

// Thrown inside the evaluator only: the expression is not a constant.
struct NotConstant {};

class Evaluator {
 public:
  Evaluator(TokenSpan t, const NameResolver& resolve) : t_(t), resolve_(resolve) {}

  std::int64_t whole() {
    const std::int64_t v = conditional(true);
    if (next_ != t_.size()) throw NotConstant{};
    return v;
  }

 private:
  // One nesting level for the scope of a call; past kMaxNesting the input is refused.
  struct Level {
    explicit Level(int& depth) : depth_(depth) {
      if (++depth_ > kMaxNesting) throw NotConstant{};
    }
    ~Level() { --depth_; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;
    int& depth_;
  };

  bool at(std::string_view punct) const {
    return next_ < t_.size() && t_[next_].kind == TokKind::Punct && t_[next_].is(punct);
  }
  void expect(std::string_view punct) {
    if (!at(punct)) throw NotConstant{};
    ++next_;
  }

  // `live`: the value is used. Errors of arithmetic count only there (`0 && 1 / 0` is 0).
  std::int64_t conditional(bool live) {
    const std::int64_t cond = binary(1, live);
    if (!at("?")) return cond;
    const Level level(depth_);
    ++next_;
    const std::int64_t yes = conditional(live && cond != 0);
    expect(":");
    const std::int64_t no = conditional(live && cond == 0);
    return cond != 0 ? yes : no;
  }

  // A chain of operators of at least `min_precedence`, left-associative; each operator of
  // the chain is a nesting level until the chain ends (a thrown NotConstant ends them all).
  std::int64_t binary(int min_precedence, bool live) {
    std::int64_t lhs = unary(live);
    const int depth_before = depth_;
    for (const BinaryOperator* op; (op = next_operator()) && op->precedence >= min_precedence;) {
      if (++depth_ > kMaxNesting) throw NotConstant{};
      ++next_;
      if (op->op == BinaryOp::LogAnd || op->op == BinaryOp::LogOr) {
        const bool decided = (op->op == BinaryOp::LogAnd) == (lhs == 0);
        const std::int64_t rhs = binary(op->precedence + 1, live && !decided);
        lhs = decided ? op->op == BinaryOp::LogOr : rhs != 0;
        continue;
      }
      const std::int64_t rhs = binary(op->precedence + 1, live);
      std::string error;
      lhs = live ? apply(op->op, lhs, rhs, &error) : 0;
      if (!error.empty()) throw NotConstant{};
    }
    depth_ = depth_before;
    return lhs;
  }

  const BinaryOperator* next_operator() const {
    if (next_ >= t_.size() || t_[next_].kind != TokKind::Punct) return nullptr;
    return binary_operator(t_[next_].text);
  }

  std::int64_t unary(bool live) {
    const Level level(depth_);
    if (next_ >= t_.size()) throw NotConstant{};
    const Token& tok = t_[next_];
    if (tok.kind == TokKind::Punct) {
      ++next_;
      if (tok.is("+")) return unary(live);
      if (tok.is("-")) return negate(unary(live));
      if (tok.is("~")) return ~unary(live);
      if (tok.is("!")) return unary(live) == 0;
      if (tok.is("(")) {
        const std::int64_t v = conditional(live);
        expect(")");
        return v;
      }
      throw NotConstant{};
    }
    if (tok.kind == TokKind::Number) {
      const IntegerLiteral lit = integer_literal(tok.text);
      if (!lit.ok()) throw NotConstant{};
      ++next_;
      return lit.value;
    }
    if (!live && tok.kind == TokKind::Ident) return skip_operand();
    const std::optional<Operand> v = resolve_(t_, next_);
    if (!v || v->end <= next_) throw NotConstant{};
    next_ = v->end;
    return v->value;
  }

  // An operand whose value is not used (the branch ?: does not take, the right of a decided
  // && or ||): read past it, resolving nothing: a name and what follows it (`::x`, `.x`,
  // `->x`, a call's or an index's brackets). `argc > 1 ? atoi(argv[1]) : 1024` is 1024
  // with argc 1, whatever atoi and argv are.
  std::int64_t skip_operand() {
    ++next_;
    while (next_ < t_.size()) {
      const Token& t = t_[next_];
      if ((t.is("::") || t.is(".") || t.is("->")) && next_ + 1 < t_.size() &&
          t_[next_ + 1].kind == TokKind::Ident) {
        next_ += 2;
      } else if (t.is("(") || t.is("[")) {
        const std::size_t close = match_forward(t_, next_);
        if (close >= t_.size()) throw NotConstant{};
        next_ = close + 1;
      } else {
        break;
      }
    }
    return 0;
  }

  TokenSpan t_;
  const NameResolver& resolve_;
  std::size_t next_ = 0;
  int depth_ = 0;
};

}  // namespace

const BinaryOperator* binary_operator(std::string_view punct) {
  for (const BinaryOperator& b : kBinary)
    if (b.text == punct) return &b;
  return nullptr;
}

std::int64_t negate(std::int64_t a) { return wrap(0 - u(a)); }

std::int64_t apply(BinaryOp op, std::int64_t a, std::int64_t b, std::string* error) {
  switch (op) {
    case BinaryOp::Mul:
      return wrap(u(a) * u(b));
    case BinaryOp::Add:
      return wrap(u(a) + u(b));
    case BinaryOp::Sub:
      return wrap(u(a) - u(b));
    case BinaryOp::Div:
    case BinaryOp::Mod:
      if (b == 0) {
        *error = op == BinaryOp::Div ? "division by zero" : "modulo by zero";
        return 0;
      }
      if (a == std::numeric_limits<std::int64_t>::min() && b == -1)  // the one overflow
        return op == BinaryOp::Div ? a : 0;
      return op == BinaryOp::Div ? a / b : a % b;  // C and C++ both truncate toward zero
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      if (b < 0) {
        *error = "negative shift count " + std::to_string(b);
        return 0;
      }
      if (b >= 64) {
        *error = "shift count " + std::to_string(b) + " is 64 or more";
        return 0;
      }
      return op == BinaryOp::Shl ? wrap(u(a) << b) : a >> b;  // >> of a negative is arithmetic
    case BinaryOp::Lt:
      return a < b;
    case BinaryOp::Le:
      return a <= b;
    case BinaryOp::Gt:
      return a > b;
    case BinaryOp::Ge:
      return a >= b;
    case BinaryOp::Eq:
      return a == b;
    case BinaryOp::Ne:
      return a != b;
    case BinaryOp::BitAnd:
      return a & b;
    case BinaryOp::BitXor:
      return a ^ b;
    case BinaryOp::BitOr:
      return a | b;
    case BinaryOp::LogAnd:
      return a != 0 && b != 0;
    case BinaryOp::LogOr:
      return a != 0 || b != 0;
  }
  return 0;
}

NameResolver by_name(const NameLookup& lookup) {
  return [lookup](TokenSpan t, std::size_t at) -> std::optional<Operand> {
    if (!t[at].ident()) return std::nullopt;
    const std::optional<std::int64_t> v = lookup(t[at].text);
    if (!v) return std::nullopt;
    return Operand{*v, at + 1};
  };
}

std::optional<std::int64_t> evaluate(TokenSpan t, const NameResolver& resolve) {
  try {
    return Evaluator(t, resolve).whole();
  } catch (const NotConstant&) {
    return std::nullopt;
  }
}

}  // namespace bankcheck::explain
