// SassPlan and SassRequests: the PTX sites each SASS shared instruction serves, and the
// emulator's PTX-level events turned into the requests the GPU issues.
#include "bankcheck/analysis/sass_requests.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace bankcheck::analysis {

namespace {

bool shared_access(const ptx::Instr& in) {
  return in.space == ptx::Space::Shared && (in.op == ptx::Opc::Ld || in.op == ptx::Opc::St ||
                                            in.op == ptx::Opc::Atom || in.op == ptx::Opc::Red);
}

int access_width(const ptx::Instr& in) { return ptx::ty_bytes(in.type) * in.vec; }

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

// Whether ptxas could have merged the accesses at instructions a..b (PTX order): the same
// straight-line stretch, no branch, label target or barrier between them. ptxas merges
// within a basic block; a branch target in between starts another.
bool straight_line(const ptx::Kernel& k, std::uint32_t a, std::uint32_t b,
                   const std::vector<bool>& is_target) {
  if (a > b) std::swap(a, b);
  for (std::uint32_t i = a; i <= b; ++i) {
    const ptx::Opc op = k.code[i].op;
    if (op == ptx::Opc::Bra || op == ptx::Opc::Bar || op == ptx::Opc::Ret || op == ptx::Opc::Exit)
      return false;
    if (i > a && is_target[i]) return false;
  }
  return true;
}

// The PTX sites (besides `issued`) that one SASS request of `width` bytes per lane covers:
// accesses of the same kind through the same base register whose byte ranges tile one
// `width`-byte window containing `issued`'s. Tries windows starting at `issued` first
// (ptxas ties the merged instruction to its first access), then those starting below.
// Empty when no tiling exists.
std::vector<int> widened_members(const ptx::Kernel& k, int issued, int width,
                                 const std::vector<bool>& claimed,
                                 const std::vector<bool>& is_target) {
  const ptx::Instr& in = k.code[k.sites[issued].instr];
  const int w = access_width(in);
  std::map<std::int64_t, int> at_offset;  // offset -> candidate site
  for (std::size_t s = 0; s < k.sites.size(); ++s) {
    if (static_cast<int>(s) == issued || claimed[s]) continue;
    const ptx::Instr& o = k.code[k.sites[s].instr];
    if (!shared_access(o) || o.op != in.op || o.mem.has_reg != in.mem.has_reg ||
        (in.mem.has_reg && o.mem.reg != in.mem.reg))
      continue;
    if (o.op == ptx::Opc::St && o.type != in.type) continue;
    if (!straight_line(k, k.sites[s].instr, k.sites[issued].instr, is_target)) continue;
    at_offset.emplace(o.mem.offset, static_cast<int>(s));
  }
  for (int below = 0; below + w <= width; below += w) {
    const std::int64_t start = in.mem.offset - below;
    std::vector<int> members;
    std::int64_t pos = start;
    while (pos < start + width) {
      int site = -1;
      if (pos == in.mem.offset) {
        site = issued;
      } else if (auto it = at_offset.find(pos); it != at_offset.end()) {
        site = it->second;
      }
      if (site < 0) break;
      members.push_back(site);
      pos += access_width(k.code[k.sites[site].instr]);
    }
    if (pos == start + width) return members;
  }
  return {};
}

}  // namespace

std::vector<SassAccess> sass_accesses(const sass::Kernel& kernel) {
  std::vector<SassAccess> out;
  for (const sass::LineAccesses& line : sass::shared_by_ptx_line(kernel)) {
    if (line.ptx_line == 0) continue;
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
          if (in->aggregated) a.form = SassAccess::Form::AtomAggregated;
          break;
        default:
          continue;
      }
      out.push_back(std::move(a));
    }
  }
  return out;
}

SassPlan plan_sass(const ptx::Kernel& k, const std::vector<SassAccess>& sass) {
  SassPlan plan;
  plan.group_of_site.assign(k.sites.size(), -1);
  std::unordered_map<int, int> site_at_line;
  for (std::size_t s = 0; s < k.sites.size(); ++s)
    if (shared_access(k.code[k.sites[s].instr]))
      site_at_line.emplace(k.sites[s].ptx_line, static_cast<int>(s));

  // The SASS instructions tied to each PTX site, by the cubin's SASS-to-PTX line table.
  std::map<int, std::vector<const SassAccess*>> by_site;
  for (const SassAccess& a : sass) {
    auto it = site_at_line.find(a.ptx_line);
    if (it == site_at_line.end()) continue;
    if (!same_kind(k.code[k.sites[it->second].instr], a.op)) continue;
    by_site[it->second].push_back(&a);
  }

  std::vector<bool> is_target(k.code.size(), false);
  for (const ptx::Instr& in : k.code)
    if (in.op == ptx::Opc::Bra && in.target >= 0 &&
        static_cast<std::size_t>(in.target) < is_target.size())
      is_target[static_cast<std::size_t>(in.target)] = true;

  std::vector<bool> claimed(k.sites.size(), false);
  for (const auto& [site, list] : by_site) claimed[static_cast<std::size_t>(site)] = true;

  for (const auto& [site, list] : by_site) {
    const ptx::Instr& in = k.code[k.sites[site].instr];
    const int w = access_width(in);
    SassGroup g;
    for (const SassAccess* a : list) g.opcodes.push_back(a->opcode);
    const SassAccess& first = *list.front();
    g.width = first.width;
    g.sites = {site};
    if (first.form == SassAccess::Form::AtomPopcInc) {
      g.kind = SassGroup::Kind::PopcInc;
    } else if (first.form == SassAccess::Form::AtomAggregated) {
      g.kind = SassGroup::Kind::Aggregated;
    } else if (first.width > w && first.width % w == 0) {
      std::vector<int> members = widened_members(k, site, first.width, claimed, is_target);
      if (members.empty()) {
        plan.unmatched_sites.push_back(site);  // no tiling found: counted at PTX level
        continue;
      }
      for (int m : members) claimed[static_cast<std::size_t>(m)] = true;
      g.kind = SassGroup::Kind::Widened;
      g.sites = std::move(members);
      g.issued_at = site;
    } else {
      g.kind = SassGroup::Kind::Same;
      g.width = w;
    }
    if (g.issued_at < 0) g.issued_at = site;
    const int index = static_cast<int>(plan.groups.size());
    for (int m : g.sites) plan.group_of_site[static_cast<std::size_t>(m)] = index;
    plan.groups.push_back(std::move(g));
  }
  for (std::size_t s = 0; s < k.sites.size(); ++s)
    if (shared_access(k.code[k.sites[s].instr]) && plan.group_of_site[s] < 0 && !claimed[s])
      plan.unmatched_sites.push_back(static_cast<int>(s));
  std::sort(plan.unmatched_sites.begin(), plan.unmatched_sites.end());
  return plan;
}

SassRequests::SassRequests(const SassPlan& plan, emu::Listener& next)
    : plan_(plan), next_(next), member_of_site_(plan.group_of_site.size(), -1) {
  for (const SassGroup& g : plan.groups)
    for (std::size_t m = 0; m < g.sites.size(); ++m)
      member_of_site_[static_cast<std::size_t>(g.sites[m])] = static_cast<int>(m);
}

SassRequests::Pending& SassRequests::pending(int warp, int group) {
  if (static_cast<std::size_t>(warp) >= pending_.size())
    pending_.resize(static_cast<std::size_t>(warp) + 1);
  auto& per_group = pending_[static_cast<std::size_t>(warp)];
  if (per_group.empty()) per_group.resize(plan_.groups.size());
  Pending& p = per_group[static_cast<std::size_t>(group)];
  if (p.events.empty()) p.events.resize(plan_.groups[static_cast<std::size_t>(group)].sites.size());
  return p;
}

// Members that cannot form one request go on as the PTX issued them.
void SassRequests::flush(Pending& p, int /*group*/) {
  if (p.have == 0) return;
  for (std::size_t m = 0; m < p.events.size(); ++m)
    if ((p.have >> m) & 1u) next_.on_access(p.events[m]);
  ++unmerged_;
  p.have = 0;
}

void SassRequests::flush_all() {
  for (auto& per_group : pending_)
    for (std::size_t g = 0; g < per_group.size(); ++g) flush(per_group[g], static_cast<int>(g));
}

void SassRequests::finish() { flush_all(); }

void SassRequests::on_access(const emu::AccessEvent& e) {
  if (e.cta != cta_) {
    flush_all();
    cta_ = e.cta;
  }
  if (e.space != ptx::Space::Shared || e.site < 0 ||
      static_cast<std::size_t>(e.site) >= plan_.group_of_site.size() ||
      plan_.group_of_site[static_cast<std::size_t>(e.site)] < 0) {
    next_.on_access(e);
    return;
  }
  const int gi = plan_.group_of_site[static_cast<std::size_t>(e.site)];
  const SassGroup& g = plan_.groups[static_cast<std::size_t>(gi)];
  switch (g.kind) {
    case SassGroup::Kind::Same:
      next_.on_access(e);
      return;
    case SassGroup::Kind::PopcInc: {
      // One update per distinct 32-bit word: the lanes on a word are counted together.
      emu::AccessEvent r = e;
      for (int l = 0; l < model::kWarpSize; ++l) {
        if (!((r.mask >> l) & 1u)) continue;
        for (int o = 0; o < l; ++o)
          if (((r.mask >> o) & 1u) && e.addr[o] / 4 == e.addr[l] / 4) {
            r.mask &= ~(1u << l);
            break;
          }
      }
      next_.on_access(r);
      return;
    }
    case SassGroup::Kind::Aggregated: {
      emu::AccessEvent r = e;
      r.mask = e.mask & (~e.mask + 1u);  // the lowest active lane issues it
      next_.on_access(r);
      return;
    }
    case SassGroup::Kind::Widened:
      break;
  }
  Pending& p = pending(e.warp, gi);
  const int k = member_of_site_[static_cast<std::size_t>(e.site)];
  if ((p.have >> k) & 1u) flush(p, gi);
  p.events[static_cast<std::size_t>(k)] = e;
  p.have |= 1u << k;
  const std::uint32_t full = (g.sites.size() >= 32) ? ~0u : (1u << g.sites.size()) - 1u;
  if (p.have != full) return;

  // All members present: one request if the lanes agree and the addresses are contiguous
  // from a base aligned to the SASS width.
  const emu::AccessEvent& base = p.events[0];
  bool ok = true;
  for (std::size_t m = 1; m < p.events.size() && ok; ++m) ok = p.events[m].mask == base.mask;
  for (int l = 0; l < model::kWarpSize && ok; ++l) {
    if (!((base.mask >> l) & 1u)) continue;
    ok = base.addr[l] % static_cast<std::uint64_t>(g.width) == 0;
    std::uint64_t at = base.addr[l];
    for (std::size_t m = 0; m < p.events.size() && ok; ++m) {
      ok = p.events[m].addr[l] == at;
      at += p.events[m].width;
    }
  }
  if (!ok) {
    flush(p, gi);
    return;
  }
  emu::AccessEvent r = base;
  r.site = g.issued_at;
  r.width = static_cast<std::uint8_t>(g.width);
  p.have = 0;
  next_.on_access(r);
}

}  // namespace bankcheck::analysis
