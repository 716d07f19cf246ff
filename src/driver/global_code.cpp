// The code of the global advice, from the kernel's source (global_code.hpp).
#include "bankcheck/driver/global_code.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <set>

#include "bankcheck/explain/cuda_source.hpp"
#include "bankcheck/explain/tokens.hpp"
#include "bankcheck/model/analyze.hpp"

namespace bankcheck::driver {
namespace {

using explain::Token;
using explain::Tokens;
using explain::TokenSpan;

// The main file as code: its text, the tokens of its code (comments and literals blanked, so
// every token keeps its place) and where each line starts.
struct Code {
  const std::vector<std::string>& lines;
  std::string text;
  Tokens t;
  std::vector<std::size_t> starts;

  explicit Code(const std::vector<std::string>& l) : lines(l) {
    for (const std::string& s : l) {
      starts.push_back(text.size());
      text += s;
      text += '\n';
    }
    t = explain::tokenize(explain::code_only(text));
  }
  // 1-based line of a token.
  int line(std::size_t i) const {
    return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), t[i].pos) -
                            starts.begin());
  }
  std::size_t col(std::size_t i) const {
    return t[i].pos - starts[static_cast<std::size_t>(line(i)) - 1];
  }
  std::string slice(std::size_t from, std::size_t to) const {
    return std::string(explain::slice(text, t, from, to));
  }
};

// The tokens of kernel `name`'s body: its `{` and the matching `}`.
std::optional<std::pair<std::size_t, std::size_t>> kernel_body(const Code& c,
                                                               const std::string& name) {
  const TokenSpan t = c.t;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!t[i].is("__global__")) continue;
    for (std::size_t j = i + 1; j + 1 < t.size(); ++j) {
      if (t[j].is(";") || t[j].is("{")) break;
      if (!(t[j].ident() && t[j].text == name && t[j + 1].is("("))) continue;
      const std::size_t close = explain::match_forward(t, j + 1);
      if (close + 1 >= t.size() || !t[close + 1].is("{")) break;
      const std::size_t end = explain::match_forward(t, close + 1);
      if (end < t.size()) return std::make_pair(close + 1, end);
      break;
    }
  }
  return std::nullopt;
}

// "float" of "float const*", "unsigned char" of "unsigned char const* __restrict__".
std::string element_type(const std::string& type) {
  std::string out, word;
  const auto flush = [&] {
    if (!word.empty() && word != "const" && word != "volatile" && word != "__restrict__" &&
        word != "__restrict")
      out += (out.empty() ? "" : " ") + word;
    word.clear();
  };
  for (char ch : type) {
    if (explain::is_ident_char(ch))
      word += ch;
    else
      flush();  // a blank, `*`, `&`
  }
  flush();
  return out;
}

// CUDA's vector type of n elements of `type` (uchar4, float2), or "" when there is none.
std::string vector_type(const std::string& type, int n) {
  static const std::pair<const char*, const char*> kBase[] = {
      {"unsigned char", "uchar"},   {"char", "char"},
      {"signed char", "char"},      {"short", "short"},
      {"unsigned short", "ushort"}, {"int", "int"},
      {"unsigned int", "uint"},     {"unsigned", "uint"},
      {"float", "float"},           {"double", "double"},
      {"long long", "longlong"},    {"unsigned long long", "ulonglong"}};
  if (n != 2 && n != 4) return "";
  for (const auto& [c, v] : kBase)
    if (type == c) return fmt::format("{}{}", v, n);
  return "";
}

// The parameter `name` of the kernel, or -1.
int param_index(const KernelSignature& sig, const std::string& name) {
  for (std::size_t i = 0; i < sig.param_names.size(); ++i)
    if (sig.param_names[i] == name) return static_cast<int>(i);
  return -1;
}

// `base` unless the kernel's code already has that word: then base2, base3, ...
std::string fresh_name(const Code& c, std::size_t from, std::size_t to, const std::string& base) {
  for (int n = 1;; ++n) {
    const std::string name = n == 1 ? base : fmt::format("{}{}", base, n);
    bool used = false;
    for (std::size_t i = from; i < to && !used; ++i) used = c.t[i].text == name;
    if (!used) return name;
  }
}

std::string indent_of(const std::string& line) {
  return line.substr(0, line.find_first_not_of(" \t") == std::string::npos
                            ? line.size()
                            : line.find_first_not_of(" \t"));
}

// Just past the statement that starts at token i (a `{ }` block, or up to its `;` outside
// brackets); t.size() when it does not end.
std::size_t statement_end(TokenSpan t, std::size_t i) {
  if (i < t.size() && t[i].is("{")) return explain::past_group(t, i);
  for (std::size_t j = i; j < t.size(); ++j) {
    if (explain::is_open(t[j])) {
      j = explain::match_forward(t, j);
      if (j >= t.size()) return t.size();
      continue;
    }
    if (t[j].is(";")) return j + 1;
  }
  return t.size();
}

// Whether `name` is assigned in tokens [from, to): `name =` (not `==`), `name += ...`,
// `++name`, `name++`.
bool assigned(TokenSpan t, std::size_t from, std::size_t to, const std::string& name) {
  static const std::set<std::string> kAssign = {
      "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
  // `++` and `--` are two tokens each, next to each other.
  const auto incdec = [&](std::size_t a) {
    return a + 1 < t.size() && (t[a].is("+") || t[a].is("-")) && t[a + 1].text == t[a].text &&
           t[a + 1].pos == t[a].pos + 1;
  };
  for (std::size_t i = from; i < to; ++i) {
    if (t[i].text != name || !t[i].ident()) continue;
    if (i + 1 < to && (kAssign.count(t[i + 1].text) || incdec(i + 1))) return true;
    if (i >= from + 2 && incdec(i - 2)) return true;
  }
  return false;
}

std::string replace_words(std::string s,
                          const std::vector<std::pair<std::string, std::string>>& m) {
  for (const auto& [re, to] : m) s = std::regex_replace(s, std::regex(re), to);
  return s;
}

// The pointer parameter the line's access of g's kind subscripts: a store's is followed by
// `] =`, a load's is not; the first such on the line, or "".
std::string line_pointer(const Code& c, std::size_t open, std::size_t close,
                         const analysis::GlobalFix& g, const KernelSignature& sig) {
  const TokenSpan t = c.t;
  for (std::size_t i = open + 1; i + 1 < close; ++i) {
    if (c.line(i) != g.line || !t[i].ident() || !t[i + 1].is("[") ||
        param_index(sig, t[i].text) < 0)
      continue;
    const std::size_t rb = explain::match_forward(t, i + 1);
    const bool stored = rb + 1 < close && t[rb + 1].is("=");
    if (g.op == model::Op::Atomic || stored == (g.op == model::Op::Store)) return t[i].text;
  }
  return "";
}

// ---- Vector ---------------------------------------------------------------------------------

// The loop `for (int V = 0; V < N; ++V)` whose header opens at token f: V, or "".
std::string loop_variable(TokenSpan t, std::size_t f, std::size_t close, int n) {
  std::vector<std::string> h;
  for (std::size_t i = f + 2; i < close; ++i) h.push_back(t[i].text);
  std::size_t i = 0;
  while (i < h.size() && (h[i] == "int" || h[i] == "unsigned" || h[i] == "size_t" ||
                          h[i] == "long" || h[i] == "short"))
    ++i;
  if (i == 0 || i >= h.size()) return "";
  const std::string v = h[i];
  const auto lit = [](const std::string& s) { return explain::integer_literal(s); };
  if (h.size() < i + 8 || h[i + 1] != "=" || h[i + 2] != "0" || h[i + 3] != ";" || h[i + 4] != v ||
      h[i + 5] != "<" || !lit(h[i + 6]).ok() || lit(h[i + 6]).value != n || h[i + 7] != ";")
    return "";
  // The tokens keep `++` as two `+`.
  std::string step;
  for (std::size_t k = i + 8; k < h.size(); ++k) step += h[k];
  return step == "++" + v || step == v + "++" || step == v + "+=1" ? v : "";
}

void vector_code(analysis::GlobalFix& g, const Code& c, std::size_t open, std::size_t close,
                 const KernelSignature& sig) {
  const TokenSpan t = c.t;
  if (g.op != model::Op::Load) {
    g.code_note =
        "the code is written for loads only: write the elements into a vector "
        "variable and store it with one access";
    return;
  }
  // Each pointer parameter subscripted on the line by `E + V` inside a loop over V.
  for (std::size_t i = open + 1; i < close; ++i) {
    if (c.line(i) != g.line || !t[i].ident() || i + 1 >= close || !t[i + 1].is("[")) continue;
    const int p = param_index(sig, t[i].text);
    if (p < 0) continue;
    const std::string type = element_type(sig.param_types.size() > static_cast<std::size_t>(p)
                                              ? sig.param_types[static_cast<std::size_t>(p)]
                                              : "");
    const std::string vtype = vector_type(type, g.elements);
    g.pointer = t[i].text;
    if (vtype.empty()) {
      g.code_note = fmt::format(
          "no vector type of {} x {}: read {} bytes per thread through an "
          "aligned type of that size",
          g.elements, type.empty() ? "?" : type, g.vector_bytes);
      return;
    }
    // The innermost loop around the access.
    std::size_t loop = 0, body_end = 0;
    for (std::size_t f = i; f-- > open + 1;) {
      if (!t[f].is("for") || !t[f + 1].is("(")) continue;
      const std::size_t h = explain::match_forward(t, f + 1);
      if (h >= close) continue;
      const std::size_t e = statement_end(t, h + 1);
      if (i > h && i < e) {
        loop = f;
        body_end = e;
        break;
      }
    }
    if (!loop) {
      g.code_note = "the elements are not read by a loop bankcheck can rewrite";
      return;
    }
    const std::size_t header_close = explain::match_forward(t, loop + 1);
    const std::string v = loop_variable(t, loop, header_close, g.elements);
    if (v.empty()) {
      g.code_note = fmt::format("the loop is not `for (int k = 0; k < {}; ++k)`", g.elements);
      return;
    }
    // Its body: no condition, no jump, the variable not written.
    for (std::size_t j = header_close + 1; j < body_end; ++j)
      if (t[j].is("if") || t[j].is("?") || t[j].is("break") || t[j].is("continue") ||
          t[j].is("return") || t[j].is("goto") || t[j].is("for") || t[j].is("while")) {
        g.code_note = fmt::format(
            "the loop's body has '{}': one load of all {} elements would read those it skips",
            t[j].text, g.elements);
        return;
      }
    if (assigned(t, header_close + 1, body_end, v)) {
      g.code_note = fmt::format("the loop writes '{}' in its body", v);
      return;
    }
    // Every `P[...]` in the body is `P[E + V]` (or `P[V + E]`) with one E.
    std::string base;
    std::vector<std::pair<std::size_t, std::size_t>> uses;  // [P, past ']')
    for (std::size_t j = header_close + 1; j < body_end; ++j) {
      if (t[j].text != g.pointer || !t[j].ident() || !t[j + 1].is("[")) continue;
      const std::size_t rb = explain::match_forward(t, j + 1);
      const std::vector<explain::TokenRange> terms = [&] {
        std::vector<explain::TokenRange> out;
        std::size_t from = j + 2;
        for (std::size_t k = j + 2; k < rb; ++k) {
          if (explain::is_open(t[k])) {
            k = explain::match_forward(t, k);
            continue;
          }
          if (t[k].is("+")) {
            out.push_back({from, k});
            from = k + 1;
          } else if (t[k].is("-")) {
            out.clear();
            return out;
          }
        }
        out.push_back({from, rb});
        return out;
      }();
      std::string e;
      if (terms.size() == 2) {
        const auto is_v = [&](explain::TokenRange r) {
          return r.second == r.first + 1 && t[r.first].text == v;
        };
        const auto mentions_v = [&](explain::TokenRange r) {
          for (std::size_t k = r.first; k < r.second; ++k)
            if (t[k].text == v) return true;
          return false;
        };
        if (is_v(terms[1]) && !mentions_v(terms[0])) e = c.slice(terms[0].first, terms[0].second);
        if (is_v(terms[0]) && !mentions_v(terms[1])) e = c.slice(terms[1].first, terms[1].second);
      }
      if (e.empty() || (!base.empty() && e != base)) {
        g.code_note = fmt::format("'{}' is not subscripted as {}[E + {}] throughout the loop",
                                  g.pointer, g.pointer, v);
        return;
      }
      base = e;
      uses.emplace_back(j, rb + 1);
    }
    if (uses.empty()) return;
    const int first_line = c.line(loop), last_line = c.line(body_end - 1);
    const std::string& fl = c.lines[static_cast<std::size_t>(first_line) - 1];
    const std::string& ll = c.lines[static_cast<std::size_t>(last_line) - 1];
    const std::size_t end_col = c.col(body_end - 1) + t[body_end - 1].text.size();
    if (fl.find_first_not_of(" \t") != c.col(loop) ||
        ll.find_first_not_of(" \t", end_col) != std::string::npos) {
      g.code_note = "the loop shares its lines with other code";
      return;
    }
    const std::string vec = fresh_name(c, open, close, g.pointer + "_v");
    const std::string elems = fresh_name(c, open, close, g.pointer + "_e");
    const std::string ind = indent_of(fl);
    static const char* kFields[] = {"x", "y", "z", "w"};
    std::string init;
    for (int k = 0; k < g.elements; ++k)
      init += fmt::format("{}{}.{}", k ? ", " : "", vec, kFields[k]);
    // The loop's lines with each use replaced by the element.
    std::vector<std::string> rewritten;
    for (int ln = first_line; ln <= last_line; ++ln) {
      std::string s = c.lines[static_cast<std::size_t>(ln) - 1];
      for (auto u = uses.rbegin(); u != uses.rend(); ++u)
        if (c.line(u->first) == ln)
          s.replace(c.col(u->first), c.col(u->second - 1) + 1 - c.col(u->first),
                    fmt::format("{}[{}]", elems, v));
      rewritten.push_back(s);
    }
    rewritten.front() =
        fmt::format(
            "{}{{  // one {}-byte load of the {} elements each thread reads\n{}  const {} "
            "{} = *reinterpret_cast<const {}*>(&{}[{}]);\n{}  const {} {}[{}] = {{{}}};\n",
            ind, g.vector_bytes, g.elements, ind, vtype, vec, vtype, g.pointer, base, ind, type,
            elems, g.elements, init) +
        "  " + rewritten.front();
    for (std::size_t k = 1; k < rewritten.size(); ++k) rewritten[k] = "  " + rewritten[k];
    rewritten.back() += "\n" + ind + "}";
    for (int ln = first_line; ln <= last_line; ++ln)
      g.edits.push_back({ln, c.lines[static_cast<std::size_t>(ln) - 1],
                         rewritten[static_cast<std::size_t>(ln - first_line)]});
    g.code_note = fmt::format(
        "&{}[{}] must be {}-byte aligned, as it was in every request the "
        "analysis recorded",
        g.pointer, base, g.vector_bytes);
    g.applicable = true;
    return;
  }
  g.code_note = "no pointer parameter is subscripted on the line";
}

// ---- Stage ----------------------------------------------------------------------------------

struct Declaration {
  std::string name;
  std::size_t from = 0, to = 0;  // its tokens, `;` included
};

// The padding of a by x (bx + pad) tile, in elements, that its reads by the transposed thread
// order (and its writes by rows) cost least wavefronts for.
int tile_pad(std::uint32_t bx, std::uint32_t by, int width, const model::Arch& arch) {
  int best = 0;
  std::uint64_t best_cost = ~0ull;
  for (int pad = 0; pad <= 32; ++pad) {
    std::uint64_t cost = 0;
    for (std::uint32_t w0 = 0; w0 < bx * by; w0 += 32)
      for (int transposed = 0; transposed < 2; ++transposed) {
        model::WarpAccess a;
        a.op = transposed ? model::Op::Load : model::Op::Store;
        a.width = static_cast<std::uint8_t>(width);
        for (std::uint32_t l = 0; l < 32; ++l) {
          const std::uint32_t t = w0 + l;
          const std::uint32_t row = transposed ? t % by : t / bx,
                              col = transposed ? t / by : t % bx;
          a.addr[l] = (row * (bx + static_cast<std::uint32_t>(pad)) + col) *
                      static_cast<std::uint32_t>(width);
        }
        cost += model::analyze(a, arch).wavefronts;
      }
    if (cost < best_cost) {
      best_cost = cost;
      best = pad;
    }
  }
  return best;
}

void stage_code(analysis::GlobalFix& g, const Code& c, std::size_t open, std::size_t close,
                const KernelSignature& sig, const analysis::KernelReport& k,
                const model::Arch& arch) {
  const TokenSpan t = c.t;
  if (!g.why_not_code.empty()) {
    g.code_note = g.why_not_code;
    return;
  }
  for (const auto& l : k.launches)
    if (!(l.block == k.block)) {
      g.code_note = "the kernel is launched with several block shapes; the tile is written for one";
      return;
    }
  // The statement: the line's first token, at the top of the body.
  std::size_t s = open + 1;
  while (s < close && c.line(s) < g.line) ++s;
  if (s >= close || c.line(s) != g.line) return;
  int depth = 0;
  for (std::size_t i = open + 1; i < s; ++i)
    depth += explain::is_open(t[i]) ? 1 : explain::is_close(t[i]) ? -1 : 0;
  const auto boundary = [&](std::size_t i) {
    return t[i - 1].is(";") || t[i - 1].is("{") || t[i - 1].is("}");
  };
  if (depth != 0 || !boundary(s)) {
    g.code_note =
        "the store is not a statement of its own at the top of the kernel's body (a "
        "loop or a branch around it): the tile would need the same structure";
    return;
  }
  for (std::size_t i = open + 1; i < s; ++i)
    if (t[i].is("return")) {
      g.code_note =
          "the kernel may return before the store: every thread must reach the "
          "__syncthreads() the tile needs";
      return;
    }
  const std::size_t end = statement_end(t, s);  // past the `;`
  if (end > close || c.line(end - 1) != g.line || (end < close && c.line(end) == g.line)) {
    g.code_note = "the store shares its line with other statements";
    return;
  }
  // [if (COND)] DST[IOUT] = SRC[IIN];
  std::size_t i = s;
  std::string cond;
  std::size_t cond_from = 0, cond_to = 0;
  if (t[i].is("if") && t[i + 1].is("(")) {
    const std::size_t rp = explain::match_forward(t, i + 1);
    cond_from = i + 2;
    cond_to = rp;
    cond = c.slice(cond_from, cond_to);
    i = rp + 1;
  }
  const auto subscript = [&](std::size_t at, std::string& name, std::size_t& from,
                             std::size_t& to) {
    if (at + 1 >= end || !t[at].ident() || !t[at + 1].is("[")) return false;
    name = t[at].text;
    from = at + 2;
    to = explain::match_forward(t, at + 1);
    return to < end;
  };
  std::string dst, src;
  std::size_t out_from = 0, out_to = 0, in_from = 0, in_to = 0;
  if (!subscript(i, dst, out_from, out_to) || !t[out_to + 1].is("=") ||
      !subscript(out_to + 2, src, in_from, in_to) || in_to + 2 != end ||
      param_index(sig, dst) < 0 || param_index(sig, src) < 0) {
    g.code_note = "the line is not `[if (COND)] dst[I] = src[J];` with two pointer parameters";
    return;
  }
  g.pointer = dst;
  // The top-level declarations before it; those that depend on the thread index.
  std::vector<Declaration> decls;
  for (std::size_t d = open + 1; d < s;) {
    const std::size_t e = statement_end(t, d);
    std::size_t n = d;
    while (n < e && (t[n].is("const") || t[n].is("int") || t[n].is("unsigned") || t[n].is("long") ||
                     t[n].is("short") || t[n].is("size_t") || t[n].is("signed") || t[n].is("auto")))
      ++n;
    if (n > d && n + 1 < e && t[n].ident() && t[n + 1].is("=")) {
      bool one = true;
      for (std::size_t q = n; q < e && one; ++q) {
        if (explain::is_open(t[q]))
          q = explain::match_forward(t, q);
        else if (t[q].is(","))
          one = false;
      }
      if (one) decls.push_back({t[n].text, d, e});
    }
    d = e;
  }
  std::set<std::string> by_thread;
  std::vector<const Declaration*> copied;
  for (const Declaration& d : decls) {
    bool depends = false;
    for (std::size_t q = d.from; q < d.to && !depends; ++q)
      depends = t[q].is("threadIdx") || by_thread.count(t[q].text);
    if (!depends) continue;
    by_thread.insert(d.name);
    copied.push_back(&d);
    if (assigned(t, d.to, s, d.name)) {
      g.code_note = fmt::format(
          "'{}' changes after its declaration: the thread whose element "
          "another stores cannot be re-derived from it",
          d.name);
      return;
    }
  }
  const std::uint32_t bx = k.block.x, by = k.block.y;
  const int pad = tile_pad(bx, by, g.width, arch);
  const std::string type =
      element_type(sig.param_types.size() > static_cast<std::size_t>(param_index(sig, dst))
                       ? sig.param_types[static_cast<std::size_t>(param_index(sig, dst))]
                       : "");
  if (type.empty()) return;
  const std::string tile = fresh_name(c, open, close, dst + "_tile");
  const std::string tn = fresh_name(c, open, close, dst + "_t");
  const std::string tx = fresh_name(c, open, close, dst + "_tx");
  const std::string ty = fresh_name(c, open, close, dst + "_ty");
  const std::vector<std::pair<std::string, std::string>> swap = {{R"(\bthreadIdx\s*\.\s*x\b)", tx},
                                                                 {R"(\bthreadIdx\s*\.\s*y\b)", ty}};
  const std::string& line = c.lines[static_cast<std::size_t>(g.line) - 1];
  const std::string ind = indent_of(line);
  const std::string guard = cond.empty() ? "" : fmt::format("if ({}) ", cond);
  std::string code = fmt::format(
      "{0}// Staged through shared memory (blocks of {2}x{1} threads): each thread stores "
      "another's\n"
      "{0}// element, so that a warp writes rows of {1} consecutive elements instead of a column.\n"
      "{0}__shared__ {5} {6}[{1}][{2} + {7}];\n"
      "{0}{8}{6}[threadIdx.y][threadIdx.x] = {9}[{10}];\n"
      "{0}__syncthreads();\n"
      "{0}{{\n"
      "{0}  const unsigned {11} = threadIdx.y * {2} + threadIdx.x;\n"
      "{0}  const unsigned {3} = {11} / {1}, {4} = {11} % {1};\n",
      ind, by, bx, tx, ty, type, tile, pad, guard, src, c.slice(in_from, in_to), tn);
  for (const Declaration* d : copied)
    code += ind + "  " + replace_words(c.slice(d->from, d->to), swap) + "\n";
  code += fmt::format("{0}  {1}{2}[{3}] = {4}[{5}][{6}];\n{0}}}", ind, replace_words(guard, swap),
                      dst, replace_words(c.slice(out_from, out_to), swap), tile, ty, tx);
  g.edits.push_back({g.line, line, code});
  g.shared_bytes = static_cast<std::uint64_t>(by) * (bx + static_cast<std::uint64_t>(pad)) *
                   static_cast<std::uint64_t>(g.width);
  g.code_note = fmt::format(
      "written for blocks of {}x{} threads, the shape of every analysed "
      "launch; the tile takes {} B of shared memory per block",
      bx, by, g.shared_bytes);
  g.applicable = true;
}

}  // namespace

void write_global_code(analysis::GlobalFix& g, const std::vector<std::string>& source_lines,
                       int main_file, const analysis::KernelReport& k, const KernelSignature& sig,
                       const model::Arch& arch) {
  if (g.file != main_file || g.line <= 0 ||
      static_cast<std::size_t>(g.line) > source_lines.size()) {
    g.code_note =
        g.why_not_code.empty() ? "the line is not in the source bankcheck read" : g.why_not_code;
    return;
  }
  const Code c(source_lines);
  const auto body = kernel_body(c, sig.name);
  if (!body) {
    g.code_note = fmt::format("the definition of {} was not found in the source", sig.name);
    return;
  }
  g.pointer = line_pointer(c, body->first, body->second, g, sig);
  switch (g.kind) {
    case analysis::GlobalFixKind::Pitch:
      g.code_note =
          "the pitch is set where the buffer is allocated and indexed (the host code, a "
          "leading dimension): not written";
      return;
    case analysis::GlobalFixKind::Align:
      g.code_note = "the base is set where the buffer is allocated or offset: not written";
      return;
    case analysis::GlobalFixKind::Layout:
      g.code_note =
          "the type's layout changes wherever it is used (host code, other kernels): "
          "not written";
      return;
    default:
      break;
  }
  if (g.kind == analysis::GlobalFixKind::Vector)
    vector_code(g, c, body->first, body->second, sig);
  else
    stage_code(g, c, body->first, body->second, sig, k, arch);
}

}  // namespace bankcheck::driver
