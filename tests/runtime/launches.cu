// Every launch path, as nvcc's generated code and the runtime API take it, with arguments of
// several types: the record executor's lines (checked by the test) must show each launch's
// shape, stream, flags and argument bytes as the program passed them.
#include <string_view>

#include "check.h"

__global__ void args_kernel(int a, float b, char c, short d, double e, int* p) {
  p[threadIdx.x] = a + static_cast<int>(b) + c + d + static_cast<int>(e);
}

template <typename T, int N>
__global__ void templated(T* p, T v) {
  p[threadIdx.x] = v * N;
}

namespace ns {
__global__ void inner(unsigned long long x) { static_cast<void>(x); }
}  // namespace ns

__global__ void plain(int* p) { p[threadIdx.x] = 1; }

int main() {
  int* p = nullptr;
  EXPECT_OK(cudaMalloc(&p, 4096));
  cudaStream_t s;
  EXPECT_OK(cudaStreamCreate(&s));

  args_kernel<<<dim3(2, 3), dim3(32, 2), 128, s>>>(7, 1.5f, 'x', static_cast<short>(-2), 3.25, p);
  EXPECT_OK(cudaGetLastError());
  templated<float, 4><<<1, 64>>>(reinterpret_cast<float*>(p), 2.0f);
  templated<double, 2><<<1, 32>>>(reinterpret_cast<double*>(p), -1.0);
  ns::inner<<<5, 1>>>(0x0123456789abcdefull);
  EXPECT_OK(cudaGetLastError());

  void* args[] = {&p};
  EXPECT_OK(cudaLaunchKernel(reinterpret_cast<const void*>(plain), dim3(3), dim3(96), args, 0, 0));
  EXPECT_OK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(plain), dim3(8), dim3(64),
                                        args, 0, s));

  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(4);
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = 256;
  config.stream = s;
  cudaLaunchAttribute attrs[2];
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = 2;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  attrs[1].id = cudaLaunchAttributePriority;
  attrs[1].val.priority = -1;
  config.attrs = attrs;
  config.numAttrs = 2;
  EXPECT_OK(cudaLaunchKernelEx(&config, plain, p));
  attrs[0].id = cudaLaunchAttributeCooperative;
  attrs[0].val.cooperative = 1;
  EXPECT_OK(cudaLaunchKernelEx(&config, plain, p));
  // A cluster that does not tile the grid.
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = 3;
  EXPECT_ERR(cudaLaunchKernelEx(&config, plain, p), cudaErrorInvalidClusterSize);
  cudaGetLastError();

  // Cluster dimensions the program requires of a kernel apply to launches that give none.
  EXPECT_OK(cudaFuncSetAttribute(templated<float, 4>, cudaFuncAttributeRequiredClusterWidth, 2));
  templated<float, 4><<<6, 32>>>(reinterpret_cast<float*>(p), 1.0f);
  EXPECT_OK(cudaGetLastError());
  templated<float, 4><<<5, 32>>>(reinterpret_cast<float*>(p), 1.0f);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidClusterSize);

  cudaKernel_t handle;
  EXPECT_OK(cudaGetKernel(&handle, plain));
  const char* name = nullptr;
  EXPECT_OK(cudaFuncGetName(&name, plain));
  CHECK(name && std::string_view(name) == "_Z5plainPi");

  EXPECT_OK(cudaStreamDestroy(s));
  EXPECT_OK(cudaFree(p));
  if (failures) return 1;
  std::printf("launches: ok\n");
  return 0;
}
