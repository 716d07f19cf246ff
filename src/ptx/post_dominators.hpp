// Immediate post-dominators of a control-flow graph (post_dominators.cpp), for the
// reconvergence points of conditional branches (decode.cpp).
#pragma once

#include <vector>

namespace bankcheck::ptx::detail {

// The immediate post-dominator of each node 0..n-1 of a graph of n + 1 nodes whose node n is
// the exit (`succ[b]`: b's successors, each in 0..n; `succ.size()` is n): n when nothing but
// the exit post-dominates b, -1 when b cannot reach the exit.
// Cooper, Harvey and Kennedy's iterative algorithm ("A Simple, Fast Dominance Algorithm",
// 2001) on the reversed graph: time and memory linear in the edges per pass, and few passes
// for the graphs nvcc writes, where the sets of post-dominators as bit sets cost n^2 bits
// (a kernel of 100,000 blocks: over a gigabyte).
// Example: 0 -> {1, 2}, 1 -> {3}, 2 -> {3}, 3 -> {4 (exit)}: {3, 3, 3, 4}.
std::vector<int> immediate_post_dominators(const std::vector<std::vector<int>>& succ);

}  // namespace bankcheck::ptx::detail
