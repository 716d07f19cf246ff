// Launch limits per architecture: every architecture has a shared-memory limit per block,
// the calculator's own number where it knows the architecture.
#include "bankcheck/model/launch_limits.hpp"

#include <gtest/gtest.h>

namespace bankcheck::model {
namespace {

TEST(LaunchLimits, EveryArchitectureHasALimitOfAtLeast16KB) {
  for (const Arch& a : kArchs) {
    EXPECT_GE(max_shared_per_block(a), 16 * 1024) << a.name;
    EXPECT_LE(max_shared_per_block(a), 227 * 1024) << a.name;
  }
}

TEST(LaunchLimits, TheOccupancyCalculatorsArchitecturesUseItsOptInLimit) {
  for (const int cc : kOccupancyArchs) {
    const Arch* a = nullptr;
    for (const Arch& x : kArchs)
      if (x.cc == cc) a = &x;
    ASSERT_NE(a, nullptr) << cc;
    EXPECT_EQ(max_shared_per_block(*a), sm_limits(cc).shared_per_block_optin) << a->name;
  }
}

TEST(LaunchLimits, GenerationsDiffer) {
  EXPECT_EQ(max_shared_per_block(*find_arch("sm_90")), 232448);
  EXPECT_EQ(max_shared_per_block(*find_arch("sm_75")), 64 * 1024);
  EXPECT_EQ(max_shared_per_block(*find_arch("sm_86")), 99 * 1024);
  EXPECT_EQ(max_shared_per_block(*find_arch("sm_52")), 48 * 1024);
  EXPECT_EQ(max_shared_per_block(*find_arch("sm_120")), 99 * 1024);
}

}  // namespace
}  // namespace bankcheck::model
