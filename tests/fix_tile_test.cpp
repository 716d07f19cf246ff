// fix and explain speak the TMA unit's swizzle modes: a tile a tensor copy writes without a
// swizzle (tests/data/fix/tma_tile.cu, its map given as --arg map=tensormap:...) and read down
// a column gets the 128-byte swizzle, what it buys, and the layout change it needs; explain
// --swizzle gives the modes that lower one request's cost.
#include <gtest/gtest.h>

#include <string>

#include "bankcheck/analysis/explain.hpp"
#include "bankcheck/driver/fix.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/model/swizzle.hpp"
#include "bankcheck/report/fix_wording.hpp"
#include "require_nvcc.hpp"

namespace drv = bankcheck::driver;
namespace an = bankcheck::analysis;
namespace model = bankcheck::model;

namespace {

}  // namespace

TEST(FixTile, ATmaTileWithoutSwizzleGetsTheMode) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  drv::FixOptions o;
  o.check.input = std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/fix/tma_tile.cu";
  o.check.flags.blocks = "all";
  o.check.threads = 2;
  const an::FixReport r = drv::fix(o);
  ASSERT_EQ(r.kernels.size(), 1u);
  const an::ArrayFix* tile = nullptr;
  for (const auto& a : r.kernels[0].arrays)
    if (a.name == "tile") tile = &a;
  ASSERT_NE(tile, nullptr);
  ASSERT_TRUE(tile->tile.has_value());
  EXPECT_EQ(tile->tile->mode, 0);          // written without a swizzle
  EXPECT_EQ(tile->tile->row_bytes, 128u);  // 64 halves a row
  EXPECT_GT(tile->tile->copy_line, 0);
  // 2 CTAs x 1 warp x one ldmatrix.x4 of 4 column matrices: 8 wavefronts each, 1 swizzled.
  EXPECT_EQ(tile->wavefronts, 2u * 4 * 8);
  ASSERT_FALSE(tile->suggestions.empty());
  const an::Suggestion& s = tile->suggestions.front();
  EXPECT_EQ(s.remap.kind, an::FixKind::TmaSwizzle);
  EXPECT_EQ(s.remap.bits, 3);
  EXPECT_EQ(s.wavefronts_before, 64u);
  EXPECT_EQ(s.wavefronts_after, 8u);
  const std::string change = bankcheck::report::suggestion_change(*tile, s);
  EXPECT_NE(change.find("CU_TENSOR_MAP_SWIZZLE_128B"), std::string::npos) << change;
  EXPECT_NE(change.find("1024 bytes"), std::string::npos) << change;
  EXPECT_NE(change.find(std::to_string(tile->tile->copy_line)), std::string::npos) << change;
  const std::string formula = bankcheck::report::suggestion_formula(*tile, s);
  EXPECT_NE(formula.find("Swizzle<3,4,3>"), std::string::npos) << formula;
  // The smaller modes do not reach the 128-byte row's eight chunks: 64B halves the cost.
  for (const auto& other : tile->suggestions) EXPECT_GE(other.wavefronts_after, 8u);
}

// explain: eight rows of one 16-byte column, as a quarter-warp's 16-byte loads; --swizzle
// none says a tensor copy wrote them unswizzled.
TEST(FixTile, ExplainListsTheModesThatLowerTheCost) {
  an::ExplainResult r;
  r.requests.push_back({"addresses", model::Op::Load, 16});
  an::WarpResult w;
  an::WarpRequest q;
  q.access.op = model::Op::Load;
  q.access.width = 16;
  q.access.active = 0xFFFFFFFFu;
  for (int l = 0; l < 32; ++l) q.access.addr[l] = static_cast<std::uint32_t>(128 * l);
  w.requests.push_back(q);
  r.warps.push_back(w);
  an::apply_swizzle(r, 0);
  ASSERT_LT(an::analyze_block(r).request, 0);
  EXPECT_EQ(r.total_wavefronts, 32u);  // 8 lanes of a quarter-warp in one bank group, 4 phases
  an::swizzle_options(r);
  ASSERT_FALSE(r.swizzle_options.empty());
  EXPECT_EQ(r.swizzle_options.front().mode, 3);
  EXPECT_EQ(r.swizzle_options.front().wavefronts, 4u);
  // Already 128B-swizzled addresses: nothing lowers them.
  an::ExplainResult s = r;
  s.swizzle_options.clear();
  an::apply_swizzle(s, 3);
  ASSERT_LT(an::analyze_block(s).request, 0);
  EXPECT_EQ(s.total_wavefronts, 4u);
  an::swizzle_options(s);
  EXPECT_TRUE(s.swizzle_options.empty());
}
