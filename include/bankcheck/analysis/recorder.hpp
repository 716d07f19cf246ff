// Keeps the shared requests of a run for the fix advisor, which replays them under
// remapped addresses. Identical requests (same site, op, width, lanes and addresses) are
// stored once with a count: a tile's pattern repeats in every CTA, so the distinct
// requests stay few even for a whole grid.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bankcheck/analysis/collector.hpp"
#include "bankcheck/emu/events.hpp"
#include "bankcheck/model/access.hpp"

namespace bankcheck::analysis {

struct RecordedRequest {
  int site = -1;
  model::WarpAccess access;  // inactive lanes' addresses are zero
  std::uint64_t count = 0;
  // How the model charges it: an ordinary request, an ldmatrix/stmatrix (a row address per
  // lane, `matrices` phases), or a cp.async's shared side, whose .cg cost depends on where
  // each lane's bytes come from (`global`, one per lane; empty for the other kinds).
  emu::AccessKind kind = emu::AccessKind::Plain;
  std::uint8_t matrices = 0;
  bool bypass = false, src_size = false;
  std::uint32_t reads = ~0u;  // Ldgsts: the lanes that read global memory
  std::vector<std::uint32_t> global;
};

class SharedRecorder : public emu::Listener {
 public:
  // At most `limit` distinct requests are kept; later new ones are only counted as dropped.
  explicit SharedRecorder(std::size_t limit = 1u << 18) : limit_(limit) {}
  void on_access(const emu::AccessEvent& e) override;
  void add(const RecordedRequest& r);
  void merge(const SharedRecorder& other);
  const std::vector<RecordedRequest>& requests() const { return requests_; }
  std::uint64_t dropped() const { return dropped_; }  // requests not kept (limit reached)

 private:
  std::size_t limit_;
  std::vector<RecordedRequest> requests_;
  // An open-addressed index of requests_ (a power-of-two table, at most half full): each slot
  // a request's hash and its index + 1 (0: empty). Every shared request of every analysed CTA
  // looks itself up here (bankcheck run records them all), so it is a flat table, not a
  // node-based map.
  std::vector<std::uint64_t> slot_hash_;
  std::vector<std::uint32_t> slot_index_;
  void grow();
  std::uint64_t dropped_ = 0;
};

// The recorder as a collector (for `fix`): each run of CTAs keeps its own distinct
// requests, merged in the plan's order, so the same requests are kept on any number of
// threads. It writes nothing into the report; the advisor takes the recorder.
class RecorderCollector : public Collector {
 public:
  std::unique_ptr<Part> make_part() override;
  std::unique_ptr<Worker> make_worker() override;
  void merge(Part& part) override;
  void report(KernelReport&) override {}
  bool one_cta_per_part() const override { return true; }
  const SharedRecorder& recorder() const { return recorder_; }
  std::unique_ptr<SharedRecorder> take() {
    return std::make_unique<SharedRecorder>(std::move(recorder_));
  }

 private:
  SharedRecorder recorder_;
};

}  // namespace bankcheck::analysis
