// SharedRecorder: distinct shared requests with their counts.
#include "bankcheck/analysis/recorder.hpp"

#include <algorithm>

namespace bankcheck::analysis {
namespace {

std::uint64_t hash_request(const RecordedRequest& r) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
    h ^= h >> 29;
  };
  mix(static_cast<std::uint64_t>(r.site));
  mix(static_cast<std::uint64_t>(r.access.op) << 8 | r.access.width);
  mix(r.access.active);
  for (int l = 0; l < model::kWarpSize; ++l) mix(r.access.addr[l]);
  mix(static_cast<std::uint64_t>(r.kind) << 16 | std::uint64_t{r.matrices} << 8 |
      std::uint64_t{r.bypass} << 1 | std::uint64_t{r.src_size});
  for (std::uint32_t g : r.global) mix(g);
  return h;
}

bool same(const RecordedRequest& a, const RecordedRequest& b) {
  return a.site == b.site && a.access.op == b.access.op && a.access.width == b.access.width &&
         a.access.active == b.access.active &&
         std::equal(std::begin(a.access.addr), std::end(a.access.addr),
                    std::begin(b.access.addr)) &&
         a.kind == b.kind && a.matrices == b.matrices && a.bypass == b.bypass &&
         a.src_size == b.src_size && a.reads == b.reads && a.global == b.global;
}

}  // namespace

void SharedRecorder::on_access(const emu::AccessEvent& e) {
  // What costs the same under any remap is not kept (site_stats.cpp): the TMA unit's copies,
  // wgmma's operand reads (their bytes alone count), another CTA's shared memory.
  if (e.space != ptx::Space::Shared || e.mask == 0 || e.kind == emu::AccessKind::Bulk ||
      e.kind == emu::AccessKind::Wgmma)
    return;
  std::uint32_t mask = e.mask;
  for (int l = 0; l < model::kWarpSize; ++l)
    if ((e.addr[l] >> ptx::kClusterRankShift) != 0) mask &= ~(1u << l);
  if (mask == 0) return;
  RecordedRequest r;
  r.site = e.site;
  r.access.op = e.op;
  r.access.width = e.width;
  r.access.active = mask;
  for (int l = 0; l < model::kWarpSize; ++l)
    r.access.addr[l] = (mask >> l) & 1u ? static_cast<std::uint32_t>(e.addr[l]) : 0u;
  r.kind = e.kind;
  if (e.kind == emu::AccessKind::Matrix) r.matrices = e.matrices;
  if (e.kind == emu::AccessKind::Ldgsts) {
    r.bypass = e.bypass;
    r.src_size = e.src_size;
    r.reads = e.reads;
    r.global.assign(model::kWarpSize, 0);
    for (int l = 0; l < model::kWarpSize; ++l)
      if ((e.mask >> l) & 1u)
        r.global[static_cast<size_t>(l)] = static_cast<std::uint32_t>(e.global_addr[l]);
  }
  r.count = 1;
  add(r);
}

void SharedRecorder::add(const RecordedRequest& r) {
  const std::uint64_t h = hash_request(r);
  auto [from, to] = index_.equal_range(h);
  for (auto it = from; it != to; ++it) {
    RecordedRequest& kept = requests_[it->second];
    if (same(kept, r)) {
      kept.count += r.count;
      return;
    }
  }
  if (requests_.size() >= limit_) {
    dropped_ += r.count;
    return;
  }
  index_.emplace(h, static_cast<std::uint32_t>(requests_.size()));
  requests_.push_back(r);
}

void SharedRecorder::merge(const SharedRecorder& other) {
  for (const auto& r : other.requests_) add(r);
  dropped_ += other.dropped_;
}

namespace {

struct RecorderPart : Part {
  void clear() override { recorder = SharedRecorder(); }
  SharedRecorder recorder;
};

class RecorderWorker : public Worker, public emu::Listener {
 public:
  void bind(Part& part) override { to_ = &static_cast<RecorderPart&>(part).recorder; }
  emu::Listener* issued() override { return this; }
  void on_access(const emu::AccessEvent& e) override { to_->on_access(e); }

 private:
  SharedRecorder* to_ = nullptr;
};

}  // namespace

std::unique_ptr<Part> RecorderCollector::make_part() { return std::make_unique<RecorderPart>(); }

std::unique_ptr<Worker> RecorderCollector::make_worker() {
  return std::make_unique<RecorderWorker>();
}

void RecorderCollector::merge(Part& part) {
  recorder_.merge(static_cast<RecorderPart&>(part).recorder);
}

}  // namespace bankcheck::analysis
