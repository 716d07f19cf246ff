// Immediate post-dominators (src/ptx/post_dominators.hpp) against the definition: post-dominator
// sets computed as bit sets to their fixed point, on random graphs with loops, branches that
// never reach the exit and unreachable code; and a graph of 200,000 blocks in well under a
// second, where the bit sets took minutes.
#include "post_dominators.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

namespace bankcheck::ptx::detail {
namespace {

// The definition: pdom(exit) = {exit}; pdom(b) = {b} + the intersection of its successors'
// sets, iterated from "every node" to the fixed point; the immediate one is the strict
// post-dominator with the largest set. -1 for a node that cannot reach the exit.
std::vector<int> by_sets(const std::vector<std::vector<int>>& g) {
  const int n = static_cast<int>(g.size()), exit_node = n;
  std::vector<std::vector<bool>> pdom(n + 1, std::vector<bool>(n + 1, true));
  pdom[exit_node].assign(n + 1, false);
  pdom[exit_node][exit_node] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (int b = 0; b < n; ++b) {
      std::vector<bool> acc(n + 1, true);  // a node without successors: never the exit
      for (int t : g[b])
        for (int x = 0; x <= n; ++x) acc[x] = acc[x] && pdom[t][x];
      acc[b] = true;
      if (acc != pdom[b]) {
        pdom[b] = acc;
        changed = true;
      }
    }
  }
  std::vector<bool> reaches(n + 1, false);
  reaches[exit_node] = true;
  for (bool grew = true; grew;) {
    grew = false;
    for (int b = 0; b < n; ++b)
      for (int t : g[b])
        if (reaches[t] && !reaches[b]) reaches[b] = grew = true;
  }
  std::vector<int> out(n, -1);
  for (int b = 0; b < n; ++b) {
    if (!reaches[b]) continue;
    int best = -1, best_count = -1;
    for (int x = 0; x <= n; ++x) {
      if (x == b || !pdom[b][x]) continue;
      int c = 0;
      for (bool y : pdom[x]) c += y;
      if (c > best_count) best = x, best_count = c;
    }
    out[b] = best;
  }
  return out;
}

TEST(PostDominators, WorkedExample) {
  EXPECT_EQ(immediate_post_dominators({{1, 2}, {3}, {3}, {4}}), (std::vector<int>{3, 3, 3, 4}));
  // A loop left only through the exit edge of its header; a block that loops forever.
  EXPECT_EQ(immediate_post_dominators({{1}, {2, 4}, {1}, {3}}), (std::vector<int>{1, 4, 1, -1}));
}

TEST(PostDominators, AgreeWithTheSetsOnRandomGraphs) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 24);
    std::vector<std::vector<int>> g(n);
    for (int b = 0; b < n; ++b) {
      // Mostly fall-through and forward branches, some back edges and exits, as code has.
      const int edges = static_cast<int>(rng() % 3);
      for (int e = 0; e <= edges; ++e) {
        const unsigned kind = rng() % 8;
        int t = kind < 4 ? b + 1 : kind < 6 ? static_cast<int>(rng() % (n + 1)) : kind < 7 ? n : b;
        if (t > n) t = n;
        g[b].push_back(t);
      }
      if (rng() % 16 == 0) g[b].clear();  // a node with no successors (never the exit)
    }
    SCOPED_TRACE(trial);
    ASSERT_EQ(immediate_post_dominators(g), by_sets(g));
  }
}

TEST(PostDominators, LargeGraphsInLinearTime) {
  // 200,000 diamonds in a row: each block branches over the next one.
  const int diamonds = 100'000, n = 2 * diamonds;
  std::vector<std::vector<int>> g(n);
  for (int d = 0; d < diamonds; ++d) {
    g[2 * d] = {2 * d + 1, 2 * d + 2};
    g[2 * d + 1] = {2 * d + 2};
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<int> idom = immediate_post_dominators(g);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int b = 0; b < n; ++b) ASSERT_EQ(idom[b], b % 2 == 0 ? b + 2 : b + 1) << b;
  EXPECT_LT(seconds, 2.0);
}

}  // namespace
}  // namespace bankcheck::ptx::detail
