// `explain` expression mode: checks the input, parses the declaration and expressions, and
// evaluates them for every thread of the block into per-warp requests.
#include "bankcheck/explain/expr.hpp"

#include "bankcheck/explain/tokens.hpp"
#include "parser.hpp"
#include "types.hpp"

namespace bankcheck::explain {
namespace {

using detail::EvalError;
using detail::LaneValues;
using detail::Node;
using detail::Parser;
using detail::Step;
using detail::Type;
using detail::TypePtr;

constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 32;  // addresses are 32-bit
constexpr std::size_t kMaxRequests = 256;

int first_non_space(std::string_view s) {
  int i = 0;
  while (i < static_cast<int>(s.size()) && is_blank(s[i])) ++i;
  return i;
}

std::string block_text(const Dim3& b) {
  return std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z);
}

void check_block(const Dim3& b, const std::string& text) {
  const std::uint32_t dims[] = {b.x, b.y, b.z};
  for (int i = 0; i < 3; ++i)
    if (dims[i] == 0)
      throw ExprError(std::string("block dimension ") + "xyz"[i] + " is 0; each must be at least 1",
                      "--block", text, 0);
  if (b.z > 64)
    throw ExprError("block z dimension " + std::to_string(b.z) + " is above CUDA's limit of 64",
                    "--block", text, 0);
  const std::uint64_t threads = std::uint64_t{b.x} * b.y * b.z;
  if (threads > kMaxBlockThreads)
    throw ExprError("block of " + std::to_string(threads) + " threads; at most 1024", "--block",
                    text, 0);
}

bool valid_name(std::string_view name) {
  bool start = true;
  if (name.empty()) return false;
  for (char c : name) {
    if (c == '.') {
      if (start) return false;
      start = true;
    } else if (start ? is_ident_start(c) : is_ident_char(c)) {
      start = false;
    } else {
      return false;
    }
  }
  return !start;
}

std::string lane_text(int lane, int warp) {
  return " for lane " + std::to_string(lane) + " of warp " + std::to_string(warp);
}

// One piece of the accessed value that becomes one request.
struct Piece {
  std::string suffix;  // ".x", ".f", "[1]", "" for the whole value
  int width;
  std::uint64_t offset;  // from the accessed value
};

bool native_width(const Type& t) {
  return t.size == t.align &&
         (t.size == 1 || t.size == 2 || t.size == 4 || t.size == 8 || t.size == 16);
}

// A value moves in one request when its size is a native width and it is aligned to it;
// otherwise member by member (element by element for arrays), recursively.
void split(const Type& t, std::uint64_t offset, const std::string& suffix,
           std::vector<Piece>& out) {
  if (out.size() > kMaxRequests) return;  // the caller reports it
  if (native_width(t)) {
    out.push_back({suffix, static_cast<int>(t.size), offset});
  } else if (t.kind == Type::Kind::Record) {
    for (const auto& f : t.fields) split(*f.type, offset + f.offset, suffix + "." + f.name, out);
  } else if (t.kind == Type::Kind::Array) {
    for (std::uint64_t i = 0; i < t.count && out.size() <= kMaxRequests; ++i)
      split(*t.elem, offset + i * t.elem->size, suffix + "[" + std::to_string(i) + "]", out);
  }
}

// The access chain checked against the declared type, ready to evaluate per lane.
struct Link {
  const Node* index = nullptr;  // null: a member at a fixed offset
  std::uint64_t count = 0;      // index: number of elements (0: unbounded)
  std::uint64_t stride = 0;     // index: element size
  std::uint64_t offset = 0;     // member
  int pos = 0;
};

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

Lowered lower(const ExplainInput& in) {
  check_block(in.block, block_text(in.block));
  for (const auto& [name, value] : in.vars)
    if (!valid_name(name))
      throw ExprError("invalid variable name '" + name + "'", "--set",
                      name + "=" + std::to_string(value), 1);
  if (in.type && in.decl) throw ExprError("give --type or --decl, not both", "--decl", *in.decl, 0);
  if (!in.type && !in.decl)
    throw ExprError("expression mode needs --type or --decl", "--expr", in.expr, 0);

  detail::Scope scope;
  scope.vars = &in.vars;
  scope.block = {in.block.x, in.block.y, in.block.z};

  Lowered out;
  TypePtr array_type;
  std::vector<Step> steps;
  std::string label;
  int name_pos = first_non_space(in.expr);
  if (in.type) {
    array_type = detail::make_array(Parser("--type", *in.type, scope).whole_type(), 0);
    out.array_name = "s";
    scope.hint_name = "s";
    scope.hint = " (with --type, --expr is the element index)";
    Step s;
    s.pos = name_pos;
    s.index = Parser("--expr", in.expr, scope).whole_expression();
    steps.push_back(std::move(s));
    label = "s[" + std::string(trim_blanks(in.expr)) + "]";
  } else {
    const detail::Declaration d = Parser("--decl", *in.decl, scope).whole_declaration();
    array_type = d.type;
    out.array_name = d.name;
    steps = Parser("--expr", in.expr, scope).whole_access(d.name, &name_pos);
    label = std::string(trim_blanks(in.expr));
  }
  Parser expr_parser("--expr", in.expr, scope);  // reports semantic errors in --expr

  // Check the chain against the type: all the array's subscripts first, then members (and
  // subscripts of member arrays).
  const std::size_t rank = static_cast<std::size_t>(array_type->rank());
  std::size_t leading = 0;
  while (leading < steps.size() && steps[leading].index) ++leading;
  if (leading != rank)
    expr_parser.fail(name_pos, out.array_name + " has " + plural(rank, "dimension") +
                                   ", expression gives " + std::to_string(leading));
  std::vector<Link> links;
  const Type* cur = array_type.get();
  for (const Step& s : steps) {
    Link l;
    l.pos = s.pos;
    if (s.index) {
      if (cur->kind != Type::Kind::Array)
        expr_parser.fail(s.pos, "subscript of non-array type '" + cur->name + "'");
      l.index = s.index.get();
      l.count = cur->count;
      l.stride = cur->elem->size;
      cur = cur->elem.get();
    } else {
      const detail::Field* f = cur->kind == Type::Kind::Record ? cur->field(s.member) : nullptr;
      if (!f) expr_parser.fail(s.pos, "'" + cur->name + "' has no member '" + s.member + "'");
      l.offset = f->offset;
      cur = f->type.get();
    }
    links.push_back(l);
  }
  out.element_type = cur->name;
  out.array_bytes = array_type->size;

  std::vector<Piece> pieces;
  split(*cur, 0, "", pieces);
  if (pieces.size() > kMaxRequests)
    expr_parser.fail(name_pos, "accessing a whole '" + cur->name + "' makes more than " +
                                   std::to_string(kMaxRequests) + " requests; subscript it");

  detail::NodePtr active;
  std::optional<Parser> active_parser;
  if (in.active) {
    active_parser.emplace("--active", *in.active, scope);
    active = active_parser->whole_expression();
  }

  const std::uint32_t threads = in.block.x * in.block.y * in.block.z;
  const std::uint32_t warps = (threads + model::kWarpSize - 1) / model::kWarpSize;
  for (const Piece& p : pieces) {
    Request r;
    r.label = label + p.suffix;
    r.width = p.width;
    model::WarpAccess w;
    w.op = in.op;
    w.width = static_cast<std::uint8_t>(p.width);
    w.active = 0;
    r.warps.assign(warps, w);
    out.requests.push_back(std::move(r));
  }

  for (std::uint32_t tid = 0; tid < threads; ++tid) {
    const int lane = static_cast<int>(tid % model::kWarpSize);
    const int warp = static_cast<int>(tid / model::kWarpSize);
    const LaneValues v = {tid % in.block.x,
                          tid / in.block.x % in.block.y,
                          tid / (in.block.x * in.block.y),
                          tid,
                          lane,
                          warp};
    if (active) {
      std::int64_t on = 0;
      try {
        on = detail::eval(*active, v);
      } catch (const EvalError& e) {
        active_parser->fail(e.pos, e.message + lane_text(lane, warp));
      }
      if (on == 0) continue;
    }
    std::uint64_t offset = 0;
    for (const Link& l : links) {
      if (!l.index) {
        offset += l.offset;
        continue;
      }
      std::int64_t i = 0;
      try {
        i = detail::eval(*l.index, v);
      } catch (const EvalError& e) {
        expr_parser.fail(e.pos, e.message + lane_text(lane, warp));
      }
      if (l.count > 0 && (i < 0 || static_cast<std::uint64_t>(i) >= l.count))
        expr_parser.fail(l.pos, "index " + std::to_string(i) + " out of range [0, " +
                                    std::to_string(l.count) + ")" + lane_text(lane, warp));
      if (i < 0)
        expr_parser.fail(l.pos, "negative index " + std::to_string(i) + lane_text(lane, warp));
      if (static_cast<std::uint64_t>(i) >= kMaxBytes)
        expr_parser.fail(l.pos, "index " + std::to_string(i) + " is beyond 32-bit addresses" +
                                    lane_text(lane, warp));
      offset += static_cast<std::uint64_t>(i) * l.stride;
    }
    if (offset + cur->size > kMaxBytes)
      expr_parser.fail(name_pos, "byte offset " + std::to_string(offset) +
                                     " is beyond 32-bit addresses" + lane_text(lane, warp));
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      model::WarpAccess& w = out.requests[p].warps[warp];
      w.active |= 1u << lane;
      w.addr[lane] = static_cast<std::uint32_t>(offset + pieces[p].offset);
    }
  }
  return out;
}

std::string caret_line(const ExprError& e) {
  // A control byte is shown as \xNN (it would drive the terminal), the caret moved with it.
  auto shown = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) {
      static const char* hex = "0123456789abcdef";
      return std::string("\\x") + hex[u >> 4] + hex[u & 15];
    }
    return std::string(1, c);
  };
  std::string out;
  for (char c : e.text) out += shown(c);
  if (e.column <= 0) return out;
  out += '\n';
  for (int i = 0; i + 1 < e.column; ++i) {
    const bool in_text = i < static_cast<int>(e.text.size());
    if (in_text && e.text[i] == '\t')
      out += '\t';
    else
      out += std::string(in_text ? shown(e.text[i]).size() : 1, ' ');
  }
  out += '^';
  return out;
}

Dim3 parse_block(std::string_view text) {
  const std::string full(text);
  const model::DimsText r = model::split_dims(text, true, 999999, 6);
  const int column = static_cast<int>(r.start) + 1;
  switch (r.error) {
    case model::DimsText::Error::None:
      break;
    case model::DimsText::Error::TooMany:
      throw ExprError("at most three block dimensions", "--block", full, column);
    case model::DimsText::Error::Zero:
      throw ExprError("block dimensions must be at least 1", "--block", full, column);
    default:
      throw ExprError("expected X[,Y[,Z]] with positive integers", "--block", full, column);
  }
  check_block(r.dims, full);
  return r.dims;
}

std::pair<std::string, std::int64_t> parse_set(std::string_view text) {
  const std::string full(text);
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    throw ExprError("expected NAME=INT", "--set", full, static_cast<int>(text.size()) + 1);
  const std::string_view name_part = text.substr(0, eq);
  const std::string name(trim_blanks(name_part));
  if (!valid_name(name))
    throw ExprError("invalid variable name '" + name + "'", "--set", full,
                    first_non_space(name_part) + 1);
  const std::vector<detail::Token> tokens = detail::lex(text.substr(eq + 1));
  auto column = [&](const detail::Token& t) { return static_cast<int>(eq) + 1 + t.pos + 1; };
  std::size_t i = 0;
  bool negative = false;
  if (tokens[i].kind == detail::TokKind::Punct &&
      (tokens[i].text == "-" || tokens[i].text == "+")) {
    negative = tokens[i].text == "-";
    ++i;
  }
  const detail::Token& t = tokens[i];
  if (t.kind == detail::TokKind::Bad) throw ExprError(t.text, "--set", full, column(t));
  if (t.kind != detail::TokKind::Number)
    throw ExprError("expected an integer after '='", "--set", full, column(t));
  const detail::Token& end = tokens[i + 1];
  if (end.kind != detail::TokKind::End)
    throw ExprError(end.kind == detail::TokKind::Bad ? end.text : "unexpected '" + end.text + "'",
                    "--set", full, column(end));
  const std::int64_t v =
      negative ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(t.value)) : t.value;
  return {name, v};
}

}  // namespace bankcheck::explain
