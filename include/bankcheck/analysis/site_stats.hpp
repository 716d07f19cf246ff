// Per-site statistics of an emulated kernel: every shared request through the bank
// model (wavefronts, ideal, worst N-way, the worst request kept for explanation), and
// for global requests the 32-byte sectors touched against the ideal.
#pragma once

#include <cstdint>
#include <vector>

#include "bankcheck/emu/emulator.hpp"
#include "bankcheck/model/analyze.hpp"

namespace bankcheck::analysis {

struct SiteStats {
  bool seen = false;
  ptx::Space space = ptx::Space::Shared;
  model::Op op = model::Op::Load;
  int width = 0;
  std::uint64_t requests = 0;
  // shared
  std::uint64_t wavefronts = 0, ideal_wavefronts = 0;
  std::uint32_t ways = 0;
  // global
  std::uint64_t sectors = 0, ideal_sectors = 0;
  // The request with the most excess (first seen on ties), for explanation.
  bool has_worst = false;
  model::WarpAccess worst;
  model::Verdict worst_verdict;
  std::uint64_t worst_cta = 0;
  int worst_warp = 0;
};

class SiteStatsListener : public emu::Listener {
 public:
  SiteStatsListener(const model::Arch& arch, std::size_t sites) : arch_(arch), sites_(sites) {}
  void on_access(const emu::AccessEvent& e) override;
  // Adds another listener's counts (CTAs run on other threads).
  void merge(const SiteStatsListener& other);
  const std::vector<SiteStats>& sites() const { return sites_; }
  // Set when a shared request could not be analysed (e.g. a width the model refuses).
  const std::vector<int>& refused_sites() const { return refused_; }

 private:
  const model::Arch& arch_;
  std::vector<SiteStats> sites_;
  std::vector<int> refused_;
};

// 32-byte sectors a global request touches, and the fewest it could touch (its active
// lanes' distinct bytes, packed).
struct SectorCount {
  std::uint32_t sectors = 0, ideal = 0;
};
SectorCount count_sectors(const emu::AccessEvent& e);

}  // namespace bankcheck::analysis
