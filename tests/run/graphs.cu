// CUDA graphs as programs build them: a stream capture that forks into a second stream and
// joins it again through events (copies, fills, kernels and a host function), instantiated
// once and launched three times with new input; and a graph built node by node, one of its
// kernel nodes changed in the executable graph; and graph memory: an allocation node whose
// memory the program frees outside the graph between launches, and a captured allocation
// freed inside its graph, each launched again at the same address. Every result checked
// against the host's. Prints "graphs: ok".
#include <cstdio>
#include <vector>

static int failures = 0;
#define CHECK(call)                                                           \
  do {                                                                        \
    const cudaError_t e_ = (call);                                            \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorName(e_));                                     \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

__global__ void square(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

__global__ void offset(float* data, float by, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += by;
}

__global__ void combine(const float* a, const float* b, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

static int host_calls = 0;
static void CUDART_CB count_call(void*) { ++host_calls; }

int main() {
  const int n = 512;
  float *in, *a, *b, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  std::vector<float> host(n), result(n);

  cudaStream_t main_stream, side;
  cudaEvent_t forked, joined;
  CHECK(cudaStreamCreate(&main_stream));
  CHECK(cudaStreamCreate(&side));
  CHECK(cudaEventCreate(&forked));
  CHECK(cudaEventCreate(&joined));

  // Captured: in <- host; a = in^2 (main); b = 0 + 7 (side, forked after the copy);
  // out = a + b (after the join); host <- out; a host function counts.
  CHECK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  CHECK(cudaStreamIsCapturing(main_stream, &status));
  if (status != cudaStreamCaptureStatusActive) ++failures;
  CHECK(cudaMemcpyAsync(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice, main_stream));
  CHECK(cudaEventRecord(forked, main_stream));
  CHECK(cudaStreamWaitEvent(side, forked, 0));
  square<<<n / 128, 128, 0, main_stream>>>(in, a, n);
  CHECK(cudaMemsetAsync(b, 0, n * sizeof(float), side));
  offset<<<n / 128, 128, 0, side>>>(b, 7.0f, n);
  CHECK(cudaEventRecord(joined, side));
  CHECK(cudaStreamWaitEvent(main_stream, joined, 0));
  combine<<<n / 128, 128, 0, main_stream>>>(a, b, out, n);
  CHECK(
      cudaMemcpyAsync(result.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost, main_stream));
  CHECK(cudaLaunchHostFunc(main_stream, count_call, nullptr));
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(main_stream, &graph));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  // Two copies, a fill, three kernels and the host function: event records and waits are
  // edges, not nodes.
  if (nodes != 7) {
    std::fprintf(stderr, "FAIL: the capture made %zu nodes, expected 7\n", nodes);
    ++failures;
  }
  if (host_calls != 0) ++failures;  // captured, not run
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 17 + round);
    CHECK(cudaGraphLaunch(exec, main_stream));
    CHECK(cudaStreamSynchronize(main_stream));
    for (int i = 0; i < n; ++i)
      if (result[i] != host[i] * host[i] + 7.0f) {
        std::fprintf(stderr, "FAIL: round %d out[%d] = %g\n", round, i, result[i]);
        ++failures;
        break;
      }
  }
  if (host_calls != 3) {
    std::fprintf(stderr, "FAIL: the host function ran %d times, expected 3\n", host_calls);
    ++failures;
  }

  // Built node by node: a fill, then offset(out, 1) on it; the executable graph's kernel node
  // then changed to offset(out, 5).
  cudaGraph_t built;
  CHECK(cudaGraphCreate(&built, 0));
  cudaGraphNode_t fill, kernel;
  cudaMemsetParams ms = {};
  ms.dst = out;
  ms.value = 0;
  ms.elementSize = 4;
  ms.width = n;
  ms.height = 1;
  CHECK(cudaGraphAddMemsetNode(&fill, built, nullptr, 0, &ms));
  float by = 1.0f;
  int count = n;
  void* args[] = {&out, &by, &count};
  cudaKernelNodeParams kp = {};
  kp.func = reinterpret_cast<void*>(offset);
  kp.gridDim = dim3(n / 128);
  kp.blockDim = dim3(128);
  kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&kernel, built, &fill, 1, &kp));
  cudaGraphExec_t built_exec;
  CHECK(cudaGraphInstantiate(&built_exec, built, 0));
  by = 100.0f;  // the node copied its arguments when it was made
  CHECK(cudaGraphLaunch(built_exec, 0));
  CHECK(cudaMemcpy(result.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  if (result[0] != 1.0f || result[n - 1] != 1.0f) {
    std::fprintf(stderr, "FAIL: the built graph left %g\n", result[0]);
    ++failures;
  }
  by = 5.0f;
  CHECK(cudaGraphExecKernelNodeSetParams(built_exec, kernel, &kp));
  CHECK(cudaGraphLaunch(built_exec, 0));
  CHECK(cudaMemcpy(result.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  if (result[7] != 5.0f) {
    std::fprintf(stderr, "FAIL: the updated graph left %g\n", result[7]);
    ++failures;
  }

  // Graph memory freed outside the graph (NVIDIA's graphMemoryNodes): the allocation node
  // keeps its address, and each launch allocates it again before the kernel writes it.
  cudaGraph_t with_alloc;
  CHECK(cudaGraphCreate(&with_alloc, 0));
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = n * sizeof(float);
  cudaGraphNode_t alloc_node, write_node;
  CHECK(cudaGraphAddMemAllocNode(&alloc_node, with_alloc, nullptr, 0, &ap));
  float* graph_out = static_cast<float*>(ap.dptr);
  const std::vector<float> twos(n, 2.0f);
  CHECK(cudaMemcpy(in, twos.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  void* alloc_args[] = {&in, &graph_out, &count};
  kp.func = reinterpret_cast<void*>(square);
  kp.kernelParams = alloc_args;
  CHECK(cudaGraphAddKernelNode(&write_node, with_alloc, &alloc_node, 1, &kp));
  cudaGraphExec_t alloc_exec;
  CHECK(cudaGraphInstantiate(&alloc_exec, with_alloc, 0));
  for (int round = 0; round < 2; ++round) {
    CHECK(cudaGraphLaunch(alloc_exec, 0));
    CHECK(cudaMemcpy(result.data(), graph_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    if (result[0] != 4.0f || result[n - 1] != 4.0f) {
      std::fprintf(stderr, "FAIL: graph memory, round %d, left %g\n", round, result[n - 1]);
      ++failures;
    }
    CHECK(cudaFree(graph_out));  // outside the graph; the next launch allocates it again
  }
  CHECK(cudaGraphExecDestroy(alloc_exec));
  CHECK(cudaGraphDestroy(with_alloc));

  // Captured: allocate, fill, add, copy out, free; launched twice at the same address.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  float* scratch = nullptr;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMallocAsync(&scratch, n * sizeof(float), s));
  CHECK(cudaMemsetAsync(scratch, 0, n * sizeof(float), s));
  offset<<<n / 128, 128, 0, s>>>(scratch, 2.0f, n);
  CHECK(cudaMemcpyAsync(out, scratch, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
  CHECK(cudaFreeAsync(scratch, s));
  cudaGraph_t scratch_graph;
  CHECK(cudaStreamEndCapture(s, &scratch_graph));
  cudaGraphExec_t scratch_exec;
  CHECK(cudaGraphInstantiate(&scratch_exec, scratch_graph, 0));
  for (int round = 0; round < 2; ++round) {
    CHECK(cudaMemset(out, 0, n * sizeof(float)));
    CHECK(cudaGraphLaunch(scratch_exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(result.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    if (result[0] != 2.0f || result[n - 1] != 2.0f) {
      std::fprintf(stderr, "FAIL: captured graph memory, round %d, left %g\n", round, result[0]);
      ++failures;
    }
  }
  CHECK(cudaGraphExecDestroy(scratch_exec));
  CHECK(cudaGraphDestroy(scratch_graph));
  CHECK(cudaStreamDestroy(s));

  CHECK(cudaGraphExecDestroy(built_exec));
  CHECK(cudaGraphDestroy(built));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  if (failures) return 1;
  std::printf("graphs: ok\n");
  return 0;
}
