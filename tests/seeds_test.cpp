// Every numeric claim of the seed articles (shared/seeds), checked through `bankcheck explain`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using bankcheck::testing::run_tool;
using nlohmann::json;

json explain(std::vector<std::string> args) {
  args.insert(args.begin(), "explain");
  args.push_back("--format");
  args.push_back("json");
  const auto r = run_tool(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json::object({{"ways", -1}, {"total_excess", -1}});
}

// Seed 000 (Russian), cc 1.x: 16 banks, half-warps, one broadcast word per pass.
TEST(Seed000, Tesla8And16BitAccessesConflictAndTheirFixesDoNot) {
  EXPECT_EQ(explain({"--arch", "sm_13", "--decl", "char shmem8[32]", "--expr",
                     "shmem8[threadIdx.x]"})["ways"],
            4);
  EXPECT_EQ(explain({"--arch", "sm_13", "--decl", "char shmem8[32*4]", "--expr",
                     "shmem8[threadIdx.x*4]"})["ways"],
            1);
  EXPECT_EQ(explain({"--arch", "sm_13", "--decl", "short shmem16[32]", "--expr",
                     "shmem16[threadIdx.x]"})["ways"],
            2);
  EXPECT_EQ(explain({"--arch", "sm_13", "--decl", "short shmem16[32*2]", "--expr",
                     "shmem16[threadIdx.x*2]"})["ways"],
            1);
}

TEST(Seed000, TeslaInterleavedIntsAre2WayAndSeparateArraysAreNot) {
  const json a =
      explain({"--arch", "sm_13", "--decl", "int shmem32[64]", "--expr", "shmem32[threadIdx.x*2]"});
  EXPECT_EQ(a["ways"], 2);
  // "threads 0 and 8 read banks 0 and 1": lanes 0 and 8 collide in bank 0.
  EXPECT_NE(a["warps"][0]["requests"][0]["why"].get<std::string>().find("lanes 0 and 8"),
            std::string::npos);
  EXPECT_EQ(explain({"--arch", "sm_13", "--decl", "int shmem32[64]", "--expr",
                     "shmem32[threadIdx.x*2+1]"})["ways"],
            2);
  EXPECT_EQ(explain({"--arch", "sm_13", "--decl", "int shmem32_1[32]", "--expr",
                     "shmem32_1[threadIdx.x]"})["ways"],
            1);
}

TEST(Seed000, Fermi8And16BitAccessesAreFree) {
  EXPECT_EQ(
      explain({"--arch", "sm_20", "--decl", "char s[32]", "--expr", "s[threadIdx.x]"})["ways"], 1);
  EXPECT_EQ(
      explain({"--arch", "sm_20", "--decl", "short s[32]", "--expr", "s[threadIdx.x]"})["ways"], 1);
}

TEST(Seed000, FermiStrideConflictsIffEven) {
  for (int s = 1; s <= 32; ++s) {
    const json j = explain({"--arch", "sm_20", "--type", "int", "--expr", "threadIdx.x*s", "--set",
                            "s=" + std::to_string(s)});
    EXPECT_EQ(j["ways"].get<int>() > 1, s % 2 == 0) << "s = " << s;
  }
}

TEST(Seed000, FermiWideAccesses) {
  // 64-bit: a conflict only between lanes of one half-warp.
  EXPECT_EQ(explain({"--arch", "sm_20", "--type", "double", "--expr", "tid"})["ways"], 1);
  EXPECT_EQ(explain({"--arch", "sm_20", "--type", "double", "--expr", "tid*2"})["ways"], 2);
  // Lanes 0 and 16 share a bank but sit in different half-warps: no conflict.
  EXPECT_EQ(explain({"--arch", "sm_20", "--type", "double", "--expr",
                     "tid < 16 ? tid : tid + 16"})["ways"],
            1);
  // 128-bit: usually 2-way even without collisions inside a quarter-warp.
  EXPECT_EQ(explain({"--arch", "sm_20", "--type", "float4", "--expr", "tid"})["ways"], 2);
}

// Seed 001 (Chinese): 256 threads read shared_data[(tid%32)*32 + tid/32] where it is < 256.
TEST(Seed001, StridedReadHas56ConflictsForTheBlock) {
  const json j = explain({"--decl", "float shared_data[256]", "--expr",
                          "shared_data[(tid % 32) * 32 + tid / 32]", "--active",
                          "(tid % 32) * 32 + tid / 32 < 256", "--block", "256"});
  EXPECT_EQ(j["total_excess"], 56);
  EXPECT_EQ(j["ways"], 8);
  const json fixed =
      explain({"--decl", "float shared_data[256]", "--expr", "shared_data[tid]", "--block", "256"});
  EXPECT_EQ(fixed["total_excess"], 0);
  const json store = explain({"--op", "st", "--decl", "float shared_data[256]", "--expr",
                              "shared_data[tid]", "--block", "256"});
  EXPECT_EQ(store["total_excess"], 0);
}

// Seed 003 (English), cc 1.x: structures of three floats do not conflict, of two do.
TEST(Seed003, TeslaStructOfThreeFloatsIsFreeOfTwoIs2Way) {
  const json three = explain({"--arch", "sm_13", "--decl", "struct { float x, y, z; } shared[32]",
                              "--expr", "shared[tid]"});
  EXPECT_EQ(three["requests"].size(), 3u) << "x, y and z are three 32-bit requests";
  EXPECT_EQ(three["ways"], 1);
  const json two = explain(
      {"--arch", "sm_13", "--decl", "struct { float x, y; } shared[32]", "--expr", "shared[tid]"});
  EXPECT_EQ(two["requests"].size(), 2u);
  EXPECT_EQ(two["ways"], 2);
  for (const auto& r : two["warps"][0]["requests"]) EXPECT_EQ(r["ways"], 2);
}

// Seed 004 (Japanese): the 32x32 transpose tile.
TEST(Seed004, TransposedReadOfTileIs32WayPaddingAndRotationFixIt) {
  const std::vector<std::string> block = {"--block", "32,32"};
  auto with_block = [&](std::vector<std::string> a) {
    a.insert(a.end(), block.begin(), block.end());
    return explain(a);
  };
  // Write tile[ty][tx]: clean; read tile[tx][ty]: 32-way in every warp.
  EXPECT_EQ(with_block({"--op", "st", "--decl", "float tile[32][32]", "--expr",
                        "tile[threadIdx.y][threadIdx.x]"})["ways"],
            1);
  const json naive =
      with_block({"--decl", "float tile[32][32]", "--expr", "tile[threadIdx.x][threadIdx.y]"});
  EXPECT_EQ(naive["ways"], 32);
  EXPECT_EQ(naive["total_excess"], 32 * 31);
  // Padding to [32][33].
  EXPECT_EQ(with_block({"--decl", "float tile[32][33]", "--expr",
                        "tile[threadIdx.x][threadIdx.y]"})["ways"],
            1);
  EXPECT_EQ(with_block({"--op", "st", "--decl", "float tile[32][33]", "--expr",
                        "tile[threadIdx.y][threadIdx.x]"})["ways"],
            1);
  // Rotation without padding, on the write and on the read.
  const json wr = with_block({"--op", "st", "--decl", "float tile[32][32]", "--expr",
                              "tile[threadIdx.y][(threadIdx.x + threadIdx.y) % 32]"});
  const json rd = with_block({"--decl", "float tile[32][32]", "--expr",
                              "tile[threadIdx.x][(threadIdx.x + threadIdx.y) % 32]"});
  EXPECT_EQ(wr["total_excess"], 0);
  EXPECT_EQ(rd["total_excess"], 0);
}

}  // namespace
