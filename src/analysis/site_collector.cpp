// The per-site statistics as a collector (site_collector.hpp).
#include "bankcheck/analysis/site_collector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/known_differences.hpp"
#include "bankcheck/analysis/nsight_lines.hpp"
#include "bankcheck/analysis/sass_requests.hpp"

namespace bankcheck::analysis {
namespace {

struct SitePart : Part {
  SitePart(const model::Arch& arch, std::size_t sites) : stats(arch, sites), ptx_stats(arch, sites) {}
  void clear() override {
    stats.clear();
    ptx_stats.clear();
  }
  SiteStatsListener stats, ptx_stats;
};

// Sends a thread's events to the part of the CTAs it is running.
class Redirect : public emu::Listener {
 public:
  emu::Listener* to = nullptr;
  void on_access(const emu::AccessEvent& e) override { to->on_access(e); }
};

class SiteWorker : public Worker {
 public:
  SiteWorker(const KernelContext& c, bool rewrites)
      : memo_(c.arch), ptx_memo_(c.arch), filter_(c.plan, ptx_stats_), rewrites_(rewrites) {}
  void bind(Part& part) override {
    auto& p = static_cast<SitePart&>(part);
    stats_.to = &p.stats;
    ptx_stats_.to = &p.ptx_stats;
    p.stats.set_memo(&memo_);
    p.ptx_stats.set_memo(&ptx_memo_);
  }
  emu::Listener* issued() override { return &stats_; }
  // The PTX-level counts of the sites SASS rewrites, when there are any.
  emu::Listener* emulated() override { return rewrites_ ? &filter_ : nullptr; }

 private:
  VerdictMemo memo_, ptx_memo_;  // for stats and ptx_stats
  Redirect stats_, ptx_stats_;
  RewrittenOnly filter_;
  bool rewrites_;
};

}  // namespace

SiteCollector::SiteCollector(const KernelContext& c)
    : context_(c),
      rewrites_(c.plan.families > 0 || !c.plan.sites.empty()),
      stats_(c.arch, c.kernel.sites.size()),
      ptx_stats_(c.arch, c.kernel.sites.size()) {}

std::unique_ptr<Part> SiteCollector::make_part() {
  return std::make_unique<SitePart>(context_.arch, context_.kernel.sites.size());
}

std::unique_ptr<Worker> SiteCollector::make_worker() {
  return std::make_unique<SiteWorker>(context_, rewrites_);
}

void SiteCollector::merge(Part& part) {
  auto& p = static_cast<SitePart&>(part);
  stats_.merge(p.stats);
  ptx_stats_.merge(p.ptx_stats);
}

void SiteCollector::report(KernelReport& rep) {
  const ptx::Kernel& k = context_.kernel;
  const SassPlan& plan = context_.plan;
  for (const int site : stats_.refused_sites()) {
    const auto& st = k.sites[static_cast<size_t>(site)];
    rep.notes.push_back(
        {st.file, st.line, st.col,
         fmt::format("no bank rule for this shared access ({}); it is left out of the counts",
                     st.text)});
  }
  static const std::vector<int> no_files;
  const std::vector<int>& file_of = context_.sass_files ? *context_.sass_files : no_files;
  // A cp.async's global side is the same SASS instruction as its shared side (one LDGSTS
  // row in Nsight Compute): it takes that site's instructions and lines.
  std::vector<int> copy_of(k.sites.size(), -1);
  for (const ptx::Instr& in : k.code)
    if (in.op == ptx::Opc::CpAsync && in.site >= 0 && in.site2 >= 0 &&
        static_cast<size_t>(in.site2) < copy_of.size())
      copy_of[static_cast<size_t>(in.site2)] = in.site;
  for (size_t i = 0; i < k.sites.size(); ++i) {
    const auto& st = stats_.sites()[i];
    const auto& pst = ptx_stats_.sites()[i];
    if (!st.seen && !pst.seen) continue;
    const auto& site = k.sites[i];
    SiteReport sr;
    sr.site = static_cast<int>(i);
    sr.file = site.file;
    sr.line = site.line;
    sr.col = site.col;
    sr.ptx_line = site.ptx_line;
    sr.ptx = site.text;
    sr.stats = st;
    if (i < plan.sites.size()) {
      const int shared_side = copy_of[i];
      const bool copy = shared_side >= 0 && static_cast<size_t>(shared_side) < plan.sites.size() &&
                        !plan.sites[static_cast<size_t>(shared_side)].offsets.empty();
      const SassSite& ps = plan.sites[copy ? static_cast<size_t>(shared_side) : i];
      sr.sass = ps.opcodes;
      if (context_.sass) {
        // A site the SASS plan does not follow (global and generic accesses): the memory
        // instructions the line table ties to its PTX line.
        const std::vector<std::uint32_t> offsets =
            ps.offsets.empty() && site.ptx_line > 0
                ? sass::memory_instructions_at(*context_.sass,
                                               static_cast<std::uint32_t>(site.ptx_line))
                : ps.offsets;
        sr.nsight_lines = nsight_lines(*context_.sass, file_of, offsets);
      }
      // No source line in the PTX, or a store merged into an STS of another line: the line
      // Nsight Compute lists its SASS on.
      const bool merged = plan.sites[i].kind == SassSite::Kind::Merged;
      if (const ptx::SourcePos& p = plan.sites[i].placed; (sr.line == 0 || merged) && p.line > 0) {
        sr.file = p.file;
        sr.line = p.line;
        sr.col = p.col;
      }
    }
    if (i < plan.sites.size() && plan.sites[i].kind == SassSite::Kind::Removed) {
      // The hardware never issues it: a note, and no counts (docs/json.md, removed_sites).
      rep.notes.push_back(
          {site.file, site.line, site.col,
           fmt::format("ptxas removed this shared access (no SASS instruction for PTX line {}): "
                       "not counted ({} request{} at PTX level)",
                       site.ptx_line, pst.requests, pst.requests == 1 ? "" : "s")});
      sr.ptx_stats = pst;
      rep.removed_sites.push_back(std::move(sr));
      continue;
    }
    sr.rewritten = pst.seen;
    sr.inlined = site.inlined;
    sr.stack = site.stack;
    sr.ptx_stats = pst;
    (st.seen ? rep.sites : rep.folded_sites).push_back(std::move(sr));
  }
  note_known_differences(k, plan, rep);
  std::stable_sort(rep.sites.begin(), rep.sites.end(), [](const SiteReport& a, const SiteReport& b) {
    return std::tie(a.file, a.line, a.col) < std::tie(b.file, b.line, b.col);
  });
}

}  // namespace bankcheck::analysis
