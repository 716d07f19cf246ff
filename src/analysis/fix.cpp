// The fix advisor: advise() runs its steps (fix_steps.hpp) per array; the remaps themselves
// (remap_offset) and --apply's rewrite of the declarations.
#include "bankcheck/analysis/fix.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/model/swizzle.hpp"
#include "fix_steps.hpp"

namespace bankcheck::analysis {
namespace {

std::string short_name(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  std::string s = status == 0 && d ? std::string(d.get()) : symbol;
  const auto colons = s.rfind("::");
  return colons == std::string::npos ? s : s.substr(colons + 2);
}

std::string without_indent(const std::string& line) {
  const auto from = line.find_first_not_of(" \t");
  return from == std::string::npos ? std::string() : line.substr(from);
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// The line of a cp.async.bulk that writes into [offset, offset + bytes), or 0. The TMA unit
// writes the tile in its linear layout, so a remap of the array's storage would need one
// copy per row (padding) or a tensor copy with a swizzle mode, not a changed declaration.
int bulk_copy_line(const ptx::Kernel& k, const KernelReport& rep, std::uint64_t offset,
                   std::uint64_t bytes) {
  for (const SiteReport& s : rep.sites) {
    const ptx::Instr& in = k.code[k.sites[static_cast<std::size_t>(s.site)].instr];
    if (in.op != ptx::Opc::CpAsyncBulk || in.mod.mbar.to_global || in.site != s.site ||
        !s.stats.has_worst)
      continue;
    const model::WarpAccess& a = s.stats.worst;
    for (int l = 0; l < model::kWarpSize; ++l)
      if (a.lane_active(l) && a.addr[l] >= offset && a.addr[l] < offset + bytes) return s.line;
  }
  return 0;
}

// The tensor copies that write into [offset, offset + bytes) and the wgmma operands read
// from it: the tile's swizzle mode, the copy's row bytes and the lines; none when neither.
std::optional<ArrayFix::Tile> tensor_tile(const ptx::Kernel& k, const KernelReport& rep,
                                          std::uint64_t offset, std::uint64_t bytes) {
  std::optional<ArrayFix::Tile> t;
  for (const SiteReport& s : rep.sites) {
    const ptx::Instr& in = k.code[k.sites[static_cast<std::size_t>(s.site)].instr];
    const bool copy = in.op == ptx::Opc::CpAsyncBulkTensor && in.site == s.site;
    const bool wgmma = in.op == ptx::Opc::Wgmma;
    if ((!copy && !wgmma) || s.stats.swizzle < 0 || s.stats.shared_hi <= offset ||
        s.stats.shared_lo >= offset + bytes)
      continue;
    if (!t) t.emplace();
    if (copy) {
      t->mode = s.stats.swizzle;
      t->row_bytes = std::max(t->row_bytes, s.stats.row_bytes);
      if (!t->copy_line) t->copy_line = s.line;
    } else {
      if (!t->copy_line) t->mode = s.stats.swizzle;
      if (!t->wgmma_line) t->wgmma_line = s.line;
    }
  }
  return t;
}

}  // namespace

const char* fix_kind_name(FixKind k) {
  switch (k) {
    case FixKind::Pad:
      return "padding";
    case FixKind::Swizzle:
      return "xor-swizzle";
    case FixKind::Rotate:
      return "rotation";
    case FixKind::Width:
      return "access-width";
    case FixKind::TmaSwizzle:
      return "tma-swizzle";
  }
  return "?";
}

std::string Geometry::describe() const {
  const std::uint64_t bytes = rows * row_bytes;
  if (source == Source::Record)
    return fmt::format("{} B, {} elements of {}, {} B ({}) each", bytes, rows, record, row_bytes,
                       row_bytes % 4 ? plural(row_bytes, "byte", "bytes")
                                     : plural(row_bytes / 4, "word", "words"));
  std::string s = fmt::format("{} B, {} of {} B", bytes, plural(rows, "row", "rows"), row_bytes);
  if (source == Source::BankRows) s += " (viewed as 128-byte bank rows)";
  return s;
}

bool swizzles_within_row(const Remap& r, const Geometry& g) {
  const std::uint64_t cols = g.row_bytes / static_cast<std::uint64_t>(g.elem_bytes);
  return r.kind == FixKind::Swizzle && r.unpad == 0 && std::has_single_bit(cols) &&
         r.base + r.shift + r.bits <= std::countr_zero(cols);
}

std::uint32_t remap_offset(const Remap& r, const Geometry& g, std::uint32_t off) {
  if (r.kind == FixKind::TmaSwizzle) {
    // Undo the tile's mode, apply the new one, on the shared address: a byte stays in its
    // 128-byte line, so in the array when the array holds whole lines.
    const std::uint32_t a = r.origin + off;
    const std::uint32_t moved =
        model::tma_swizzle(model::tma_swizzle(a, static_cast<model::TmaSwizzle>(r.from)),
                           static_cast<model::TmaSwizzle>(r.bits));
    return moved >= r.origin && moved - r.origin < g.rows * g.row_bytes ? moved - r.origin : off;
  }
  if (r.kind == FixKind::Swizzle && r.unpad > 0) {
    // Padded rows: row i's data [i * stride, i * stride + width) goes to [i * width, ...)
    // swizzled as rows of `width` bytes; its padding goes after all the data (the
    // suggestion drops it), so the map stays a bijection inside the array.
    const auto stride = static_cast<std::uint64_t>(r.stride);
    const std::uint64_t width = stride - static_cast<std::uint64_t>(r.unpad);
    const std::uint64_t rows = (g.rows * g.row_bytes) / stride;
    const std::uint64_t row = off / stride, col = off % stride;
    if (row >= rows) return off;
    if (col >= width) return static_cast<std::uint32_t>(rows * width + row * r.unpad + col - width);
    Geometry u = g;
    u.row_bytes = width;
    u.rows = rows;
    Remap plain = r;
    plain.unpad = 0;
    return remap_offset(plain, u, static_cast<std::uint32_t>(row * width + col));
  }
  const std::uint64_t row = off / g.row_bytes, rem = off % g.row_bytes;
  const std::uint64_t e = static_cast<std::uint64_t>(g.elem_bytes);
  const std::uint64_t col = rem / e, byte = rem % e, cols = g.row_bytes / e;
  switch (r.kind) {
    case FixKind::Pad:
      return static_cast<std::uint32_t>(
          row * (g.row_bytes + static_cast<std::uint64_t>(r.pad) * e) + rem);
    case FixKind::Swizzle: {
      // CuTe's Swizzle<B,M,S> on element offsets: bits [M+S, M+S+B) XORed into [M, M+B).
      //   o = ...yyy...xxx mmm  ->  xxx ^= yyy
      // An involution that moves an element only within its aligned 2^(M+B) block; the
      // blocks of a partial last row stay as they are.
      if (row >= g.rows) return off;
      const std::uint64_t o = row * cols + col;
      const std::uint64_t mask = ((1ull << r.bits) - 1) << r.base;
      const std::uint64_t c = (o ^ ((o >> r.shift) & mask)) - row * cols;
      return static_cast<std::uint32_t>(row * g.row_bytes + c * e + byte);
    }
    case FixKind::Rotate: {
      if (row >= g.rows) return off;
      const std::uint64_t c = (col + row * static_cast<std::uint64_t>(r.unit)) % cols;
      return static_cast<std::uint32_t>(row * g.row_bytes + c * e + byte);
    }
    case FixKind::Width:
    case FixKind::TmaSwizzle:
      return off;
  }
  return off;
}

KernelFix advise(const AdviseInput& in) {
  const ptx::Kernel& k = *in.kernel;
  const KernelReport& rep = *in.report;
  const model::Arch& arch = *in.arch;
  static const SharedSource kNoSource;
  const SharedSource& src = in.source ? *in.source : kNoSource;
  KernelFix kf;
  kf.kernel = rep.name;
  kf.threads = static_cast<int>(rep.block.count());
  kf.registers = in.registers;
  kf.static_smem = rep.static_smem;
  kf.dynamic_smem = rep.dynamic_smem;
  kf.recorded_requests = 0;
  kf.dropped_requests = in.recorder->dropped();
  for (const auto& r : in.recorder->requests()) kf.recorded_requests += r.count;
  if (in.registers >= 0) {
    kf.occupancy = occupancy_for(arch, kf.threads, in.registers, kf.static_smem, kf.dynamic_smem);
    kf.occupancy_known = kf.occupancy.error != model::OccupancyError::UnknownArch;
    if (!kf.occupancy_known)
      kf.occupancy_note = fmt::format("no occupancy limits for {}", arch.name);
  } else {
    kf.occupancy_note = in.registers_note.empty() ? "registers unknown" : in.registers_note;
  }

  const Attribution attribution = attribute(k, rep, *in.recorder);
  const PtxWidths ptx = ptx_widths(k);
  const std::vector<int> origins = address_origins(k);
  kf.unattributed_requests = attribution.unattributed;
  auto site_line = [&](int s) { return k.sites[static_cast<size_t>(s)].line; };
  for (size_t ai = 0; ai < attribution.ranges.size(); ++ai) {
    const Requests& reqs = attribution.requests[ai];
    if (reqs.empty()) continue;
    ArrayRange ar = attribution.ranges[ai];
    ArrayFix af;
    af.symbol = ar.symbol;
    af.name = short_name(ar.symbol);
    af.offset = ar.offset;
    af.bytes = ar.bytes;
    af.is_extern = ar.is_extern;
    std::set<int> sites;
    Widths w;
    for (const auto* r : reqs) {
      sites.insert(r->site);
      w.min = std::min<int>(w.min, code_width(*r, ptx));
      w.code_max = std::max<int>(w.code_max, code_width(*r, ptx));
      w.max = std::max<int>(w.max, r->access.width);
      af.requests += r->count;
    }
    af.sites.assign(sites.begin(), sites.end());
    af.widest_access = w.code_max;
    // The declaration must have the array's size: another array of the same name (another
    // kernel's, or this one's in an included header) is not it.
    for (const SharedDecl& d : src.declarations)
      if (d.name == af.name && (ar.is_extern || declaration_fits(d, ar.bytes))) {
        af.decl = d;
        break;
      }
    // A `__shared__ struct { float x[32][32]; ... } s;`: the member the requests touch is the
    // array (s.x), in its own range.
    if (!af.decl && !ar.is_extern)
      if (auto m = member_for(src.declarations, af.name, ar, reqs)) {
        af.decl = *m->decl;
        af.name = m->decl->name;
        ar = m->range;
        af.offset = ar.offset;
        af.bytes = ar.bytes;
      }
    const Eval before = evaluate(reqs, ar, Geometry{}, nullptr, ptx, arch);
    if (!before.ok) {
      af.error = "a request of this array has no bank rule (misaligned or an unsupported width)";
      kf.arrays.push_back(std::move(af));
      continue;
    }
    af.wavefronts = before.wavefronts;
    af.ideal_wavefronts = before.ideal;
    // A tile of the TMA unit (a tensor copy's, a wgmma operand): its layout is the copy's
    // swizzle mode, so the suggestions are the other modes, whatever its rows.
    if (const auto tile = tensor_tile(k, rep, ar.offset, ar.bytes)) {
      af.tile = *tile;
      af.geometry = Geometry{1, 128, (ar.bytes + 127) / 128, 1, Geometry::Source::BankRows, {}};
      if (before.wavefronts > before.ideal) {
        std::vector<Remap> cands;
        for (int b = 1; b <= 3; ++b) {
          const auto mode = static_cast<model::TmaSwizzle>(b);
          if (b == tile->mode ||
              (tile->row_bytes && model::tma_swizzle_span(mode) < tile->row_bytes))
            continue;
          Remap r;
          r.kind = FixKind::TmaSwizzle;
          r.bits = b;
          r.from = tile->mode;
          r.origin = static_cast<std::uint32_t>(ar.offset);
          cands.push_back(r);
        }
        af.suggestions =
            rank(cands, reqs, ar, *af.geometry, before, af, kf, site_line, ptx, arch, in.top);
      }
      kf.arrays.push_back(std::move(af));
      continue;
    }
    af.geometry = find_geometry(af, ar, reqs, w, arch);
    if (!af.geometry || before.wavefronts == before.ideal) {  // no rows, or nothing to fix
      kf.arrays.push_back(std::move(af));
      continue;
    }
    // A wmma fragment's addresses follow from its pointer and leading dimension inside the
    // instruction: a remap of the index cannot reach them.
    for (int site : af.sites) {
      const ptx::Instr& in = k.code[k.sites[static_cast<size_t>(site)].instr];
      if (in.op != ptx::Opc::WmmaLoad && in.op != ptx::Opc::WmmaStore) continue;
      af.error = fmt::format(
          "line {} moves wmma fragments of it, whose addresses follow from the pointer and the "
          "leading dimension inside wmma.load/wmma.store, not from an index a remap could "
          "rewrite; pad its rows instead (a larger leading dimension: the CUDA samples' skew "
          "of 16 bytes a row for f16 tiles, 32 for f32)",
          site_line(site));
      break;
    }
    if (!af.error.empty()) {
      kf.arrays.push_back(std::move(af));
      continue;
    }
    // Conflicts that follow the data: no layout is suggested (it would only move them).
    af.data_dependent = data_dependence(k, rep, origins, reqs, af.sites,
                                        model::excess_of(before.wavefronts, before.ideal));
    if (af.data_dependent) {
      kf.arrays.push_back(std::move(af));
      continue;
    }
    if (const int line = bulk_copy_line(k, rep, ar.offset, ar.bytes)) {
      af.error = fmt::format(
          "the array is filled by cp.async.bulk (line {}), which writes it in its linear "
          "layout: padding needs one copy per row, a swizzle cp.async.bulk.tensor with a "
          "swizzle mode; or change the order of the reads",
          line);
      kf.arrays.push_back(std::move(af));
      continue;
    }
    const Geometry& g = *af.geometry;
    std::vector<Remap> cands = candidates(g, w, af.sites, reqs, ptx, arch);
    // An element of a class type is padded as a whole (a member added); swizzles and rotations
    // of its words have no name in the source.
    if (g.source == Geometry::Source::Record)
      std::erase_if(
          cands, [](const Remap& r) { return r.kind != FixKind::Pad && r.kind != FixKind::Width; });
    af.suggestions = rank(cands, reqs, ar, g, before, af, kf, site_line, ptx, arch, in.top);
    std::vector<int> site_lines;
    for (int s : af.sites)
      if (k.sites[static_cast<size_t>(s)].file == in.main_file) site_lines.push_back(site_line(s));
    const std::vector<int> use_lines = lines_using(src, af, site_lines);
    for (auto& s : af.suggestions) write_code(s, af, ar, g, src, use_lines);
    kf.arrays.push_back(std::move(af));
  }
  return kf;
}

namespace {

std::string not_applied_reason(const ArrayFix& af) {
  if (!af.error.empty()) return af.error;
  if (af.data_dependent) return "its conflicts depend on the input data, which no layout removes";
  if (!af.geometry) return "its rows are unknown";
  if (af.suggestions.empty()) return "no layout bankcheck tried lowers its wavefronts";
  const Geometry& g = *af.geometry;
  for (const Suggestion& s : af.suggestions) {
    if (s.remap.kind != FixKind::Pad) continue;
    if (!af.decl)
      return "its declaration is not in the main file, so there is no line to pad (the "
             "suggestions above say what to change where it is declared)";
    if (g.source == Geometry::Source::Record)
      return fmt::format(
          "its padding changes the type {} wherever it is used (global arrays, "
          "host copies): add the member printed above by hand",
          g.record);
    if (s.remap.split > 0)
      return "a padding alone would misalign its vector accesses: the accesses must be split "
             "too, by hand";
    if (af.decl->dims.size() == 1)
      return "a 1-D array's padding also changes every subscript of it (the edits above), "
             "which --apply does not write";
  }
  return "its suggestions rewrite index expressions (the edits above), which --apply does not "
         "write; only a declaration padding is applied";
}

}  // namespace

std::vector<std::string> not_applied(const std::vector<KernelFix>& fixes) {
  std::vector<std::string> out;
  for (const KernelFix& kf : fixes)
    for (const GlobalFix& g : kf.globals)
      if (!g.applicable)
        out.push_back(fmt::format(
            "the {} of '{}' in {} (line {}): {}", model::op_name(g.op),
            g.pointer.empty() ? "global memory" : g.pointer, kf.kernel, g.line,
            g.code_note.empty() ? "its change is described, not written" : g.code_note));
  for (const KernelFix& kf : fixes)
    for (const ArrayFix& af : kf.arrays) {
      if (af.wavefronts <= af.ideal_wavefronts && af.error.empty()) continue;
      if (std::any_of(af.suggestions.begin(), af.suggestions.end(),
                      [](const Suggestion& s) { return s.applicable; }))
        continue;
      out.push_back(fmt::format("'{}' of {}{}: {}", af.name, kf.kernel,
                                af.decl ? fmt::format(" (line {})", af.decl->line) : "",
                                not_applied_reason(af)));
    }
  return out;
}

namespace {

std::vector<std::string> split_lines(const std::string& source) {
  std::vector<std::string> lines;
  std::size_t p = 0;
  while (p <= source.size()) {
    const auto n = source.find('\n', p);
    if (n == std::string::npos) {
      lines.push_back(source.substr(p));
      break;
    }
    lines.push_back(source.substr(p, n - p));
    p = n + 1;
  }
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (i + 1 < lines.size()) out += '\n';
  }
  return out;
}

}  // namespace

std::optional<std::string> apply_padding(const std::string& source,
                                         const std::vector<KernelFix>& fixes,
                                         std::vector<std::string>* applied) {
  std::vector<std::string> lines = split_lines(source);
  bool any = false;
  std::set<int> done;
  for (const auto& kf : fixes)
    for (const auto& af : kf.arrays)
      for (const auto& s : af.suggestions) {
        if (!s.applicable || !af.decl) continue;
        if (!done.insert(af.decl->line).second) break;
        lines[static_cast<size_t>(af.decl->line) - 1] = s.declaration;
        any = true;
        if (applied) {
          applied->push_back(fmt::format("line {}: {} ({} of {})", af.decl->line,
                                         without_indent(s.declaration), af.name, kf.kernel));
        }
        break;
      }
  if (!any) return std::nullopt;
  return joined(lines);
}

std::optional<std::string> apply_fixes(const std::string& source,
                                       const std::vector<KernelFix>& fixes,
                                       std::vector<std::string>* applied) {
  const std::optional<std::string> padded = apply_padding(source, fixes, applied);
  std::vector<std::string> lines = split_lines(padded ? *padded : source);
  bool any = padded.has_value();
  for (const auto& kf : fixes)
    for (const auto& g : kf.globals) {
      if (!g.applicable || g.edits.empty()) continue;
      // Written only where every line is still as the advice read it (another fix may have
      // rewritten one of them).
      const bool intact = std::all_of(g.edits.begin(), g.edits.end(), [&](const GlobalEdit& e) {
        return e.line >= 1 && static_cast<std::size_t>(e.line) <= lines.size() &&
               lines[static_cast<std::size_t>(e.line) - 1] == e.before;
      });
      if (!intact) continue;
      for (const GlobalEdit& e : g.edits) lines[static_cast<std::size_t>(e.line) - 1] = e.after;
      any = true;
      if (applied)
        applied->push_back(fmt::format("line {}: {} of '{}' ({} of {})", g.edits.front().line,
                                       global_fix_kind_name(g.kind), g.pointer,
                                       model::op_name(g.op), kf.kernel));
    }
  if (!any) return std::nullopt;
  return joined(lines);
}

}  // namespace bankcheck::analysis
