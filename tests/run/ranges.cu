// A program for `bankcheck run --nvtx-include`'s tests: six launches of one kernel, with one
// configuration, around NVTX ranges (nvtx3, header-only; NVTX loads the injection library that
// NVTX_INJECTION64_PATH names at its first call).
//
//   launch 0   outside every range
//   launch 1   in push/pop "warmup"
//   launch 2   in push/pop "step"
//   launch 3   in push/pop "step"
//   launch 4   in push/pop "step" / "inner"
//   launch 5   in start/end "phase" (started on another thread), no push/pop range
//
// Launches 1 to 4 are also inside cudaProfilerStart/Stop, which must succeed.
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <thread>

__global__ void column(float* out) {
  __shared__ float tile[32][32];
  tile[threadIdx.x][threadIdx.y] = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.y][threadIdx.x];
}

int main() {
  float* out = nullptr;
  cudaMalloc(&out, 1024 * sizeof(float));
  const dim3 block(32, 32);
  column<<<1, block>>>(out);
  const cudaError_t started = cudaProfilerStart();
  nvtxRangePushA("warmup");
  column<<<1, block>>>(out);
  nvtxRangePop();
  nvtxRangePushA("step");
  column<<<1, block>>>(out);
  column<<<1, block>>>(out);
  nvtxRangePushA("inner");
  column<<<1, block>>>(out);
  nvtxRangePop();
  nvtxRangePop();
  const cudaError_t stopped = cudaProfilerStop();
  if (started != cudaSuccess || stopped != cudaSuccess) {
    std::printf("cudaProfilerStart: %s, cudaProfilerStop: %s\n", cudaGetErrorName(started),
                cudaGetErrorName(stopped));
    return 1;
  }
  nvtxRangeId_t phase = 0;
  std::thread([&] { phase = nvtxRangeStartA("phase"); }).join();
  column<<<1, block>>>(out);
  nvtxRangeEnd(phase);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", e == cudaSuccess ? "done" : cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 1;
}
