// A program for `bankcheck run`'s own tests of repeated launches: launches that repeat an
// earlier one on unchanged inputs, and the changes that make a repeat run again (inputs
// copied in, outputs overwritten, a large input cleared, managed memory written by the host), kernels that update
// their data in place, count with atomics or read the clock. It checks every result, so a
// launch skipped that should have run shows as a wrong value; prints "done" on success.
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                               \
  do {                                                            \
    cudaError_t e = (call);                                       \
    if (e != cudaSuccess) {                                       \
      std::printf("%s failed: %s\n", #call, cudaGetErrorName(e)); \
      std::exit(1);                                               \
    }                                                             \
  } while (0)

constexpr int n = 1024;

__global__ void twice(float* out, const float* in) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2.0f * in[i];
}
__global__ void plus_one(float* out, const float* in) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1.0f;
}
__global__ void accumulate(float* out, const float* in) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] += in[i];
}
__global__ void count(unsigned* counter) { atomicAdd(counter, 1u); }
__global__ void clocked(float* out, const float* in) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + (clock64() >= 0 ? 0.0f : 1.0f);
}

// Every out[i] == f(i); the step's name on a difference.
template <class F>
void expect(const float* device, F f, const char* step) {
  static float host[n];
  CHECK(cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (host[i] != f(i)) {
      std::printf("%s: out[%d] is %g, not %g\n", step, i, host[i], f(i));
      std::exit(1);
    }
}

int main() {
  float *in, *out, *acc, *min, *mout;
  unsigned* counter;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMalloc(&acc, n * sizeof(float)));
  CHECK(cudaMalloc(&counter, sizeof(unsigned)));
  CHECK(cudaMallocManaged(&min, n * sizeof(float)));
  CHECK(cudaMallocManaged(&mout, n * sizeof(float)));
  static float host[n];
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));

  // 8 launches: 5 repeat an earlier one with nothing changed.
  for (int r = 0; r < 5; ++r) twice<<<n / 256, 256>>>(out, in);
  expect(
      out, [](int i) { return 2.0f * i; }, "twice");
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(3 * i);
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));  // an input changed
  twice<<<n / 256, 256>>>(out, in);
  expect(
      out, [](int i) { return 6.0f * i; }, "twice after a copy to its input");
  CHECK(cudaMemset(out, 0, n * sizeof(float)));  // its output overwritten
  twice<<<n / 256, 256>>>(out, in);
  expect(
      out, [](int i) { return 6.0f * i; }, "twice after a memset of its output");
  twice<<<n / 256, 256>>>(out, in);
  expect(
      out, [](int i) { return 6.0f * i; }, "twice once more");

  // A buffer of the driver's own mappings (1 MiB and more) cleared with zeros but for 100
  // floats at each end: its whole pages given back, the fill reported all the same. 3
  // launches, 1 repeat with nothing changed.
  constexpr int big = 1 << 18;
  float *bin, *bout;
  CHECK(cudaMalloc(&bin, big * sizeof(float)));
  CHECK(cudaMalloc(&bout, big * sizeof(float)));
  static float hbig[big];
  for (int i = 0; i < big; ++i) hbig[i] = static_cast<float>(i % 1000);
  CHECK(cudaMemcpy(bin, hbig, sizeof hbig, cudaMemcpyHostToDevice));
  twice<<<big / 256, 256>>>(bout, bin);
  twice<<<big / 256, 256>>>(bout, bin);
  CHECK(cudaMemset(bin + 100, 0, (big - 200) * sizeof(float)));
  twice<<<big / 256, 256>>>(bout, bin);
  CHECK(cudaMemcpy(hbig, bout, sizeof hbig, cudaMemcpyDeviceToHost));
  for (int i = 0; i < big; ++i) {
    const float want = i < 100 || i >= big - 100 ? 2.0f * (i % 1000) : 0.0f;
    if (hbig[i] != want) {
      std::printf("twice after a memset of a large input: out[%d] is %g, not %g\n", i, hbig[i],
                  want);
      return 1;
    }
  }

  // Managed memory the host writes itself: 4 launches, 2 repeats with nothing changed.
  for (int i = 0; i < n; ++i) min[i] = static_cast<float>(i);
  plus_one<<<n / 256, 256>>>(mout, min);
  plus_one<<<n / 256, 256>>>(mout, min);
  CHECK(cudaDeviceSynchronize());
  min[3] = 100.0f;  // a store of the host's, through no CUDA call
  plus_one<<<n / 256, 256>>>(mout, min);
  plus_one<<<n / 256, 256>>>(mout, min);
  CHECK(cudaDeviceSynchronize());
  expect(
      mout, [](int i) { return i == 3 ? 101.0f : i + 1.0f; }, "plus_one on managed memory");

  // In place, atomics, the clock: every launch runs.
  CHECK(cudaMemset(acc, 0, n * sizeof(float)));
  for (int r = 0; r < 3; ++r) accumulate<<<n / 256, 256>>>(acc, in);
  expect(
      acc, [](int i) { return 9.0f * i; }, "accumulate");
  CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
  for (int r = 0; r < 3; ++r) count<<<4, 64>>>(counter);
  unsigned counted = 0;
  CHECK(cudaMemcpy(&counted, counter, sizeof counted, cudaMemcpyDeviceToHost));
  if (counted != 3 * 4 * 64) {
    std::printf("count: %u, not %d\n", counted, 3 * 4 * 64);
    return 1;
  }
  for (int r = 0; r < 3; ++r) clocked<<<n / 256, 256>>>(out, in);
  expect(
      out, [](int i) { return 3.0f * i; }, "clocked");
  CHECK(cudaGetLastError());
  std::printf("done\n");
  return 0;
}
