// The fix advisor's view of the .cu source (see shared_source.hpp): `__shared__`
// declarations, the constants and template arguments their dimensions name, and the
// subscripts of arrays on each line. One pass of explain's tokenizer over the code (comments
// and literals blanked, directives kept), then lines of tokens.
#include "bankcheck/driver/shared_source.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/explain/cuda_source.hpp"
#include "bankcheck/explain/declarations.hpp"
#include "bankcheck/explain/evaluate.hpp"
#include "bankcheck/explain/tokens.hpp"

namespace bankcheck::driver {
namespace {

using analysis::SharedDecl;
using analysis::Subscripted;
using explain::Token;
using explain::Tokens;
using explain::TokenSpan;

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// Where a name in a dimension is looked up: the instantiation's template arguments, then
// constants in lines [first, last) (0-based), then the whole file.
struct Scope {
  std::map<std::string, std::optional<long long>> bound;  // nullopt: a parameter not bound
  std::size_t first = 0, last = 0;
};

// What nvcc sees besides the main file: the macros its command line defines (they win, as
// over an `#ifndef`-guarded default) and the local headers the file includes.
struct Context {
  const std::map<std::string, std::string>* defines = nullptr;
  const class SourceReader* headers = nullptr;
};

class SourceReader {
 public:
  explicit SourceReader(const std::vector<std::string>& lines, Context context = {})
      : lines_(lines), context_(context) {
    for (const auto& l : lines) text_ += l + "\n";
    code_ = explain::code_only(text_, explain::Directives::Keep);
    toks_ = explain::tokenize(code_);
    line_start_.push_back(0);
    for (const auto& l : lines) line_start_.push_back(line_start_.back() + l.size() + 1);
    for (std::size_t i = 0, j = 0; i < line_start_.size(); ++i) {
      while (j < toks_.size() && toks_[j].pos < line_start_[i]) ++j;
      line_begin_.push_back(j);
    }
  }

  std::size_t lines() const { return lines_.size(); }
  std::size_t begin(std::size_t line) const { return line_begin_[line]; }
  std::size_t end(std::size_t line) const { return line_begin_[line + 1]; }
  std::size_t column(std::size_t tok) const {
    const auto it = std::upper_bound(line_start_.begin(), line_start_.end(), toks_[tok].pos);
    return toks_[tok].pos - *(it - 1);
  }
  const Token& tok(std::size_t j) const { return toks_[j]; }
  std::size_t size() const { return toks_.size(); }
  // The 0-based line of token j.
  std::size_t line_of(std::size_t j) const {
    const auto it = std::upper_bound(line_start_.begin(), line_start_.end(), toks_[j].pos);
    return static_cast<std::size_t>(it - line_start_.begin()) - 1;
  }
  std::size_t match(std::size_t open) const { return explain::match_forward(toks_, open); }

  // The `}` that closes the definition of the class type `name` (`struct NAME {`, `class NAME
  // : base {`, `typedef struct { ... } NAME;`), or kNone when the file does not define it.
  std::size_t record_close(const std::string& name) const {
    for (std::size_t j = 0; j + 2 < toks_.size(); ++j) {
      const bool key = toks_[j].is("struct") || toks_[j].is("class");
      if (key && toks_[j + 1].is(name)) {
        std::size_t q = j + 2;
        while (q < toks_.size() && !toks_[q].is("{") && !toks_[q].is(";") && !toks_[q].is("(")) ++q;
        if (q < toks_.size() && toks_[q].is("{")) return match(q);
      }
      if (key && toks_[j + 1].is("{") && j > 0 && toks_[j - 1].is("typedef")) {
        const std::size_t close = match(j + 1);
        if (close + 2 < toks_.size() && toks_[close + 1].is(name) && toks_[close + 2].is(";"))
          return close;
      }
    }
    return kNone;
  }
  TokenSpan span(std::size_t from, std::size_t to) const {
    return TokenSpan(toks_).subspan(from, to - from);
  }

  // The first token `text` of `line` at or after token `from`, or kNone.
  std::size_t find(std::size_t line, std::string_view text, std::size_t from = 0) const {
    for (std::size_t j = std::max(from, begin(line)); j < end(line); ++j)
      if (toks_[j].is(text)) return j;
    return kNone;
  }
  bool has(std::size_t line, std::string_view text) const { return find(line, text) != kNone; }

  const std::string& line(std::size_t i) const { return lines_[i]; }
  // The code (comments and literals blanked, columns kept) between two byte offsets.
  std::string_view code(std::size_t from, std::size_t to) const {
    return std::string_view(code_).substr(from, to - from);
  }

  // The `[` and `]` of each subscript after NAME at token `at`, up to token `limit`.
  std::vector<explain::TokenRange> brackets(std::size_t at, std::size_t limit) const {
    std::vector<explain::TokenRange> out;
    for (std::size_t q = at + 1; q < limit && toks_[q].is("[");) {
      const std::size_t close = explain::match_forward(toks_, q);
      if (close >= limit) break;
      out.push_back({q, close});
      q = close + 1;
    }
    return out;
  }

  // NAME at token `at` and its subscripts up to token `limit`.
  Subscripted subscripts(std::size_t at, std::size_t limit) const {
    static const explain::NameResolver kNoNames = [](TokenSpan, std::size_t) {
      return std::optional<explain::Operand>();
    };
    Subscripted s;
    s.begin = column(at);
    s.end = s.begin + toks_[at].text.size();
    for (auto [open, close] : brackets(at, limit)) {
      s.index.emplace_back(explain::trim_blanks(code(toks_[open].end(), toks_[close].pos)));
      const auto v = explain::evaluate(span(open + 1, close), kNoNames);
      s.literal.push_back(v ? std::optional<long long>(*v) : std::nullopt);
      s.end = column(close) + 1;
    }
    return s;
  }

  // The value tokens of `#define NAME value`, `const int NAME = value` or
  // `enum { NAME = value }`, looked for in lines [first, last).
  std::optional<Tokens> definition(const std::string& name, std::size_t first,
                                   std::size_t last) const {
    for (std::size_t i = first; i < last && i < lines(); ++i) {
      const std::size_t b = begin(i), e = end(i);
      if (b == e) continue;
      if (toks_[b].is("#")) {
        const std::size_t d = find(i, "define");
        if (d != kNone && find(i, name, d) != kNone)
          if (auto it = defines().find(name); it != defines().end())
            return explain::tokenize(it->second);
        continue;
      }
      if (!has(i, "const") && !has(i, "constexpr") && !has(i, "enum")) continue;
      const std::size_t at = find(i, name);
      if (at == kNone || at + 1 >= e || !toks_[at + 1].is("=")) continue;
      std::size_t q = at + 2;
      for (int depth = 0; q < e; ++q) {
        if (toks_[q].is("(")) ++depth;
        if (toks_[q].is(")")) --depth;
        if (depth == 0 && (toks_[q].is(",") || toks_[q].is(";") || toks_[q].is("}"))) break;
      }
      return Tokens(toks_.begin() + static_cast<std::ptrdiff_t>(at + 2),
                    toks_.begin() + static_cast<std::ptrdiff_t>(q));
    }
    return std::nullopt;
  }

  std::optional<long long> evaluate(TokenSpan expr, const Scope& scope, int depth) const {
    if (depth > 8) return std::nullopt;
    const auto v = explain::evaluate(
        expr, explain::by_name([&](const std::string& name) -> std::optional<std::int64_t> {
          if (auto it = scope.bound.find(name); it != scope.bound.end())
            return it->second ? std::optional<std::int64_t>(*it->second) : std::nullopt;
          std::optional<Tokens> def;
          if (context_.defines)
            if (auto it = context_.defines->find(name); it != context_.defines->end())
              def = explain::tokenize(it->second);
          if (!def) def = definition(name, scope.first, scope.last);
          if (!def) def = definition(name, 0, lines());
          if (!def && context_.headers)
            def = context_.headers->definition(name, 0, context_.headers->lines());
          if (!def) return std::nullopt;
          const auto value = evaluate(*def, scope, depth + 1);
          return value ? std::optional<std::int64_t>(*value) : std::nullopt;
        }));
    if (v) return static_cast<long long>(*v);
    return std::nullopt;
  }

  // The parameters of the template header of the declaration whose name is at `line`,
  // `col`: empty when it is not a template.
  std::vector<explain::TemplateParam> template_params(std::size_t line, std::size_t col) const {
    std::size_t limit = begin(line);
    while (limit < end(line) && column(limit) < col) ++limit;
    std::size_t t = explain::declaration_start(toks_, limit);
    while (t < limit && !toks_[t].is("template")) ++t;
    std::size_t open = t;
    while (open < limit && !toks_[open].is("<")) ++open;
    if (open >= limit) return {};
    return explain::template_parameters(span(0, limit), open);
  }

 private:
  const std::map<std::string, std::string>& defines() const {
    if (!defines_) defines_ = explain::object_defines(text_);
    return *defines_;
  }

  const std::vector<std::string>& lines_;
  Context context_;
  std::string text_, code_;
  Tokens toks_;
  std::vector<std::size_t> line_start_;  // byte offset of each line, and one past the last
  std::vector<std::size_t> line_begin_;  // first token of each line, and one past the last
  mutable std::optional<std::map<std::string, std::string>> defines_;  // read when first asked
};

// One kernel's reading of the source: where its definition is, what its template parameters
// are bound to, and the declarations as they evaluate there.
class KernelReader {
 public:
  KernelReader(const SourceReader& src, const std::string& kernel) : src_(src) {
    const KernelName kn = parse_kernel_name(kernel);
    const std::size_t n = src.lines();
    start_ = stop_ = n;
    // The kernel's definition line: `__global__` on it or on one of the two before.
    std::size_t name_col = 0;
    for (std::size_t i = 0; i < n && start_ == n && !kn.base.empty(); ++i) {
      const std::size_t at = src.find(i, kn.base);
      if (at == kNone) continue;
      if (at + 1 < src.end(i) && src.tok(at + 1).text[0] != '(' && src.tok(at + 1).text[0] != '<')
        continue;
      for (std::size_t j = i >= 2 ? i - 2 : 0; j <= i; ++j)
        if (src.has(j, "__global__")) {
          start_ = i;
          name_col = src.column(at);
        }
    }
    for (std::size_t i = start_ + 1; i < n; ++i)
      if (src.has(i, "__global__")) {
        stop_ = i;
        break;
      }
    if (start_ >= n) return;
    // Inside the kernel, names mean its own constants and, for a template, the arguments of
    // the instantiation checked ("transpose_t<32>" binds W = 32).
    kernel_scope_.first = start_;
    kernel_scope_.last = stop_;
    // A parameter without a value (no arguments given, a pack) hides any other meaning of
    // its name: another kernel's constant of that name is not it.
    const auto params = src.template_params(start_, name_col);
    bool pack = false;
    for (std::size_t a = 0; a < params.size(); ++a) {
      pack = pack || params[a].pack;
      if (params[a].name.empty()) continue;
      std::optional<long long> v;
      if (!pack && !params[a].type && a < kn.template_args.size())
        if (auto x = template_argument_value(kn.template_args[a])) v = *x;
      kernel_scope_.bound[params[a].name] = v;
    }
  }

  analysis::SharedSource read() {
    analysis::SharedSource out;
    const std::size_t n = src_.lines();
    for (std::size_t i = start_; i < stop_ && i < n; ++i) declarations(i, out.declarations);
    for (std::size_t i = 0; i < n; ++i)
      if (i < start_ || i >= stop_) declarations(i, out.declarations);
    for (std::size_t i = 0; i < n; ++i) subscripts(i, out.subscripts);
    return out;
  }

 private:
  // The `__shared__` declarations on line i: each name after the first `__shared__` whose
  // first appearance there is subscripted (`__shared__ float a[N], b[M];` declares both).
  void declarations(std::size_t i, std::vector<SharedDecl>& out) {
    const std::size_t sh = src_.find(i, "__shared__");
    if (sh == kNone) return;
    if (members(sh, out)) return;
    // The statement, to its `;`, over the next lines where it is wrapped (`__shared__ float` on
    // one line, `tile[A][B * C];` on the next, a dimension broken in two).
    const std::size_t stmt = statement_end(i, sh);
    for (std::size_t at = sh + 1; at < stmt; ++at) {
      const Token& name = src_.tok(at);
      if (!name.ident() || first_of(name.text, sh + 1, stmt) != at) continue;
      const Subscripted s = src_.subscripts(at, stmt);
      if (s.index.empty()) continue;
      const auto groups = src_.brackets(at, stmt);
      const std::size_t line = src_.line_of(at);
      SharedDecl d;
      d.line = static_cast<int>(line) + 1;
      d.text = src_.line(line);
      d.name = name.text;
      d.type = type_between(sh, at);
      d.dims = s.index;
      for (std::string& dim : d.dims) dim = one_line(dim);
      // A padding is written into the last dimension where it stands on the name's line.
      d.last_dim_on_line = src_.line_of(groups.back().first) == line &&
                           src_.line_of(groups.back().second) == line;
      if (d.last_dim_on_line) {
        d.last_dim_begin = src_.column(groups.back().first) + 1;
        d.last_dim_end = src_.column(groups.back().second);
      }
      const bool in_kernel = i >= start_ && i < stop_;
      const Scope& scope = in_kernel ? kernel_scope_ : helper_scope(i);
      for (std::size_t g = 0; g < groups.size(); ++g) {
        const auto [open, close] = groups[g];
        d.dim_values.push_back(
            d.dims[g].empty() ? -1
                              : src_.evaluate(src_.span(open + 1, close), scope, 0).value_or(-1));
      }
      set_kernel_end(d);
      if (const std::size_t close = src_.record_close(d.type); close != kNone) {
        d.record = d.type;
        d.record_close_line = static_cast<int>(src_.line_of(close)) + 1;
        d.record_close_col = src_.column(close);
        d.record_close_text = src_.line(src_.line_of(close));
      }
      out.push_back(std::move(d));
    }
  }

  // The token that ends the statement `__shared__` (token `sh`, on line `i`) begins: its `;`
  // on this line or one of the next 16 (a wrapped declaration), else the end of line i.
  std::size_t statement_end(std::size_t i, std::size_t sh) const {
    for (std::size_t j = sh + 1; j < src_.size() && src_.line_of(j) <= i + 16; ++j) {
      if (src_.tok(j).is(";")) return j;
      if (src_.tok(j).is("{") || src_.tok(j).is("}")) break;
    }
    const std::size_t semi = src_.find(i, ";", sh);
    return semi == kNone ? src_.end(i) : semi;
  }

  // The first token `text` in [from, to), or kNone.
  std::size_t first_of(std::string_view text, std::size_t from, std::size_t to) const {
    for (std::size_t j = from; j < to; ++j)
      if (src_.tok(j).is(text)) return j;
    return kNone;
  }

  // A dimension written over several lines as one: each run of blanks and line breaks one blank.
  static std::string one_line(const std::string& dim) {
    if (dim.find('\n') == std::string::npos) return dim;
    std::string out;
    for (const char c : dim) {
      const bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
      if (!blank)
        out += c;
      else if (!out.empty() && out.back() != ' ')
        out += ' ';
    }
    return out;
  }

  void set_kernel_end(SharedDecl& d) const {
    d.kernel_end = static_cast<int>(src_.lines()) + 1;
    for (std::size_t k = static_cast<std::size_t>(d.line); k < src_.lines(); ++k)
      if (src_.has(k, "__global__")) {
        d.kernel_end = static_cast<int>(k) + 1;
        break;
      }
  }

  // `__shared__ struct { float x[32][33]; float y[256]; } s;` (or a union): each member as a
  // declaration of its own, named `s.x`, in the members' order (their offsets follow from
  // it); a member without brackets has no dims. True when the declaration is such a struct,
  // whether or not its members could be read (none is given then: a member's name alone is
  // not a shared array of that name).
  bool members(std::size_t sh, std::vector<SharedDecl>& out) {
    std::size_t q = sh + 1;
    while (q < src_.size() && (src_.tok(q).is("volatile") || src_.tok(q).is("static"))) ++q;
    if (q >= src_.size() || !(src_.tok(q).is("struct") || src_.tok(q).is("union"))) return false;
    const bool is_union = src_.tok(q).is("union");
    if (++q < src_.size() && src_.tok(q).ident()) ++q;
    if (q >= src_.size() || !src_.tok(q).is("{")) return false;
    const std::size_t close = src_.match(q);
    if (close + 1 >= src_.size() || !src_.tok(close + 1).ident()) return true;
    const std::string var = src_.tok(close + 1).text;
    std::vector<SharedDecl> found;
    for (std::size_t a = q + 1; a < close;) {
      std::size_t e = a;
      while (e < close && !src_.tok(e).is(";"))
        e = src_.tok(e).is("{") || src_.tok(e).is("(") || src_.tok(e).is("[") ? src_.match(e) + 1
                                                                              : e + 1;
      if (e >= close) return true;
      std::size_t name = kNone;
      for (std::size_t n = a; n < e; ++n) {
        if (src_.tok(n).is(",") || src_.tok(n).is("{")) return true;  // several, or nested
        if (src_.tok(n).ident() &&
            (n + 1 == e || src_.tok(n + 1).is("[") || src_.tok(n + 1).is("=")) && name == kNone)
          name = n;
      }
      if (name == kNone || name == a) return true;
      const std::size_t line = src_.line_of(name);
      SharedDecl d;
      d.line = static_cast<int>(line) + 1;
      d.text = src_.line(line);
      d.name = var + "." + src_.tok(name).text;
      d.member_of = var;
      d.is_union = is_union;
      d.type = std::string(explain::trim_blanks(src_.code(src_.tok(a).pos, src_.tok(name).pos)));
      const auto groups = src_.brackets(name, e);
      for (auto [open, cl] : groups) {
        d.dims.emplace_back(
            explain::trim_blanks(src_.code(src_.tok(open).end(), src_.tok(cl).pos)));
        d.dim_values.push_back(
            d.dims.back().empty()
                ? -1
                : src_.evaluate(src_.span(open + 1, cl), kernel_scope_, 0).value_or(-1));
      }
      if (!groups.empty()) {
        if (src_.line_of(groups.back().first) != line || src_.line_of(groups.back().second) != line)
          return true;
        d.last_dim_begin = src_.column(groups.back().first) + 1;
        d.last_dim_end = src_.column(groups.back().second);
      }
      set_kernel_end(d);
      found.push_back(std::move(d));
      a = e + 1;
    }
    out.insert(out.end(), found.begin(), found.end());
    return true;
  }

  // The element type between `__shared__` and the name: qualifiers and the `(16)` of an
  // alignment dropped, blanks as written.
  std::string type_between(std::size_t sh, std::size_t at) const {
    const std::size_t from = src_.tok(sh).end();
    std::string text(src_.code(from, src_.tok(at).pos));
    auto drop = [&](std::size_t a, std::size_t b) {  // byte offsets of the code
      for (std::size_t c = a; c < b; ++c) text[c - from] = '\0';
    };
    auto digits = [](const Token& t) {
      return t.number() &&
             std::all_of(t.text.begin(), t.text.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    for (std::size_t j = sh + 1; j < at; ++j) {
      const Token& t = src_.tok(j);
      if (t.is("volatile") || t.is("static") || t.is("extern") || t.is("const") ||
          t.is("__align__"))
        drop(t.pos, t.end());
      if (t.is("(") && j + 2 < at && digits(src_.tok(j + 1)) && src_.tok(j + 2).is(")"))
        drop(t.pos, src_.tok(j + 2).end());
    }
    std::erase(text, '\0');
    return std::string(explain::trim_blanks(text));
  }

  // A declaration in a __device__ function template the kernel calls with explicit
  // arguments (`mma_tile<4>(...)`, or the kernel's own parameters): the function's
  // parameters bound to them, when every such call in the kernel gives the same values.
  const Scope& helper_scope(std::size_t i) {
    if (auto it = helper_scopes_.find(i); it != helper_scopes_.end()) return it->second;
    Scope& scope = helper_scopes_[i];
    if (start_ >= src_.lines()) return scope;
    std::size_t header = kNone, fn_tok = 0;
    for (std::size_t j = i + 1; j-- > 0 && header == kNone;) {
      if (src_.has(j, "__global__")) break;  // another kernel's
      const std::size_t dev = src_.find(j, "__device__");
      const std::size_t paren = dev == kNone ? kNone : src_.find(j, "(", dev);
      if (paren == kNone || paren - 1 <= dev || !src_.tok(paren - 1).ident()) continue;
      header = j;
      fn_tok = paren - 1;
    }
    if (header == kNone) return scope;
    const std::string& fn = src_.tok(fn_tok).text;
    const auto params = src_.template_params(header, src_.column(fn_tok));
    if (params.empty()) return scope;
    std::optional<std::vector<std::optional<long long>>> values;
    bool agree = true;
    for (std::size_t k = start_; k < stop_ && agree; ++k)
      for (std::size_t at = src_.find(k, fn); at != kNone && agree; at = src_.find(k, fn, at + 1)) {
        const std::size_t lt = at + 1;
        if (lt >= src_.end(k) || !src_.tok(lt).is("<")) continue;
        const std::size_t gt = explain::angle_forward(src_.span(0, src_.end(k)), lt);
        if (gt >= src_.end(k)) continue;
        std::vector<std::optional<long long>> here;
        for (auto [a, b] : explain::split_commas(src_.span(0, gt), lt + 1, gt, true))
          here.push_back(src_.evaluate(src_.span(a, b), kernel_scope_, 0));
        if (values && *values != here) agree = false;
        values = here;
      }
    if (!values || !agree) return scope;
    scope.first = header;
    scope.last = i + 1;
    for (std::size_t a = 0; a < params.size(); ++a)
      if (!params[a].name.empty())
        scope.bound[params[a].name] =
            !params[a].type && !params[a].pack && a < values->size() ? (*values)[a] : std::nullopt;
    return scope;
  }

  // Every line's subscripted names, each name with all its subscripts on the line.
  void subscripts(std::size_t i, std::vector<analysis::SubscriptLine>& out) const {
    const std::size_t first = out.size();
    for (std::size_t at = src_.begin(i); at < src_.end(i); ++at) {
      const Token& name = src_.tok(at);
      if (!name.ident() || at + 1 >= src_.end(i) || !src_.tok(at + 1).is("[")) continue;
      Subscripted s = src_.subscripts(at, src_.end(i));
      // `NAME[]` declares an array of unknown size (`extern __shared__ int smem[];`, once
      // in each function that reaches the dynamic shared memory): no element is accessed.
      if (s.index.empty() ||
          std::any_of(s.index.begin(), s.index.end(), [](const std::string& e) { return e.empty(); }))
        continue;
      // A member of a struct variable (`s.x[j][i]`) goes by its qualified name, as the member
      // declarations do.
      std::string full = name.text;
      if (at >= src_.begin(i) + 2 && src_.tok(at - 1).is(".") && src_.tok(at - 2).ident()) {
        full = src_.tok(at - 2).text + "." + full;
        s.begin = src_.column(at - 2);
      }
      auto it = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                             [&](const analysis::SubscriptLine& l) { return l.name == full; });
      if (it == out.end()) {
        out.push_back({static_cast<int>(i) + 1, src_.line(i), full, {}});
        it = out.end() - 1;
      }
      it->subscripts.push_back(std::move(s));
    }
  }

  const SourceReader& src_;
  std::size_t start_ = 0, stop_ = 0;  // the kernel's lines (0-based), start_ == lines: unknown
  Scope kernel_scope_;
  std::map<std::size_t, Scope> helper_scopes_;
};

}  // namespace

analysis::SharedSource read_shared_source(const std::vector<std::string>& source_lines,
                                          const std::string& kernel, const SourceMacros& macros) {
  std::vector<std::string> header_lines;
  for (std::size_t p = 0; p < macros.headers.size();) {
    const std::size_t n = std::min(macros.headers.find('\n', p), macros.headers.size());
    header_lines.emplace_back(macros.headers.substr(p, n - p));
    p = n + 1;
  }
  const SourceReader headers(header_lines);
  const SourceReader src(source_lines, {.defines = &macros.defines,
                                        .headers = header_lines.empty() ? nullptr : &headers});
  return KernelReader(src, kernel).read();
}

std::optional<analysis::SharedDecl> find_shared_decl(const std::vector<std::string>& source_lines,
                                                     const std::string& kernel,
                                                     const std::string& name) {
  for (auto& d : read_shared_source(source_lines, kernel, {}).declarations)
    if (d.name == name) return std::move(d);
  return std::nullopt;
}

std::optional<long long> eval_constant(const std::string& expr,
                                       const std::vector<std::string>& source_lines) {
  const SourceReader src(source_lines);
  return src.evaluate(explain::tokenize(expr), Scope{}, 0);
}

}  // namespace bankcheck::driver
