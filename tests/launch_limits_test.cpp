// Launch limits per architecture: every architecture has a shared-memory limit per block,
// the calculator's own number where it knows the architecture.
#include "bankcheck/model/launch_limits.hpp"

#include <gtest/gtest.h>

#include <string>

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
  EXPECT_EQ(max_shared_per_block(*find_arch("sm_100")), 227 * 1024);
  EXPECT_EQ(max_shared_per_block(*find_arch("sm_110")), 227 * 1024);  // outside the calculator
}

// The one "X[,Y[,Z]]" parser reads back every shape it is given, with or without blanks.
TEST(LaunchLimits, SplitDimsReadsBackEveryShape) {
  for (std::uint32_t x : {1u, 7u, 32u, 1024u})
    for (std::uint32_t y : {1u, 3u, 64u})
      for (std::uint32_t z : {1u, 2u, 64u}) {
        const std::string t = std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z);
        EXPECT_EQ(split_dims(t, false, 0xffffffffu, 0).dims, (Dim3{x, y, z})) << t;
        std::string b = " ";
        b += std::to_string(x);
        b += " , ";
        b += std::to_string(y);
        b += " ,\t";
        b += std::to_string(z);
        b += ' ';
        EXPECT_EQ(split_dims(b, true, 0xffffffffu, 0).dims, (Dim3{x, y, z})) << b;
        EXPECT_EQ(split_dims(b, false, 0xffffffffu, 0).error, DimsText::Error::NotDigits) << b;
      }
  using E = DimsText::Error;
  EXPECT_EQ(split_dims("1,2,3,4", false, 1024, 0).error, E::TooMany);
  EXPECT_EQ(split_dims("1,2,3,4", false, 1024, 0).start, 6u);
  EXPECT_EQ(split_dims("32,", false, 1024, 0).error, E::Empty);
  EXPECT_EQ(split_dims("32,0", false, 1024, 0).error, E::Zero);
  EXPECT_EQ(split_dims("32,0", false, 1024, 0).axis, 1);
  EXPECT_EQ(split_dims("1025", false, 1024, 0).error, E::TooLarge);
  EXPECT_EQ(split_dims("99999999999999999999999", false, 1024, 0).error, E::TooLarge);
  EXPECT_EQ(split_dims("0000001", true, 999999, 6).error, E::TooLarge);
}

}  // namespace
}  // namespace bankcheck::model
