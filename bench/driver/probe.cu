// What the CUDA driver (and the runtime over it) answers where bankcheck's driver follows the
// documentation or reports rather than a measurement: one line per question, "KEY VALUE".
// compare.sh runs it on the GPU's own driver and on bankcheck's, and diffs the two.
#include <cuda.h>

#include <cstdio>
#include <cstring>

__global__ void small(int* p) {
  if (p) p[threadIdx.x] = 1;
}
extern __shared__ float dynamic_shared[];
__global__ void big_shared(float* p) {
  if (p) p[threadIdx.x] = dynamic_shared[threadIdx.x];
}
__global__ void faulty(int* p) { p[threadIdx.x] = 3; }
void host_function() {}

static const char* rt(cudaError_t e) { return cudaGetErrorName(e); }
static void line(const char* key, const char* value) { std::printf("%s %s\n", key, value); }
static void line(const char* key, long long value) { std::printf("%s %lld\n", key, value); }

int main() {
  // Every error code's name and message.
  for (int v = 0; v < 1000; ++v) {
    const char *name = nullptr, *text = nullptr;
    if (cuGetErrorName(static_cast<CUresult>(v), &name) != CUDA_SUCCESS || !name) continue;
    cuGetErrorString(static_cast<CUresult>(v), &text);
    std::printf("error %d %s | %s\n", v, name, text ? text : "(null)");
  }
  cudaFree(nullptr);  // the runtime starts

  // Launch shapes the device refuses, through the runtime and the driver.
  small<<<1, 1025>>>(nullptr);
  line("runtime.block_1025", rt(cudaGetLastError()));
  small<<<0, 32>>>(nullptr);
  line("runtime.grid_0", rt(cudaGetLastError()));
  cudaFunction_t f = nullptr;
  cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(small));
  void* none[] = {nullptr};
  int* null_pointer = nullptr;
  none[0] = &null_pointer;
  line("driver.block_1025", cuLaunchKernel(reinterpret_cast<CUfunction>(f), 1, 1, 1, 1025, 1, 1, 0,
                                           nullptr, none, nullptr));
  line("driver.grid_0", cuLaunchKernel(reinterpret_cast<CUfunction>(f), 0, 1, 1, 32, 1, 1, 0,
                                       nullptr, none, nullptr));
  big_shared<<<1, 32, 48 * 1024 + 1>>>(nullptr);
  line("runtime.shared_over_48k", rt(cudaGetLastError()));

  // A row wider than its pitch.
  char* d = nullptr;
  cudaMalloc(&d, 4096);
  char host[4096] = {};
  line("runtime.memcpy2d_width_over_pitch",
       rt(cudaMemcpy2D(d, 64, host, 64, 65, 1, cudaMemcpyHostToDevice)));
  CUDA_MEMCPY2D c = {};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = host;
  c.srcPitch = 64;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = reinterpret_cast<CUdeviceptr>(d);
  c.dstPitch = 64;
  c.WidthInBytes = 65;
  c.Height = 1;
  line("driver.memcpy2d_width_over_pitch", cuMemcpy2D(&c));

  // A host function where a kernel goes.
  line("runtime.launch_host_function",
       rt(cudaLaunchKernel(reinterpret_cast<const void*>(host_function), 1, 1, none, 0, 0)));
  cudaFuncAttributes fa;
  line("runtime.attributes_of_host_function",
       rt(cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(host_function))));
  cudaGetLastError();

  // Events never recorded.
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  float ms = 0;
  line("runtime.elapsed_never_recorded", rt(cudaEventElapsedTime(&ms, a, b)));
  line("driver.elapsed_never_recorded",
       cuEventElapsedTime(&ms, reinterpret_cast<CUevent>(a), reinterpret_cast<CUevent>(b)));
  cudaGetLastError();

  // Zero-sized managed memory.
  float* m = reinterpret_cast<float*>(1);
  line("runtime.malloc_managed_0", rt(cudaMallocManaged(&m, 0)));
  line("runtime.malloc_managed_0_pointer_null", m == nullptr ? 1 : 0);
  cudaGetLastError();

  // Driver entry points.
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  line("runtime.entry_point_unknown",
       rt(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &fn, 12000, cudaEnableDefault,
                                           &status)));
  line("runtime.entry_point_unknown_status", static_cast<long long>(status));
  cudaGetLastError();

  // Context limits, API version, module loading mode.
  for (int limit = 0; limit <= 9; ++limit) {
    size_t value = 0;
    const CUresult r = cuCtxGetLimit(&value, static_cast<CUlimit>(limit));
    char key[64];
    std::snprintf(key, sizeof key, "driver.limit_%d", limit);
    if (r == CUDA_SUCCESS && limit != 6)  // 6: the persisting L2 size, a board's own
      line(key, static_cast<long long>(value));
    else
      std::printf("%s error %d\n", key, static_cast<int>(r));
  }
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);
  unsigned api = 0;
  cuCtxGetApiVersion(ctx, &api);
  line("driver.context_api_version", api);
  CUmoduleLoadingMode mode;
  cuModuleGetLoadingMode(&mode);
  line("driver.module_loading_mode", static_cast<long long>(mode));

  // Cluster occupancy with one block per SM (all of an SM's shared memory): the GPCs' sizes
  // show through, which bankcheck does not model.
  cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024);
  cudaFuncSetAttribute(big_shared, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(big_shared));
  for (int size = 1; size <= 17; ++size) {
    CUlaunchAttribute attr;
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = size;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    CUlaunchConfig config = {};
    config.gridDimX = size;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 128;
    config.blockDimY = config.blockDimZ = 1;
    config.sharedMemBytes = 227 * 1024;
    config.attrs = &attr;
    config.numAttrs = 1;
    int clusters = -1;
    const CUresult r =
        cuOccupancyMaxActiveClusters(&clusters, reinterpret_cast<CUfunction>(f), &config);
    std::printf("driver.max_active_clusters_%d %d %d\n", size, static_cast<int>(r), clusters);
  }

  // Pointer attributes of a pointer the driver does not know.
  int local = 0;
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  unsigned memory_type = 77;
  int ordinal = 77;
  void* data[] = {&memory_type, &ordinal};
  line("driver.pointer_attributes_unknown",
       cuPointerGetAttributes(2, attrs, data, reinterpret_cast<CUdeviceptr>(&local)));
  line("driver.pointer_unknown_memory_type", memory_type);
  line("driver.pointer_unknown_device_ordinal", ordinal);

  // Last, a fault: what the launch, the last error and later calls say.
  faulty<<<1, 32>>>(nullptr);
  line("fault.launch", rt(cudaGetLastError()));
  line("fault.synchronize", rt(cudaDeviceSynchronize()));
  line("fault.last_error_1", rt(cudaGetLastError()));
  line("fault.last_error_2", rt(cudaGetLastError()));
  void* more = nullptr;
  line("fault.malloc", rt(cudaMalloc(&more, 16)));
  int count = 0;
  line("fault.device_count", rt(cudaGetDeviceCount(&count)));
  return 0;
}
