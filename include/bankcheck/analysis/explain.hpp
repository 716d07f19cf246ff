// The analysed block of `bankcheck explain`: each warp's requests through the model, the
// per-warp sums, the worst warp and the block's totals. Views render it; they never
// call the model themselves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/model/analyze.hpp"

namespace bankcheck::analysis {

struct WarpRequest {
  model::WarpAccess access;
  model::Verdict verdict;
  model::Schedule schedule;
};

struct RequestInfo {
  std::string label;  // "tile[threadIdx.x][threadIdx.y]", or "addresses" for raw input
  model::Op op = model::Op::Load;
  int width = 4;
};

// One warp of the block: its verdict for each request, and their sums.
struct WarpResult {
  int warp = 0;
  std::vector<WarpRequest> requests;  // parallel to ExplainResult::requests
  std::uint32_t wavefronts = 0, ideal_wavefronts = 0, ways = 0;
  std::uint32_t excess() const { return model::excess_of(wavefronts, ideal_wavefronts); }
};

struct ExplainResult {
  const model::Arch* arch = &model::kDefaultArch;
  std::string array_name;    // empty for raw addresses
  std::string element_type;  // spelled type of the accessed value
  std::uint64_t array_bytes = 0;
  std::uint32_t block[3] = {32, 1, 1};
  std::vector<RequestInfo> requests;
  std::vector<WarpResult> warps;
  int worst_warp = 0;  // most excess, then most wavefronts, then lowest index
  std::uint64_t total_wavefronts = 0, total_ideal_wavefronts = 0, total_excess = 0;
  // The TMA unit's swizzle mode (model::TmaSwizzle) the addresses were taken through
  // (explain --swizzle; -1: none given), and, when the block conflicts and its array's rows
  // are 32 bytes or wider, the block's cost in each other mode (a tile a tensor copy writes
  // in that mode, read at the same positions): the modes that lower it, best first.
  int swizzle = -1;
  struct SwizzleOption {
    int mode = 0;
    std::uint64_t wavefronts = 0, ideal_wavefronts = 0;
  };
  std::vector<SwizzleOption> swizzle_options;
};

// Moves every lane's address through the swizzle mode (model::tma_swizzle), as a tile a
// tensor copy writes in that mode places the element (explain --swizzle).
void apply_swizzle(ExplainResult& r, int mode);

// Fills r.swizzle_options: the block's cost in each mode other than r.swizzle (its
// addresses un-swizzled, then swizzled by the mode) where it is lower. Call after
// analyze_block; nothing when the block has no excess.
void swizzle_options(ExplainResult& r);

// Runs every warp's requests through the model (verdict and schedule), then fills the
// per-warp sums, the worst warp and the block totals. Returns the first invalid access
// (its verdict's error set) as {request, warp}, or {-1, -1} when all are valid.
struct InvalidAccess {
  int request = -1, warp = -1;
};
InvalidAccess analyze_block(ExplainResult& r);

}  // namespace bankcheck::analysis
