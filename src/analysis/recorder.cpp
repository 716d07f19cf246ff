// SharedRecorder: distinct shared requests with their counts.
#include "bankcheck/analysis/recorder.hpp"

#include <algorithm>
#include <bit>

namespace bankcheck::analysis {
namespace {

// Every shared request of a run is hashed (the recorder's lookup): the 32 addresses go
// through four independent multiply chains, two lanes a word, so that the multiplies overlap
// instead of waiting on each other.
std::uint64_t hash_request(const RecordedRequest& r) {
  constexpr std::uint64_t k = 0x9E3779B97F4A7C15ull;
  std::uint64_t h[4] = {static_cast<std::uint64_t>(r.site) * k,
                        (static_cast<std::uint64_t>(r.access.op) << 8 | r.access.width) + k,
                        std::uint64_t{r.access.active} ^ k,
                        static_cast<std::uint64_t>(r.kind) << 16 | std::uint64_t{r.matrices} << 8 |
                            std::uint64_t{r.bypass} << 1 | std::uint64_t{r.src_size}};
  const std::uint32_t* a = r.access.addr;
  for (int l = 0; l < model::kWarpSize; l += 8)
    for (int j = 0; j < 4; ++j) {
      const std::uint64_t w = a[l + 2 * j] | std::uint64_t{a[l + 2 * j + 1]} << 32;
      h[j] = (h[j] ^ w) * k;
      h[j] ^= h[j] >> 31;
    }
  for (std::uint32_t g : r.global) h[0] = ((h[0] ^ g) * k) ^ (h[0] >> 29);
  std::uint64_t x = h[0] ^ std::rotl(h[1], 17) ^ std::rotl(h[2], 31) ^ std::rotl(h[3], 47);
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  return x;
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
  // cp.async.bulk's shared side costs nothing under any remap (site_stats.cpp): not kept.
  if (e.space != ptx::Space::Shared || e.mask == 0 || e.kind == emu::AccessKind::Bulk) return;
  RecordedRequest r;
  r.site = e.site;
  r.access.op = e.op;
  r.access.width = e.width;
  r.access.active = e.mask;
  for (int l = 0; l < model::kWarpSize; ++l)
    r.access.addr[l] = (e.mask >> l) & 1u ? static_cast<std::uint32_t>(e.addr[l]) : 0u;
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

void SharedRecorder::grow() {
  const std::size_t size = slot_index_.empty() ? 1024 : slot_index_.size() * 2;
  std::vector<std::uint64_t> hashes(size, 0);
  std::vector<std::uint32_t> indices(size, 0);
  for (std::size_t s = 0; s < slot_index_.size(); ++s) {
    if (!slot_index_[s]) continue;
    std::size_t i = slot_hash_[s] & (size - 1);
    while (indices[i]) i = (i + 1) & (size - 1);
    hashes[i] = slot_hash_[s];
    indices[i] = slot_index_[s];
  }
  slot_hash_ = std::move(hashes);
  slot_index_ = std::move(indices);
}

void SharedRecorder::add(const RecordedRequest& r) {
  if (slot_index_.empty()) grow();
  const std::uint64_t h = hash_request(r);
  const std::size_t mask = slot_index_.size() - 1;
  std::size_t i = h & mask;
  for (; slot_index_[i]; i = (i + 1) & mask) {
    if (slot_hash_[i] != h) continue;
    RecordedRequest& kept = requests_[slot_index_[i] - 1];
    if (same(kept, r)) {
      kept.count += r.count;
      return;
    }
  }
  if (requests_.size() >= limit_) {
    dropped_ += r.count;
    return;
  }
  requests_.push_back(r);
  slot_hash_[i] = h;
  slot_index_[i] = static_cast<std::uint32_t>(requests_.size());
  if (2 * requests_.size() > slot_index_.size()) grow();
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
