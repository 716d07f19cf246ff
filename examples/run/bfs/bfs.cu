// bfs.cu: breadth-first search over a graph read from a file in Rodinia's BFS format (see
// gen_graph.py), written the way Rodinia's bfs is: one thread per node and boolean masks
// for the frontier. Each level launches
//   Kernel   every frontier node visits its neighbours (an array of {start, count}
//            structs, then the neighbours' costs and flags: scattered byte and int
//            accesses);
//   Kernel2  promotes the nodes found into the next frontier and counts them: a shared
//            counter per block (atomicAdd on one shared word), one global atomicAdd per
//            block.
// The host copies the count back after every level and stops when it is zero.
//
//   usage: bfs <graph_file>
//   default input: graph2k.txt (2,048 nodes, 8,194 edge entries: 13 levels, so 14
//            iterations of Kernel + Kernel2, 8 blocks of 256 each)
//
// The costs (levels) are compared exactly with a CPU BFS.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <queue>
#include <vector>

#define CUDA_CHECK(call)                                                               \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
              cudaGetErrorString(err_));                                               \
      exit(EXIT_FAILURE);                                                              \
    }                                                                                  \
  } while (0)

#define MAX_THREADS_PER_BLOCK 256

// Structure to hold a node's edge range.
struct Node {
  int starting;
  int no_of_edges;
};

__global__ void Kernel(const Node* g_graph_nodes, const int* g_graph_edges, bool* g_graph_mask,
                       bool* g_updating_graph_mask, const bool* g_graph_visited, int* g_cost,
                       int no_of_nodes) {
  int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
  if (tid < no_of_nodes && g_graph_mask[tid]) {
    g_graph_mask[tid] = false;
    for (int i = g_graph_nodes[tid].starting;
         i < (g_graph_nodes[tid].no_of_edges + g_graph_nodes[tid].starting); i++) {
      int id = g_graph_edges[i];
      if (!g_graph_visited[id]) {
        g_cost[id] = g_cost[tid] + 1;
        g_updating_graph_mask[id] = true;
      }
    }
  }
}

__global__ void Kernel2(bool* g_graph_mask, bool* g_updating_graph_mask, bool* g_graph_visited,
                        int* g_frontier_size, int no_of_nodes) {
  __shared__ int s_count;
  int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
  if (threadIdx.x == 0) s_count = 0;
  __syncthreads();
  if (tid < no_of_nodes && g_updating_graph_mask[tid]) {
    g_graph_mask[tid] = true;
    g_graph_visited[tid] = true;
    g_updating_graph_mask[tid] = false;
    atomicAdd(&s_count, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0 && s_count > 0) atomicAdd(g_frontier_size, s_count);
}

static void usage(const char* argv0) {
  fprintf(stderr, "usage: %s <graph_file>\n", argv0);
  exit(EXIT_FAILURE);
}

int main(int argc, char** argv) {
  if (argc != 2) usage(argv[0]);
  const char* input_f = argv[1];
  printf("Reading File\n");
  FILE* fp = fopen(input_f, "r");
  if (!fp) {
    fprintf(stderr, "Error reading graph file %s\n", input_f);
    printf("FAILED\n");
    return EXIT_FAILURE;
  }

  int no_of_nodes = 0, source = 0, edge_list_size = 0;
  bool parsed = fscanf(fp, "%d", &no_of_nodes) == 1 && no_of_nodes > 0;
  std::vector<Node> h_graph_nodes(parsed ? no_of_nodes : 0);
  for (int i = 0; parsed && i < no_of_nodes; i++)
    parsed = fscanf(fp, "%d %d", &h_graph_nodes[i].starting, &h_graph_nodes[i].no_of_edges) == 2;
  parsed = parsed && fscanf(fp, "%d", &source) == 1 && fscanf(fp, "%d", &edge_list_size) == 1 &&
           source >= 0 && source < no_of_nodes && edge_list_size >= 0;
  std::vector<int> h_graph_edges(parsed ? edge_list_size : 0);
  for (int i = 0; parsed && i < edge_list_size; i++) {
    int cost;
    parsed = fscanf(fp, "%d %d", &h_graph_edges[i], &cost) == 2 && h_graph_edges[i] >= 0 &&
             h_graph_edges[i] < no_of_nodes;
  }
  for (int i = 0; parsed && i < no_of_nodes; i++)
    parsed = h_graph_nodes[i].starting >= 0 && h_graph_nodes[i].no_of_edges >= 0 &&
             h_graph_nodes[i].starting + h_graph_nodes[i].no_of_edges <= edge_list_size;
  fclose(fp);
  if (!parsed) {
    fprintf(stderr, "%s is not a graph in the expected format\n", input_f);
    printf("FAILED\n");
    return EXIT_FAILURE;
  }
  printf("Read File: %d nodes, %d edge entries, source %d\n", no_of_nodes, edge_list_size,
         source);

  int num_of_blocks = (no_of_nodes + MAX_THREADS_PER_BLOCK - 1) / MAX_THREADS_PER_BLOCK;
  int num_of_threads_per_block = MAX_THREADS_PER_BLOCK;

  std::vector<char> h_graph_mask(no_of_nodes, 0), h_updating_graph_mask(no_of_nodes, 0),
      h_graph_visited(no_of_nodes, 0);
  h_graph_mask[source] = 1;
  h_graph_visited[source] = 1;
  std::vector<int> h_cost(no_of_nodes, -1);
  h_cost[source] = 0;

  Node* d_graph_nodes;
  int *d_graph_edges, *d_cost, *d_frontier_size;
  bool *d_graph_mask, *d_updating_graph_mask, *d_graph_visited;
  CUDA_CHECK(cudaMalloc(&d_graph_nodes, sizeof(Node) * no_of_nodes));
  CUDA_CHECK(cudaMalloc(&d_graph_edges, sizeof(int) * (edge_list_size > 0 ? edge_list_size : 1)));
  CUDA_CHECK(cudaMalloc(&d_graph_mask, sizeof(bool) * no_of_nodes));
  CUDA_CHECK(cudaMalloc(&d_updating_graph_mask, sizeof(bool) * no_of_nodes));
  CUDA_CHECK(cudaMalloc(&d_graph_visited, sizeof(bool) * no_of_nodes));
  CUDA_CHECK(cudaMalloc(&d_cost, sizeof(int) * no_of_nodes));
  CUDA_CHECK(cudaMalloc(&d_frontier_size, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_graph_nodes, h_graph_nodes.data(), sizeof(Node) * no_of_nodes,
                        cudaMemcpyHostToDevice));
  if (edge_list_size > 0)
    CUDA_CHECK(cudaMemcpy(d_graph_edges, h_graph_edges.data(), sizeof(int) * edge_list_size,
                          cudaMemcpyHostToDevice));
  static_assert(sizeof(bool) == sizeof(char), "masks are copied as bytes");
  CUDA_CHECK(cudaMemcpy(d_graph_mask, h_graph_mask.data(), no_of_nodes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_updating_graph_mask, h_updating_graph_mask.data(), no_of_nodes,
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_graph_visited, h_graph_visited.data(), no_of_nodes,
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_cost, h_cost.data(), sizeof(int) * no_of_nodes, cudaMemcpyHostToDevice));

  dim3 grid(num_of_blocks, 1, 1);
  dim3 threads(num_of_threads_per_block, 1, 1);

  int k = 0;
  std::vector<int> frontier_sizes;
  printf("Start traversing the tree\n");
  int frontier_size;
  do {
    // if no thread changes this value then the loop stops
    frontier_size = 0;
    CUDA_CHECK(cudaMemcpy(d_frontier_size, &frontier_size, sizeof(int), cudaMemcpyHostToDevice));
    Kernel<<<grid, threads, 0>>>(d_graph_nodes, d_graph_edges, d_graph_mask,
                                 d_updating_graph_mask, d_graph_visited, d_cost, no_of_nodes);
    CUDA_CHECK(cudaGetLastError());
    Kernel2<<<grid, threads, 0>>>(d_graph_mask, d_updating_graph_mask, d_graph_visited,
                                  d_frontier_size, no_of_nodes);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&frontier_size, d_frontier_size, sizeof(int), cudaMemcpyDeviceToHost));
    frontier_sizes.push_back(frontier_size);
    k++;
  } while (frontier_size > 0 && k <= no_of_nodes);
  printf("Kernel executed %d times\n", k);

  std::vector<int> gpu_cost(no_of_nodes);
  CUDA_CHECK(cudaMemcpy(gpu_cost.data(), d_cost, sizeof(int) * no_of_nodes,
                        cudaMemcpyDeviceToHost));

  // CPU reference: a queue-based BFS.
  std::vector<int> cost(no_of_nodes, -1);
  std::vector<int> level_sizes;
  std::queue<int> q;
  cost[source] = 0;
  q.push(source);
  while (!q.empty()) {
    int u = q.front();
    q.pop();
    const Node& nd = h_graph_nodes[u];
    for (int i = nd.starting; i < nd.starting + nd.no_of_edges; i++) {
      int v = h_graph_edges[i];
      if (cost[v] < 0) {
        cost[v] = cost[u] + 1;
        if ((int)level_sizes.size() < cost[v]) level_sizes.resize(cost[v], 0);
        level_sizes[cost[v] - 1]++;
        q.push(v);
      }
    }
  }
  level_sizes.push_back(0);  // the last iteration finds nothing

  int wrong = 0;
  for (int i = 0; i < no_of_nodes; i++) wrong += gpu_cost[i] != cost[i];
  bool sizes_ok = frontier_sizes == level_sizes;
  int depth = 0;
  for (int c : cost) depth = c > depth ? c : depth;
  printf("depth %d; %d of %d costs differ; frontier sizes %s\n", depth, wrong, no_of_nodes,
         sizes_ok ? "match" : "differ");

  CUDA_CHECK(cudaFree(d_graph_nodes));
  CUDA_CHECK(cudaFree(d_graph_edges));
  CUDA_CHECK(cudaFree(d_graph_mask));
  CUDA_CHECK(cudaFree(d_updating_graph_mask));
  CUDA_CHECK(cudaFree(d_graph_visited));
  CUDA_CHECK(cudaFree(d_cost));
  CUDA_CHECK(cudaFree(d_frontier_size));

  bool ok = wrong == 0 && sizes_ok;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
