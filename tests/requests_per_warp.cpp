// A toy analysis, as a new one is added: shared requests per warp of the CTA, counted as SASS
// issues them. This file and its one registration line at the end are all it takes
// (docs/architecture.md, "Add an analysis"); analysis_plugin_test.cpp runs it.
#include <map>
#include <memory>
#include <string>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/collector.hpp"
#include "bankcheck/driver/engine.hpp"

namespace {

using namespace bankcheck;

struct Counts : analysis::Part {
  std::map<int, std::uint64_t> by_warp;
  void clear() override { by_warp.clear(); }
};

class CountingWorker : public analysis::Worker, public emu::Listener {
 public:
  void bind(analysis::Part& part) override { to_ = &static_cast<Counts&>(part); }
  emu::Listener* issued() override { return this; }
  void on_access(const emu::AccessEvent& e) override {
    if (e.space == ptx::Space::Shared) ++to_->by_warp[e.warp];
  }

 private:
  Counts* to_ = nullptr;
};

class RequestsPerWarp : public analysis::Collector {
 public:
  std::unique_ptr<analysis::Part> make_part() override { return std::make_unique<Counts>(); }
  std::unique_ptr<analysis::Worker> make_worker() override {
    return std::make_unique<CountingWorker>();
  }
  void merge(analysis::Part& part) override {
    for (const auto& [warp, n] : static_cast<Counts&>(part).by_warp) total_.by_warp[warp] += n;
  }
  void report(analysis::KernelReport& r) override {
    analysis::AnalysisCounts out{"requests_per_warp", {}};
    for (const auto& [warp, n] : total_.by_warp) out.counts.push_back({"warp " + std::to_string(warp), n});
    r.analyses.push_back(std::move(out));
  }

 private:
  Counts total_;
};

const bool registered = (driver::register_analysis(
                             "requests_per_warp",
                             [](const analysis::KernelContext&) {
                               return std::make_unique<RequestsPerWarp>();
                             }),
                         true);

}  // namespace
