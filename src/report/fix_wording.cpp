// The words of a fix suggestion, from the advisor's data; the advisor itself writes none.
#include "bankcheck/report/fix_wording.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "bankcheck/model/swizzle.hpp"

namespace bankcheck::report {
namespace {

using analysis::FixKind;

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string without_indent(const std::string& line) {
  const auto from = line.find_first_not_of(" \t");
  return from == std::string::npos ? std::string() : line.substr(from);
}

// The site a Width remap narrows: its access width and line.
const analysis::SiteChange* narrowed_site(const analysis::Suggestion& s) {
  for (const auto& c : s.sites)
    if (c.site == s.remap.site) return &c;
  return nullptr;
}

// A shared SASS opcode of one access width, as the disassembler prints it: LDS.128, STS.64,
// LDS (32-bit).
std::string sass_opcode(model::Op op, int width) {
  const char* base = op == model::Op::Load ? "LDS" : op == model::Op::Store ? "STS" : "ATOMS";
  switch (width) {
    case 16:
      return fmt::format("{}.128", base);
    case 8:
      return fmt::format("{}.64", base);
    case 2:
      return fmt::format("{}.U16", base);
    case 1:
      return fmt::format("{}.U8", base);
    default:
      return base;
  }
}

// The wide SASS accesses ptxas could no longer issue under the remap: "breaks LDS.128 on
// line 139: 4 x LDS", one entry per line, op and widths.
std::string broken_widenings(const analysis::Suggestion& s) {
  std::vector<std::string> parts;
  for (const auto& c : s.sites) {
    if (c.sass_width_after <= 0 || c.sass_width_after >= c.width) continue;
    const std::string p =
        fmt::format("breaks {} on line {}: {} x {}", sass_opcode(c.op, c.width), c.line,
                    c.width / c.sass_width_after, sass_opcode(c.op, c.sass_width_after));
    if (std::find(parts.begin(), parts.end(), p) == parts.end()) parts.push_back(p);
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// A tile of the TMA unit in another swizzle mode: what changes where (the tensor map, the
// wgmma descriptors, the alignment, the readers).
std::string tma_swizzle_change(const analysis::ArrayFix& af, const analysis::Remap& r) {
  const auto mode = static_cast<model::TmaSwizzle>(r.bits);
  const analysis::ArrayFix::Tile t = af.tile.value_or(analysis::ArrayFix::Tile{});
  std::string where;
  if (t.copy_line)
    where += fmt::format(
        "the tensor map of the copy on line {} (cuTensorMapEncodeTiled's swizzle "
        "argument{})",
        t.copy_line,
        t.mode > 0 ? fmt::format(", now {}",
                                 model::tma_swizzle_name(static_cast<model::TmaSwizzle>(t.mode)))
                   : std::string(", now none"));
  if (t.wgmma_line)
    where += fmt::format("{}the wgmma descriptors of line {} (layout type {} in bits 62-63)",
                         where.empty() ? "" : ", ", t.wgmma_line, model::wgmma_layout_type(mode));
  return fmt::format(
      "swizzle the tile with {}: {}{}align it to {} bytes (__align__({})), and address its "
      "reads through the same swizzle",
      model::tma_swizzle_name(mode), where, where.empty() ? "" : "; ",
      model::tma_swizzle_alignment(mode), model::tma_swizzle_alignment(mode));
}

}  // namespace

std::string suggestion_change(const analysis::ArrayFix& af, const analysis::Suggestion& s) {
  const analysis::Remap& r = s.remap;
  const analysis::Geometry& g = *af.geometry;
  std::string change;
  switch (r.kind) {
    case FixKind::Pad:
      if (g.source == analysis::Geometry::Source::Record) {
        const std::uint64_t after = g.row_bytes + static_cast<std::uint64_t>(r.pad) *
                                                      static_cast<std::uint64_t>(g.elem_bytes);
        change = after % 4 || g.row_bytes % 4
                     ? fmt::format("pad {} from {} to {} bytes with a last member", g.record,
                                   g.row_bytes, after)
                     : fmt::format("pad {} from {} to {} words with a last member", g.record,
                                   g.row_bytes / 4, after / 4);
        break;
      }
      change = fmt::format("pad each {}-byte row{} by {}", g.row_bytes,
                           af.decl && !af.decl->member_of.empty() ? " of " + af.name : "",
                           plural(static_cast<std::uint64_t>(r.pad), "element", "elements"));
      break;
    case FixKind::Swizzle:
      if (r.unpad > 0) {
        change = fmt::format(
            "drop the {}-byte padding of each {}-byte row and XOR the column with the row "
            "instead (CuTe Swizzle<{},{},{}> on rows of {} B)",
            r.unpad, r.stride, r.bits, r.base, r.shift, r.stride - r.unpad);
        break;
      }
      change = analysis::swizzles_within_row(r, *af.geometry)
                   ? fmt::format(
                         "XOR the {}-byte column with the row, in tile rows of {} B (CuTe "
                         "Swizzle<{},{},{}>)",
                         (std::uint64_t{1} << r.base) * static_cast<std::uint64_t>(g.elem_bytes),
                         (std::uint64_t{1} << (r.base + r.shift)) *
                             static_cast<std::uint64_t>(g.elem_bytes),
                         r.bits, r.base, r.shift)
                   : fmt::format("XOR the column with the row (Swizzle<{},{},{}>)", r.bits, r.base,
                                 r.shift);
      break;
    case FixKind::Rotate:
      change = "rotate each row by its index";
      break;
    case FixKind::Width: {
      const analysis::SiteChange* c = narrowed_site(s);
      change = fmt::format("split the {}-byte access on line {} into {}-byte accesses",
                           c ? c->width : 0, c ? c->line : 0, r.width);
      break;
    }
    case FixKind::TmaSwizzle:
      change = tma_swizzle_change(af, r);
      break;
  }
  if (!s.declaration.empty())
    change += ": " + without_indent(s.declaration);
  else if (!s.subscript.empty())
    change += ": " + s.subscript;
  if (af.is_extern && s.bytes_after != s.bytes_before)
    change += fmt::format(", launched with {} B more dynamic shared memory",
                          s.bytes_after - s.bytes_before);
  if (const std::string broken = broken_widenings(s); !broken.empty())
    change += " (" + broken + ")";
  return change;
}

std::string suggestion_formula(const analysis::ArrayFix& af, const analysis::Suggestion& s) {
  const analysis::Remap& r = s.remap;
  const analysis::Geometry& g = *af.geometry;
  const auto elem = static_cast<std::uint64_t>(g.elem_bytes);
  std::string formula;
  switch (r.kind) {
    case FixKind::Pad:
      if (g.source == analysis::Geometry::Source::Record) {
        formula = fmt::format("{}'s stride {} -> {} B: element i at i * {}", g.record, g.row_bytes,
                              g.row_bytes + static_cast<std::uint64_t>(r.pad) * elem,
                              g.row_bytes + static_cast<std::uint64_t>(r.pad) * elem);
        break;
      }
      formula = fmt::format("offset -> offset + offset / {} * {} (bytes)", g.row_bytes,
                            static_cast<std::uint64_t>(r.pad) * elem);
      break;
    case FixKind::Swizzle:
      if (r.unpad > 0) {
        const auto width = static_cast<std::uint64_t>(r.stride - r.unpad);
        formula = fmt::format(
            "offset -> s(offset / {} * {} + offset % {}) (bytes; s: column -> column ^ ((row & "
            "{}) << {}) on element offsets of {}-byte rows, CuTe Swizzle<{},{},{}>)",
            r.stride, width, r.stride, (1u << r.bits) - 1, r.base, width, r.bits, r.base, r.shift);
        break;
      }
      if (analysis::swizzles_within_row(r, *af.geometry)) {
        formula = fmt::format(
            "column -> column ^ ((column >> {}) & {}) (CuTe Swizzle<{},{},{}> on "
            "element offsets)",
            r.shift, ((1u << r.bits) - 1) << r.base, r.bits, r.base, r.shift);
        break;
      }
      formula = fmt::format("column -> column ^ {} (CuTe Swizzle<{},{},{}> on element offsets)",
                            r.base ? fmt::format("((row & {}) << {})", (1u << r.bits) - 1, r.base)
                                   : fmt::format("(row & {})", (1u << r.bits) - 1),
                            r.bits, r.base, r.shift);
      break;
    case FixKind::Rotate:
      formula = fmt::format("column -> (column + row{}) % {}",
                            r.unit > 1 ? fmt::format(" * {}", r.unit) : "", g.row_bytes / elem);
      break;
    case FixKind::Width: {
      const analysis::SiteChange* c = narrowed_site(s);
      const int old_w = c ? c->width : 0;
      formula =
          fmt::format("one {}-byte access -> {} {}-byte accesses", old_w, old_w / r.width, r.width);
      break;
    }
    case FixKind::TmaSwizzle: {
      const auto mode = static_cast<model::TmaSwizzle>(r.bits);
      formula = fmt::format(
          "shared byte address a -> a ^ (((a >> 7) & {}) << 4) (CuTe Swizzle<{},4,3> on shared "
          "bytes; the pattern repeats every {} B)",
          (1u << r.bits) - 1, r.bits, model::tma_swizzle_alignment(mode));
      break;
    }
  }
  if (r.split > 0)
    formula += fmt::format("; the {}-byte accesses become {}-byte ones", af.widest_access, r.split);
  return formula;
}

std::string data_dependence_text(const analysis::ArrayFix& af, const std::string& load_path) {
  using Merged = analysis::DataDependence::Merged;
  const analysis::DataDependence& d = *af.data_dependent;
  std::string t = fmt::format(
      "this array's conflicts depend on the input data (the index on line {} comes from {} at "
      "{}:{}); padding or a swizzle cannot remove them, only move which keys collide",
      d.line, d.load_global ? "a global load" : "a load through a generic pointer", load_path,
      d.load_line);
  const std::string per_lane = fmt::format(
      "a copy of the array per lane ({}[key][lane]: each lane in its own bank, at 32 times the "
      "memory)",
      af.name);
  const bool atomic = d.op == model::Op::Atomic || d.op == model::Op::AtomicCas;
  switch (d.merged) {
    case Merged::PopcInc:
    case Merged::Match:
      t += fmt::format(
          "; lanes with equal keys are already merged ({}), so what remains are different keys "
          "in one bank, which only {} removes",
          d.merged == Merged::PopcInc ? "ptxas's ATOMS.POPC.INC" : "__match_any_sync", per_lane);
      break;
    case Merged::None:
      if (atomic)
        t += fmt::format(
            "; aggregate the lanes with equal keys (__match_any_sync, one atomic per distinct "
            "key), or privatise the bins: {}",
            per_lane);
      else
        t += "; the order of the keys in a warp decides the banks";
      break;
  }
  return t;
}

std::string global_change(const analysis::GlobalFix& g) {
  using K = analysis::GlobalFixKind;
  const std::string ptr = g.pointer.empty() ? std::string("the pointer") : "'" + g.pointer + "'";
  const char* verb = g.op == model::Op::Store  ? "write"
                     : g.op == model::Op::Load ? "read"
                                               : "access";
  switch (g.kind) {
    case K::Vector:
      return fmt::format(
          "{} each thread's {} neighbouring elements of {} with one {}-byte access instead of {} "
          "accesses of {} B",
          verb, g.elements, ptr, g.vector_bytes, g.elements, g.width);
    case K::Stage:
      return fmt::format(
          "stage the block's tile through shared memory, so that the {} walks rows of {} instead "
          "of a column with lanes {} B apart",
          model::op_name(g.op), ptr, g.stride);
    case K::Pitch:
      return fmt::format(
          "make the rows {} B apart instead of {} B (a whole number of 128-byte lines: "
          "cudaMallocPitch, or a leading dimension rounded up), so that each row's run of lanes "
          "starts on a sector",
          g.pitch_after, g.pitch);
    case K::Align:
      return fmt::format(
          "align the address the lanes start at to 32 bytes (it is {} B past one): the base "
          "pointer (cudaMalloc gives 256), or, for the rows of a 2-D array, a row pitch that is a "
          "multiple of 32 B",
          g.misalign);
    case K::Layout: {
      const char* doing = g.op == model::Op::Store  ? "writing"
                          : g.op == model::Op::Load ? "reading"
                                                    : "accessing";
      // A structure of more than 16 bytes takes more than one access (16 B is a thread's
      // widest): the structure of arrays is the change that reaches the ideal.
      if (std::abs(g.stride) > 16)
        return fmt::format(
            "the lanes are {} B apart, each {} {} B: a structure of {} B takes more than one "
            "access (16 B is a thread's widest); keep each field in an array of its own (a "
            "structure of arrays), or move the array as 16-byte vectors with consecutive lanes "
            "on consecutive vectors",
            g.stride, doing, g.width, std::abs(g.stride));
      return fmt::format(
          "the lanes are {} B apart, each {} {} B: keep the field in an array of its own (a "
          "structure of arrays), or {} each structure with one aligned access",
          g.stride, doing, g.width, verb);
    }
  }
  return "";
}

}  // namespace bankcheck::report
