// The analyses a run makes (analyses.hpp): the table of built-in ones and the registry of
// the others.
#include "analyses.hpp"

#include <fmt/format.h>

#include <map>
#include <string>

#include "bankcheck/analysis/recorder.hpp"
#include "bankcheck/analysis/site_collector.hpp"
#include "bankcheck/driver/engine.hpp"

namespace bankcheck::driver {
namespace {

std::map<std::string, AnalysisFactory>& registered() {
  static std::map<std::string, AnalysisFactory> table;
  return table;
}

}  // namespace

void register_analysis(const std::string& name, AnalysisFactory make) {
  registered()[name] = std::move(make);
}

std::vector<std::unique_ptr<analysis::Collector>> make_collectors(
    const analysis::KernelContext& c, const CheckOptions& o) {
  std::vector<std::unique_ptr<analysis::Collector>> out;
  out.push_back(std::make_unique<analysis::SiteCollector>(c));
  if (o.record_shared) out.push_back(std::make_unique<analysis::RecorderCollector>());
  for (const std::string& name : o.analyses) {
    const auto it = registered().find(name);
    if (it == registered().end()) {
      std::string known;
      for (const auto& [n, make] : registered()) known += (known.empty() ? "" : ", ") + n;
      throw DriverError(fmt::format("no analysis named '{}' (registered: {})", name,
                                    known.empty() ? "none" : known));
    }
    out.push_back(it->second(c));
  }
  return out;
}

}  // namespace bankcheck::driver
