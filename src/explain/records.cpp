// Struct layouts from CUDA source (records.hpp): the definition found by its name, its
// members read declaration by declaration over the shared tokens, laid out by C's rules with
// the builtin types' sizes and alignments (types.hpp).
#include "bankcheck/explain/records.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "bankcheck/explain/cuda_source.hpp"
#include "bankcheck/explain/declarations.hpp"
#include "bankcheck/explain/tokens.hpp"
#include "types.hpp"

namespace bankcheck::explain {
namespace {

using detail::canonical_int_name;
using detail::Field;
using detail::find_builtin;
using detail::is_int_keyword;
using detail::Type;
using detail::TypePtr;

// A struct inside a struct inside ...: deeper than this is refused (a recursive definition
// would otherwise never end).
constexpr int kMaxDepth = 16;
// An array of pointers or structs becomes one field per element, up to this many.
constexpr std::uint64_t kMaxElements = 256;

struct Error {
  std::string message;
};

struct Laid {
  std::vector<RecordField> fields;
  std::uint64_t size = 0, align = 1;
};

std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

class Reader {
 public:
  explicit Reader(std::string_view text)
      : code_(code_only(text)), t_(tokenize(code_)), defines_(object_defines(text)) {}

  // The `{` of NAME's definition and the line of its `struct`; t_.size() when none.
  // `align` receives the struct's own alignment attribute (struct __align__(16) P), else 1.
  std::size_t find(std::string_view name, int& line, std::uint64_t& align) const {
    align = 1;
    for (std::size_t i = 0; i + 2 < t_.size(); ++i) {
      const bool kw = t_[i].is("struct") || t_[i].is("class");
      if (kw) {
        std::size_t j = i + 1;
        std::uint64_t a = 1;
        while (j + 1 < t_.size() && is_attribute_call(t_[j]) && t_[j + 1].is("(")) {
          a = std::max(a, alignment_of(j));  // struct __align__(16) P
          j = past_group(t_, j + 1);
        }
        if (j + 1 < t_.size() && t_[j].is(name) && t_[j + 1].is("{")) {
          line = line_at(t_[i].pos);
          align = a;
          return j + 1;
        }
      }
      // typedef struct [TAG] { ... } NAME;
      if (t_[i].is("typedef") && (t_[i + 1].is("struct") || t_[i + 1].is("class"))) {
        std::size_t open = i + 2;
        if (open < t_.size() && t_[open].ident()) ++open;
        if (open >= t_.size() || !t_[open].is("{")) continue;
        const std::size_t close = match_forward(t_, open);
        if (close + 1 < t_.size() && t_[close + 1].is(name)) {
          line = line_at(t_[i].pos);
          return open;
        }
      }
    }
    return t_.size();
  }

  // The members of the struct whose body opens at t_[open].
  Laid body(std::size_t open, int depth) const {
    if (depth > kMaxDepth) fail(open, "structs nested too deeply");
    const std::size_t close = match_forward(t_, open);
    if (close >= t_.size()) fail(open, "the struct's '{' is not closed");
    Laid out;
    std::size_t start = open + 1;
    bool function = false;
    for (std::size_t j = start; j < close;) {
      const Token& tok = t_[j];
      if (j == start && j + 1 < close && t_[j + 1].is(":") &&
          (tok.is("public") || tok.is("private") || tok.is("protected"))) {
        start = j += 2;
        continue;
      }
      if (tok.is("(")) function = true;
      if (tok.is("{")) {
        j = past_group(t_, j);
        if (function) {  // a member function's body ends its declaration
          if (j < close && t_[j].is(";")) ++j;
          start = j;
          function = false;
        }
        continue;
      }
      if (is_open(tok)) {
        j = past_group(t_, j);
        continue;
      }
      if (tok.is(";")) {
        if (!function) member(start, j, depth, out);
        start = ++j;
        function = false;
        continue;
      }
      ++j;
    }
    if (start < close && !function) member(start, close, depth, out);
    out.size = round_up(out.size, out.align);
    return out;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& message) const {
    std::string text = "line ";
    text += std::to_string(line_at(at < t_.size() ? t_[at].pos : code_.size()));
    text += ": ";
    text += message;
    throw Error{text};
  }
  int line_at(std::size_t pos) const {
    return 1 + static_cast<int>(std::count(
                   code_.begin(),
                   code_.begin() + static_cast<std::ptrdiff_t>(std::min(pos, code_.size())), '\n'));
  }

  std::optional<std::int64_t> constant(std::size_t from, std::size_t to) const {
    int guard = 0;
    std::function<std::optional<std::int64_t>(const std::string&)> lookup =
        [&](const std::string& n) -> std::optional<std::int64_t> {
      const auto it = defines_.find(n);
      if (it == defines_.end() || ++guard > 64) return std::nullopt;
      return eval_constant(it->second, lookup);
    };
    return eval_constant(slice(code_, t_, from, to), lookup);
  }

  // An alignment attribute at t_[i] (alignas(N), __align__(N)): N; 0 for other attributes.
  std::uint64_t alignment_of(std::size_t i) const {
    if (!t_[i].is("alignas") && !t_[i].is("__align__")) return 0;
    const std::size_t close = match_forward(t_, i + 1);
    const auto v = constant(i + 2, close);
    if (!v || *v <= 0 || (*v & (*v - 1)) != 0) fail(i, "an alignment that is not a power of two");
    return static_cast<std::uint64_t>(*v);
  }

  // The member type starting at t_[i], advancing i past it: a builtin, a struct (by name or
  // defined in place), with its spelling.
  struct MemberType {
    TypePtr builtin;  // a scalar or vector type
    std::optional<Laid> record;
    std::string spelled;
    std::uint64_t size() const { return builtin ? builtin->size : record->size; }
    std::uint64_t align() const { return builtin ? builtin->align : record->align; }
  };
  MemberType type_at(std::size_t& i, std::size_t end, int depth) const {
    MemberType m;
    std::vector<std::string> words;
    std::string spelled;
    auto spell = [&](const std::string& w) { spelled += (spelled.empty() ? "" : " ") + w; };
    for (; i < end; ++i) {
      const Token& tok = t_[i];
      if (tok.is("const") || tok.is("volatile") || tok.is("mutable")) {
        spell(tok.text);
        continue;
      }
      if (tok.is("struct") || tok.is("class")) {
        std::size_t j = i + 1;
        std::string tag;
        if (j < end && t_[j].ident()) tag = t_[j++].text;
        if (j < end && t_[j].is("{")) {
          m.record = body(j, depth + 1);
          spell("struct " + (tag.empty() ? std::string("{...}") : tag));
          i = past_group(t_, j);
          break;
        }
        continue;  // an elaborated name: `struct P p;`
      }
      if (tok.is("union")) fail(i, "a union member (give the whole struct as @FILE)");
      if (tok.ident() && is_int_keyword(tok.text)) {
        words.push_back(tok.text);
        spell(tok.text);
        continue;
      }
      if (!words.empty() || !tok.ident()) break;
      // A name, perhaps qualified: its last component.
      std::string name = tok.text;
      while (i + 2 < end && t_[i + 1].is("::") && t_[i + 2].ident()) {
        i += 2;
        name = t_[i].text;
      }
      if (i + 1 < end && t_[i + 1].is("<")) fail(i, "a member of a template type ('" + name + "')");
      spell(name);
      ++i;
      if ((m.builtin = find_builtin(name))) break;
      int line = 0;
      std::uint64_t align = 1;
      const std::size_t open = find(name, line, align);
      if (open >= t_.size()) fail(i - 1, "member type '" + name + "' is not defined in the source");
      m.record = body(open, depth + 1);
      m.record->align = std::max(m.record->align, align);
      m.record->size = round_up(m.record->size, m.record->align);
      break;
    }
    if (!words.empty()) {
      const std::string name = canonical_int_name(words);
      if (name.empty()) fail(i - 1, "invalid type '" + spelled + "'");
      m.builtin = find_builtin(name);
    }
    while (i < end && (t_[i].is("const") || t_[i].is("volatile"))) spell(t_[i++].text);
    if (!m.builtin && !m.record) fail(i < end ? i : end - 1, "expected a member type");
    if (m.builtin && m.builtin->name == "void") fail(i - 1, "a void member");
    m.spelled = spelled;
    return m;
  }

  // One declaration [from, to): its declarators' fields, laid out after those of `out`.
  void member(std::size_t from, std::size_t to, int depth, Laid& out, bool variable = false) const {
    std::uint64_t align_attr = 0;
    std::size_t i = from;
    // Attributes and declarations that add no data member.
    for (; i < to; ++i) {
      if (t_[i].is("[") && i + 1 < to && t_[i + 1].is("[")) {
        i = past_group(t_, i) - 1;
        continue;
      }
      if (is_attribute_call(t_[i]) && i + 1 < to && t_[i + 1].is("(")) {
        align_attr = std::max(align_attr, alignment_of(i));
        i = past_group(t_, i + 1) - 1;
        continue;
      }
      if (t_[i].is("__device__") || t_[i].is("__host__") || t_[i].is("inline")) continue;
      if (variable && (t_[i].is("__constant__") || t_[i].is("__managed__") || t_[i].is("static") ||
                       t_[i].is("extern") || t_[i].is("constexpr")))
        continue;
      break;
    }
    if (i >= to) return;
    static constexpr std::string_view kSkip[] = {"static",   "typedef", "using",    "friend",
                                                 "template", "enum",    "constexpr"};
    for (auto w : kSkip)
      if (t_[i].is(w)) return;
    MemberType type = type_at(i, to, depth);
    if (i >= to) return;  // a nested type declared, no member
    for (auto [a, b] : split_commas(t_, i, to, true)) {
      std::size_t j = a;
      bool pointer = false;
      std::string ptr;
      for (; j < b; ++j) {
        if (t_[j].is("*")) {
          pointer = true;
          ptr += "*";
        } else if (t_[j].is("&") || t_[j].is("&&")) {
          fail(j, "a reference member");
        } else if (t_[j].is("const") || t_[j].is("volatile") || t_[j].is("__restrict__") ||
                   t_[j].is("__restrict") || t_[j].is("restrict")) {
          continue;
        } else if (is_attribute_call(t_[j]) && j + 1 < b && t_[j + 1].is("(")) {
          align_attr = std::max(align_attr, alignment_of(j));
          j = past_group(t_, j + 1) - 1;
        } else {
          break;
        }
      }
      if (j >= b || !t_[j].ident()) fail(j < b ? j : b - 1, "expected a member name");
      const std::string name = t_[j++].text;
      std::vector<std::uint64_t> dims;
      while (j < b && t_[j].is("[")) {
        const std::size_t close = match_forward(t_, j);
        const auto v = close < b ? constant(j + 1, close) : std::nullopt;
        if (!v || *v <= 0)
          fail(j, "the bound of member '" + name + "' is not a positive integer constant");
        dims.push_back(static_cast<std::uint64_t>(*v));
        j = close + 1;
      }
      if (j < b && t_[j].is(":")) fail(j, "a bit-field member ('" + name + "')");
      std::uint64_t count = 1;
      for (auto d : dims) {
        if (d > (std::uint64_t{1} << 32) / count) fail(j - 1, "member '" + name + "' too large");
        count *= d;
      }
      const std::uint64_t esize = pointer ? 8 : type.size();
      const std::uint64_t ealign = std::max<std::uint64_t>(pointer ? 8 : type.align(), align_attr);
      const std::uint64_t offset = round_up(out.size, ealign);
      out.align = std::max(out.align, ealign);
      out.size = offset + esize * count;
      const int line = line_at(t_[a].pos);
      // The fields of one element at `base`, named `path`.
      auto element = [&](std::uint64_t base, const std::string& path) {
        if (pointer) {
          RecordField f;
          f.name = path;
          f.offset = base;
          f.kind = RecordField::Kind::Pointer;
          f.element = 8;
          f.type = type.spelled + ptr;
          f.line = line;
          out.fields.push_back(f);
        } else if (type.record || type.builtin->kind == Type::Kind::Record) {
          if (type.record) {
            for (RecordField f : type.record->fields) {
              f.name = path + "." + f.name;
              f.offset += base;
              out.fields.push_back(std::move(f));
            }
          } else {
            for (const Field& c : type.builtin->fields)
              out.fields.push_back(
                  scalar(path + "." + c.name, base + c.offset, *c.type, 1, c.type->name, line));
          }
        } else {
          out.fields.push_back(scalar(path, base, *type.builtin, 1, type.spelled, line));
        }
      };
      const bool scalar_array =
          !pointer && type.builtin && type.builtin->kind == Type::Kind::Scalar;
      if (count == 1 && dims.empty()) {
        element(offset, name);
      } else if (scalar_array) {
        out.fields.push_back(scalar(name, offset, *type.builtin, count, type.spelled, line));
      } else {
        if (count > kMaxElements)
          fail(a, "member '" + name + "' has more than 256 elements of pointers or structs");
        for (std::uint64_t e = 0; e < count; ++e) {
          std::string path = name;
          std::uint64_t rest = e, stride = count;
          for (auto d : dims) {
            stride /= d;
            path += '[';
            path += std::to_string(rest / stride);
            path += ']';
            rest %= stride;
          }
          element(offset + e * esize, path);
        }
      }
    }
  }

  static RecordField scalar(const std::string& name, std::uint64_t offset, const Type& t,
                            std::uint64_t count, const std::string& spelled, int line) {
    RecordField f;
    f.name = name;
    f.offset = offset;
    f.kind = t.is_integer ? RecordField::Kind::Integer : RecordField::Kind::Float;
    f.element = t.size;
    f.count = count;
    f.is_signed = t.is_signed;
    f.type = spelled;
    f.line = line;
    return f;
  }

  std::string code_;
  Tokens t_;
  std::map<std::string, std::string> defines_;

 public:
  // The declaration of the __constant__ or __device__ variable `name` at namespace scope:
  // its tokens [from, to); false when there is none.
  bool find_variable(std::string_view name, std::size_t& from, std::size_t& to, int& line) const {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (!t_[i].is("__constant__") && !t_[i].is("__device__")) continue;
      const std::size_t start = declaration_start(t_, i);
      std::size_t j = i + 1;
      bool function = false, named = false;
      for (; j < t_.size() && !t_[j].is(";") && !t_[j].is("{"); ++j) {
        if (t_[j].is("(") && !(j > 0 && is_attribute_call(t_[j - 1]))) function = true;
        if (t_[j].is(name) && !(j + 1 < t_.size() && t_[j + 1].is("::"))) named = true;
        if (t_[j].is("=")) break;  // an initializer: names after it are not declared
      }
      if (function || !named) continue;
      while (j < t_.size() && !t_[j].is(";")) j = is_open(t_[j]) ? past_group(t_, j) : j + 1;
      from = start;
      to = j;
      line = line_at(t_[i].pos);
      return true;
    }
    return false;
  }
  Laid variable(std::size_t from, std::size_t to) const {
    Laid out;
    member(from, to, 0, out, true);
    return out;
  }
};

}  // namespace

std::optional<RecordLayout> variable_layout(std::string_view source_text, std::string_view name) {
  if (const auto colons = name.rfind("::"); colons != std::string_view::npos)
    name = name.substr(colons + 2);
  const Reader reader(source_text);
  RecordLayout out;
  out.name = std::string(name);
  std::size_t from = 0, to = 0;
  if (!reader.find_variable(name, from, to, out.line)) return std::nullopt;
  try {
    Laid laid = reader.variable(from, to);
    const std::string n(name);
    std::uint64_t base = 0;
    bool first = true;
    for (RecordField& f : laid.fields)
      if (f.name == n || f.name.starts_with(n + ".") || f.name.starts_with(n + "[")) {
        if (first) base = f.offset;  // after the declaration's earlier declarators
        first = false;
        f.offset -= base;
        out.fields.push_back(std::move(f));
      }
    if (out.fields.empty()) return std::nullopt;
    out.size = out.fields.back().offset + out.fields.back().size();
  } catch (const Error& e) {
    out.error = e.message;
  }
  return out;
}

std::optional<RecordLayout> record_layout(std::string_view source_text, std::string_view name) {
  if (const auto colons = name.rfind("::"); colons != std::string_view::npos)
    name = name.substr(colons + 2);
  const Reader reader(source_text);
  RecordLayout out;
  out.name = std::string(name);
  std::uint64_t align = 1;
  try {
    const std::size_t open = reader.find(name, out.line, align);
    if (out.line == 0) return std::nullopt;
    Laid laid = reader.body(open, 0);
    out.fields = std::move(laid.fields);
    out.align = std::max(laid.align, align);
    out.size = round_up(laid.size, out.align);
  } catch (const Error& e) {
    out.error = e.message;
  }
  return out;
}

}  // namespace bankcheck::explain
