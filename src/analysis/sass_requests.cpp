// SassPlan and SassRequests: how SASS issues each PTX shared site, and the emulator's
// PTX-level events turned into the requests the GPU issues.
#include "bankcheck/analysis/sass_requests.hpp"

#include <algorithm>
#include <bit>
#include <iterator>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "bankcheck/model/analyze.hpp"

namespace bankcheck::analysis {

namespace {

// ld/st/atom/red.shared (not .shared::cluster, which ptxas issues as the generic LD, ST and
// ATOM: their sites keep the line table's instructions, as generic accesses do).
bool shared_access(const ptx::Instr& in) {
  return in.space == ptx::Space::Shared && (in.flags & ptx::kFlagCluster) == 0 &&
         (in.op == ptx::Opc::Ld || in.op == ptx::Opc::St || in.op == ptx::Opc::Atom ||
          in.op == ptx::Opc::Red);
}

int access_width(const ptx::Instr& in) { return ptx::ty_bytes(in.type) * in.vec; }

// The SASS instruction an ldmatrix, stmatrix or cp.async (not cp.async.bulk) becomes.
sass::SharedOp unit_of(const ptx::Instr& in) {
  if (in.op == ptx::Opc::Ldmatrix) return sass::SharedOp::LDSM;
  if (in.op == ptx::Opc::Stmatrix) return sass::SharedOp::STSM;
  if (in.op == ptx::Opc::CpAsync) return sass::SharedOp::LDGSTS;
  return sass::SharedOp::None;
}

bool same_kind(const ptx::Instr& in, model::Op op) {
  switch (op) {
    case model::Op::Load:
      return in.op == ptx::Opc::Ld;
    case model::Op::Store:
      return in.op == ptx::Opc::St;
    case model::Op::Atomic:
    case model::Op::AtomicCas:
      return in.op == ptx::Opc::Atom || in.op == ptx::Opc::Red;
  }
  return false;
}

// Accesses that ptxas can merge: the same operation through the same base register.
using FamilyKey = std::tuple<ptx::Opc, bool, std::uint32_t>;
FamilyKey family_key(const ptx::Instr& in) { return {in.op, in.mem.has_reg, in.mem.reg}; }

// The source position of a PTX line (its instruction's .loc); line 0 when none.
ptx::SourcePos source_of_ptx_line(const ptx::Kernel& k, int ptx_line) {
  for (std::size_t i = 0; i < k.code.size() && i < k.ptx_lines.size(); ++i)
    if (k.ptx_lines[i] == ptx_line && k.code[i].loc >= 0)
      return k.locs[static_cast<std::size_t>(k.code[i].loc)];
  return {};
}

// The sites with no SASS instruction of their own that the line table shows ptxas merged
// (Merged) or removed (Removed); returns the rest. A site keeps its PTX-level count unless
// its PTX line has no SASS instruction at all: an instruction on its line that was not
// recognised as its own could be it.
std::vector<int> removed_or_merged(const ptx::Kernel& k, const std::vector<int>& unmatched,
                                   const std::vector<const SassAccess*>& unclaimed,
                                   const std::vector<std::uint32_t>& code_lines, SassPlan& plan) {
  if (code_lines.empty()) return unmatched;
  std::unordered_set<std::uint32_t> lines(code_lines.begin(), code_lines.end());
  std::vector<int> without_code, rest;
  for (const int site : unmatched)
    (lines.count(static_cast<std::uint32_t>(k.sites[static_cast<std::size_t>(site)].ptx_line))
         ? rest
         : without_code)
        .push_back(site);
  // Plain STS that no store site claims, each given to the stores of one address and width.
  using Address = std::tuple<bool, std::uint32_t, std::int64_t, int>;
  std::map<Address, std::vector<int>> stores;  // sites, in PTX order
  for (const int site : without_code) {
    const ptx::Instr& in = k.code[k.sites[static_cast<std::size_t>(site)].instr];
    if (in.op == ptx::Opc::St)
      stores[{in.mem.has_reg, in.mem.reg, in.mem.offset, access_width(in)}].push_back(site);
  }
  std::unordered_set<int> merged;
  std::vector<const SassAccess*> left;  // unclaimed instructions no group took
  for (const SassAccess* a : unclaimed) {
    const bool plain_sts = a->unit == sass::SharedOp::None && a->op == model::Op::Store &&
                           a->form == SassAccess::Form::Plain;
    if (!plain_sts || a->ptx_line == 0) {
      left.push_back(a);
      continue;
    }
    // The group whose first store is nearest before the STS's PTX line, else nearest after.
    const std::vector<int>* best = nullptr;
    int best_distance = 0;
    for (const auto& [address, group] : stores) {
      if (std::get<3>(address) != a->width || merged.count(group.front())) continue;
      const int line = k.sites[static_cast<std::size_t>(group.front())].ptx_line;
      const int distance =
          line <= a->ptx_line ? a->ptx_line - line : (1 << 24) + line - a->ptx_line;
      if (!best || distance < best_distance) {
        best = &group;
        best_distance = distance;
      }
    }
    if (!best) {
      left.push_back(a);
      continue;
    }
    const ptx::SourcePos at = source_of_ptx_line(k, a->ptx_line);
    for (const int site : *best) {
      SassSite& s = plan.sites[static_cast<std::size_t>(site)];
      s.kind = SassSite::Kind::Merged;
      s.carrier = site == best->front();
      s.width = a->width;
      s.placed = at;
      if (s.carrier) {
        s.opcodes.push_back(a->opcode);
        s.offsets.push_back(a->offset);
      }
      merged.insert(site);
    }
  }
  // A site of the same family (operation and base register) and width that claims
  // several instructions of its own width on its line: the line table can put a
  // neighbour's instruction on it (the two LDS of `s[i] += s[i + k]`, both on the first
  // load's PTX line), so one of them may be this site's.
  const auto surplus_in_family = [&](const ptx::Instr& in) {
    for (std::size_t other = 0; other < k.sites.size(); ++other) {
      const SassSite& s = plan.sites[other];
      const ptx::Instr& o = k.code[k.sites[other].instr];
      if (s.kind == SassSite::Kind::Same && s.offsets.size() >= 2 && shared_access(o) &&
          family_key(o) == family_key(in) && access_width(o) == access_width(in))
        return true;
    }
    return false;
  };
  // Removed: no instruction of the site's kind left over that it could have become.
  for (const int site : without_code) {
    if (merged.count(site)) continue;
    const ptx::Instr& in = k.code[k.sites[static_cast<std::size_t>(site)].instr];
    const bool could_be =
        std::any_of(left.begin(), left.end(),
                    [&](const SassAccess* a) {
                      return a->unit != sass::SharedOp::None
                                 ? unit_of(in) == a->unit
                                 : unit_of(in) == sass::SharedOp::None && same_kind(in, a->op);
                    }) ||
        (shared_access(in) && surplus_in_family(in));
    if (could_be) {
      rest.push_back(site);
      continue;
    }
    plan.sites[static_cast<std::size_t>(site)].kind = SassSite::Kind::Removed;
  }
  std::sort(rest.begin(), rest.end());
  return rest;
}

}  // namespace

std::vector<SassAccess> sass_accesses(const sass::Kernel& kernel) {
  std::vector<SassAccess> out;
  // Those without a PTX line too: plan_sass claims none of them for a site, but one could
  // be a site's own, so none of its kind is taken for removed.
  for (const sass::LineAccesses& line : sass::shared_by_ptx_line(kernel)) {
    for (const sass::Instruction* in : line.instructions) {
      SassAccess a;
      a.ptx_line = static_cast<int>(line.ptx_line);
      a.offset = static_cast<std::uint32_t>(in->offset);
      a.width = in->width_bytes;
      a.opcode = sass::opcode_text(*in);
      switch (in->shared) {
        case sass::SharedOp::LDS:
          a.op = model::Op::Load;
          break;
        case sass::SharedOp::STS:
          a.op = model::Op::Store;
          break;
        case sass::SharedOp::ATOMS:
          a.op = (in->atom == sass::AtomOp::Cas || in->atom == sass::AtomOp::CasT ||
                  in->atom == sass::AtomOp::CasTSpin)
                     ? model::Op::AtomicCas
                     : model::Op::Atomic;
          if (in->atom == sass::AtomOp::PopcInc) a.form = SassAccess::Form::AtomPopcInc;
          if (in->atom == sass::AtomOp::CasTSpin) a.form = SassAccess::Form::AtomSpinLoop;
          if (in->aggregated) a.form = SassAccess::Form::AtomAggregated;
          break;
        case sass::SharedOp::LDSM:
        case sass::SharedOp::STSM:
        case sass::SharedOp::LDGSTS:
          a.unit = in->shared;
          a.predicated_bypass = in->shared == sass::SharedOp::LDGSTS && !in->zfill &&
                                in->guard.predicate == 0 && !in->guard.negated &&
                                a.opcode.find("BYPASS") != std::string::npos;
          a.zfill = in->shared == sass::SharedOp::LDGSTS && in->zfill;
          break;
        default:
          continue;
      }
      out.push_back(std::move(a));
    }
  }
  return out;
}

SassPlan plan_sass(const ptx::Kernel& k, const std::vector<SassAccess>& sass,
                   const std::vector<std::uint32_t>& code_lines) {
  SassPlan plan;
  plan.sites.resize(k.sites.size());
  std::unordered_map<int, int> site_at_line;
  for (std::size_t s = 0; s < k.sites.size(); ++s)
    if (shared_access(k.code[k.sites[s].instr]))
      site_at_line.emplace(k.sites[s].ptx_line, static_cast<int>(s));

  // ldmatrix, stmatrix and cp.async: issued as the PTX issues them, named by their SASS.
  std::unordered_map<int, int> unit_at_line;
  for (std::size_t s = 0; s < k.sites.size(); ++s)
    if (unit_of(k.code[k.sites[s].instr]) != sass::SharedOp::None)
      unit_at_line.emplace(k.sites[s].ptx_line, static_cast<int>(s));

  // The SASS instructions tied to each PTX site, by the cubin's SASS-to-PTX line table.
  std::map<int, std::vector<const SassAccess*>> by_site;
  std::vector<const SassAccess*> unclaimed;  // SASS no site's PTX line claims
  for (const SassAccess& a : sass) {
    if (a.unit != sass::SharedOp::None) {
      auto it = unit_at_line.find(a.ptx_line);
      if (it != unit_at_line.end() &&
          unit_of(k.code[k.sites[static_cast<std::size_t>(it->second)].instr]) == a.unit) {
        SassSite& s = plan.sites[static_cast<std::size_t>(it->second)];
        if (a.unit == sass::SharedOp::LDGSTS) {
          using Fill = SassSite::CopyFill;
          const Fill f = a.zfill ? Fill::ZeroFill : Fill::Plain;
          // The first LDGSTS sets it; one of the other form leaves the PTX's rule.
          s.copy_fill = s.opcodes.empty() || s.copy_fill == f ? f : Fill::Unknown;
        }
        s.kind = SassSite::Kind::Same;
        s.opcodes.push_back(a.opcode);
        s.offsets.push_back(a.offset);
        s.predicated_bypass = s.predicated_bypass || a.predicated_bypass;
      } else {
        unclaimed.push_back(&a);
      }
      continue;
    }
    auto it = site_at_line.find(a.ptx_line);
    if (it == site_at_line.end()) {
      unclaimed.push_back(&a);
      continue;
    }
    const ptx::Instr& in = k.code[k.sites[static_cast<std::size_t>(it->second)].instr];
    // A 64-bit atomic's CAS loop loads its word (LDS.64) on the atomic's line.
    const bool loop_load = a.op == model::Op::Load && a.width == 8 && access_width(in) == 8 &&
                           same_kind(in, model::Op::Atomic);
    if (!same_kind(in, a.op) && !loop_load) {
      unclaimed.push_back(&a);
      continue;
    }
    by_site[it->second].push_back(&a);
  }

  // A family: the sites of one base and op that ptxas merged into SASS requests of one
  // width. One base can have several (a run of seven loads issued as LDS + LDS.128 +
  // LDS.64: CUB's BlockReduce); a site with no SASS of its own joins the family of the
  // nearest site before it (else after it) that has some, the instruction it merged into.
  std::map<std::pair<FamilyKey, int>, int> family_of;
  std::map<FamilyKey, std::vector<std::pair<int, int>>> carriers;  // base -> (site, family)
  std::vector<int> family_width;
  for (const auto& [site, list] : by_site) {
    const ptx::Instr& in = k.code[k.sites[static_cast<std::size_t>(site)].instr];
    const int w = access_width(in);
    SassSite& s = plan.sites[static_cast<std::size_t>(site)];
    int widest = 0;
    for (const SassAccess* a : list) {
      s.opcodes.push_back(a->opcode);
      s.offsets.push_back(a->offset);
      widest = std::max(widest, a->width);
    }
    s.width = w;
    const bool spin = std::any_of(list.begin(), list.end(), [](const SassAccess* a) {
      return a->form == SassAccess::Form::AtomSpinLoop;
    });
    if (same_kind(in, model::Op::Atomic) && w == 8 &&
        (spin || list.front()->form == SassAccess::Form::Plain)) {
      s.kind = spin ? SassSite::Kind::SpinLoop64 : SassSite::Kind::Atomic64;
    } else if (list.front()->form == SassAccess::Form::AtomPopcInc) {
      s.kind = SassSite::Kind::PopcInc;
    } else if (list.front()->form == SassAccess::Form::AtomAggregated) {
      s.kind = SassSite::Kind::Aggregated;
    } else if (list.front()->form == SassAccess::Form::AtomSpinLoop) {
      s.kind = SassSite::Kind::SpinLoop;
    } else if (widest > w && widest % w == 0 && widest <= 16) {
      auto [it, added] = family_of.emplace(std::make_pair(family_key(in), widest),
                                           static_cast<int>(family_width.size()));
      if (added) family_width.push_back(widest);
      carriers[family_key(in)].push_back({site, it->second});
      s.kind = SassSite::Kind::Widened;
      s.family = it->second;
    } else {
      s.kind = SassSite::Kind::Same;
    }
  }
  // Sites with no SASS instruction of their own: merged into a wider neighbour's request
  // when one of their family was widened; otherwise ptxas removed or moved them.
  std::vector<int> unmatched;
  for (std::size_t site = 0; site < k.sites.size(); ++site) {
    const ptx::Instr& in = k.code[k.sites[site].instr];
    if (!shared_access(in) || by_site.count(static_cast<int>(site))) continue;
    auto it = carriers.find(family_key(in));
    if (it == carriers.end()) {
      unmatched.push_back(static_cast<int>(site));
      continue;
    }
    // by_site is ordered by site, and so is each carrier list.
    int family = it->second.front().second;
    for (const auto& [carrier, f] : it->second)
      if (carrier < static_cast<int>(site)) family = f;
    plan.sites[site].kind = SassSite::Kind::Widened;
    plan.sites[site].family = family;
  }
  for (SassSite& s : plan.sites)
    if (s.kind == SassSite::Kind::Widened)
      s.width = family_width[static_cast<std::size_t>(s.family)];
  plan.families = static_cast<int>(family_width.size());
  // ldmatrix, stmatrix and cp.async sites with no SASS of their unit.
  for (std::size_t site = 0; site < k.sites.size(); ++site)
    if (unit_of(k.code[k.sites[site].instr]) != sass::SharedOp::None &&
        plan.sites[site].opcodes.empty())
      unmatched.push_back(static_cast<int>(site));
  std::sort(unmatched.begin(), unmatched.end());
  plan.unmatched_sites = removed_or_merged(k, unmatched, unclaimed, code_lines, plan);
  return plan;
}

void place_lineless_sites(const ptx::Kernel& k, const sass::Kernel& sk, SassPlan& plan) {
  std::unordered_map<int, ptx::SourcePos> loc_of_line;  // PTX line -> its source line
  for (std::size_t i = 0; i < k.code.size(); ++i)
    if (k.code[i].loc >= 0 && i < k.ptx_lines.size())
      loc_of_line.emplace(k.ptx_lines[i], k.locs[static_cast<std::size_t>(k.code[i].loc)]);
  for (std::size_t site = 0; site < plan.sites.size() && site < k.sites.size(); ++site) {
    SassSite& s = plan.sites[site];
    if (k.sites[site].line > 0 || s.offsets.empty()) continue;
    std::size_t at = sk.instructions.size();
    for (std::size_t i = 0; i < sk.instructions.size(); ++i)
      if (sk.instructions[i].offset == s.offsets.front()) at = i;
    while (at-- > 0 && at < sk.ptx_lines.size()) {
      auto it = loc_of_line.find(static_cast<int>(sk.ptx_lines[at]));
      if (it != loc_of_line.end() && it->second.line > 0) {
        s.placed = it->second;
        break;
      }
    }
  }
}

void place_wgmma_sites(const ptx::Kernel& k, const sass::Kernel& sk, SassPlan& plan) {
  std::vector<std::size_t> sites;  // the wgmma.mma_async sites, in PTX order
  for (std::size_t s = 0; s < k.sites.size() && s < plan.sites.size(); ++s) {
    const ptx::Instr& in = k.code[k.sites[s].instr];
    if (in.op == ptx::Opc::Wgmma && in.mod.wg.op == ptx::WgmmaOp::Mma &&
        in.site == static_cast<int>(s))
      sites.push_back(s);
  }
  std::stable_sort(sites.begin(), sites.end(), [&](std::size_t a, std::size_t b) {
    return k.sites[a].ptx_line < k.sites[b].ptx_line;
  });
  std::vector<std::size_t> gmma;  // the GMMA instructions, in SASS order
  for (std::size_t i = 0; i < sk.instructions.size(); ++i) {
    const sass::Instruction& in = sk.instructions[i];
    const std::string_view m = in.mnemonic;
    if ((m == "HGMMA" || m == "QGMMA" || m == "IGMMA") && !in.guard.never()) gmma.push_back(i);
  }
  if (sites.empty() || gmma.empty()) return;
  const auto give = [&](std::size_t site, std::size_t i) {
    SassSite& s = plan.sites[site];
    s.kind = SassSite::Kind::Same;
    s.offsets.push_back(static_cast<std::uint32_t>(sk.instructions[i].offset));
    s.opcodes.push_back(sass::opcode_text(sk.instructions[i]));
  };
  if (sites.size() == gmma.size()) {
    for (std::size_t j = 0; j < sites.size(); ++j) give(sites[j], gmma[j]);
    return;
  }
  for (const std::size_t site : sites)
    for (const std::size_t i : gmma)
      if (i < sk.ptx_lines.size() &&
          sk.ptx_lines[i] == static_cast<std::uint32_t>(k.sites[site].ptx_line))
        give(site, i);
}

SassRequests::SassRequests(const SassPlan& plan, emu::Listener& next) : plan_(plan), next_(next) {}

std::vector<SassRequests::Window>& SassRequests::windows(int warp, int family) {
  if (static_cast<std::size_t>(warp) >= windows_.size())
    windows_.resize(static_cast<std::size_t>(warp) + 1);
  auto& per_family = windows_[static_cast<std::size_t>(warp)];
  if (per_family.empty()) per_family.resize(static_cast<std::size_t>(plan_.families));
  return per_family[static_cast<std::size_t>(family)];
}

// A window that never completed: its requests go on as the PTX issued them.
void SassRequests::flush(Window& w) {
  if (w.mask == 0xFFFFFFFFu) {
    // The first request made into each of them in turn (the window is dropped after).
    emu::AccessEvent& r = w.events.front();
    for (const Part& p : w.parts) {
      r.site = p.site;
      r.op = p.op;
      r.width = p.width;
      for (int l = 0; l < model::kWarpSize; ++l) r.addr[l] = w.start[l] + p.offset;
      next_.on_access(r);
    }
  } else {
    for (const emu::AccessEvent& e : w.events) next_.on_access(e);
  }
  unmerged_ += w.parts.size();
  w.parts.clear();
  w.events.clear();
}

// Drops window `i`, keeping its storage for the next window: new vectors for every window
// cost a few allocations per merged request.
void SassRequests::close(std::vector<Window>& ws, std::size_t i) {
  spare_.push_back(std::move(ws[i]));
  ws.erase(ws.begin() + static_cast<std::ptrdiff_t>(i));
}

void SassRequests::flush_all() {
  for (auto& per_family : windows_)
    for (auto& ws : per_family) {
      for (Window& w : ws) {
        flush(w);
        spare_.push_back(std::move(w));
      }
      ws.clear();
    }
}

void SassRequests::finish() { flush_all(); }

void SassRequests::on_access(const emu::AccessEvent& e) {
  if (e.cta != cta_) {
    flush_all();
    cta_ = e.cta;
  }
  if (e.space != ptx::Space::Shared || e.site < 0 ||
      static_cast<std::size_t>(e.site) >= plan_.sites.size()) {
    next_.on_access(e);
    return;
  }
  const SassSite& s = plan_.sites[static_cast<std::size_t>(e.site)];
  switch (s.kind) {
    case SassSite::Kind::Ptx:
      next_.on_access(e);
      return;
    case SassSite::Kind::Same: {
      // cp.async: costed in the form ptxas gave its LDGSTS (model::analyze_ldgsts, as the
      // GPU backend costs it): a PTX src-size ptxas dropped or made a zero-fill predicate
      // is no .ZFILL.
      const bool zfill = s.copy_fill == SassSite::CopyFill::ZeroFill;
      if (e.kind != emu::AccessKind::Ldgsts || s.copy_fill == SassSite::CopyFill::Unknown ||
          e.src_size == zfill) {
        next_.on_access(e);
        return;
      }
      emu::AccessEvent r = e;
      r.src_size = zfill;
      next_.on_access(r);
      return;
    }
    case SassSite::Kind::PopcInc: {
      emu::AccessEvent r = e;
      model::WarpAccess a;
      a.active = e.mask;
      for (int l = 0; l < model::kWarpSize; ++l) a.addr[l] = static_cast<std::uint32_t>(e.addr[l]);
      r.mask = model::popc_inc_lanes(a);
      next_.on_access(r);
      return;
    }
    case SassSite::Kind::Aggregated: {
      emu::AccessEvent r = e;
      r.mask = model::aggregated_lane(e.mask);
      next_.on_access(r);
      return;
    }
    case SassSite::Kind::SpinLoop: {
      // Each pass every bank serves one lane's CAS and the others spin, so the passes cost
      // what one CAS of all the lanes does (atomics corpus, add_f32_*: 126 of 126). The
      // loop's LDS is not counted.
      emu::AccessEvent r = e;
      r.op = model::Op::AtomicCas;
      next_.on_access(r);
      return;
    }
    case SassSite::Kind::SpinLoop64:
    case SassSite::Kind::Atomic64: {
      emu::AccessEvent r = e;
      r.kind = s.kind == SassSite::Kind::SpinLoop64 ? emu::AccessKind::CasLoop64
                                                    : emu::AccessKind::Atomic64;
      next_.on_access(r);
      return;
    }
    case SassSite::Kind::Widened:
      widened(e, s);
      return;
    case SassSite::Kind::Merged:
      // The STS executes where its carrier does; the other stores are in it.
      if (s.carrier) next_.on_access(e);
      return;
    case SassSite::Kind::Removed:
      return;  // the hardware never issues it
  }
}

void SassRequests::widened(const emu::AccessEvent& e, const SassSite& s) {
  const auto width = static_cast<std::uint64_t>(s.width);
  if (e.mask == 0) {
    next_.on_access(e);
    return;
  }
  // Every lane must fill the same part of its own aligned window. SASS widths are powers
  // of two (sass::Instruction::width_bytes), so the part is the address's low bits: a
  // division per lane was most of the cost of a widened request. Each lane's window start
  // (0 where the lane does not access) and the test, in loops without branches; with every
  // lane accessing (the usual request) the compiler vectorizes it.
  const std::uint64_t low = width - 1;
  const int l0 = std::countr_zero(e.mask);
  const std::uint64_t part = e.addr[l0] & low;
  std::uint64_t start[model::kWarpSize];
  std::uint64_t elsewhere = 0;
  if (e.mask == 0xFFFFFFFFu) {
    for (int l = 0; l < model::kWarpSize; ++l) {
      elsewhere |= (e.addr[l] & low) ^ part;
      start[l] = e.addr[l] - part;
    }
  } else {
    for (int l = 0; l < model::kWarpSize; ++l) {
      const std::uint64_t on = 0 - static_cast<std::uint64_t>((e.mask >> l) & 1u);
      elsewhere |= ((e.addr[l] & low) ^ part) & on;
      start[l] = (e.addr[l] - part) & on;
    }
  }
  if (elsewhere || part + e.width > width) {
    next_.on_access(e);
    return;
  }
  const std::uint32_t bits = ((1u << e.width) - 1u) << part;
  const std::uint32_t full = (1u << width) - 1u;
  std::vector<Window>& ws = windows(e.warp, s.family);
  for (std::size_t i = 0; i < ws.size(); ++i) {
    Window& w = ws[i];
    if (w.mask != e.mask || (w.covered & bits)) continue;
    std::uint64_t differ = 0;
    for (int l = 0; l < model::kWarpSize; ++l) differ |= start[l] ^ w.start[l];
    if (differ) continue;
    w.parts.push_back({e.site, e.op, e.width, part});
    if (w.mask != 0xFFFFFFFFu) w.events.push_back(e);
    w.covered |= bits;
    if (w.covered != full) return;
    // Complete: one request, tied to the lowest part that has its own SASS instruction.
    std::size_t tie = 0;
    bool tied = false;
    for (std::size_t k = 0; k < w.parts.size(); ++k)
      if (!plan_.sites[static_cast<std::size_t>(w.parts[k].site)].opcodes.empty() &&
          (!tied || w.parts[k].offset < w.parts[tie].offset)) {
        tie = k;
        tied = true;
      }
    // The window is dropped, so the request is made in the storage of an event it holds.
    emu::AccessEvent& r = w.mask == 0xFFFFFFFFu ? w.events.front() : w.events[tie];
    r.site = w.parts[tie].site;
    r.op = w.parts[tie].op;
    r.width = static_cast<std::uint8_t>(width);
    std::copy(std::begin(w.start), std::end(w.start), std::begin(r.addr));
    ++merged_;
    next_.on_access(r);
    w.parts.clear();
    w.events.clear();
    close(ws, i);
    return;
  }
  // A new window; a warp keeps a few open at once (a register tile's rows), not more.
  constexpr std::size_t kOpenWindows = 64;
  if (ws.size() >= kOpenWindows) {
    flush(ws.front());
    close(ws, 0);
  }
  if (spare_.empty()) {
    ws.emplace_back();
  } else {
    ws.push_back(std::move(spare_.back()));
    spare_.pop_back();
  }
  Window& w = ws.back();
  w.mask = e.mask;
  w.covered = bits;
  std::copy(std::begin(start), std::end(start), std::begin(w.start));
  w.parts.push_back({e.site, e.op, e.width, part});
  w.events.push_back(e);
}

}  // namespace bankcheck::analysis
