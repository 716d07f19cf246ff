// Replay and ranking: each candidate's requests replayed through the bank model, its shared
// bytes and occupancy, and the kept suggestions best first.
#include <algorithm>
#include <functional>
#include <set>
#include <tuple>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/model/matrix.hpp"
#include "fix_steps.hpp"

namespace bankcheck::analysis {

model::Occupancy occupancy_for(const model::Arch& arch, int threads, int regs, std::uint64_t st,
                               std::uint64_t dyn) {
  model::OccupancyInput in;
  in.threads_per_block = threads;
  in.registers_per_thread = regs;
  in.static_shared_bytes = static_cast<int>(st);
  in.dynamic_shared_bytes = static_cast<int>(dyn);
  return model::compute_occupancy(arch.cc, in);
}

PtxWidths ptx_widths(const ptx::Kernel& k) {
  PtxWidths out(k.sites.size(), 0);
  for (std::size_t s = 0; s < k.sites.size(); ++s) {
    const ptx::Instr& in = k.code[k.sites[s].instr];
    // ldmatrix/stmatrix move 16-byte rows and cp.async its copy size, whatever the type
    // says (.b16): not a width ptxas widened, so nothing to split when remapped.
    if (in.op == ptx::Opc::Ldmatrix || in.op == ptx::Opc::Stmatrix || in.op == ptx::Opc::CpAsync)
      continue;
    out[s] = ptx::ty_bytes(in.type) * in.vec;
  }
  return out;
}

int code_width(const RecordedRequest& r, const PtxWidths& ptx) {
  const int w = r.access.width;
  if (r.site < 0 || static_cast<std::size_t>(r.site) >= ptx.size()) return w;
  const int p = ptx[static_cast<std::size_t>(r.site)];
  return p > 0 && p < w && w % p == 0 ? p : w;
}

namespace {

// Whether every window of `w` bytes of the request (at each active lane's address, every
// w-th byte of its `width`) still starts aligned to `w` once moved, and its PTX accesses of
// `part` bytes stay next to each other: what ptxas needs to issue it `w` bytes wide.
bool windows_fit(const model::WarpAccess& a, int w, int part,
                 const std::function<std::uint32_t(std::uint32_t)>& moved) {
  for (int l = 0; l < model::kWarpSize; ++l) {
    if (!a.lane_active(l)) continue;
    for (int c = 0; c < a.width; c += w) {
      const std::uint32_t base = a.addr[l] + static_cast<std::uint32_t>(c);
      const std::uint32_t m = moved(base);
      if (m % static_cast<std::uint32_t>(w)) return false;
      for (int j = part; j < w; j += part)
        if (moved(base + static_cast<std::uint32_t>(j)) != m + static_cast<std::uint32_t>(j))
          return false;
    }
  }
  return true;
}

}  // namespace

// Replays `reqs` (all touching array `ar`) with lanes inside it remapped.
Eval evaluate(const Requests& reqs, const ArrayRange& ar, const Geometry& g, const Remap* remap,
              const PtxWidths& ptx, const model::Arch& arch) {
  Eval ev;
  const bool moves = remap && remap->kind != FixKind::Width;
  const auto moved = [&](std::uint32_t x) {
    if (!moves || x < ar.offset || x >= ar.offset + ar.bytes) return x;
    return static_cast<std::uint32_t>(ar.offset) +
           remap_offset(*remap, g, x - static_cast<std::uint32_t>(ar.offset));
  };
  // One SASS instruction serves every execution of its site: a site ptxas widened keeps
  // its width only while all its windows fit; else the widest width all of them allow, down
  // to its PTX accesses (or the elements a split remap makes of them). ptxas widens what it
  // can prove aligned and adjacent: through a padded declaration it reasons as before, but
  // through a rewritten subscript (an XOR, a modulo, the 1-D padding's division) it does
  // not (sgemm_2d_blocktiling's Bs loads, swizzled, became 4 x LDS; tests/fix_test.cpp), so
  // such remaps get the PTX's accesses.
  const bool declaration_only =
      moves && remap->kind == FixKind::Pad &&
      (g.source == Geometry::Source::Declaration || g.source == Geometry::Source::Record);
  std::map<int, int> sass_width;
  if (moves)
    for (const RecordedRequest* rr : reqs) {
      int part = code_width(*rr, ptx);
      if (part >= rr->access.width) continue;  // the code's own width: not ptxas's doing
      if (remap->split > 0 && remap->split < part) part = remap->split;
      int& w = sass_width.try_emplace(rr->site, rr->access.width).first->second;
      if (!declaration_only) w = part;
      while (w > part && !windows_fit(rr->access, w, part, moved)) w /= 2;
    }
  for (const auto& [site, w] : sass_width) {
    for (const RecordedRequest* rr : reqs)
      if (rr->site == site && w < rr->access.width) {
        ev.resplit[site] = w;
        break;
      }
  }
  for (const RecordedRequest* rr : reqs) {
    // The request as the remapped code would issue it: split when narrower, then moved.
    int parts_width = rr->access.width;
    if (auto it = sass_width.find(rr->site); it != sass_width.end()) {
      parts_width = std::min(parts_width, it->second);
    } else {
      if (remap && remap->kind == FixKind::Width && remap->site == rr->site &&
          remap->width < parts_width)
        parts_width = remap->width;
      if (moves && remap->split > 0 && remap->split < parts_width) parts_width = remap->split;
    }
    std::uint64_t wf = 0, ideal = 0;
    // A 64-bit CAS loop's passes depend on the values, which the recorder does not keep.
    if (rr->kind == emu::AccessKind::CasLoop64) return Eval{false, 0, 0, 0, {}, {}};
    if (rr->kind != emu::AccessKind::Plain) {
      // ldmatrix/stmatrix rows, cp.async copies and 64-bit ATOMS keep their width (their
      // PTX type is not a width ptxas widened): moved, and charged by their own rules.
      model::Verdict v;
      if (rr->kind == emu::AccessKind::Atomic64) {
        model::WarpAccess a = rr->access;
        for (int l = 0; l < model::kWarpSize; ++l)
          if (a.lane_active(l)) a.addr[l] = moved(a.addr[l]);
        v = model::atomic64(a);
      } else if (rr->kind == emu::AccessKind::Matrix) {
        model::MatrixAccess m;
        m.op = rr->access.op == model::Op::Load ? model::MatrixOp::Load : model::MatrixOp::Store;
        m.matrices = rr->matrices;
        for (int l = 0; l < model::kWarpSize; ++l)
          m.addr[l] = rr->access.lane_active(l) ? moved(rr->access.addr[l]) : 0;
        v = model::analyze_matrix(m, arch);
      } else {
        model::AsyncCopy cp;
        cp.width = rr->access.width;
        cp.bypass = rr->bypass;
        cp.src_size = rr->src_size;
        cp.reads = rr->reads;
        cp.active = rr->access.active;
        for (int l = 0; l < model::kWarpSize; ++l) {
          cp.addr[l] = rr->access.lane_active(l) ? moved(rr->access.addr[l]) : 0;
          cp.global_addr[l] = rr->global.empty() ? 0 : rr->global[static_cast<size_t>(l)];
        }
        v = model::analyze_ldgsts(cp, arch);
      }
      if (!v.ok()) return Eval{false, 0, 0, 0, {}, {}};
      ev.wavefronts += v.wavefronts * rr->count;
      ev.ideal += v.ideal_wavefronts * rr->count;
      ev.requests += rr->count;
      ev.per_site[rr->site] += v.wavefronts * rr->count;
      continue;
    }
    for (int p = 0; p < rr->access.width / parts_width; ++p) {
      model::WarpAccess a = rr->access;
      a.width = static_cast<std::uint8_t>(parts_width);
      for (int l = 0; l < model::kWarpSize; ++l) {
        if (!a.lane_active(l)) continue;
        a.addr[l] = moved(a.addr[l] + static_cast<std::uint32_t>(p * parts_width));
      }
      const model::Verdict v = model::analyze(a, arch);
      if (!v.ok()) return Eval{false, 0, 0, 0, {}, {}};
      wf += v.wavefronts;
      ideal += v.ideal_wavefronts;
    }
    ev.wavefronts += wf * rr->count;
    ev.ideal += ideal * rr->count;
    ev.requests += static_cast<std::uint64_t>(rr->access.width / parts_width) * rr->count;
    ev.per_site[rr->site] += wf * rr->count;
  }
  return ev;
}

std::vector<Suggestion> rank(const std::vector<Remap>& cands, const Requests& reqs,
                             const ArrayRange& ar, const Geometry& g, const Eval& before,
                             const ArrayFix& af, const KernelFix& kf,
                             const std::function<int(int)>& site_line, const PtxWidths& ptx,
                             const model::Arch& arch, int top) {
  const int elem = g.elem_bytes;
  std::vector<Suggestion> kept;
  std::vector<Suggestion> found;
  for (const Remap& r : cands) {
    const Eval after = evaluate(reqs, ar, g, &r, ptx, arch);
    if (!after.ok || after.wavefronts >= before.wavefronts) continue;
    // A saving below kMinSaving of the array's wavefronts is not worth a change of layout.
    if (static_cast<double>(before.wavefronts - after.wavefronts) <
        kMinSaving * static_cast<double>(before.wavefronts))
      continue;
    Suggestion s;
    s.remap = r;
    s.wavefronts_before = before.wavefronts;
    s.wavefronts_after = after.wavefronts;
    s.ideal_wavefronts = after.ideal;
    s.requests_before = before.requests;
    s.requests_after = after.requests;
    s.bytes_before = ar.bytes;
    s.bytes_after = ar.bytes;
    if (r.kind == FixKind::Pad)
      s.bytes_after = ar.bytes + (ar.bytes / g.row_bytes) * static_cast<std::uint64_t>(r.pad) *
                                     static_cast<std::uint64_t>(elem);
    if (r.unpad > 0)  // the rows' padding is dropped
      s.bytes_after = ar.bytes - (ar.bytes / static_cast<std::uint64_t>(r.stride)) *
                                     static_cast<std::uint64_t>(r.unpad);
    for (int site : af.sites) {
      SiteChange c;
      c.site = site;
      c.line = site_line(site);
      for (const auto* q : reqs)
        if (q->site == site) {
          c.op = q->access.op;
          c.width = q->access.width;
          c.requests += q->count;
        }
      c.wavefronts_before = before.per_site.count(site) ? before.per_site.at(site) : 0;
      c.wavefronts_after = after.per_site.count(site) ? after.per_site.at(site) : 0;
      if (auto it = after.resplit.find(site); it != after.resplit.end())
        c.sass_width_after = it->second;
      s.sites.push_back(c);
    }
    if (kf.occupancy_known) {
      s.occupancy_known = true;
      s.occupancy_before = kf.occupancy;
      // Bytes added (padding) or dropped (unpadding): wraps around, and the sums wrap back.
      const std::uint64_t extra = s.bytes_after - s.bytes_before;
      s.occupancy_after =
          occupancy_for(arch, kf.threads, kf.registers, kf.static_smem + (ar.is_extern ? 0 : extra),
                        kf.dynamic_smem + (ar.is_extern ? extra : 0));
    }
    found.push_back(std::move(s));
  }
  auto key = [](const Suggestion& s) {
    const int blocks = s.occupancy_known ? s.occupancy_after.blocks_per_sm : 0;
    // Equal wavefronts: fewer instructions issued (a remap that keeps ptxas's LDS.128 over
    // one that breaks it into four LDS), then fewer bytes, then more resident blocks.
    return std::make_tuple(s.wavefronts_after, s.requests_after, s.bytes_after, -blocks,
                           static_cast<int>(s.remap.kind), s.remap.pad + s.remap.bits);
  };
  std::stable_sort(found.begin(), found.end(),
                   [&](const Suggestion& a, const Suggestion& b) { return key(a) < key(b); });
  std::set<FixKind> kinds;
  for (auto& s : found) {
    if (!kinds.insert(s.remap.kind).second) continue;
    kept.push_back(std::move(s));
    if (static_cast<int>(kept.size()) >= top) break;
  }

  return kept;
}

}  // namespace bankcheck::analysis
