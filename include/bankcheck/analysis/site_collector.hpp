// The per-site statistics as a collector: every request of each memory site through the
// bank model or the sector count, as SASS issues it, and for the sites SASS rewrites the
// same counts as the PTX states them; its share of the report is the sites, in source
// order, with their SASS, the lines Nsight Compute lists them under, and a note for each
// shared site the model has no rule for.
#pragma once

#include <memory>

#include "bankcheck/analysis/collector.hpp"
#include "bankcheck/analysis/site_stats.hpp"

namespace bankcheck::analysis {

class SiteCollector : public Collector {
 public:
  explicit SiteCollector(const KernelContext& context);
  std::unique_ptr<Part> make_part() override;
  std::unique_ptr<Worker> make_worker() override;
  void merge(Part& part) override;
  void report(KernelReport& report) override;

  const SiteStatsListener& stats() const { return stats_; }
  const SiteStatsListener& ptx_stats() const { return ptx_stats_; }

 private:
  KernelContext context_;
  bool rewrites_ = false;  // the plan changes how some shared site is issued
  SiteStatsListener stats_, ptx_stats_;
};

}  // namespace bankcheck::analysis
