// The collectors of one kernel joined to the emulator (pipeline.hpp).
#include "bankcheck/analysis/pipeline.hpp"

namespace bankcheck::analysis {

Pipeline::Pipeline(const SassPlan& plan, std::vector<std::unique_ptr<Collector>> collectors)
    : plan_(plan), collectors_(std::move(collectors)) {}

std::unique_ptr<Pipeline::Chain> Pipeline::make_chain() const {
  auto chain = std::make_unique<Chain>();
  std::vector<emu::Listener*> issued;
  for (const auto& c : collectors_) {
    chain->workers_.push_back(c->make_worker());
    Worker& w = *chain->workers_.back();
    if (emu::Listener* l = w.emulated()) chain->listeners_.push_back(l);
    if (emu::Listener* l = w.issued()) issued.push_back(l);
  }
  if (!issued.empty()) {
    // The SASS step hands each request to the one reader directly, or to several in order.
    emu::Listener* next = issued.front();
    if (issued.size() > 1) {
      chain->issued_ = std::make_unique<Tee>();
      for (emu::Listener* l : issued) chain->issued_->add(l);
      next = chain->issued_.get();
    }
    chain->sass_ = std::make_unique<SassRequests>(plan_, *next);
    chain->listeners_.push_back(chain->sass_.get());
  }
  return chain;
}

void Pipeline::Chain::bind(Parts& parts) {
  for (std::size_t i = 0; i < workers_.size(); ++i) workers_[i]->bind(*parts[i]);
}

void Pipeline::Chain::finish() {
  if (sass_) sass_->finish();
}

Pipeline::Parts Pipeline::make_parts() const {
  Parts parts;
  for (const auto& c : collectors_) parts.push_back(c->make_part());
  return parts;
}

void Pipeline::merge(Parts& parts) {
  for (std::size_t i = 0; i < collectors_.size(); ++i) collectors_[i]->merge(*parts[i]);
}

void Pipeline::clear(Parts& parts) {
  for (auto& p : parts) p->clear();
}

bool Pipeline::one_cta_per_part() const {
  for (const auto& c : collectors_)
    if (c->one_cta_per_part()) return true;
  return false;
}

void Pipeline::report(KernelReport& report) {
  for (auto& c : collectors_) c->report(report);
}

}  // namespace bankcheck::analysis
