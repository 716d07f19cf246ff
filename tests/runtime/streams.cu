// Streams and events: handles, flags and priorities; work issued to streams has finished when
// the call returns, so host functions see everything issued before them and queries are never
// "not ready"; elapsed times come from the host clock and are never negative.
#include <chrono>
#include <thread>
#include <vector>

#include "check.h"

__global__ void step(int* p, int value) { p[threadIdx.x] = value; }

static std::vector<int> order;

static void CUDART_CB host_function(void* data) { order.push_back(*static_cast<int*>(data)); }
static void CUDART_CB callback(cudaStream_t, cudaError_t status, void* data) {
  order.push_back(status == cudaSuccess ? *static_cast<int*>(data) : -1);
}

int main() {
  cudaStream_t a, b, c;
  EXPECT_OK(cudaStreamCreate(&a));
  EXPECT_OK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  EXPECT_OK(cudaStreamCreateWithPriority(&c, cudaStreamDefault, -3));
  unsigned flags = 9;
  EXPECT_OK(cudaStreamGetFlags(b, &flags));
  CHECK_EQ(flags, cudaStreamNonBlocking);
  int priority = 0;
  EXPECT_OK(cudaStreamGetPriority(c, &priority));
  CHECK_EQ(priority, -3);
  unsigned long long id_a = 0, id_b = 0;
  EXPECT_OK(cudaStreamGetId(a, &id_a));
  EXPECT_OK(cudaStreamGetId(b, &id_b));
  CHECK(id_a != id_b);
  EXPECT_ERR(cudaStreamCreateWithFlags(&c, 0x10), cudaErrorInvalidValue);

  // Work in stream order, across streams, with host functions in between.
  int* d = nullptr;
  EXPECT_OK(cudaMalloc(&d, 256 * sizeof(int)));
  int host[256] = {};
  int one = 1, two = 2, three = 3;
  EXPECT_OK(cudaMemsetAsync(d, 0, sizeof host, a));
  step<<<1, 256, 0, a>>>(d, 7);
  EXPECT_OK(cudaLaunchHostFunc(a, host_function, &one));
  EXPECT_OK(cudaMemcpyAsync(host, d, sizeof host, cudaMemcpyDeviceToHost, b));
  EXPECT_OK(cudaStreamAddCallback(b, callback, &two, 0));
  step<<<1, 32, 0, cudaStreamPerThread>>>(d, 8);
  EXPECT_OK(cudaLaunchHostFunc(cudaStreamLegacy, host_function, &three));
  CHECK((order == std::vector<int>{1, 2, 3}));
  EXPECT_OK(cudaStreamQuery(a));
  EXPECT_OK(cudaStreamQuery(b));
  EXPECT_OK(cudaStreamSynchronize(a));
  EXPECT_OK(cudaStreamSynchronize(0));

  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusActive;
  EXPECT_OK(cudaStreamIsCapturing(a, &capture));
  CHECK(capture == cudaStreamCaptureStatusNone);
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  EXPECT_OK(cudaThreadExchangeStreamCaptureMode(&mode));
  CHECK(mode == cudaStreamCaptureModeGlobal);

  // Events: recorded times from the host clock.
  cudaEvent_t start, stop, untimed, never;
  EXPECT_OK(cudaEventCreate(&start));
  EXPECT_OK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
  EXPECT_OK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
  EXPECT_OK(cudaEventCreate(&never));
  EXPECT_OK(cudaEventRecord(start, a));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  step<<<4, 64, 0, a>>>(d, 9);
  EXPECT_OK(cudaEventRecord(stop, a));
  EXPECT_OK(cudaEventRecord(untimed, b));
  EXPECT_OK(cudaStreamWaitEvent(b, stop, 0));
  EXPECT_OK(cudaEventSynchronize(stop));
  EXPECT_OK(cudaEventQuery(stop));
  EXPECT_OK(cudaEventQuery(never));
  float ms = -1;
  EXPECT_OK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 20.0f && ms < 10000.0f);
  EXPECT_OK(cudaEventElapsedTime(&ms, start, start));
  CHECK(ms >= 0.0f);
  EXPECT_ERR(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
  EXPECT_ERR(cudaEventElapsedTime(&ms, start, never), cudaErrorInvalidResourceHandle);
  EXPECT_ERR(cudaEventElapsedTime(nullptr, start, stop), cudaErrorInvalidValue);

  // Handles that are gone.
  EXPECT_OK(cudaEventDestroy(never));
  EXPECT_ERR(cudaEventRecord(never, a), cudaErrorInvalidResourceHandle);
  EXPECT_OK(cudaStreamDestroy(c));
  EXPECT_ERR(cudaStreamSynchronize(c), cudaErrorInvalidResourceHandle);
  EXPECT_ERR(cudaStreamDestroy(c), cudaErrorInvalidResourceHandle);
  cudaGetLastError();

  EXPECT_OK(cudaEventDestroy(start));
  EXPECT_OK(cudaEventDestroy(stop));
  EXPECT_OK(cudaEventDestroy(untimed));
  EXPECT_OK(cudaStreamDestroy(a));
  EXPECT_OK(cudaStreamDestroy(b));
  EXPECT_OK(cudaFree(d));
  EXPECT_OK(cudaDeviceSynchronize());
  if (failures) return 1;
  std::printf("streams: ok\n");
  return 0;
}
