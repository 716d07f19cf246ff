// CUDA graphs: building them node by node (kernels, copies, fills, host functions, events,
// child graphs, memory), instantiating and launching them. A graph runs its nodes in an
// order that respects their dependencies, each to completion (graphs.hpp); a graph launched
// on a stream being captured becomes a child graph node of the capture.
#include <algorithm>
#include <cstring>

#include "driver.hpp"
#include "graphs.hpp"
#include "memory.hpp"

using namespace bankcheck::runtime;

namespace {

Graph* graph_of(Driver& d, CUgraph g) {
  auto* p = reinterpret_cast<Graph*>(g);
  return d.graphs.contains(p) ? p : nullptr;
}

bool in_graph(const Graph& g, const Node* n) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](const auto& m) { return m.get() == n; });
}

Node* node_of(Driver& d, CUgraphNode h) {
  auto* n = reinterpret_cast<Node*>(h);
  for (Graph* g : d.graphs)
    if (in_graph(*g, n)) return n;
  return nullptr;
}

// Adds `n` to `g` after `deps` (each a node of `g`).
CUresult add_node(Driver& d, CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                  std::size_t count, Node&& n) {
  Graph* g = graph_of(d, graph);
  if (!out || !g || (count && !deps)) return CUDA_ERROR_INVALID_VALUE;
  auto node = std::make_unique<Node>(std::move(n));
  node->graph = g;
  for (std::size_t i = 0; i < count; ++i) {
    auto* dep = reinterpret_cast<Node*>(deps[i]);
    if (!in_graph(*g, dep)) return CUDA_ERROR_INVALID_VALUE;
    node->dependencies.push_back(dep);
  }
  *out = reinterpret_cast<CUgraphNode>(node.get());
  g->nodes.push_back(std::move(node));
  return CUDA_SUCCESS;
}

CUresult kernel_from(Driver& d, const CUDA_KERNEL_NODE_PARAMS& p, KernelNode& k) {
  CUfunction f = p.func ? p.func : reinterpret_cast<CUfunction>(p.kern);
  k = KernelNode{};
  k.function = d.function(f);
  if (!k.function) return CUDA_ERROR_INVALID_VALUE;
  k.shape.grid = Dim3{p.gridDimX, p.gridDimY, p.gridDimZ};
  k.shape.block = Dim3{p.blockDimX, p.blockDimY, p.blockDimZ};
  k.shape.dynamic_shared = p.sharedMemBytes;
  k.raw_params = p.kernelParams;
  k.raw_extra = p.extra;
  if (k.raw_params && k.raw_extra) return CUDA_ERROR_INVALID_VALUE;
  return copy_arguments(k);
}

CUDA_KERNEL_NODE_PARAMS params_of(KernelNode& k, std::vector<void*>& pointers) {
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = reinterpret_cast<CUfunction>(k.function);
  p.gridDimX = k.shape.grid.x;
  p.gridDimY = k.shape.grid.y;
  p.gridDimZ = k.shape.grid.z;
  p.blockDimX = k.shape.block.x;
  p.blockDimY = k.shape.block.y;
  p.blockDimZ = k.shape.block.z;
  p.sharedMemBytes = static_cast<unsigned>(k.shape.dynamic_shared);
  pointers = argument_pointers(k);
  p.kernelParams = pointers.data();
  return p;
}

CUDA_KERNEL_NODE_PARAMS from_v1(const CUDA_KERNEL_NODE_PARAMS_v1& v1) {
  CUDA_KERNEL_NODE_PARAMS p{};
  std::memcpy(&p, &v1, sizeof v1);  // v2 only adds fields at the end
  return p;
}

// The kernel node of `h`, for a query or an update; null when it is not one.
Node* kernel_node(Driver& d, CUgraphNode h) {
  Node* n = node_of(d, h);
  return n && n->type == CU_GRAPH_NODE_TYPE_KERNEL ? n : nullptr;
}

// Per kernel node, the pointers its last query handed out (valid until the next one).
std::vector<void*>& query_pointers(const Node* n) {
  static std::map<const Node*, std::vector<void*>> pointers;
  return pointers[n];
}

CUresult add_memory_node(Driver& d, Node& n, std::size_t bytes) {
  void* p = nullptr;
  if (const CUresult e = allocate(d, &p, bytes, AllocationKind::Device)) return e;
  d.allocations[reinterpret_cast<std::uintptr_t>(p)].graph = true;
  n.memory = reinterpret_cast<CUdeviceptr>(p);
  n.memory_bytes = bytes;
  return CUDA_SUCCESS;
}

CUresult launch_graph(Driver& d, GraphExec& exec, CUstream stream) {
  if (capture_of(d, stream)) {
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_GRAPH;
    n.child = exec.graph->clone();
    return submit(d, stream, std::move(n));
  }
  for (Node* n : exec.graph->order())
    if (const CUresult e = run_node(d, *n, stream)) return e;
  return CUDA_SUCCESS;
}

}  // namespace

BANKCHECK_API CUresult cuGraphCreate(CUgraph* phGraph, unsigned int flags) {
  return call([&](Driver& d) {
    if (!phGraph || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    auto* g = new Graph;
    d.graphs.insert(g);
    *phGraph = reinterpret_cast<CUgraph>(g);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphDestroy(CUgraph hGraph) {
  return call([&](Driver& d) {
    Graph* g = graph_of(d, hGraph);
    if (!g) return CUDA_ERROR_INVALID_VALUE;
    d.graphs.erase(g);
    delete g;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphClone(CUgraph* phGraphClone, CUgraph originalGraph) {
  return call([&](Driver& d) {
    Graph* g = graph_of(d, originalGraph);
    if (!phGraphClone || !g) return CUDA_ERROR_INVALID_VALUE;
    Graph* c = g->clone().release();
    d.graphs.insert(c);
    *phGraphClone = reinterpret_cast<CUgraph>(c);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphAddKernelNode_v2(CUgraphNode* phGraphNode, CUgraph hGraph,
                                               const CUgraphNode* dependencies,
                                               size_t numDependencies,
                                               const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_KERNEL;
    if (const CUresult e = kernel_from(d, *nodeParams, n.kernel)) return e;
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, std::move(n));
  });
}

BANKCHECK_API CUresult cuGraphAddKernelNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                            const CUgraphNode* dependencies, size_t numDependencies,
                                            const CUDA_KERNEL_NODE_PARAMS_v1* nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  const CUDA_KERNEL_NODE_PARAMS p = from_v1(*nodeParams);
  return cuGraphAddKernelNode_v2(phGraphNode, hGraph, dependencies, numDependencies, &p);
}

BANKCHECK_API CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode,
                                                     CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    Node* n = kernel_node(d, hNode);
    if (!n || !nodeParams) return CUDA_ERROR_INVALID_VALUE;
    *nodeParams = params_of(n->kernel, query_pointers(n));
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode,
                                                  CUDA_KERNEL_NODE_PARAMS_v1* nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  CUDA_KERNEL_NODE_PARAMS p{};
  const CUresult e = cuGraphKernelNodeGetParams_v2(hNode, &p);
  if (e == CUDA_SUCCESS) std::memcpy(nodeParams, &p, sizeof *nodeParams);
  return e;
}

BANKCHECK_API CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode,
                                                     const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    Node* n = kernel_node(d, hNode);
    if (!n || !nodeParams) return CUDA_ERROR_INVALID_VALUE;
    KernelNode k;
    if (const CUresult e = kernel_from(d, *nodeParams, k)) return e;
    n->kernel = std::move(k);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode,
                                                  const CUDA_KERNEL_NODE_PARAMS_v1* nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  const CUDA_KERNEL_NODE_PARAMS p = from_v1(*nodeParams);
  return cuGraphKernelNodeSetParams_v2(hNode, &p);
}

BANKCHECK_API CUresult cuGraphAddMemcpyNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                            const CUgraphNode* dependencies, size_t numDependencies,
                                            const CUDA_MEMCPY3D* copyParams, CUcontext) {
  return call([&](Driver& d) {
    if (!copyParams) return CUDA_ERROR_INVALID_VALUE;
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_MEMCPY;
    n.copy = *copyParams;
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, std::move(n));
  });
}

BANKCHECK_API CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D* nodeParams) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_MEMCPY || !nodeParams) return CUDA_ERROR_INVALID_VALUE;
    *nodeParams = n->copy;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode,
                                                  const CUDA_MEMCPY3D* nodeParams) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_MEMCPY || !nodeParams) return CUDA_ERROR_INVALID_VALUE;
    n->copy = *nodeParams;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphAddMemsetNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                            const CUgraphNode* dependencies, size_t numDependencies,
                                            const CUDA_MEMSET_NODE_PARAMS* memsetParams,
                                            CUcontext) {
  return call([&](Driver& d) {
    if (!memsetParams) return CUDA_ERROR_INVALID_VALUE;
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_MEMSET;
    n.fill = *memsetParams;
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, std::move(n));
  });
}

BANKCHECK_API CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode,
                                                  CUDA_MEMSET_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_MEMSET || !nodeParams) return CUDA_ERROR_INVALID_VALUE;
    *nodeParams = n->fill;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode,
                                                  const CUDA_MEMSET_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_MEMSET || !nodeParams) return CUDA_ERROR_INVALID_VALUE;
    n->fill = *nodeParams;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphAddHostNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                          const CUgraphNode* dependencies, size_t numDependencies,
                                          const CUDA_HOST_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    if (!nodeParams || !nodeParams->fn) return CUDA_ERROR_INVALID_VALUE;
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_HOST;
    n.host = *nodeParams;
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, std::move(n));
  });
}

BANKCHECK_API CUresult cuGraphHostNodeGetParams(CUgraphNode hNode,
                                                CUDA_HOST_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_HOST || !nodeParams) return CUDA_ERROR_INVALID_VALUE;
    *nodeParams = n->host;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphHostNodeSetParams(CUgraphNode hNode,
                                                const CUDA_HOST_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_HOST || !nodeParams || !nodeParams->fn)
      return CUDA_ERROR_INVALID_VALUE;
    n->host = *nodeParams;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphAddEmptyNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                           const CUgraphNode* dependencies,
                                           size_t numDependencies) {
  return call([&](Driver& d) {
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, Node{});
  });
}

BANKCHECK_API CUresult cuGraphAddEventRecordNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                                 const CUgraphNode* dependencies,
                                                 size_t numDependencies, CUevent event) {
  return call([&](Driver& d) {
    auto* ev = reinterpret_cast<Event*>(event);
    if (!d.events.contains(ev)) return CUDA_ERROR_INVALID_VALUE;
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_EVENT_RECORD;
    n.event = ev;
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, std::move(n));
  });
}

BANKCHECK_API CUresult cuGraphAddEventWaitNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                               const CUgraphNode* dependencies,
                                               size_t numDependencies, CUevent event) {
  return call([&](Driver& d) {
    auto* ev = reinterpret_cast<Event*>(event);
    if (!d.events.contains(ev)) return CUDA_ERROR_INVALID_VALUE;
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_WAIT_EVENT;
    n.event = ev;
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, std::move(n));
  });
}

BANKCHECK_API CUresult cuGraphAddChildGraphNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                                const CUgraphNode* dependencies,
                                                size_t numDependencies, CUgraph childGraph) {
  return call([&](Driver& d) {
    Graph* child = graph_of(d, childGraph);
    if (!child) return CUDA_ERROR_INVALID_VALUE;
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_GRAPH;
    n.child = child->clone();
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, std::move(n));
  });
}

BANKCHECK_API CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph* phGraph) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_GRAPH || !phGraph) return CUDA_ERROR_INVALID_VALUE;
    *phGraph = reinterpret_cast<CUgraph>(n->child.get());
    return CUDA_SUCCESS;
  });
}

// Graph memory: allocated when the node is made, for the life of the program (every launch
// of the graph uses the same address, as on the device).
BANKCHECK_API CUresult cuGraphAddMemAllocNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                              const CUgraphNode* dependencies,
                                              size_t numDependencies,
                                              CUDA_MEM_ALLOC_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    if (const CUresult e = add_memory_node(d, n, nodeParams->bytesize)) return e;
    nodeParams->dptr = n.memory;
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, std::move(n));
  });
}

BANKCHECK_API CUresult cuGraphAddMemFreeNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                             const CUgraphNode* dependencies,
                                             size_t numDependencies, CUdeviceptr dptr) {
  return call([&](Driver& d) {
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    n.memory = dptr;
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, std::move(n));
  });
}

BANKCHECK_API CUresult cuGraphAddNode_v2(CUgraphNode* phGraphNode, CUgraph hGraph,
                                         const CUgraphNode* dependencies, const CUgraphEdgeData*,
                                         size_t numDependencies, CUgraphNodeParams* p) {
  return call([&](Driver& d) -> CUresult {
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    Node n;
    n.type = p->type;
    switch (p->type) {
      case CU_GRAPH_NODE_TYPE_KERNEL: {
        CUDA_KERNEL_NODE_PARAMS k{};
        std::memcpy(&k, &p->kernel, sizeof k);
        if (const CUresult e = kernel_from(d, k, n.kernel)) return e;
        break;
      }
      case CU_GRAPH_NODE_TYPE_MEMCPY:
        n.copy = p->memcpy.copyParams;
        break;
      case CU_GRAPH_NODE_TYPE_MEMSET:
        n.fill = CUDA_MEMSET_NODE_PARAMS{p->memset.dst,         p->memset.pitch, p->memset.value,
                                         p->memset.elementSize, p->memset.width, p->memset.height};
        break;
      case CU_GRAPH_NODE_TYPE_HOST:
        if (!p->host.fn) return CUDA_ERROR_INVALID_VALUE;
        n.host = CUDA_HOST_NODE_PARAMS{p->host.fn, p->host.userData};
        break;
      case CU_GRAPH_NODE_TYPE_GRAPH: {
        Graph* child = graph_of(d, p->graph.graph);
        if (!child) return CUDA_ERROR_INVALID_VALUE;
        n.child = child->clone();
        break;
      }
      case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      case CU_GRAPH_NODE_TYPE_WAIT_EVENT: {
        auto* ev = reinterpret_cast<Event*>(
            p->type == CU_GRAPH_NODE_TYPE_WAIT_EVENT ? p->eventWait.event : p->eventRecord.event);
        if (!d.events.contains(ev)) return CUDA_ERROR_INVALID_VALUE;
        n.event = ev;
        break;
      }
      case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        if (const CUresult e = add_memory_node(d, n, p->alloc.bytesize)) return e;
        p->alloc.dptr = n.memory;
        break;
      case CU_GRAPH_NODE_TYPE_MEM_FREE:
        n.memory = p->free.dptr;
        break;
      case CU_GRAPH_NODE_TYPE_EMPTY:
        break;
      default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return add_node(d, phGraphNode, hGraph, dependencies, numDependencies, std::move(n));
  });
}

BANKCHECK_API CUresult cuGraphAddNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                      const CUgraphNode* dependencies, size_t numDependencies,
                                      CUgraphNodeParams* nodeParams) {
  return cuGraphAddNode_v2(phGraphNode, hGraph, dependencies, nullptr, numDependencies, nodeParams);
}

BANKCHECK_API CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType* type) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n || !type) return CUDA_ERROR_INVALID_VALUE;
    *type = n->type;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes) {
  return call([&](Driver& d) {
    Graph* g = graph_of(d, hGraph);
    if (!g || !numNodes) return CUDA_ERROR_INVALID_VALUE;
    if (nodes)
      for (std::size_t i = 0; i < std::min(*numNodes, g->nodes.size()); ++i)
        nodes[i] = reinterpret_cast<CUgraphNode>(g->nodes[i].get());
    *numNodes = g->nodes.size();
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode* rootNodes,
                                           size_t* numRootNodes) {
  return call([&](Driver& d) {
    Graph* g = graph_of(d, hGraph);
    if (!g || !numRootNodes) return CUDA_ERROR_INVALID_VALUE;
    std::size_t count = 0;
    for (const auto& n : g->nodes) {
      if (!n->dependencies.empty()) continue;
      if (rootNodes && count < *numRootNodes)
        rootNodes[count] = reinterpret_cast<CUgraphNode>(n.get());
      ++count;
    }
    *numRootNodes = count;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to,
                                          CUgraphEdgeData* edgeData, size_t* numEdges) {
  return call([&](Driver& d) {
    Graph* g = graph_of(d, hGraph);
    if (!g || !numEdges) return CUDA_ERROR_INVALID_VALUE;
    std::size_t count = 0;
    for (const auto& n : g->nodes)
      for (Node* dep : n->dependencies) {
        if (from && to && count < *numEdges) {
          from[count] = reinterpret_cast<CUgraphNode>(dep);
          to[count] = reinterpret_cast<CUgraphNode>(n.get());
          if (edgeData) edgeData[count] = CUgraphEdgeData{};
        }
        ++count;
      }
    *numEdges = count;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to,
                                       size_t* numEdges) {
  return cuGraphGetEdges_v2(hGraph, from, to, nullptr, numEdges);
}

BANKCHECK_API CUresult cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode* dependencies,
                                                     CUgraphEdgeData* edgeData,
                                                     size_t* numDependencies) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n || !numDependencies) return CUDA_ERROR_INVALID_VALUE;
    if (dependencies)
      for (std::size_t i = 0; i < std::min(*numDependencies, n->dependencies.size()); ++i) {
        dependencies[i] = reinterpret_cast<CUgraphNode>(n->dependencies[i]);
        if (edgeData) edgeData[i] = CUgraphEdgeData{};
      }
    *numDependencies = n->dependencies.size();
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode* dependencies,
                                                  size_t* numDependencies) {
  return cuGraphNodeGetDependencies_v2(hNode, dependencies, nullptr, numDependencies);
}

BANKCHECK_API CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode,
                                                       CUgraphNode* dependentNodes,
                                                       CUgraphEdgeData* edgeData,
                                                       size_t* numDependentNodes) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n || !numDependentNodes) return CUDA_ERROR_INVALID_VALUE;
    std::size_t count = 0;
    for (const auto& m : n->graph->nodes)
      if (std::find(m->dependencies.begin(), m->dependencies.end(), n) != m->dependencies.end()) {
        if (dependentNodes && count < *numDependentNodes) {
          dependentNodes[count] = reinterpret_cast<CUgraphNode>(m.get());
          if (edgeData) edgeData[count] = CUgraphEdgeData{};
        }
        ++count;
      }
    *numDependentNodes = count;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode* dependentNodes,
                                                    size_t* numDependentNodes) {
  return cuGraphNodeGetDependentNodes_v2(hNode, dependentNodes, nullptr, numDependentNodes);
}

BANKCHECK_API CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode* from,
                                                 const CUgraphNode* to, const CUgraphEdgeData*,
                                                 size_t numDependencies) {
  return call([&](Driver& d) {
    Graph* g = graph_of(d, hGraph);
    if (!g || (numDependencies && (!from || !to))) return CUDA_ERROR_INVALID_VALUE;
    for (std::size_t i = 0; i < numDependencies; ++i) {
      auto* a = reinterpret_cast<Node*>(from[i]);
      auto* b = reinterpret_cast<Node*>(to[i]);
      if (!in_graph(*g, a) || !in_graph(*g, b) || a == b) return CUDA_ERROR_INVALID_VALUE;
      b->dependencies.push_back(a);
    }
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode* from,
                                              const CUgraphNode* to, size_t numDependencies) {
  return cuGraphAddDependencies_v2(hGraph, from, to, nullptr, numDependencies);
}

BANKCHECK_API CUresult cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode* from,
                                                    const CUgraphNode* to, const CUgraphEdgeData*,
                                                    size_t numDependencies) {
  return call([&](Driver& d) {
    Graph* g = graph_of(d, hGraph);
    if (!g || (numDependencies && (!from || !to))) return CUDA_ERROR_INVALID_VALUE;
    for (std::size_t i = 0; i < numDependencies; ++i) {
      auto* a = reinterpret_cast<Node*>(from[i]);
      auto* b = reinterpret_cast<Node*>(to[i]);
      if (!in_graph(*g, b)) return CUDA_ERROR_INVALID_VALUE;
      const auto it = std::find(b->dependencies.begin(), b->dependencies.end(), a);
      if (it == b->dependencies.end()) return CUDA_ERROR_INVALID_VALUE;
      b->dependencies.erase(it);
    }
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode* from,
                                                 const CUgraphNode* to, size_t numDependencies) {
  return cuGraphRemoveDependencies_v2(hGraph, from, to, nullptr, numDependencies);
}

BANKCHECK_API CUresult cuGraphDestroyNode(CUgraphNode hNode) {
  return call([&](Driver& d) {
    Node* n = node_of(d, hNode);
    if (!n) return CUDA_ERROR_INVALID_VALUE;
    Graph& g = *n->graph;
    for (auto& m : g.nodes) std::erase(m->dependencies, n);
    std::erase_if(g.nodes, [&](const auto& m) { return m.get() == n; });
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode,
                                             unsigned int isEnabled);
BANKCHECK_API CUresult cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode,
                                             unsigned int* isEnabled);

// ---- Executable graphs
// ---------------------------------------------------------------------------

namespace {

// The copy of `original` (a node of the graph `exec` was made from) in `exec`.
Node* exec_node(const GraphExec& exec, const Graph& from, const Node* original) {
  for (std::size_t i = 0; i < from.nodes.size() && i < exec.graph->nodes.size(); ++i)
    if (from.nodes[i].get() == original) return exec.graph->nodes[i].get();
  return nullptr;
}

struct ExecOrigin {
  std::map<const GraphExec*, const Graph*>& map() {
    static std::map<const GraphExec*, const Graph*> m;
    return m;
  }
};

// The node of `exec` that stands for the graph node `h`; null when it is not one of its
// graph's.
Node* node_in_exec(Driver& d, GraphExec& exec, CUgraphNode h) {
  Node* n = node_of(d, h);
  if (!n) return nullptr;
  const auto it = ExecOrigin().map().find(&exec);
  if (it == ExecOrigin().map().end() || n->graph != it->second) return nullptr;
  return exec_node(exec, *it->second, n);
}

CUresult instantiate(Driver& d, CUgraphExec* out, CUgraph hGraph, unsigned long long flags) {
  Graph* g = graph_of(d, hGraph);
  if (!out || !g) return CUDA_ERROR_INVALID_VALUE;
  auto* exec = new GraphExec;
  exec->graph = g->clone();
  exec->flags = flags;
  d.graph_execs.insert(exec);
  ExecOrigin().map()[exec] = g;
  *out = reinterpret_cast<CUgraphExec>(exec);
  return CUDA_SUCCESS;
}

GraphExec* exec_of(Driver& d, CUgraphExec h) {
  auto* p = reinterpret_cast<GraphExec*>(h);
  return d.graph_execs.contains(p) ? p : nullptr;
}

}  // namespace

BANKCHECK_API CUresult cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph,
                                                   unsigned long long flags) {
  return call([&](Driver& d) { return instantiate(d, phGraphExec, hGraph, flags); });
}

BANKCHECK_API CUresult cuGraphInstantiate_v2(CUgraphExec* phGraphExec, CUgraph hGraph,
                                             CUgraphNode* phErrorNode, char* logBuffer,
                                             size_t bufferSize) {
  if (phErrorNode) *phErrorNode = nullptr;
  if (logBuffer && bufferSize) logBuffer[0] = '\0';
  return cuGraphInstantiateWithFlags(phGraphExec, hGraph, 0);
}
BANKCHECK_ALIAS(cuGraphInstantiate_v2, cuGraphInstantiate)

BANKCHECK_API CUresult cuGraphInstantiateWithParams(CUgraphExec* phGraphExec, CUgraph hGraph,
                                                    CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
  return call([&](Driver& d) {
    if (!params) return CUDA_ERROR_INVALID_VALUE;
    const CUresult e = instantiate(d, phGraphExec, hGraph, params->flags);
    params->hErrNode_out = nullptr;
    params->result_out =
        e == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
    return e;
  });
}
BANKCHECK_ALIAS(cuGraphInstantiateWithParams, cuGraphInstantiateWithParams_ptsz)

BANKCHECK_API CUresult cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t* flags) {
  return call([&](Driver& d) {
    GraphExec* e = exec_of(d, hGraphExec);
    if (!e || !flags) return CUDA_ERROR_INVALID_VALUE;
    *flags = e->flags;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
  return call([&](Driver& d) {
    GraphExec* e = exec_of(d, hGraphExec);
    if (!e) return CUDA_ERROR_INVALID_VALUE;
    d.graph_execs.erase(e);
    ExecOrigin().map().erase(e);
    delete e;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) {
  return call([&](Driver& d) {
    if (!exec_of(d, hGraphExec)) return CUDA_ERROR_INVALID_VALUE;
    return d.valid_stream(hStream) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
  });
}
BANKCHECK_ALIAS(cuGraphUpload, cuGraphUpload_ptsz)

BANKCHECK_API CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  return call([&](Driver& d) {
    GraphExec* e = exec_of(d, hGraphExec);
    if (!e) return CUDA_ERROR_INVALID_VALUE;
    if (!d.valid_stream(hStream)) return CUDA_ERROR_INVALID_HANDLE;
    return launch_graph(d, *e, hStream);
  });
}
BANKCHECK_ALIAS(cuGraphLaunch, cuGraphLaunch_ptsz)

BANKCHECK_API CUresult cuGraphExecKernelNodeSetParams_v2(
    CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    GraphExec* e = exec_of(d, hGraphExec);
    if (!e || !nodeParams) return CUDA_ERROR_INVALID_VALUE;
    Node* n = node_in_exec(d, *e, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_ERROR_INVALID_VALUE;
    KernelNode k;
    if (const CUresult err = kernel_from(d, *nodeParams, k)) return err;
    n->kernel = std::move(k);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphExecKernelNodeSetParams(
    CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1* nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  const CUDA_KERNEL_NODE_PARAMS p = from_v1(*nodeParams);
  return cuGraphExecKernelNodeSetParams_v2(hGraphExec, hNode, &p);
}

BANKCHECK_API CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                      const CUDA_MEMCPY3D* copyParams, CUcontext) {
  return call([&](Driver& d) {
    GraphExec* e = exec_of(d, hGraphExec);
    if (!e || !copyParams) return CUDA_ERROR_INVALID_VALUE;
    Node* n = node_in_exec(d, *e, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_MEMCPY) return CUDA_ERROR_INVALID_VALUE;
    n->copy = *copyParams;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                      const CUDA_MEMSET_NODE_PARAMS* memsetParams,
                                                      CUcontext) {
  return call([&](Driver& d) {
    GraphExec* e = exec_of(d, hGraphExec);
    if (!e || !memsetParams) return CUDA_ERROR_INVALID_VALUE;
    Node* n = node_in_exec(d, *e, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_MEMSET) return CUDA_ERROR_INVALID_VALUE;
    n->fill = *memsetParams;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                    const CUDA_HOST_NODE_PARAMS* nodeParams) {
  return call([&](Driver& d) {
    GraphExec* e = exec_of(d, hGraphExec);
    if (!e || !nodeParams || !nodeParams->fn) return CUDA_ERROR_INVALID_VALUE;
    Node* n = node_in_exec(d, *e, hNode);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_HOST) return CUDA_ERROR_INVALID_VALUE;
    n->host = *nodeParams;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode,
                                             unsigned int isEnabled) {
  return call([&](Driver& d) {
    GraphExec* e = exec_of(d, hGraphExec);
    Node* n = e ? node_in_exec(d, *e, hNode) : nullptr;
    if (!n) return CUDA_ERROR_INVALID_VALUE;
    n->enabled = isEnabled != 0;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode,
                                             unsigned int* isEnabled) {
  return call([&](Driver& d) {
    GraphExec* e = exec_of(d, hGraphExec);
    Node* n = e ? node_in_exec(d, *e, hNode) : nullptr;
    if (!n || !isEnabled) return CUDA_ERROR_INVALID_VALUE;
    *isEnabled = n->enabled ? 1 : 0;
    return CUDA_SUCCESS;
  });
}

// An update: the executable graph becomes a copy of `hGraph` when the two have the same
// shape (node types, in order), as the driver requires of an update it accepts.
BANKCHECK_API CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
                                            CUgraphExecUpdateResultInfo* resultInfo) {
  return call([&](Driver& d) {
    GraphExec* e = exec_of(d, hGraphExec);
    Graph* g = graph_of(d, hGraph);
    if (!e || !g) return CUDA_ERROR_INVALID_VALUE;
    bool same = g->nodes.size() == e->graph->nodes.size();
    for (std::size_t i = 0; same && i < g->nodes.size(); ++i)
      same = g->nodes[i]->type == e->graph->nodes[i]->type;
    if (resultInfo) {
      *resultInfo = CUgraphExecUpdateResultInfo{};
      resultInfo->result =
          same ? CU_GRAPH_EXEC_UPDATE_SUCCESS : CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    }
    if (!same) return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    e->graph = g->clone();
    ExecOrigin().map()[e] = g;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph,
                                         CUgraphNode* hErrorNode_out,
                                         CUgraphExecUpdateResult* updateResult_out) {
  CUgraphExecUpdateResultInfo info{};
  const CUresult e = cuGraphExecUpdate_v2(hGraphExec, hGraph, &info);
  if (hErrorNode_out) *hErrorNode_out = info.errorNode;
  if (updateResult_out) *updateResult_out = info.result;
  return e;
}
