// The collectors of one kernel joined to the emulator: per worker thread a chain (the
// emulator's events to the collectors that read them, and through the SASS step to those
// that read the requests SASS issues), per run of CTAs one part of each collector.
// The scheduler drives it through this interface and names no analysis.
#pragma once

#include <memory>
#include <vector>

#include "bankcheck/analysis/collector.hpp"
#include "bankcheck/analysis/sass_requests.hpp"

namespace bankcheck::analysis {

class Pipeline {
 public:
  // `plan` (empty for PTX-level counts) outlives the pipeline.
  Pipeline(const SassPlan& plan, std::vector<std::unique_ptr<Collector>> collectors);

  // One part of each collector, in the collectors' order.
  using Parts = std::vector<std::unique_ptr<Part>>;

  // One worker thread's listeners. Bind it to the parts of the CTAs it runs next; after
  // them, finish() hands on the requests SASS had not completed (they belong to them).
  class Chain {
   public:
    // What the emulator sends its events to (empty when no collector listens).
    const std::vector<emu::Listener*>& listeners() const { return listeners_; }
    void bind(Parts& parts);
    void finish();

   private:
    friend class Pipeline;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::unique_ptr<Tee> issued_;
    std::unique_ptr<SassRequests> sass_;
    std::vector<emu::Listener*> listeners_;
  };

  std::unique_ptr<Chain> make_chain() const;
  Parts make_parts() const;
  void merge(Parts& parts);  // in the plan's order
  void clear(Parts& parts);
  // Every collector's share of the report, in the collectors' order.
  void report(KernelReport& report);
  bool empty() const { return collectors_.empty(); }
  bool one_cta_per_part() const;
  const std::vector<std::unique_ptr<Collector>>& collectors() const { return collectors_; }

 private:
  const SassPlan& plan_;
  std::vector<std::unique_ptr<Collector>> collectors_;
};

}  // namespace bankcheck::analysis
