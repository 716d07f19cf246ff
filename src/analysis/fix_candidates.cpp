// Candidates: the remaps worth replaying for an array of a given geometry. Paddings up to
// one bank row, XOR swizzles of every width the columns allow, a rotation, the same at
// element granularity when wide accesses pin them, and narrower accesses per site.
#include <algorithm>
#include <bit>
#include <map>

#include "fix_steps.hpp"

namespace bankcheck::analysis {

std::vector<Remap> candidates(const Geometry& g, Widths w, const std::vector<int>& sites,
                              const Requests& reqs, const PtxWidths& ptx, const model::Arch& arch) {
  const std::uint64_t bank_row = static_cast<std::uint64_t>(arch.banks) * 4;
  const int elem = g.elem_bytes;
  const std::uint64_t cols = g.row_bytes / static_cast<std::uint64_t>(elem);
  std::vector<Remap> cands;
  const int align = std::max(w.max, elem);
  for (int pad_bytes = align; pad_bytes <= static_cast<int>(bank_row); pad_bytes *= 2) {
    if (pad_bytes % elem) continue;
    Remap r;
    r.kind = FixKind::Pad;
    r.pad = pad_bytes / elem;
    cands.push_back(r);
  }
  if (std::has_single_bit(cols) && static_cast<std::uint64_t>(g.unit) <= cols) {
    const int log_cols = std::countr_zero(cols),
              m = std::countr_zero(static_cast<unsigned>(g.unit));
    for (int b = 1; b <= log_cols - m; ++b) {
      Remap r;
      r.kind = FixKind::Swizzle;
      r.bits = b;
      r.base = m;
      r.shift = log_cols - m;
      cands.push_back(r);
    }
    // A row wider than a bank row is often a whole tile (a stage of `half As[2][64 * 64]`,
    // addressed through a layout function): XOR the unit's column within each 2^(m+S+b)
    // elements with the bits above it (CuTe's Swizzle<3,3,3> of a 64-half-wide tile). The
    // XORed bits start at a bank row or above, where rows that collide differ.
    const std::uint64_t row_elems = bank_row / static_cast<std::uint64_t>(elem);
    if (g.row_bytes > bank_row && std::has_single_bit(row_elems)) {
      const int from = std::countr_zero(row_elems);
      for (int b = 1; b <= 3; ++b)
        for (int sh = std::max(b, from - m); m + sh + b <= log_cols; ++sh) {
          Remap r;
          r.kind = FixKind::Swizzle;
          r.bits = b;
          r.base = m;
          r.shift = sh;
          cands.push_back(r);
        }
    }
  }
  // Rows padded past a power-of-two width (a tensor-core tile of 64 halves in rows of 72,
  // which keeps ldmatrix conflict-free but makes each row's cp.async.cg straddle two
  // 128-byte lines): the same data without the padding, swizzled instead. The stride is
  // the declaration's row, or else the lanes' most common stride.
  {
    std::uint64_t stride = g.row_bytes;
    if (g.source != Geometry::Source::Declaration) {
      const auto votes = lane_strides(reqs);
      std::uint64_t best = 0;
      for (auto [d, n] : votes)
        if (d > bank_row && (best == 0 || n > votes.at(best))) best = d;
      stride = best;
    }
    const std::uint64_t unit_bytes = static_cast<std::uint64_t>(g.unit * elem);
    const std::uint64_t width = stride ? std::bit_floor(stride) : 0;
    const std::uint64_t total = g.rows * g.row_bytes;
    if (width >= bank_row && stride > width && stride - width < bank_row &&
        (stride - width) % unit_bytes == 0 && total % stride == 0 && total / stride >= 2) {
      const int log_cols = std::countr_zero(width / static_cast<std::uint64_t>(elem)),
                m = std::countr_zero(static_cast<unsigned>(g.unit));
      for (int b = 1; b <= std::min(3, log_cols - m); ++b) {
        Remap r;
        r.kind = FixKind::Swizzle;
        r.bits = b;
        r.base = m;
        r.shift = log_cols - m;
        r.unpad = static_cast<int>(stride - width);
        r.stride = static_cast<int>(stride);
        cands.push_back(r);
      }
    }
  }
  if (cols % static_cast<std::uint64_t>(g.unit) == 0 && cols > 1) {
    Remap r;
    r.kind = FixKind::Rotate;
    r.unit = g.unit;
    cands.push_back(r);
  }
  // Wide accesses pin the remaps to their width; the same remaps at element granularity
  // may do better: the code's own vector accesses then have to be split into elements (what
  // the compiler emits once the elements are no longer adjacent), while the wide accesses
  // ptxas made of narrow ones need no change (the replay issues them narrower where their
  // windows lose their alignment).
  if (g.unit > 1 && elem >= 4) {
    const size_t n = cands.size();
    const int split = w.code_max > elem ? elem : 0;
    for (int pad_bytes = elem; pad_bytes < align; pad_bytes *= 2) {
      Remap r;
      r.kind = FixKind::Pad;
      r.pad = pad_bytes / elem;
      r.split = split;
      cands.push_back(r);
    }
    for (size_t i = 0; i < n; ++i) {
      if (cands[i].kind == FixKind::Swizzle && cands[i].unpad == 0) {
        for (int b = 1; b <= std::countr_zero(cols); ++b) {
          Remap r = cands[i];
          r.bits = b;
          r.base = 0;
          r.shift = std::countr_zero(cols);
          r.split = split;
          cands.push_back(r);
        }
        break;
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (cands[i].kind == FixKind::Rotate) {
        Remap r = cands[i];
        r.unit = 1;
        r.split = split;
        cands.push_back(r);
      }
  }
  // Narrower accesses where the code states a wide one (a load ptxas widened is the code's
  // narrow loads already: nothing to write for it).
  for (int s : sites) {
    int w = 0;
    for (const auto* r : reqs)
      if (r->site == s) w = std::max<int>(w, code_width(*r, ptx));
    for (int nw = w / 2; nw >= std::max(4, elem); nw /= 2) {
      Remap r;
      r.kind = FixKind::Width;
      r.site = s;
      r.width = nw;
      cands.push_back(r);
    }
  }

  return cands;
}

}  // namespace bankcheck::analysis
