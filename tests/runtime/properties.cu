// Device queries: one device whose properties and attributes agree with each other and with
// the board named on the command line (sm_90: the H100 SXM5 by default; sm_80: an A100).
#include <cstring>
#include <string>

#include "check.h"

__global__ void touch(int* p) { p[threadIdx.x] = 1; }

struct Expected {
  const char* name;
  int cc, sms, shared_per_sm, optin, threads_per_sm, blocks_per_sm;
  long long l2;
};

int main(int argc, char** argv) {
  const std::string arch = argc > 1 ? argv[1] : "sm_90";
  const Expected x =
      arch == "sm_80"
          ? Expected{"NVIDIA A100-SXM4-80GB", 80, 108, 167936, 166912, 2048, 32, 41943040}
          : Expected{"NVIDIA H100 80GB HBM3", 90, 132, 233472, 232448, 2048, 32, 52428800};

  int count = -1, device = -1, v = 0;
  EXPECT_OK(cudaGetDeviceCount(&count));
  CHECK_EQ(count, 1);
  EXPECT_OK(cudaGetDevice(&device));
  CHECK_EQ(device, 0);
  EXPECT_OK(cudaSetDevice(0));
  EXPECT_ERR(cudaSetDevice(1), cudaErrorInvalidDevice);
  EXPECT_ERR(cudaGetDeviceProperties(nullptr, 0), cudaErrorInvalidValue);

  cudaDeviceProp p;
  EXPECT_OK(cudaGetDeviceProperties(&p, 0));
  EXPECT_ERR(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
  CHECK(std::strcmp(p.name, x.name) == 0);
  CHECK_EQ(p.major * 10 + p.minor, x.cc);
  CHECK_EQ(p.multiProcessorCount, x.sms);
  CHECK_EQ(p.sharedMemPerBlock, 49152);
  CHECK_EQ(p.sharedMemPerBlockOptin, x.optin);
  CHECK_EQ(p.sharedMemPerMultiprocessor, x.shared_per_sm);
  CHECK_EQ(p.reservedSharedMemPerBlock, 1024);
  CHECK_EQ(p.regsPerBlock, 65536);
  CHECK_EQ(p.regsPerMultiprocessor, 65536);
  CHECK_EQ(p.warpSize, 32);
  CHECK_EQ(p.maxThreadsPerBlock, 1024);
  CHECK_EQ(p.maxThreadsPerMultiProcessor, x.threads_per_sm);
  CHECK_EQ(p.maxBlocksPerMultiProcessor, x.blocks_per_sm);
  CHECK_EQ(p.maxThreadsDim[0], 1024);
  CHECK_EQ(p.maxThreadsDim[2], 64);
  CHECK_EQ(p.maxGridSize[0], 2147483647);
  CHECK_EQ(p.maxGridSize[1], 65535);
  CHECK_EQ(p.l2CacheSize, x.l2);
  CHECK_EQ(p.totalConstMem, 65536);
  CHECK_EQ(p.unifiedAddressing, 1);
  CHECK_EQ(p.managedMemory, 1);
  CHECK_EQ(p.concurrentKernels, 1);
  CHECK_EQ(p.cooperativeLaunch, 1);
  CHECK(p.totalGlobalMem > (1ull << 30));

  // Every attribute a program reads, against the properties.
  struct {
    cudaDeviceAttr attr;
    long long expected;
  } const attrs[] = {
      {cudaDevAttrMultiProcessorCount, p.multiProcessorCount},
      {cudaDevAttrMaxSharedMemoryPerBlock, (long long)p.sharedMemPerBlock},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, (long long)p.sharedMemPerBlockOptin},
      {cudaDevAttrMaxSharedMemoryPerMultiprocessor, (long long)p.sharedMemPerMultiprocessor},
      {cudaDevAttrReservedSharedMemoryPerBlock, (long long)p.reservedSharedMemPerBlock},
      {cudaDevAttrMaxRegistersPerBlock, p.regsPerBlock},
      {cudaDevAttrMaxRegistersPerMultiprocessor, p.regsPerMultiprocessor},
      {cudaDevAttrWarpSize, 32},
      {cudaDevAttrMaxThreadsPerBlock, 1024},
      {cudaDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor},
      {cudaDevAttrMaxBlocksPerMultiprocessor, p.maxBlocksPerMultiProcessor},
      {cudaDevAttrMaxBlockDimX, 1024},
      {cudaDevAttrMaxBlockDimY, 1024},
      {cudaDevAttrMaxBlockDimZ, 64},
      {cudaDevAttrMaxGridDimX, 2147483647},
      {cudaDevAttrMaxGridDimY, 65535},
      {cudaDevAttrMaxGridDimZ, 65535},
      {cudaDevAttrComputeCapabilityMajor, p.major},
      {cudaDevAttrComputeCapabilityMinor, p.minor},
      {cudaDevAttrL2CacheSize, p.l2CacheSize},
      {cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth},
      {cudaDevAttrConcurrentKernels, 1},
      {cudaDevAttrManagedMemory, 1},
      {cudaDevAttrUnifiedAddressing, 1},
      {cudaDevAttrCooperativeLaunch, 1},
      {cudaDevAttrTotalConstantMemory, 65536},
      {cudaDevAttrIntegrated, 0},
      {cudaDevAttrCanMapHostMemory, 1},
  };
  for (const auto& a : attrs) {
    v = -1;
    EXPECT_OK(cudaDeviceGetAttribute(&v, a.attr, 0));
    if (v != a.expected)
      std::fprintf(stderr, "FAIL attribute %d: %d, expected %lld\n", (int)a.attr, v, a.expected),
          ++failures;
  }
  EXPECT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0));
  CHECK(v > 1000000);
  EXPECT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, 0));
  CHECK(v > 800000);
  EXPECT_ERR(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 3), cudaErrorInvalidDevice);
  EXPECT_ERR(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(100000), 0),
             cudaErrorInvalidValue);

  int version = 0;
  EXPECT_OK(cudaRuntimeGetVersion(&version));
  CHECK_EQ(version, 13000);
  EXPECT_OK(cudaDriverGetVersion(&version));
  CHECK_EQ(version, 13000);

  size_t limit = 0;
  EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
  CHECK_EQ(limit, 1024);
  EXPECT_OK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 26));
  EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
  CHECK_EQ(limit, 1 << 26);
  int least = 1, greatest = 1;
  EXPECT_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CHECK(least == 0 && greatest < 0);
  char bus[32];
  EXPECT_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  EXPECT_OK(cudaDeviceGetByPCIBusId(&device, bus));

  if (failures) return 1;
  std::printf("properties of %s: ok\n", p.name);
  return 0;
}
