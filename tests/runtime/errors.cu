// Errors as the CUDA runtime reports them over bankcheck's driver: strings and names, the last
// error (returned and cleared, or peeked), launches the device refuses (shape, shared memory,
// registers, cooperative size), a driver function bankcheck does not implement (its message
// printed once), and last a kernel that faults: the error is sticky. Exits with 3 when all of
// that held, so that the test also sees the program's own exit code come through.
#include <cstring>

#include "check.h"

__global__ void small(int* p) { p[threadIdx.x] = 0; }
extern __shared__ float dynamic_shared[];
__global__ void uses_shared(float* p) { p[threadIdx.x] = dynamic_shared[threadIdx.x]; }
// BANKCHECK_RECORD_ATTRS gives these their resources (the test's command line).
__global__ void heavy_registers(int* p) { p[threadIdx.x] = 1; }
__global__ void static_shared(int* p) { p[threadIdx.x] = 2; }
__global__ void faulty(int* p) { p[threadIdx.x] = 3; }

static void strings() {
  CHECK(std::strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);
  CHECK(std::strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
  CHECK(std::strcmp(cudaGetErrorString(cudaErrorInvalidConfiguration),
                    "invalid configuration argument") == 0);
  CHECK(std::strcmp(cudaGetErrorString(cudaErrorIllegalAddress),
                    "an illegal memory access was encountered") == 0);
  CHECK(std::strcmp(cudaGetErrorString(cudaErrorNotSupported), "operation not supported") == 0);
  CHECK(std::strcmp(cudaGetErrorName(static_cast<cudaError_t>(12345)), "unrecognized error code") ==
        0);
  CHECK(std::strcmp(cudaGetErrorString(static_cast<cudaError_t>(-1)), "unrecognized error code") ==
        0);
}

static void last_error() {
  EXPECT_OK(cudaGetLastError());
  EXPECT_ERR(cudaSetDevice(5), cudaErrorInvalidDevice);
  int count = 0;
  EXPECT_OK(cudaGetDeviceCount(&count));  // a success leaves the last error alone
  EXPECT_ERR(cudaPeekAtLastError(), cudaErrorInvalidDevice);
  EXPECT_ERR(cudaPeekAtLastError(), cudaErrorInvalidDevice);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_OK(cudaGetLastError());
}

static void refused_launches(int* d) {
  small<<<1, 1025>>>(d);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  small<<<dim3(1, 65536), 32>>>(d);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  small<<<1, dim3(1, 1, 65)>>>(d);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  small<<<0, 32>>>(d);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);

  // Over 48 KB of dynamic shared memory needs the opt-in, up to 227 KB.
  uses_shared<<<1, 32, 48 * 1024>>>(nullptr);
  EXPECT_OK(cudaGetLastError());
  uses_shared<<<1, 32, 48 * 1024 + 1>>>(nullptr);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_OK(
      cudaFuncSetAttribute(uses_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
  uses_shared<<<1, 32, 100 * 1024>>>(nullptr);
  EXPECT_OK(cudaGetLastError());
  uses_shared<<<1, 32, 100 * 1024 + 1>>>(nullptr);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_ERR(cudaFuncSetAttribute(uses_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  227 * 1024 + 1),
             cudaErrorInvalidValue);
  EXPECT_OK(
      cudaFuncSetAttribute(uses_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
  cudaFuncAttributes fa;
  EXPECT_OK(cudaFuncGetAttributes(&fa, uses_shared));
  CHECK_EQ(fa.maxDynamicSharedSizeBytes, 227 * 1024);
  CHECK_EQ(fa.numRegs, 32);

  // Static shared memory lowers the default dynamic limit (BANKCHECK_RECORD_ATTRS: 16 KB).
  EXPECT_OK(cudaFuncGetAttributes(&fa, static_shared));
  CHECK_EQ(fa.sharedSizeBytes, 16384);
  CHECK_EQ(fa.maxDynamicSharedSizeBytes, 49152 - 16384);
  static_shared<<<1, 32, 49152 - 16384 + 1>>>(d);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);

  // 255 registers x 1024 threads do not fit in a block's 64K registers: 256 threads do.
  EXPECT_OK(cudaFuncGetAttributes(&fa, heavy_registers));
  CHECK_EQ(fa.numRegs, 255);
  CHECK_EQ(fa.maxThreadsPerBlock, 256);
  heavy_registers<<<1, 288>>>(d);
  EXPECT_ERR(cudaGetLastError(), cudaErrorLaunchOutOfResources);
  heavy_registers<<<1, 1024>>>(d);
  EXPECT_ERR(cudaGetLastError(), cudaErrorLaunchOutOfResources);
  heavy_registers<<<1, 128>>>(d);
  EXPECT_OK(cudaGetLastError());

  // A cooperative grid must be resident at once: 132 SMs x 2 blocks of 1024 threads.
  void* args[] = {&d};
  EXPECT_OK(cudaLaunchCooperativeKernel((const void*)small, 264, 1024, args, 0, 0));
  EXPECT_ERR(cudaLaunchCooperativeKernel((const void*)small, 265, 1024, args, 0, 0),
             cudaErrorCooperativeLaunchTooLarge);
  cudaGetLastError();

  // Not a kernel: the runtime takes a pointer it did not register for a kernel handle
  // (cudaKernel_t), and the driver refuses the handle.
  EXPECT_ERR(cudaLaunchKernel((const void*)&strings, 1, 1, args, 0, 0),
             cudaErrorInvalidResourceHandle);
  EXPECT_ERR(cudaFuncGetAttributes(&fa, (const void*)&strings), cudaErrorInvalidResourceHandle);
  cudaGetLastError();
}

static void occupancy() {
  int blocks = 0;
  EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, small, 256, 0));
  CHECK_EQ(blocks, 8);  // 64 warps / 8 per block; 32 registers leave room for more
  EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, heavy_registers, 128, 0));
  CHECK_EQ(blocks, 2);  // 255 -> 256 registers x 32 = 8192 per warp: 8 warps per SM
  EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, uses_shared, 128, 100 * 1024));
  CHECK_EQ(blocks, 2);  // 101 KB per block in a 228 KB carveout
  int grid = 0, block = 0;
  EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&grid, &block, small));
  CHECK_EQ(block, 1024);
  CHECK_EQ(grid, 2 * 132);
  size_t available = 0;
  EXPECT_OK(cudaOccupancyAvailableDynamicSMemPerBlock(&available, uses_shared, 2, 128));
  CHECK_EQ(available, 113 * 1024);  // (228 KB / 2) - 1 KB reserved
}

// Mipmapped arrays are not implemented by bankcheck's driver.
static void unimplemented() {
  cudaMipmappedArray_t array = nullptr;
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  const cudaExtent extent = make_cudaExtent(16, 16, 0);
  EXPECT_ERR(cudaMallocMipmappedArray(&array, &desc, extent, 2), cudaErrorNotSupported);
  EXPECT_ERR(cudaMallocMipmappedArray(&array, &desc, extent, 2), cudaErrorNotSupported);
  // Nor cube maps: refused, and named once.
  cudaArray_t cube = nullptr;
  for (int i = 0; i < 2; ++i)
    EXPECT_ERR(cudaMalloc3DArray(&cube, &desc, make_cudaExtent(16, 16, 6), cudaArrayCubemap),
               cudaErrorNotSupported);
  EXPECT_ERR(cudaGetLastError(), cudaErrorNotSupported);
}

int main() {
  strings();
  last_error();
  int* d = nullptr;
  EXPECT_OK(cudaMalloc(&d, 4096));
  refused_launches(d);
  occupancy();
  unimplemented();

  // A fault, as on a GPU: the launch succeeds, a launch after it does not run, the next
  // synchronization returns the error, and so does every later call that needs the device.
  faulty<<<1, 32>>>(d);
  EXPECT_OK(cudaGetLastError());
  small<<<1, 1>>>(d);
  EXPECT_OK(cudaGetLastError());
  EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  void* more = nullptr;
  EXPECT_ERR(cudaMalloc(&more, 16), cudaErrorIllegalAddress);
  EXPECT_ERR(cudaMemset(d, 0, 16), cudaErrorIllegalAddress);
  EXPECT_ERR(cudaDeviceReset(), cudaErrorIllegalAddress);
  small<<<1, 1>>>(d);
  EXPECT_ERR(cudaPeekAtLastError(), cudaErrorIllegalAddress);
  int count = 0;
  EXPECT_OK(cudaGetDeviceCount(&count));  // the device's description stays readable

  if (failures) return 1;
  std::printf("errors: ok\n");
  return 3;
}
