// Immediate post-dominators by Cooper, Harvey and Kennedy's algorithm on the reversed graph.
#include "post_dominators.hpp"

#include <cstddef>
#include <utility>

namespace bankcheck::ptx::detail {

std::vector<int> immediate_post_dominators(const std::vector<std::vector<int>>& succ) {
  const int n = static_cast<int>(succ.size());
  const int exit_node = n;
  // The reversed graph's edges: for each node, the nodes that branch to it.
  std::vector<std::vector<int>> pred(static_cast<std::size_t>(n) + 1);
  for (int b = 0; b < n; ++b)
    for (const int t : succ[static_cast<std::size_t>(b)])
      pred[static_cast<std::size_t>(t)].push_back(b);
  // Postorder of the reversed graph from the exit, without recursion (a kernel can have
  // hundreds of thousands of blocks): the nodes it does not reach cannot reach the exit.
  std::vector<int> post(static_cast<std::size_t>(n) + 1, -1), order;
  order.reserve(static_cast<std::size_t>(n) + 1);
  std::vector<char> seen(static_cast<std::size_t>(n) + 1, 0);
  std::vector<std::pair<int, std::size_t>> stack{{exit_node, 0}};
  seen[static_cast<std::size_t>(exit_node)] = 1;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    const auto& ps = pred[static_cast<std::size_t>(node)];
    if (next < ps.size()) {
      const int p = ps[next++];
      if (!seen[static_cast<std::size_t>(p)]) {
        seen[static_cast<std::size_t>(p)] = 1;
        stack.push_back({p, 0});
      }
      continue;
    }
    post[static_cast<std::size_t>(node)] = static_cast<int>(order.size());
    order.push_back(node);
    stack.pop_back();
  }
  std::vector<int> idom(static_cast<std::size_t>(n) + 1, -1);
  idom[static_cast<std::size_t>(exit_node)] = exit_node;
  // The nearest common post-dominator of a and b on the tree built so far.
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (post[static_cast<std::size_t>(a)] < post[static_cast<std::size_t>(b)])
        a = idom[static_cast<std::size_t>(a)];
      while (post[static_cast<std::size_t>(b)] < post[static_cast<std::size_t>(a)])
        b = idom[static_cast<std::size_t>(b)];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    // Reverse postorder, the exit (last in postorder) first and skipped.
    for (std::size_t i = order.size() - 1; i-- > 0;) {
      const int b = order[i];
      int next = -1;
      for (const int t : succ[static_cast<std::size_t>(b)]) {
        if (idom[static_cast<std::size_t>(t)] < 0) continue;  // not reached yet, or never
        next = next < 0 ? t : intersect(t, next);
      }
      if (next >= 0 && idom[static_cast<std::size_t>(b)] != next) {
        idom[static_cast<std::size_t>(b)] = next;
        changed = true;
      }
    }
  }
  idom.pop_back();
  return idom;
}

}  // namespace bankcheck::ptx::detail
