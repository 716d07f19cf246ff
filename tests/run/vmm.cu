// Virtual memory management, as allocators use it: a range reserved, one physical allocation
// mapped twice into it (the second mapping aliases the first's bytes), access set, kernels
// writing through one mapping and reading through the other, and the misuses the driver
// refuses. Prints "vmm: ok".
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "driver_check.h"

__global__ void fill(float* p, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = static_cast<float>(i % 1000);
}

__global__ void add_one(const float* in, float* out, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i] + 1.0f;
}

int main() {
  cudaFree(nullptr);  // the runtime's primary context, current
  int vmm = 0;
  CHECK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0),
        CUDA_SUCCESS);
  if (!vmm) {
    std::fprintf(stderr, "FAIL: no virtual memory management\n");
    return 1;
  }
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t g = 0;
  CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);

  CUdeviceptr base = 0;
  CHECK(cuMemAddressReserve(&base, 3 * g, 0, 0, 0), CUDA_SUCCESS);
  CHECK(cuMemAddressReserve(&base, g + 1, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
  CUmemGenericAllocationHandle h;
  CHECK(cuMemCreate(&h, 2 * g, &prop, 0), CUDA_SUCCESS);
  CHECK(cuMemMap(base, 2 * g, 0, h, 0), CUDA_SUCCESS);
  CHECK(cuMemMap(base + 2 * g, g, 0, h, 0), CUDA_SUCCESS);          // the first g bytes again
  CHECK(cuMemMap(base + g, g, 0, h, 0), CUDA_ERROR_INVALID_VALUE);  // already mapped
  CHECK(cuMemRelease(h), CUDA_SUCCESS);                             // the mappings keep it
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK(cuMemSetAccess(base, 3 * g, &access, 1), CUDA_SUCCESS);

  float* p = reinterpret_cast<float*>(base);
  const size_t n = 2 * g / sizeof(float), alias = g / sizeof(float);
  fill<<<64, 256>>>(p, n);
  add_one<<<64, 256>>>(p + n, p + alias, alias);  // reads the alias, writes the second half
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::fprintf(stderr, "FAIL: the kernels\n");
    return 1;
  }
  std::vector<float> host(n + alias);
  CHECK(cuMemcpyDtoH(host.data(), base, host.size() * sizeof(float)), CUDA_SUCCESS);
  for (size_t i = 0; i < n + alias; ++i) {
    const float want = i < alias ? static_cast<float>(i % 1000)
                       : i < n   ? static_cast<float>((i - alias) % 1000) + 1.0f
                                 : static_cast<float>((i - n) % 1000);
    if (host[i] != want) {
      std::fprintf(stderr, "FAIL: word %zu is %g, not %g\n", i, host[i], want);
      return 1;
    }
  }
  CHECK(cuMemFree(base), CUDA_ERROR_INVALID_VALUE);                // not cuMemAlloc's
  CHECK(cuMemUnmap(base, g), CUDA_ERROR_INVALID_VALUE);            // half of a mapping
  CHECK(cuMemAddressFree(base, 3 * g), CUDA_ERROR_INVALID_VALUE);  // still mapped
  CHECK(cuMemUnmap(base, 3 * g), CUDA_SUCCESS);
  CHECK(cuMemAddressFree(base, 3 * g), CUDA_SUCCESS);
  std::printf("vmm: ok\n");
  return 0;
}
