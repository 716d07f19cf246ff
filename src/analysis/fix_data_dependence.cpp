// Data dependence: which shared sites index their array with a value the kernel loaded
// from memory (a histogram's `bins[data[i]]`), found by a taint over the PTX's registers,
// and confirmed on the recorded requests (their lane pattern varies from request to
// request). Such a site's conflicts follow the input: a layout only moves which keys
// collide.
#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "fix_steps.hpp"

namespace bankcheck::analysis {
namespace {

// Where a value can come from memory the input fills: global and generic loads (a generic
// pointer is global unless proven otherwise), and atomics on them; param and const hold the
// launch's own values.
bool reads_input(const ptx::Instr& in) {
  if (in.op != ptx::Opc::Ld && in.op != ptx::Opc::Atom) return false;
  return in.space == ptx::Space::Global || in.space == ptx::Space::Generic;
}

// A memory the kernel writes and reads back: a value stored there carries its origin to
// every load from it (the taint is flow-insensitive: one cell per space).
int space_cell(ptx::Space s) {
  switch (s) {
    case ptx::Space::Shared:
      return 0;
    case ptx::Space::Local:
      return 1;
    default:
      return -1;
  }
}

}  // namespace

std::vector<int> address_origins(const ptx::Kernel& k) {
  // taint[r]: the site of an input load whose value reaches register r, -1 none.
  std::vector<int> reg(k.num_regs, -1), pred(k.num_preds, -1);
  int cell[2] = {-1, -1};
  auto of = [&](const ptx::Opnd& o) {
    if (o.kind == ptx::Opnd::Kind::Reg && o.reg < reg.size()) return reg[o.reg];
    if (o.kind == ptx::Opnd::Kind::Pred && o.reg < pred.size()) return pred[o.reg];
    return -1;
  };
  auto taint = [](int& slot, int origin) {
    if (origin < 0 || slot >= 0) return false;
    slot = origin;
    return true;
  };
  auto define = [&](const ptx::Opnd& o, int origin) {
    if (o.kind == ptx::Opnd::Kind::Reg && o.reg < reg.size()) return taint(reg[o.reg], origin);
    if (o.kind == ptx::Opnd::Kind::Pred && o.reg < pred.size()) return taint(pred[o.reg], origin);
    return false;
  };
  // Until nothing changes: each pass only adds taint, and there are finitely many slots.
  for (bool changed = true; changed;) {
    changed = false;
    for (const ptx::Instr& in : k.code) {
      int origin = -1;
      auto from = [&](int o) {
        if (origin < 0) origin = o;
      };
      for (int i = 0; i < in.nsrc; ++i) from(of(in.src[i]));
      for (std::size_t i = in.frag_defs; i < in.frag.size(); ++i) from(of(in.frag[i]));
      if (in.guard >= 0 && static_cast<std::size_t>(in.guard) < pred.size()) from(pred[in.guard]);
      if (in.mem.has_reg && in.mem.reg < reg.size() &&
          (in.op == ptx::Opc::Ld || in.op == ptx::Opc::Atom))
        from(reg[in.mem.reg]);  // a value read at an input-dependent address
      if (reads_input(in)) from(in.site);
      const int c = space_cell(in.space);
      if (c >= 0) {
        if (in.op == ptx::Opc::Ld || in.op == ptx::Opc::Atom) from(cell[c]);
        if (in.op == ptx::Opc::St || in.op == ptx::Opc::Atom || in.op == ptx::Opc::Red)
          changed |= taint(cell[c], origin);
      }
      if (in.op == ptx::Opc::CpAsync || (in.op == ptx::Opc::CpAsyncBulk && !in.mod.mbar.to_global))
        changed |= taint(cell[0], in.site2);                          // global -> shared
      if (in.op == ptx::Opc::St || in.op == ptx::Opc::Red) continue;  // no register written
      for (int i = 0; i < in.ndst; ++i) changed |= define(in.dst[i], origin);
      for (std::size_t i = 0; i < in.frag_defs && i < in.frag.size(); ++i)
        changed |= define(in.frag[i], origin);
    }
  }
  std::vector<int> out(k.sites.size(), -1);
  for (std::size_t s = 0; s < k.sites.size(); ++s) {
    const ptx::Instr& in = k.code[k.sites[s].instr];
    if (in.space == ptx::Space::Shared && in.mem.has_reg && in.mem.reg < reg.size())
      out[s] = reg[in.mem.reg];
  }
  return out;
}

bool pattern_varies(const Requests& reqs, int site) {
  // A request's pattern: its lanes, and each lane's address from the first active lane's.
  std::set<std::vector<std::int64_t>> seen;
  for (const RecordedRequest* r : reqs) {
    if (r->site != site) continue;
    std::vector<std::int64_t> p = {r->access.active};
    int first = -1;
    for (int l = 0; l < model::kWarpSize; ++l) {
      if (!r->access.lane_active(l)) continue;
      if (first < 0) first = l;
      p.push_back(static_cast<std::int64_t>(r->access.addr[l]) - r->access.addr[first]);
    }
    seen.insert(std::move(p));
    if (seen.size() > 1) return true;
  }
  return false;
}

std::optional<DataDependence> data_dependence(const ptx::Kernel& k, const KernelReport& rep,
                                              const std::vector<int>& origins, const Requests& reqs,
                                              const std::vector<int>& sites, std::uint64_t excess) {
  DataDependence dd;
  std::uint64_t worst = 0;
  for (int site : sites) {
    const auto s = static_cast<std::size_t>(site);
    if (s >= origins.size() || origins[s] < 0 || !pattern_varies(reqs, site)) continue;
    const auto it = std::find_if(rep.sites.begin(), rep.sites.end(),
                                 [&](const SiteReport& r) { return r.site == site; });
    if (it == rep.sites.end()) continue;
    const std::uint64_t e = it->stats.wavefronts - it->stats.ideal_wavefronts;
    dd.excess += e;
    if (dd.site >= 0 && e <= worst) continue;
    worst = e;
    dd.site = site;
    dd.line = it->line;
    dd.op = it->stats.op;
    const ptx::Site& load = k.sites[static_cast<std::size_t>(origins[s])];
    dd.load_file = load.file;
    dd.load_line = load.line;
    dd.load_global = k.code[load.instr].space == ptx::Space::Global;
    dd.merged = DataDependence::Merged::None;
    for (const std::string& op : it->sass)
      if (op.find("POPC.INC") != std::string::npos) dd.merged = DataDependence::Merged::PopcInc;
  }
  if (dd.site < 0 || dd.excess == 0 || 2 * dd.excess < excess) return std::nullopt;
  if (dd.merged == DataDependence::Merged::None &&
      (dd.op == model::Op::Atomic || dd.op == model::Op::AtomicCas) &&
      std::any_of(k.code.begin(), k.code.end(), [](const ptx::Instr& in) {
        return in.op == ptx::Opc::Match && in.mod.match == ptx::MatchMode::Any;
      }))
    dd.merged = DataDependence::Merged::Match;
  return dd;
}

}  // namespace bankcheck::analysis
