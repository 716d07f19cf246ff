// The fix advisor: attribution of shared requests to arrays, geometry, candidate remaps
// replayed through the model, ranking, and the code change each one means.
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
#include "fix_source.hpp"

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

bool is_simple(const std::string& e) {
  for (char c : e)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return !e.empty();
}
std::string without_indent(const std::string& line) {
  const auto from = line.find_first_not_of(" \t");
  return from == std::string::npos ? std::string() : line.substr(from);
}

std::string paren(const std::string& e) { return is_simple(e) ? e : "(" + e + ")"; }

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

model::Occupancy occupancy_for(const model::Arch& arch, int threads, int regs, std::uint64_t st,
                               std::uint64_t dyn) {
  model::OccupancyInput in;
  in.threads_per_block = threads;
  in.registers_per_thread = regs;
  in.static_shared_bytes = static_cast<int>(st);
  in.dynamic_shared_bytes = static_cast<int>(dyn);
  return model::compute_occupancy(arch.cc, in);
}

// Whether a declaration of a scalar or CUDA vector type with evaluable dimensions has
// exactly the array's size (other types and unevaluable dimensions are given the benefit).
bool declaration_fits(const SharedDecl& d, std::uint64_t bytes) {
  static const std::map<std::string, int> sizes = {
      {"char", 1},           {"signed char", 1},   {"unsigned char", 1}, {"bool", 1},
      {"short", 2},          {"unsigned short", 2}, {"half", 2},         {"__half", 2},
      {"int", 4},            {"unsigned", 4},      {"unsigned int", 4},  {"float", 4},
      {"long long", 8},      {"unsigned long long", 8}, {"double", 8},   {"float2", 8},
      {"int2", 8},           {"float4", 16},       {"int4", 16},         {"double2", 16},
      {"int8_t", 1},         {"uint8_t", 1},       {"int16_t", 2},       {"uint16_t", 2},
      {"int32_t", 4},        {"uint32_t", 4},      {"int64_t", 8},       {"uint64_t", 8}};
  const auto it = sizes.find(d.type);
  if (it == sizes.end()) return true;
  std::uint64_t n = 1;
  for (long long v : d.dim_values) {
    if (v <= 0) return true;
    n *= static_cast<std::uint64_t>(v);
  }
  return n * static_cast<std::uint64_t>(it->second) == bytes;
}

struct Eval {
  bool ok = true;
  std::uint64_t wavefronts = 0, ideal = 0;
  std::map<int, std::uint64_t> per_site;
};

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
  }
  return "?";
}

std::string Geometry::describe() const {
  const std::uint64_t bytes = rows * row_bytes;
  std::string s = fmt::format("{} B, {} of {} B", bytes, plural(rows, "row", "rows"), row_bytes);
  if (source == Source::BankRows) s += " (viewed as 128-byte bank rows)";
  return s;
}

std::uint32_t remap_offset(const Remap& r, const Geometry& g, std::uint32_t off) {
  const std::uint64_t row = off / g.row_bytes, rem = off % g.row_bytes;
  const std::uint64_t e = static_cast<std::uint64_t>(g.elem_bytes);
  const std::uint64_t col = rem / e, byte = rem % e, cols = g.row_bytes / e;
  switch (r.kind) {
    case FixKind::Pad:
      return static_cast<std::uint32_t>(row * (g.row_bytes + static_cast<std::uint64_t>(r.pad) * e) +
                                        rem);
    case FixKind::Swizzle: {
      if (row >= g.rows) return off;  // a partial last row stays as it is
      const std::uint64_t mask = (1ull << r.bits) - 1;
      const std::uint64_t c = col ^ ((row & mask) << r.base);
      return static_cast<std::uint32_t>(row * g.row_bytes + c * e + byte);
    }
    case FixKind::Rotate: {
      if (row >= g.rows) return off;
      const std::uint64_t c = (col + row * static_cast<std::uint64_t>(r.unit)) % cols;
      return static_cast<std::uint32_t>(row * g.row_bytes + c * e + byte);
    }
    case FixKind::Width:
      return off;
  }
  return off;
}

namespace {

struct ArrayRange {
  std::string symbol;
  std::uint64_t offset = 0, bytes = 0;
  bool is_extern = false;
};

// The array holding byte `a`, or -1.
int array_of(const std::vector<ArrayRange>& arrays, std::uint64_t a) {
  for (size_t i = 0; i < arrays.size(); ++i)
    if (a >= arrays[i].offset && a < arrays[i].offset + arrays[i].bytes) return static_cast<int>(i);
  return -1;
}

// Replays `reqs` (all touching array `ar`) with lanes inside it remapped.
Eval evaluate(const std::vector<const RecordedRequest*>& reqs, const ArrayRange& ar,
              const Geometry& g, const Remap* remap, const model::Arch& arch) {
  Eval ev;
  for (const RecordedRequest* rr : reqs) {
    auto inside = [&](std::uint32_t x) { return x >= ar.offset && x < ar.offset + ar.bytes; };
    // The request as the remapped code would issue it: split when narrower, then moved.
    int parts_width = rr->access.width;
    if (remap && remap->kind == FixKind::Width && remap->site == rr->site &&
        remap->width < parts_width)
      parts_width = remap->width;
    if (remap && remap->kind != FixKind::Width && remap->split > 0 && remap->split < parts_width)
      parts_width = remap->split;
    std::uint64_t wf = 0, ideal = 0;
    for (int p = 0; p < rr->access.width / parts_width; ++p) {
      model::WarpAccess a = rr->access;
      a.width = static_cast<std::uint8_t>(parts_width);
      for (int l = 0; l < model::kWarpSize; ++l) {
        if (!a.lane_active(l)) continue;
        a.addr[l] += static_cast<std::uint32_t>(p * parts_width);
        if (remap && remap->kind != FixKind::Width && inside(a.addr[l]))
          a.addr[l] = static_cast<std::uint32_t>(ar.offset) +
                      remap_offset(*remap, g, a.addr[l] - static_cast<std::uint32_t>(ar.offset));
      }
      const model::Verdict v = model::analyze(a, arch);
      if (!v.ok()) return Eval{false, 0, 0, {}};
      wf += v.wavefronts;
      ideal += v.ideal_wavefronts;
    }
    ev.wavefronts += wf * rr->count;
    ev.ideal += ideal * rr->count;
    ev.per_site[rr->site] += wf * rr->count;
  }
  return ev;
}

// Lines of the main file that subscript the array: the sites' lines, and every line of
// the kernel after the declaration up to the next __global__.
std::vector<int> lines_using(const std::vector<std::string>& src, const ArrayFix& af,
                             const std::vector<int>& site_lines) {
  std::set<int> lines(site_lines.begin(), site_lines.end());
  if (af.decl) {
    for (size_t i = static_cast<size_t>(af.decl->line); i < src.size(); ++i) {
      if (src[i].find("__global__") != std::string::npos) break;
      if (!find_subscripts(src[i], af.name).empty()) lines.insert(static_cast<int>(i) + 1);
    }
  }
  return {lines.begin(), lines.end()};
}

// The rewritten subscript for a remap, or empty when it cannot be written.
std::string rewrite(const Remap& r, const Geometry& g, const ArrayFix& af,
                    const std::vector<std::string>& idx) {
  const std::uint64_t cols = g.row_bytes / static_cast<std::uint64_t>(g.elem_bytes);
  const bool two_d = idx.size() == 2 && af.decl && af.decl->dims.size() == 2 &&
                     g.source == Geometry::Source::Declaration;
  const bool one_d = idx.size() == 1 && (!af.decl || af.decl->dims.size() == 1) &&
                     g.source == Geometry::Source::BankRows;
  const std::string cols_text =
      two_d && af.decl->dims[1] != "" && is_simple(af.decl->dims[1]) ? af.decl->dims[1]
                                                                      : fmt::format("{}", cols);
  if (two_d) {
    const std::string& e1 = idx[0];
    const std::string& e2 = idx[1];
    switch (r.kind) {
      case FixKind::Swizzle: {
        std::string row = e1;
        if (g.rows > (1ull << r.bits)) row = fmt::format("({} & {})", paren(e1), (1u << r.bits) - 1);
        if (r.base > 0) row = fmt::format("({} << {})", row, r.base);
        return fmt::format("{}[{}][{} ^ {}]", af.name, e1, paren(e2), row.front() == '(' ? row : paren(row));
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
    if (auto v = eval_constant(idx[0], {}); v && *v >= 0) {
      const auto off = static_cast<std::uint32_t>(*v) * static_cast<std::uint32_t>(g.elem_bytes);
      return fmt::format("{}[{}]", af.name, remap_offset(r, g, off) / static_cast<std::uint32_t>(g.elem_bytes));
    }
    const std::string e = paren(idx[0]);
    const int log_cols = std::countr_zero(cols);
    switch (r.kind) {
      case FixKind::Pad:
        return fmt::format("{}[{} + {} / {}{}]", af.name, idx[0], e, cols,
                           r.pad > 1 ? fmt::format(" * {}", r.pad) : "");
      case FixKind::Swizzle: {
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

KernelFix advise(const AdviseInput& in) {
  const ptx::Kernel& k = *in.kernel;
  const KernelReport& rep = *in.report;
  const model::Arch& arch = *in.arch;
  static const std::vector<std::string> kNoSource;
  const std::vector<std::string>& src = in.source_lines ? *in.source_lines : kNoSource;
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

  // Arrays: static ones, then the dynamic window (extern arrays alias it; the first names it).
  std::vector<ArrayRange> ranges;
  std::vector<const ptx::SharedVar*> vars;
  bool have_extern = false;
  for (const auto& v : k.shared) {
    if (v.is_extern) {
      if (have_extern) continue;
      have_extern = true;
      ranges.push_back({v.name, k.dynamic_shared_offset, rep.dynamic_smem, true});
    } else {
      ranges.push_back({v.name, v.offset, v.bytes, false});
    }
    vars.push_back(&v);
  }
  std::vector<std::vector<const RecordedRequest*>> reqs(ranges.size());
  for (const auto& r : in.recorder->requests()) {
    std::vector<bool> hit(ranges.size(), false);
    bool outside = false;
    for (int l = 0; l < model::kWarpSize; ++l) {
      if (!r.access.lane_active(l)) continue;
      const int a = array_of(ranges, r.access.addr[l]);
      if (a < 0) outside = true;
      else hit[static_cast<size_t>(a)] = true;
    }
    if (outside) kf.unattributed_requests += r.count;
    for (size_t a = 0; a < ranges.size(); ++a)
      if (hit[a]) reqs[a].push_back(&r);
  }

  auto site_line = [&](int s) { return k.sites[static_cast<size_t>(s)].line; };
  for (size_t ai = 0; ai < ranges.size(); ++ai) {
    if (reqs[ai].empty()) continue;
    const ArrayRange& ar = ranges[ai];
    ArrayFix af;
    af.symbol = ar.symbol;
    af.name = short_name(ar.symbol);
    af.offset = ar.offset;
    af.bytes = ar.bytes;
    af.is_extern = ar.is_extern;
    std::set<int> sites;
    int min_width = 16, max_width = 1;
    for (const auto* r : reqs[ai]) {
      sites.insert(r->site);
      min_width = std::min<int>(min_width, r->access.width);
      max_width = std::max<int>(max_width, r->access.width);
      af.requests += r->count;
    }
    af.sites.assign(sites.begin(), sites.end());
    // The declaration must have the array's size: another array of the same name (another
    // kernel's, or this one's in an included header) is not it.
    if (!src.empty())
      af.decl = find_shared_decl(src, rep.name, af.name, [&](const SharedDecl& d) {
        return ar.is_extern || declaration_fits(d, ar.bytes);
      });
    const Eval before = evaluate(reqs[ai], ar, Geometry{}, nullptr, arch);
    if (!before.ok) {
      af.error = "a request of this array has no bank rule (misaligned or an unsupported width)";
      kf.arrays.push_back(std::move(af));
      continue;
    }
    af.wavefronts = before.wavefronts;
    af.ideal_wavefronts = before.ideal;

    // Geometry.
    Geometry g;
    const std::uint64_t bank_row = static_cast<std::uint64_t>(arch.banks) * 4;
    int elem = min_width;
    if (af.decl && !ar.is_extern) {
      long long n = 1;
      for (long long v : af.decl->dim_values) n = v > 0 && n > 0 ? n * v : -1;
      if (n > 0 && ar.bytes % static_cast<std::uint64_t>(n) == 0) {
        const auto e = static_cast<int>(ar.bytes / static_cast<std::uint64_t>(n));
        if (e >= 1 && e <= 16 && (e & (e - 1)) == 0) elem = e;
      }
    }
    g.elem_bytes = elem;
    g.unit = std::max(1, max_width / elem);
    if (ar.bytes == 0) {
      af.error = "its size is unknown (dynamic shared memory with no --smem)";
    } else if (af.decl && af.decl->dims.size() >= 2 && af.decl->dim_values.back() > 0 &&
               !ar.is_extern) {
      g.source = Geometry::Source::Declaration;
      g.row_bytes = static_cast<std::uint64_t>(af.decl->dim_values.back()) *
                    static_cast<std::uint64_t>(elem);
    } else if (af.decl && af.decl->dims.size() >= 2) {
      const std::string d = without_indent(af.decl->text);
      af.error = fmt::format(
          "the dimensions in '{}' are not constants bankcheck can evaluate (literals, #define, "
          "const int), so its row length is unknown",
          d.substr(0, 80));
    } else {
      // No 2-D declaration: the most common lane stride of 128 bytes or more that divides
      // the array (PTX input), else 128-byte bank rows.
      std::map<std::uint64_t, std::uint64_t> strides;
      if (!af.decl)
        for (const auto* r : reqs[ai]) {
          int prev = -1;
          for (int l = 0; l < model::kWarpSize; ++l) {
            if (!r->access.lane_active(l)) continue;
            if (prev >= 0 && r->access.addr[l] > r->access.addr[prev]) {
              const std::uint64_t d = r->access.addr[l] - r->access.addr[prev];
              if (d >= bank_row && ar.bytes % d == 0 && d < ar.bytes) strides[d] += r->count;
            }
            prev = l;
          }
        }
      std::uint64_t best = 0, votes = 0;
      for (auto [d, n] : strides)
        if (n > votes) best = d, votes = n;
      g.source = best ? Geometry::Source::Accesses : Geometry::Source::BankRows;
      g.row_bytes = best ? best : bank_row;
    }
    if (af.error.empty()) {
      const std::uint64_t unit_bytes = static_cast<std::uint64_t>(g.unit) * static_cast<std::uint64_t>(elem);
      if ((g.unit & (g.unit - 1)) != 0 || g.row_bytes % unit_bytes != 0)
        af.error = fmt::format("its {}-byte accesses do not tile its rows of {} B", max_width,
                               g.row_bytes);
      for (const auto* r : reqs[ai])
        for (int l = 0; l < model::kWarpSize && af.error.empty(); ++l)
          if (r->access.lane_active(l) && r->access.addr[l] >= ar.offset &&
              r->access.addr[l] < ar.offset + ar.bytes &&
              r->access.addr[l] + r->access.width > ar.offset + ar.bytes)
            af.error = "an access runs past its end";
    }
    if (!af.error.empty()) {
      kf.arrays.push_back(std::move(af));
      continue;
    }
    g.rows = ar.bytes / g.row_bytes;  // full rows; a partial last one is left unmapped
    const std::uint64_t cols = g.row_bytes / static_cast<std::uint64_t>(elem);
    af.geometry = g;
    if (before.wavefronts == before.ideal) {
      kf.arrays.push_back(std::move(af));
      continue;  // nothing to fix
    }

    // Candidates.
    std::vector<Remap> cands;
    const int align = std::max(max_width, elem);
    for (int pad_bytes = align; pad_bytes <= static_cast<int>(bank_row); pad_bytes *= 2) {
      if (pad_bytes % elem) continue;
      Remap r;
      r.kind = FixKind::Pad;
      r.pad = pad_bytes / elem;
      cands.push_back(r);
    }
    if (std::has_single_bit(cols) && static_cast<std::uint64_t>(g.unit) <= cols) {
      const int log_cols = std::countr_zero(cols), m = std::countr_zero(static_cast<unsigned>(g.unit));
      for (int b = 1; b <= log_cols - m; ++b) {
        Remap r;
        r.kind = FixKind::Swizzle;
        r.bits = b;
        r.base = m;
        r.shift = log_cols - m;
        cands.push_back(r);
      }
    }
    if (cols % static_cast<std::uint64_t>(g.unit) == 0 && cols > 1) {
      Remap r;
      r.kind = FixKind::Rotate;
      r.unit = g.unit;
      cands.push_back(r);
    }
    // Wide accesses pin the remaps to their width; the same remaps at element granularity,
    // with those accesses split into elements (what the compiler emits once the elements
    // are no longer adjacent), may do better.
    if (g.unit > 1 && elem >= 4) {
      const size_t n = cands.size();
      for (int pad_bytes = elem; pad_bytes < align; pad_bytes *= 2) {
        Remap r;
        r.kind = FixKind::Pad;
        r.pad = pad_bytes / elem;
        r.split = elem;
        cands.push_back(r);
      }
      for (size_t i = 0; i < n; ++i) {
        if (cands[i].kind == FixKind::Swizzle) {
          for (int b = 1; b <= std::countr_zero(cols); ++b) {
            Remap r = cands[i];
            r.bits = b;
            r.base = 0;
            r.shift = std::countr_zero(cols);
            r.split = elem;
            cands.push_back(r);
          }
          break;
        }
      }
      for (size_t i = 0; i < n; ++i)
        if (cands[i].kind == FixKind::Rotate) {
          Remap r = cands[i];
          r.unit = 1;
          r.split = elem;
          cands.push_back(r);
        }
    }
    for (int s : af.sites) {
      int w = 0;
      for (const auto* r : reqs[ai])
        if (r->site == s) w = std::max<int>(w, r->access.width);
      for (int nw = w / 2; nw >= std::max(4, elem); nw /= 2) {
        Remap r;
        r.kind = FixKind::Width;
        r.site = s;
        r.width = nw;
        cands.push_back(r);
      }
    }

    std::vector<Suggestion> found;
    for (const Remap& r : cands) {
      const Eval after = evaluate(reqs[ai], ar, g, &r, arch);
      if (!after.ok || after.wavefronts >= before.wavefronts) continue;
      Suggestion s;
      s.remap = r;
      s.wavefronts_before = before.wavefronts;
      s.wavefronts_after = after.wavefronts;
      s.ideal_wavefronts = after.ideal;
      s.bytes_before = ar.bytes;
      s.bytes_after = ar.bytes;
      if (r.kind == FixKind::Pad)
        s.bytes_after = ar.bytes + (ar.bytes / g.row_bytes) * static_cast<std::uint64_t>(r.pad) *
                                       static_cast<std::uint64_t>(elem);
      for (int site : af.sites) {
        SiteChange c;
        c.site = site;
        c.line = site_line(site);
        for (const auto* q : reqs[ai])
          if (q->site == site) {
            c.op = q->access.op;
            c.width = q->access.width;
            c.requests += q->count;
          }
        c.wavefronts_before = before.per_site.count(site) ? before.per_site.at(site) : 0;
        c.wavefronts_after = after.per_site.count(site) ? after.per_site.at(site) : 0;
        s.sites.push_back(c);
      }
      if (kf.occupancy_known) {
        s.occupancy_known = true;
        s.occupancy_before = kf.occupancy;
        const std::uint64_t extra = s.bytes_after - s.bytes_before;
        s.occupancy_after =
            occupancy_for(arch, kf.threads, kf.registers, kf.static_smem + (ar.is_extern ? 0 : extra),
                          kf.dynamic_smem + (ar.is_extern ? extra : 0));
      }
      found.push_back(std::move(s));
    }
    auto key = [](const Suggestion& s) {
      const int blocks = s.occupancy_known ? s.occupancy_after.blocks_per_sm : 0;
      return std::make_tuple(s.wavefronts_after, s.bytes_after, -blocks,
                             static_cast<int>(s.remap.kind), s.remap.pad + s.remap.bits);
    };
    std::stable_sort(found.begin(), found.end(),
                     [&](const Suggestion& a, const Suggestion& b) { return key(a) < key(b); });
    std::set<FixKind> kinds;
    for (auto& s : found) {
      if (!kinds.insert(s.remap.kind).second) continue;
      af.suggestions.push_back(std::move(s));
      if (static_cast<int>(af.suggestions.size()) >= in.top) break;
    }

    // The code each suggestion means.
    std::vector<int> site_lines;
    for (int s : af.sites)
      if (k.sites[static_cast<size_t>(s)].file == in.main_file) site_lines.push_back(site_line(s));
    const std::vector<int> use_lines = src.empty() ? std::vector<int>{} : lines_using(src, af, site_lines);
    for (auto& s : af.suggestions) {
      const Remap& r = s.remap;
      const std::uint64_t pad_bytes = static_cast<std::uint64_t>(r.pad) * static_cast<std::uint64_t>(elem);
      switch (r.kind) {
        case FixKind::Pad:
          s.formula = fmt::format("offset -> offset + offset / {} * {} (bytes)", g.row_bytes, pad_bytes);
          s.change = fmt::format("pad each {}-byte row by {}", g.row_bytes,
                                 plural(static_cast<std::uint64_t>(r.pad), "element", "elements"));
          break;
        case FixKind::Swizzle:
          s.formula = fmt::format("column -> column ^ {} (CuTe Swizzle<{},{},{}> on element offsets)",
                                  r.base ? fmt::format("((row & {}) << {})", (1u << r.bits) - 1, r.base)
                                         : fmt::format("(row & {})", (1u << r.bits) - 1),
                                  r.bits, r.base, r.shift);
          s.change = fmt::format("XOR the column with the row (Swizzle<{},{},{}>)", r.bits, r.base, r.shift);
          break;
        case FixKind::Rotate:
          s.formula = fmt::format("column -> (column + row{}) % {}", r.unit > 1 ? fmt::format(" * {}", r.unit) : "", cols);
          s.change = "rotate each row by its index";
          break;
        case FixKind::Width: {
          const int old_w = s.sites.empty() ? 0 : [&] {
            for (const auto& c : s.sites) if (c.site == r.site) return c.width;
            return 0;
          }();
          s.formula = fmt::format("one {}-byte access -> {} {}-byte accesses", old_w, old_w / r.width, r.width);
          s.change = fmt::format("split the {}-byte access on line {} into {}-byte accesses", old_w,
                                 site_line(r.site), r.width);
          break;
        }
      }
      if (r.kind == FixKind::Pad && af.decl && g.source == Geometry::Source::Declaration) {
        std::string t = af.decl->text;
        const std::string last = t.substr(af.decl->last_dim_begin, af.decl->last_dim_end - af.decl->last_dim_begin);
        t.replace(af.decl->last_dim_begin, af.decl->last_dim_end - af.decl->last_dim_begin,
                  fmt::format("{} + {}", last, r.pad));
        s.declaration = t;
        s.applicable = true;
      } else if (r.kind == FixKind::Pad && af.decl && af.decl->dims.size() == 1 && !af.is_extern &&
                 af.decl->dim_values[0] > 0) {
        std::string t = af.decl->text;
        const std::string last = t.substr(af.decl->last_dim_begin, af.decl->last_dim_end - af.decl->last_dim_begin);
        const std::uint64_t extra = (ar.bytes / g.row_bytes) * static_cast<std::uint64_t>(r.pad);
        t.replace(af.decl->last_dim_begin, af.decl->last_dim_end - af.decl->last_dim_begin,
                  fmt::format("{} + {}", last, extra));
        s.declaration = t;
      }
      std::string first_subscript;
      if (r.kind != FixKind::Width && !(r.kind == FixKind::Pad && g.source == Geometry::Source::Declaration)) {
        for (int line : use_lines) {
          const std::string& text = src[static_cast<size_t>(line) - 1];
          if (af.decl && line == af.decl->line) continue;
          std::string out = text;
          const auto subs = find_subscripts(text, af.name);
          bool changed = false;
          for (auto it = subs.rbegin(); it != subs.rend(); ++it) {
            const std::string repl = rewrite(r, g, af, it->index);
            if (repl.empty()) continue;
            if (first_subscript.empty()) first_subscript = repl;
            out.replace(it->begin, it->end - it->begin, repl);
            changed = true;
          }
          if (changed) s.edits.push_back({line, text, out});
        }
      }
      if (r.split > 0)
        s.formula += fmt::format("; the {}-byte accesses become {}-byte ones", max_width, r.split);
      if (!s.declaration.empty()) s.change += ": " + without_indent(s.declaration);
      else if (!first_subscript.empty()) s.change += ": " + first_subscript;
      if (af.is_extern && s.bytes_after != s.bytes_before)
        s.change += fmt::format(", launched with {} B more dynamic shared memory",
                                s.bytes_after - s.bytes_before);
    }
    kf.arrays.push_back(std::move(af));
  }
  return kf;
}

std::optional<std::string> apply_padding(const std::string& source, const std::vector<KernelFix>& fixes,
                                         std::vector<std::string>* applied) {
  std::vector<std::string> lines;
  {
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
  }
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
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (i + 1 < lines.size()) out += '\n';
  }
  return out;
}

}  // namespace bankcheck::analysis
