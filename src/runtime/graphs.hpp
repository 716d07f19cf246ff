// Work on streams, as one kind of value: an operation (a kernel launch, a copy, a fill, a
// host function, an event record or wait, an allocation) is a graph node, whether the program
// built it into a graph, a stream capture recorded it, or a call runs it at once. Running a
// node is one function (run_node) for all three.
//
// Everything runs in order on the calling thread, so a graph runs its nodes one after another
// in an order that respects their dependencies, and a stream that is not being captured runs
// each operation when it is issued.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "driver.hpp"
#include "kernels.hpp"

namespace bankcheck::runtime {

struct Node;

struct Graph {
  std::vector<std::unique_ptr<Node>> nodes;
  // The nodes in an order that runs every node after its dependencies.
  std::vector<Node*> order() const;
  std::unique_ptr<Graph> clone() const;
};

struct KernelNode {
  Function* function = nullptr;
  LaunchShape shape;
  // The arguments, copied: one buffer laid out as the function's parameters are, and a
  // pointer to each (what a launch passes on). Empty when the function's parameters are
  // unknown.
  std::vector<std::uint8_t> params;
  std::vector<ParamSlot> slots;
  // Events recorded when the launch has finished (the launch-completion attributes).
  std::vector<Event*> completion;
  // While the launch is being issued: the caller's own arguments (kernelParams or extra),
  // used as they are when it runs at once, copied when a capture records it.
  void** raw_params = nullptr;
  void** raw_extra = nullptr;
};

struct Node {
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
  Graph* graph = nullptr;
  std::vector<Node*> dependencies;
  bool enabled = true;
  KernelNode kernel;
  CUDA_MEMCPY3D copy{};
  CUDA_MEMSET_NODE_PARAMS fill{};
  CUDA_HOST_NODE_PARAMS host{};
  Event* event = nullptr;        // event record and wait nodes
  std::unique_ptr<Graph> child;  // a child graph node's own copy of its graph
  CUdeviceptr memory = 0;        // memory allocation and free nodes
  std::size_t memory_bytes = 0;
};

struct GraphExec {
  std::unique_ptr<Graph> graph;  // a copy of the graph it was instantiated from
  unsigned long long flags = 0;
};

// A stream capture in progress: the graph it builds, and per stream taking part the nodes
// the next operation depends on.
struct Capture {
  Graph* graph = nullptr;
  bool owns_graph = true;  // false for cuStreamBeginCaptureToGraph
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  unsigned long long id = 0;
  bool invalidated = false;
  std::map<Stream*, std::vector<Node*>> tails;
};

// The argument pointers of a kernel node, into its own parameter copy.
std::vector<void*> argument_pointers(KernelNode& k);

// Copies the arguments a launch is being issued with (raw_params or raw_extra: the
// CU_LAUNCH_PARAM_BUFFER_POINTER form) into `k`'s own buffer. Errors: the function's
// parameters unknown (CUDA_ERROR_NOT_SUPPORTED), an `extra` list that is not well formed.
CUresult copy_arguments(KernelNode& k);

// Runs a node now, on `stream` (its number for the executor).
CUresult run_node(Driver& d, Node& n, CUstream stream);

// Issues an operation on a stream: recorded into the stream's capture when one is in
// progress, else run now.
CUresult submit(Driver& d, CUstream stream, Node&& op);

// Runs the kernel launch of a node (its checks, the executor, the result as a CUresult), with
// the arguments being issued, else the node's own copy.
CUresult launch_kernel(Driver& d, KernelNode& k, CUstream stream);

// Every graph, executable graph and capture, destroyed (the primary context's reset).
void destroy_all_graphs(Driver& d);

// The stream's capture, null when it is not being captured.
Capture* capture_of(const Driver& d, CUstream stream);

}  // namespace bankcheck::runtime
