// The findings every view of `bankcheck check` shares, from the per-line sums.
#include "bankcheck/report/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "bankcheck/model/analyze.hpp"

namespace bankcheck::report {
namespace {

double fraction(std::uint64_t part, std::uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string bytes_text(int width) { return fmt::format("{} byte{}", width, width == 1 ? "" : "s"); }

// Where `name` is subscripted on `text` (0-based columns of each whole-word `name[`, or `name.`
// for a struct variable's member), with whether the subscript is assigned to (`name[i] = `,
// `name[i] += `, not `==`).
struct Occurrence {
  std::size_t col = 0;
  bool assigned = false;
};
std::vector<Occurrence> occurrences(const std::string& text, const std::string& name) {
  std::vector<Occurrence> out;
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(name); at != std::string::npos;
       at = text.find(name, at + name.size())) {
    const std::size_t end = at + name.size();
    if ((at > 0 && (ident(text[at - 1]) || text[at - 1] == '.')) ||
        (end < text.size() && ident(text[end])))
      continue;
    std::size_t i = end;
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size() || (text[i] != '[' && text[i] != '.')) continue;
    // Past the subscripts (and a member): what follows says whether it is written.
    while (i < text.size() && (text[i] == '[' || text[i] == '.')) {
      if (text[i] == '.') {
        ++i;
        while (i < text.size() && ident(text[i])) ++i;
      } else {
        int depth = 0;
        for (; i < text.size(); ++i) {
          depth += text[i] == '[' ? 1 : text[i] == ']' ? -1 : 0;
          if (depth == 0) break;
        }
        if (i < text.size()) ++i;
      }
      while (i < text.size() && text[i] == ' ') ++i;
    }
    bool assigned = false;
    if (i < text.size() && text[i] == '=') assigned = i + 1 >= text.size() || text[i + 1] != '=';
    if (i + 1 < text.size() && text[i + 1] == '=' && std::strchr("+-*/%&|^", text[i]))
      assigned = true;
    out.push_back({at, assigned});
  }
  return out;
}

// The 1-based column of the access on `text` that `names` (the arrays or pointers it may
// subscript, the likeliest first) and `op` pick out: a store's assigned subscript, a load's
// read one, the `n`-th of them on the line; 0 when none is found.
int access_column(const std::string& text, const std::vector<std::string>& names, model::Op op,
                  std::size_t n) {
  for (const std::string& name : names) {
    if (name.empty()) continue;
    std::vector<Occurrence> all = occurrences(text, name);
    if (all.empty()) continue;
    std::vector<Occurrence> fit;
    for (const Occurrence& o : all)
      if (op == model::Op::Atomic || o.assigned == (op == model::Op::Store)) fit.push_back(o);
    const std::vector<Occurrence>& pick = fit.empty() ? all : fit;
    return static_cast<int>(pick[std::min(n, pick.size() - 1)].col) + 1;
  }
  return 0;
}

}  // namespace

int access_column(const analysis::CheckReport& r, const analysis::KernelReport& k,
                  const analysis::SiteReport& site) {
  const std::string* text = source_line(r, site.file, site.line);
  if (!text) return 0;
  const analysis::SiteStats& st = site.stats;
  std::vector<std::string> names;
  std::size_t nth = 0;
  if (st.space == ptx::Space::Shared && st.has_worst) {
    for (const ptx::SharedVar* v : shared_vars_touched(k, st.worst)) {
      const std::string name = shared_var_display_name(v->name);
      names.push_back(name.substr(0, name.find('.')));  // a struct variable: `s` of `s.x`
    }
  } else if (st.space == ptx::Space::Global) {
    // The pointer parameters' accesses of the site's kind (a store's assigned subscript, a
    // load's read one) in the line's order; the site is the n-th of its kind among the line's
    // global sites, as the compiler emits them in the order of the source.
    const auto of_kind = [&](const Occurrence& o) {
      return st.op == model::Op::Atomic || o.assigned == (st.op == model::Op::Store);
    };
    std::vector<std::size_t> cols;
    for (const auto& a : k.args)
      if (a.is_buffer && !a.is_variable)
        for (const Occurrence& o : occurrences(*text, a.name))
          if (of_kind(o)) cols.push_back(o.col);
    if (cols.empty()) {
      // A pointer of the code's own (a device function's parameter, a local): any name
      // subscripted on the line that is not a shared array.
      std::vector<std::string> shared;
      for (const auto& v : k.shared_vars) shared.push_back(shared_var_display_name(v.name));
      for (std::size_t i = 0; i < text->size(); ++i) {
        const auto ident = [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        };
        if (!ident((*text)[i]) || (i > 0 && ident((*text)[i - 1]))) continue;
        std::size_t e = i;
        while (e < text->size() && ident((*text)[e])) ++e;
        const std::string name = text->substr(i, e - i);
        if (std::isdigit(static_cast<unsigned char>(name[0])) ||
            std::find(shared.begin(), shared.end(), name) != shared.end())
          continue;
        for (const Occurrence& o : occurrences(*text, name))
          if (o.col == i && of_kind(o)) cols.push_back(o.col);
      }
    }
    if (cols.empty()) return 0;
    std::sort(cols.begin(), cols.end());
    for (const auto& s : k.sites) {
      if (&s == &site) break;
      if (s.file == site.file && s.line == site.line && s.stats.space == ptx::Space::Global &&
          s.stats.op == st.op)
        ++nth;
    }
    return static_cast<int>(cols[std::min(nth, cols.size() - 1)]) + 1;
  }
  return access_column(*text, names, st.op, nth);
}

Severity severity_of(double share) {
  if (share >= kErrorShare) return Severity::Error;
  if (share >= kWarningShare) return Severity::Warning;
  return Severity::Note;
}

bool parse_severity(const std::string& name, Severity& out) {
  for (Severity s : {Severity::Note, Severity::Warning, Severity::Error})
    if (name == severity_name(s)) {
      out = s;
      return true;
    }
  return false;
}

const char* rule_id(FindingKind kind) {
  switch (kind) {
    case FindingKind::BankConflict:
      return "bank-conflict";
    case FindingKind::UncoalescedGlobal:
      return "uncoalesced-global-access";
    case FindingKind::MisalignedGlobal:
      return "misaligned-global-access";
  }
  return "?";
}

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Note:
      return "note";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "?";
}

std::string source_path(const analysis::CheckReport& r, int file) {
  if (file == r.main_file && !r.input.empty()) return r.input;
  if (file > 0 && static_cast<size_t>(file) < r.files.size() &&
      !r.files[static_cast<size_t>(file)].empty())
    return r.files[static_cast<size_t>(file)];
  return r.input;
}

std::string why_unpictured(const analysis::SiteStats& st) {
  if (st.worst_kind == emu::AccessKind::CasLoop64)
    return fmt::format(
        "a 64-bit atomic that SASS issues as a loop of LDS.64 and ATOMS.CAST.SPIN.64: each pass's "
        "ATOMS is a conflict-free compare-and-swap round (per half-warp a bank pair serves one "
        "lane, the others retry in the next pass), so the excess is the passes' LDS.64 loads, up "
        "to {}-way (no bank picture: the loop is not one request)",
        st.worst_verdict.ways);
  return "a 64-bit ATOMS: per half-warp, a bank pair serves one lane per wavefront (no bank "
         "picture for 64-bit atomics)";
}

const std::string* source_line(const analysis::CheckReport& r, int file, int line) {
  if (line <= 0) return nullptr;
  if (file != r.main_file) {
    for (const analysis::QuotedLine& q : r.quoted_lines)
      if (q.file == file && q.line == line) return &q.text;
    return nullptr;
  }
  if (static_cast<size_t>(line) > r.source_lines.size()) return nullptr;
  return &r.source_lines[static_cast<size_t>(line) - 1];
}

double shared_excess_percent(const analysis::KernelReport& k) {
  return 100.0 * fraction(model::excess_of(k.shared_wavefronts, k.shared_ideal_wavefronts),
                          k.shared_wavefronts);
}

double global_waste_percent(const analysis::KernelReport& k) {
  std::uint64_t sectors = 0, ideal = 0;
  for (const auto& l : k.lines)
    if (l.space == ptx::Space::Global) {
      sectors += l.sectors;
      ideal += std::min(l.ideal_sectors, l.sectors);
    }
  return 100.0 * fraction(model::excess_of(sectors, ideal), sectors);
}

const ptx::SharedVar* shared_var_at(const analysis::KernelReport& k, std::uint64_t offset) {
  for (const auto& v : k.shared_vars) {
    const std::uint64_t end =
        v.is_extern ? v.offset + std::max<std::uint64_t>(k.dynamic_smem, 1) : v.offset + v.bytes;
    if (offset >= v.offset && offset < end) return &v;
  }
  return nullptr;
}

std::vector<const ptx::SharedVar*> shared_vars_touched(const analysis::KernelReport& k,
                                                       const model::WarpAccess& a) {
  std::vector<const ptx::SharedVar*> out;
  for (int l = 0; l < model::kWarpSize; ++l) {
    if (!a.lane_active(l)) continue;
    const ptx::SharedVar* v = shared_var_at(k, a.addr[l]);
    if (v && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  std::sort(out.begin(), out.end(),
            [](const ptx::SharedVar* x, const ptx::SharedVar* y) { return x->offset < y->offset; });
  return out;
}

std::string shared_var_display_name(const std::string& n) {
  // Itanium local names: _ZZ <function encoding> E <length><name> [_<discriminator>]. The
  // encoding may hold 'E's of its own, so take the last "E<length><name>" that ends the
  // string (or is followed only by a discriminator).
  if (n.rfind("_ZZ", 0) != 0) return n;
  for (size_t e = n.size(); e-- > 3;) {
    if (n[e] != 'E') continue;
    size_t i = e + 1, len = 0;
    while (i < n.size() && std::isdigit(static_cast<unsigned char>(n[i])) && len < 10000)
      len = len * 10 + static_cast<size_t>(n[i++] - '0');
    if (i == e + 1 || len == 0 || i + len > n.size()) continue;
    const std::string rest = n.substr(i + len);
    const bool discriminator =
        rest.empty() ||
        (rest.size() > 1 && rest[0] == '_' && std::all_of(rest.begin() + 1, rest.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c));
         }));
    if (discriminator) return n.substr(i, len);
  }
  return n;
}

std::string global_hint(const analysis::LineReport& l) {
  using K = analysis::GlobalPattern::Kind;
  const auto& p = l.pattern;
  switch (p.kind) {
    case K::Consecutive:
      // A buffer from cudaMalloc starts on 256 bytes: the offset is the index's (in[i + 1])
      // or a pointer's moved from a buffer's start.
      return fmt::format(
          "the lanes {} consecutive {}-byte elements, but the first starts {} B past a 32-byte "
          "boundary: the index, or the pointer it adds to, is off a multiple of 32 B (in[i + 1], "
          "a pointer into a buffer); start each warp's elements on a 32-byte boundary (cudaMalloc "
          "aligns a buffer's start to 256 B), or, for rows of a 2-D array, make the row pitch a "
          "multiple of 32 B (cudaMallocPitch gives one)",
          l.op == model::Op::Store ? "write" : "read", l.width, p.offset);
    case K::Strided: {
      const std::int64_t s = p.stride < 0 ? -p.stride : p.stride;
      if (s < 32) {
        std::int64_t align = 1;
        while (align < s) align *= 2;  // the structure padded to a vector width
        return fmt::format(
            "stride {} B between lanes, each {} {} B: an array of {}-byte structures accessed a "
            "field at a "
            "time; a structure of arrays, or one aligned vector access per element (__align__({}) "
            "on the "
            "structure), moves only the bytes it needs",
            p.stride, l.op == model::Op::Store ? "writing" : "reading", l.width, s, align);
      }
      return fmt::format("stride {} B between lanes: each lane touches its own sector{}", p.stride,
                         s >= 128 ? " (a column walk of a row-major array? stage the tile through "
                                    "shared memory, or swap the "
                                    "index order)"
                                  : "");
    }
    case K::Rows:
      if (p.pitch % 128 != 0)
        return fmt::format(
            "runs of {} lanes read consecutive elements, {} B apart, not a multiple of 128 B: pad "
            "the rows to a "
            "multiple of 128 B (cudaMallocPitch)",
            p.run, p.pitch);
      return fmt::format("runs of {} lanes read consecutive elements, rows {} B apart", p.run,
                         p.pitch);
    case K::Unknown:
      break;
  }
  return "the lanes' addresses touch more sectors than the bytes they need";
}

std::vector<Finding> raw_findings(const analysis::CheckReport& r) {
  std::vector<Finding> out;
  for (size_t ki = 0; ki < r.kernels.size(); ++ki) {
    const auto& k = r.kernels[ki];
    // Shared: one finding per source line, its kinds (op, width) summed. The lines of one
    // source line are adjacent (sites are in source order).
    for (size_t i = 0; i < k.lines.size();) {
      Finding f;
      f.kind = FindingKind::BankConflict;
      f.kernel = ki;
      f.file = k.lines[i].file;
      f.line = k.lines[i].line;
      f.col = k.lines[i].col;
      std::vector<std::string> kinds;
      bool copies = true;  // every request of the line is a cp.async's shared side (LDGSTS)
      size_t j = i;
      for (; j < k.lines.size() && k.lines[j].file == f.file && k.lines[j].line == f.line; ++j) {
        const auto& l = k.lines[j];
        if (l.space != ptx::Space::Shared) continue;
        f.lines.push_back(j);
        f.requests += l.requests;
        f.cost += l.wavefronts;
        f.ideal += l.ideal_wavefronts;
        f.ways = std::max(f.ways, l.ways);
        f.col = std::min(f.col, l.col);
        const std::string kind = fmt::format("{} of {}", model::op_name(l.op), bytes_text(l.width));
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
        copies &= l.worst_site >= 0 &&
                  k.sites[static_cast<size_t>(l.worst_site)].stats.worst_kind ==
                      emu::AccessKind::Ldgsts;
        if (l.worst_site >= 0 &&
            (f.worst_site < 0 ||
             k.sites[static_cast<size_t>(l.worst_site)].stats.worst_verdict.excess() >
                 k.sites[static_cast<size_t>(f.worst_site)].stats.worst_verdict.excess()))
          f.worst_site = l.worst_site;
      }
      i = j;
      if (f.cost <= f.ideal || f.requests == 0) continue;
      // The caret goes on the access that conflicts, not on the statement's start (the .loc
      // column): the array its worst request touches, found on the line.
      if (f.worst_site >= 0)
        if (const int col = access_column(r, k, k.sites[static_cast<size_t>(f.worst_site)]))
          f.col = col;
      for (size_t q = 0; q < kinds.size(); ++q)
        f.what += (q == 0 ? "" : (q + 1 == kinds.size() ? " and " : ", ")) + kinds[q];
      f.share = fraction(f.excess(), k.shared_wavefronts);
      f.severity = severity_of(f.share);
      if (copies) {
        // cp.async: a wavefront moves data from one global 128-byte line to one shared
        // 128-byte row (docs/model.md); the excess is where the two layouts disagree,
        // whether or not a bank is asked for two words.
        f.message = fmt::format(
            "cp.async {} costs {:.4g} wavefronts per request (ideal {:.4g}, the bytes copied): "
            "{}; {:.0f}% of this kernel's shared wavefronts are excess",
            f.what.starts_with("store of ") ? f.what.substr(6) : "(" + f.what + ")",
            fraction(f.cost, f.requests), fraction(f.ideal, f.requests),
            f.ways > 1 ? fmt::format("up to {} wavefronts for one global line and shared row, "
                                     "where lanes collide on their 16-byte positions or banks",
                                     f.ways)
                       : std::string("its lanes read more global 128-byte lines than the "
                                     "copy fills shared 128-byte rows, or move chunks between "
                                     "different positions of line and row"),
            100.0 * f.share);
      } else {
        f.message = fmt::format(
            "{}-way bank conflict: shared {} costs {:.4g} wavefronts per request (ideal {:.4g}); "
            "{:.0f}% of this kernel's shared wavefronts are excess",
            f.ways, f.what, fraction(f.cost, f.requests), fraction(f.ideal, f.requests),
            100.0 * f.share);
      }
      for (std::size_t li : f.lines) {
        const auto& l = k.lines[li];
        if (!l.rewritten) continue;
        f.message += fmt::format(
            " (SASS: {}; as PTX: {} access{} of {}, {}-way, {:.4g} wavefronts per request)", l.sass,
            l.ptx_sites, l.ptx_sites == 1 ? "" : "es", bytes_text(l.ptx_width), l.ptx_ways,
            fraction(l.ptx_wavefronts, l.ptx_requests));
      }
      out.push_back(std::move(f));
    }
    // Global: one finding per line and kind that touches more sectors than it needs.
    std::uint64_t global_sectors = 0;
    for (const auto& l : k.lines)
      if (l.space == ptx::Space::Global) global_sectors += l.sectors;
    for (size_t i = 0; i < k.lines.size(); ++i) {
      const auto& l = k.lines[i];
      if (l.space != ptx::Space::Global || l.sectors <= l.ideal_sectors || l.requests == 0)
        continue;
      Finding f;
      f.kind = l.pattern.kind == analysis::GlobalPattern::Kind::Consecutive
                   ? FindingKind::MisalignedGlobal
                   : FindingKind::UncoalescedGlobal;
      f.kernel = ki;
      f.file = l.file;
      f.line = l.line;
      f.col = l.col;
      if (l.worst_global_site >= 0)
        if (const int col = access_column(r, k, k.sites[static_cast<size_t>(l.worst_global_site)]))
          f.col = col;
      f.lines = {i};
      f.what = fmt::format("{} of {}", model::op_name(l.op), bytes_text(l.width));
      f.requests = l.requests;
      f.cost = l.sectors;
      f.ideal = l.ideal_sectors;
      f.share = fraction(f.excess(), global_sectors);
      f.severity = severity_of(f.share);
      f.hint = global_hint(l);
      f.message = fmt::format(
          "uncoalesced global {}: {:.3g} sectors of 32 B per request (ideal {:.3g}); {}", f.what,
          fraction(f.cost, f.requests), fraction(f.ideal, f.requests), f.hint);
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace bankcheck::report
