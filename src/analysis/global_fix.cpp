// The global advisor (global_fix.hpp): each wasteful global line's lane pattern, read from its
// sites' worst requests, turned into the change that puts its requests on whole sectors, and
// what that change should cost.
#include "bankcheck/analysis/global_fix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <map>
#include <set>

namespace bankcheck::analysis {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// The sites of `k` summed into line `l` (same file, line, space, op and width).
std::vector<int> sites_of(const KernelReport& k, const LineReport& l) {
  std::vector<int> out;
  for (std::size_t i = 0; i < k.sites.size(); ++i) {
    const SiteReport& s = k.sites[i];
    if (s.file == l.file && s.line == l.line && s.stats.space == ptx::Space::Global &&
        s.stats.op == l.op && s.stats.width == l.width)
      out.push_back(static_cast<int>(i));
  }
  return out;
}

// Each lane reads (or writes) `bytes` of neighbouring elements through as many accesses: the
// line's sites whose worst requests put every lane at one offset modulo `bytes`, those offsets
// covering every element of it (0, w, 2w, ...), as an unrolled `for (k = 0; k < 4; ++k)
// p[4 * i + k]`, a thread's four outputs `c[4 * tx + j]`, or a struct's fields read one by one
// make them. Those sites, or none.
std::vector<int> vector_sites(const KernelReport& k, const std::vector<int>& sites, int bytes,
                              int width) {
  if (bytes <= width || bytes % width != 0) return {};
  std::vector<int> out;
  std::map<std::uint64_t, int> offsets;  // sites per element (an unrolled outer loop: several)
  for (int i : sites) {
    const SiteStats& st = k.sites[static_cast<std::size_t>(i)].stats;
    if (!st.has_worst_global || !st.worst_global_mask) continue;
    const int first = std::countr_zero(st.worst_global_mask);
    const std::uint64_t o = st.worst_global_addr[first] % static_cast<std::uint64_t>(bytes);
    bool same = true;
    for (int l = 0; l < 32 && same; ++l)
      if ((st.worst_global_mask >> l) & 1u)
        same = st.worst_global_addr[l] % static_cast<std::uint64_t>(bytes) == o;
    if (!same || o % static_cast<std::uint64_t>(width) != 0) continue;  // another access
    ++offsets[o];
    out.push_back(i);
  }
  if (offsets.size() != static_cast<std::size_t>(bytes / width)) return {};
  for (const auto& [o, n] : offsets)
    if (n != offsets.begin()->second) return {};
  return out;
}

// The widest vector access (16, 8, 4 or 2 bytes) that the line's sites make up, and its sites.
std::pair<int, std::vector<int>> vector_access(const KernelReport& k, const std::vector<int>& sites,
                                               int width) {
  for (int bytes : {16, 8, 4, 2})
    if (std::vector<int> v = vector_sites(k, sites, bytes, width); !v.empty()) return {bytes, v};
  return {0, {}};
}

// Whether the line also accesses global memory consecutively with the other operation (the
// coalesced read of a transpose whose write walks a column).
bool other_side_consecutive(const KernelReport& k, const LineReport& l) {
  return std::any_of(k.lines.begin(), k.lines.end(), [&](const LineReport& o) {
    return o.file == l.file && o.line == l.line && o.space == ptx::Space::Global && o.op != l.op &&
           (o.pattern.kind == GlobalPattern::Kind::Consecutive || o.sectors <= o.ideal_sectors);
  });
}

}  // namespace

const char* global_fix_kind_name(GlobalFixKind k) {
  switch (k) {
    case GlobalFixKind::Vector:
      return "vector";
    case GlobalFixKind::Stage:
      return "stage";
    case GlobalFixKind::Pitch:
      return "pitch";
    case GlobalFixKind::Align:
      return "align";
    case GlobalFixKind::Layout:
      return "layout";
  }
  return "?";
}

std::vector<GlobalFix> advise_global(const KernelReport& k) {
  std::vector<GlobalFix> out;
  for (const LineReport& l : k.lines) {
    if (l.space != ptx::Space::Global || l.sectors <= l.ideal_sectors || l.requests == 0) continue;
    GlobalFix g;
    g.file = l.file;
    g.line = l.line;
    g.op = l.op;
    g.width = l.width;
    g.sites = sites_of(k, l);
    g.requests = g.requests_after = l.requests;
    g.sectors = l.sectors;
    g.ideal_sectors = l.ideal_sectors;
    g.sectors_after = l.ideal_sectors;
    const GlobalPattern& p = l.pattern;
    using K = GlobalPattern::Kind;
    const auto [vector_bytes, vsites] = p.kind == K::Consecutive
                                            ? std::pair<int, std::vector<int>>{}
                                            : vector_access(k, g.sites, l.width);
    if (vector_bytes) {
      g.kind = GlobalFixKind::Vector;
      g.stride = p.kind == K::Strided ? p.stride : 0;
      g.vector_bytes = vector_bytes;
      g.elements = vector_bytes / l.width;
      g.sites = vsites;
      g.requests = g.sectors = g.ideal_sectors = 0;
      for (int i : vsites) {
        const SiteStats& st = k.sites[static_cast<std::size_t>(i)].stats;
        g.requests += st.requests;
        g.sectors += st.sectors;
        g.ideal_sectors += st.ideal_sectors;
      }
      g.requests_after = g.requests / static_cast<std::uint64_t>(g.elements);
      g.sectors_after = g.ideal_sectors;
    } else if (p.kind == K::Consecutive) {
      g.kind = GlobalFixKind::Align;
      g.misalign = p.offset;
      g.stride = l.width;
    } else if (p.kind == K::Strided && std::abs(p.stride) < 128) {
      // Lanes less than a 128-byte line apart: neighbouring elements of one thread, or a
      // structure's field (a column walk has rows of 128 bytes or more).
      g.stride = p.stride;
      g.kind = GlobalFixKind::Layout;
    } else if (p.kind == K::Strided && !other_side_consecutive(k, l)) {
      // A column walk with nothing coalesced on its line to stage from: each lane needs its
      // own scattered element (a gather one word per row); staging the tile would move every
      // row's bytes for one word of each. The finding's words are all there is.
      continue;
    } else if (p.kind == K::Strided) {
      // A column walk (lanes a row of 128 bytes or more apart): within a block of bx x by
      // threads, stage the tile so that each warp
      // writes (reads) 32 / by rows of by consecutive elements.
      g.kind = GlobalFixKind::Stage;
      g.stride = p.stride;
      g.block = k.block;
      const std::uint64_t by = k.block.y;
      if (k.block.z != 1 || by < 2 || 32 % by != 0 || (k.block.x * by) % 32 != 0) {
        g.why_not_code = fmt::format(
            "the block is {}x{}x{}: the tile needs a 2-D block whose rows divide a warp (32x8: "
            "each warp then writes 4 rows of 8 elements)",
            k.block.x, k.block.y, k.block.z);
        g.sectors_after = l.ideal_sectors;  // with a 2-D block of 32 x 8, as described
      } else {
        const std::uint64_t per_request =
            (32 / by) * ceil_div(by * static_cast<std::uint64_t>(l.width), 32);
        g.sectors_after = std::max(l.ideal_sectors, l.requests * per_request);
      }
      if (l.op != model::Op::Store && g.why_not_code.empty())
        g.why_not_code = "the column is read, not written: stage the read tile the same way";
    } else if (p.kind == K::Rows && p.run > 0) {
      // Runs of consecutive lanes, rows `pitch` apart: a pitch of whole 128-byte lines puts
      // each run on the fewest sectors its bytes need.
      const std::uint64_t run_bytes = static_cast<std::uint64_t>(p.run) * l.width;
      const std::uint64_t after =
          l.requests * (32 / static_cast<std::uint64_t>(p.run)) * ceil_div(run_bytes, 32);
      if (after >= l.sectors || p.pitch <= 0) continue;
      g.kind = GlobalFixKind::Pitch;
      g.pitch = p.pitch;
      g.pitch_after = (p.pitch + 127) / 128 * 128;
      g.stride = p.pitch;
      g.sectors_after = std::max(after, l.ideal_sectors);
    } else {
      continue;  // a pattern without a name: the finding's words are all there is
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace bankcheck::analysis
