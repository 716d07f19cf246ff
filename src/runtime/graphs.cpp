// Running operations and graphs, and recording them into stream captures (graphs.hpp).
#include "graphs.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include "memory.hpp"

namespace bankcheck::runtime {

std::vector<Node*> Graph::order() const {
  std::map<const Node*, std::size_t> waiting;
  std::map<const Node*, std::vector<Node*>> dependents;
  for (const auto& n : nodes) {
    waiting[n.get()] = n->dependencies.size();
    for (Node* dep : n->dependencies) dependents[dep].push_back(n.get());
  }
  std::vector<Node*> out;
  for (const auto& n : nodes)
    if (n->dependencies.empty()) out.push_back(n.get());
  for (std::size_t i = 0; i < out.size(); ++i)
    for (Node* next : dependents[out[i]])
      if (--waiting[next] == 0) out.push_back(next);
  return out;  // shorter than `nodes` only for a cycle, which the API never builds
}

std::unique_ptr<Graph> Graph::clone() const {
  auto g = std::make_unique<Graph>();
  std::map<const Node*, Node*> copies;
  for (const auto& n : nodes) {
    auto c = std::make_unique<Node>();
    c->type = n->type;
    c->graph = g.get();
    c->enabled = n->enabled;
    c->kernel = n->kernel;
    c->copy = n->copy;
    c->fill = n->fill;
    c->host = n->host;
    c->event = n->event;
    if (n->child) c->child = n->child->clone();
    c->memory = n->memory;
    c->memory_bytes = n->memory_bytes;
    copies[n.get()] = c.get();
    g->nodes.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (Node* dep : nodes[i]->dependencies) g->nodes[i]->dependencies.push_back(copies.at(dep));
  return g;
}

Capture* capture_of(const Driver& d, CUstream stream) {
  const Stream* s = d.stream(stream);
  return s ? s->capture : nullptr;
}

CUresult run_node(Driver& d, Node& n, CUstream stream) {
  if (!n.enabled) return CUDA_SUCCESS;
  switch (n.type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
      return launch_kernel(d, n.kernel, stream);
    case CU_GRAPH_NODE_TYPE_MEMCPY:
      return copy_3d(d, n.copy);
    case CU_GRAPH_NODE_TYPE_MEMSET:
      return fill_2d(d, n.fill);
    case CU_GRAPH_NODE_TYPE_HOST:
      flush_device_output(d);  // the kernels before it printed first
      if (n.host.fn) n.host.fn(n.host.userData);
      return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      if (n.event) {
        n.event->recorded = true;
        n.event->when = std::chrono::steady_clock::now();
      }
      return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_GRAPH:
      for (Node* c : n.child->order())
        if (const CUresult e = run_node(d, *c, stream)) return e;
      return CUDA_SUCCESS;
    // Graph memory: made when the node was, at the address every launch uses; allocated again
    // when it was freed since (inside the graph or out), freed by the free node.
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
      return reallocate_graph_memory(d, n.memory);
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
      if (const auto it = d.allocations.find(static_cast<std::uintptr_t>(n.memory));
          it != d.allocations.end() && it->second.graph)
        return release(d, reinterpret_cast<const void*>(n.memory), kind_bit(it->second.kind));
      return CUDA_SUCCESS;
    default:  // empty, event wait: nothing to do in order
      return CUDA_SUCCESS;
  }
}

CUresult submit(Driver& d, CUstream stream, Node&& op) {
  Capture* c = capture_of(d, stream);
  if (!c) return run_node(d, op, stream);
  if (c->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  if (op.type == CU_GRAPH_NODE_TYPE_KERNEL)
    if (const CUresult e = copy_arguments(op.kernel)) {
      c->invalidated = true;
      return e;
    }
  auto node = std::make_unique<Node>(std::move(op));
  Stream* s = d.stream(stream);
  node->graph = c->graph;
  node->dependencies = c->tails[s];
  c->tails[s] = {node.get()};
  c->graph->nodes.push_back(std::move(node));
  return CUDA_SUCCESS;
}

void destroy_all_graphs(Driver& d) {
  for (Stream* s : d.streams) s->capture = nullptr;
  for (GraphExec* g : d.graph_execs) delete g;
  d.graph_execs.clear();
  for (Graph* g : d.graphs) delete g;
  d.graphs.clear();
}

}  // namespace bankcheck::runtime
