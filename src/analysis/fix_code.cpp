// Code: the source each suggestion means. A padding of a 2-D declaration is its new last
// dimension (what --apply writes); other remaps rewrite the array's subscripts on the lines
// that use it, when their index expressions have the declared shape.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <set>

#include "bankcheck/explain/tokens.hpp"
#include "fix_steps.hpp"

namespace bankcheck::analysis {
namespace {

bool is_simple(const std::string& e) {
  for (char c : e)
    if (!explain::is_ident_char(c) && c != '.') return false;
  return !e.empty();
}

std::string paren(const std::string& e) { return is_simple(e) ? e : "(" + e + ")"; }

// A swizzle within each row (its XORed bits come from the column): e ^ ((e >> S) & (mask << M)),
// as CuTe's Swizzle<B,M,S> computes it.
std::string inner_swizzle(const Remap& r, const std::string& e) {
  const std::string p = paren(e);
  return fmt::format("{} ^ (({} >> {}) & {})", p, p, r.shift, ((1u << r.bits) - 1) << r.base);
}

// The rewritten subscript for a remap, or empty when it cannot be written.
std::string rewrite(const Remap& r, const Geometry& g, const ArrayFix& af, const Subscripted& sub) {
  const std::vector<std::string>& idx = sub.index;
  const std::uint64_t cols = g.row_bytes / static_cast<std::uint64_t>(g.elem_bytes);
  const bool two_d = idx.size() == 2 && af.decl && af.decl->dims.size() == 2 &&
                     g.source == Geometry::Source::Declaration;
  const bool one_d = idx.size() == 1 && (!af.decl || af.decl->dims.size() == 1) &&
                     g.source == Geometry::Source::BankRows;
  // The row length as the declaration writes it (a template's `W + PAD` holds for every
  // instantiation, the number only for the one checked).
  const std::string cols_text = two_d && af.decl->dims[1] != "" && af.decl->dim_values[1] > 0
                                    ? paren(af.decl->dims[1])
                                    : fmt::format("{}", cols);
  const bool inner = swizzles_within_row(r, g);
  if (two_d) {
    const std::string& e1 = idx[0];
    const std::string& e2 = idx[1];
    switch (r.kind) {
      case FixKind::Swizzle: {
        if (inner) return fmt::format("{}[{}][{}]", af.name, e1, inner_swizzle(r, e2));
        std::string row = e1;
        if (g.rows > (1ull << r.bits))
          row = fmt::format("({} & {})", paren(e1), (1u << r.bits) - 1);
        if (r.base > 0) row = fmt::format("({} << {})", row, r.base);
        return fmt::format("{}[{}][{} ^ {}]", af.name, e1, paren(e2),
                           row.front() == '(' ? row : paren(row));
      }
      case FixKind::Rotate: {
        const int u = r.unit;
        const std::string add = u > 1 ? fmt::format("{} * {}", paren(e1), u) : paren(e1);
        return fmt::format("{}[{}][({} + {}) % {}]", af.name, e1, e2, add, cols_text);
      }
      default:
        return {};
    }
  }
  if (one_d) {
    if (auto v = sub.literal[0]; v && *v >= 0) {
      const auto off = static_cast<std::uint32_t>(*v) * static_cast<std::uint32_t>(g.elem_bytes);
      return fmt::format("{}[{}]", af.name,
                         remap_offset(r, g, off) / static_cast<std::uint32_t>(g.elem_bytes));
    }
    const std::string e = paren(idx[0]);
    const int log_cols = std::countr_zero(cols);
    switch (r.kind) {
      case FixKind::Pad:
        return fmt::format("{}[{} + {} / {}{}]", af.name, idx[0], e, cols,
                           r.pad > 1 ? fmt::format(" * {}", r.pad) : "");
      case FixKind::Swizzle: {
        if (inner) return fmt::format("{}[{}]", af.name, inner_swizzle(r, idx[0]));
        std::string row = fmt::format("({} >> {}) & {}", e, log_cols, (1u << r.bits) - 1);
        if (r.base > 0) row = fmt::format("({}) << {}", row, r.base);
        return fmt::format("{}[{} ^ ({})]", af.name, e, row);
      }
      case FixKind::Rotate:
        return fmt::format("{}[{} - {} % {} + ({} + {} / {}{}) % {}]", af.name, e, e, cols, e, e,
                           cols, r.unit > 1 ? fmt::format(" * {}", r.unit) : "", cols);
      default:
        return {};
    }
  }
  return {};
}

}  // namespace

// Lines of the main file that subscript the array: the sites' lines, and every line of
// the kernel after the declaration up to the next __global__.
std::vector<int> lines_using(const SharedSource& src, const ArrayFix& af,
                             const std::vector<int>& site_lines) {
  std::set<int> lines(site_lines.begin(), site_lines.end());
  if (af.decl)
    for (const SubscriptLine& l : src.subscripts)
      if (l.name == af.name && l.line > af.decl->line && l.line < af.decl->kernel_end)
        lines.insert(l.line);
  return {lines.begin(), lines.end()};
}

void write_code(Suggestion& s, const ArrayFix& af, const ArrayRange& ar, const Geometry& g,
                const SharedSource& src, const std::vector<int>& use_lines) {
  const Remap& r = s.remap;
  // Dropping a padding changes the row length everywhere the code computes it (a constant
  // shared with global indexing, a helper's pointer): described, not written.
  if (r.unpad > 0) return;
  // A class type padded: a member added before the `}` of its definition (where the main
  // file has it). Not applied: the type's size changes everywhere it is used (global arrays,
  // host copies), which is the user's call.
  if (g.source == Geometry::Source::Record) {
    if (r.kind != FixKind::Pad || !af.decl || af.decl->record_close_line == 0) return;
    const int bytes = r.pad * g.elem_bytes;
    const std::string member = bytes % 4 == 0 ? fmt::format("int bank_pad_[{}];", bytes / 4)
                                              : fmt::format("char bank_pad_[{}];", bytes);
    std::string t = af.decl->record_close_text;
    t.insert(af.decl->record_close_col, member + " ");
    s.edits.push_back({af.decl->record_close_line, af.decl->record_close_text, t});
    s.subscript = member;
    return;
  }
  if (r.kind == FixKind::Pad && af.decl && g.source == Geometry::Source::Declaration &&
      af.decl->last_dim_on_line) {
    std::string t = af.decl->text;
    const std::string last =
        t.substr(af.decl->last_dim_begin, af.decl->last_dim_end - af.decl->last_dim_begin);
    t.replace(af.decl->last_dim_begin, af.decl->last_dim_end - af.decl->last_dim_begin,
              fmt::format("{} + {}", last, r.pad));
    s.declaration = t;
    // With the code's vector accesses split into elements, the declaration alone would leave
    // them misaligned (the GPU faults): --apply writes only what is complete.
    s.applicable = r.split == 0;
  } else if (r.kind == FixKind::Pad && af.decl && af.decl->dims.size() == 1 && !af.is_extern &&
             af.decl->dim_values[0] > 0 && af.decl->last_dim_on_line) {
    std::string t = af.decl->text;
    const std::string last =
        t.substr(af.decl->last_dim_begin, af.decl->last_dim_end - af.decl->last_dim_begin);
    const std::uint64_t extra = (ar.bytes / g.row_bytes) * static_cast<std::uint64_t>(r.pad);
    t.replace(af.decl->last_dim_begin, af.decl->last_dim_end - af.decl->last_dim_begin,
              fmt::format("{} + {}", last, extra));
    s.declaration = t;
  }
  if (r.kind == FixKind::Width ||
      (r.kind == FixKind::Pad && g.source == Geometry::Source::Declaration))
    return;
  for (int line : use_lines) {
    if (af.decl && line == af.decl->line) continue;
    const auto use =
        std::find_if(src.subscripts.begin(), src.subscripts.end(),
                     [&](const SubscriptLine& l) { return l.line == line && l.name == af.name; });
    if (use == src.subscripts.end()) continue;
    const std::string& text = use->text;
    std::string out = text;
    const auto& subs = use->subscripts;
    bool changed = false;
    std::string first;  // the line's first subscript rewritten (the loop goes right to left)
    for (auto it = subs.rbegin(); it != subs.rend(); ++it) {
      const std::string repl = rewrite(r, g, af, *it);
      if (repl.empty()) continue;
      if (s.subscript.empty()) s.subscript = repl;
      first = repl;
      out.replace(it->begin, it->end - it->begin, repl);
      changed = true;
    }
    if (changed) {
      s.edits.push_back({line, text, out});
      s.line_subscripts.push_back({line, first});
    }
  }
}

}  // namespace bankcheck::analysis
