// Memory: every allocation kind, copies and fills in 1D, 2D and 3D with their Async forms,
// variables by symbol (the record executor keeps their storage), pointer attributes and the
// errors of misuse, each as the real runtime reports it.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

__constant__ float coefficients[16];
__device__ int counter;
__device__ double table[8];
__managed__ int managed_value;

__global__ void use(float* out) { out[0] = coefficients[0] + counter + table[0] + managed_value; }

static void one_dimension() {
  const size_t n = 1000;
  std::vector<int> host(n), back(n, -1);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<int>(i * 3);
  int *a = nullptr, *b = nullptr;
  EXPECT_OK(cudaMalloc(&a, n * sizeof(int)));
  EXPECT_OK(cudaMalloc(&b, n * sizeof(int)));
  CHECK(reinterpret_cast<std::uintptr_t>(a) % 256 == 0);
  EXPECT_OK(cudaMemcpy(a, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  EXPECT_OK(cudaMemcpy(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice));
  EXPECT_OK(cudaMemcpy(back.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(back == host);
  EXPECT_OK(cudaMemset(b, 0xff, n * sizeof(int)));
  EXPECT_OK(cudaMemcpy(back.data(), b, n * sizeof(int), cudaMemcpyDefault));
  CHECK_EQ(back[17], -1);
  // Async forms on the default and a created stream.
  cudaStream_t s;
  EXPECT_OK(cudaStreamCreate(&s));
  EXPECT_OK(cudaMemsetAsync(b, 0, n * sizeof(int), s));
  EXPECT_OK(cudaMemcpyAsync(b + 1, host.data(), sizeof(int), cudaMemcpyHostToDevice, s));
  EXPECT_OK(cudaMemcpyAsync(back.data(), b, 2 * sizeof(int), cudaMemcpyDeviceToHost, 0));
  EXPECT_OK(cudaStreamSynchronize(s));
  CHECK(back[0] == 0 && back[1] == 0);
  // Misuse.
  EXPECT_ERR(cudaMemcpy(back.data(), host.data(), 4, cudaMemcpyDeviceToHost),
             cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemcpy(a, host.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice),
             cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemcpy(a, b, 4, static_cast<cudaMemcpyKind>(7)), cudaErrorInvalidMemcpyDirection);
  EXPECT_ERR(cudaMemset(host.data(), 0, 4), cudaErrorInvalidValue);
  EXPECT_ERR(cudaFree(a + 1), cudaErrorInvalidValue);
  EXPECT_ERR(cudaFree(host.data()), cudaErrorInvalidValue);
  EXPECT_OK(cudaFree(nullptr));
  int not_a_stream = 0;
  EXPECT_ERR(cudaMemcpyAsync(b, a, 4, cudaMemcpyDeviceToDevice,
                             reinterpret_cast<cudaStream_t>(&not_a_stream)),
             cudaErrorInvalidResourceHandle);
  void* none = &not_a_stream;
  EXPECT_OK(cudaMalloc(&none, 0));
  CHECK(none == nullptr);
  cudaGetLastError();
  // Memory accounting.
  size_t free_before = 0, total = 0, free_after = 0;
  EXPECT_OK(cudaMemGetInfo(&free_before, &total));
  void* big = nullptr;
  EXPECT_OK(cudaMalloc(&big, size_t{1} << 30));
  EXPECT_OK(cudaMemGetInfo(&free_after, &total));
  CHECK_EQ(free_before - free_after, size_t{1} << 30);
  void* too_big = nullptr;
  EXPECT_ERR(cudaMalloc(&too_big, total), cudaErrorMemoryAllocation);
  EXPECT_OK(cudaFree(big));
  EXPECT_OK(cudaMemGetInfo(&free_after, &total));
  CHECK_EQ(free_after, free_before);
  void* async = nullptr;
  EXPECT_OK(cudaMallocAsync(&async, 4096, s));
  EXPECT_OK(cudaMemsetAsync(async, 1, 4096, s));
  EXPECT_OK(cudaFreeAsync(async, s));
  EXPECT_OK(cudaStreamDestroy(s));
  EXPECT_OK(cudaFree(a));
  EXPECT_OK(cudaFree(b));
}

static void two_and_three_dimensions() {
  const size_t width = 100, height = 7;  // bytes, rows
  char* d = nullptr;
  size_t pitch = 0;
  EXPECT_OK(cudaMallocPitch(reinterpret_cast<void**>(&d), &pitch, width, height));
  CHECK_EQ(pitch, 512);
  std::vector<char> host(width * height), back(width * height, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<char>(i % 101);
  EXPECT_OK(cudaMemset2D(d, pitch, 0x5a, width, height));
  EXPECT_OK(cudaMemcpy2D(d, pitch, host.data(), width, width - 10, height, cudaMemcpyHostToDevice));
  EXPECT_OK(
      cudaMemcpy2DAsync(back.data(), width, d, pitch, width, height, cudaMemcpyDeviceToHost, 0));
  for (size_t r = 0; r < height; ++r) {
    CHECK(std::memcmp(&back[r * width], &host[r * width], width - 10) == 0);
    CHECK_EQ(back[r * width + width - 1], 0x5a);
  }
  EXPECT_ERR(cudaMemcpy2D(d, pitch, host.data(), width, pitch + 1, 1, cudaMemcpyHostToDevice),
             cudaErrorInvalidPitchValue);
  EXPECT_ERR(cudaMemcpy2D(d, pitch, host.data(), width, width, height + 1, cudaMemcpyHostToDevice),
             cudaErrorInvalidValue);
  EXPECT_OK(cudaFree(d));

  cudaPitchedPtr p;
  const cudaExtent extent = make_cudaExtent(40, 3, 2);
  EXPECT_OK(cudaMalloc3D(&p, extent));
  CHECK_EQ(p.pitch, 512);
  EXPECT_OK(cudaMemset3D(p, 7, extent));
  std::vector<char> flat(40 * 3 * 2, 0);
  cudaMemcpy3DParms copy = {};
  copy.srcPtr = p;
  copy.dstPtr = make_cudaPitchedPtr(flat.data(), 40, 40, 3);
  copy.extent = extent;
  copy.kind = cudaMemcpyDeviceToHost;
  EXPECT_OK(cudaMemcpy3D(&copy));
  CHECK_EQ(flat[0], 7);
  CHECK_EQ(flat[flat.size() - 1], 7);
  EXPECT_OK(cudaFree(p.ptr));
  cudaGetLastError();
}

static void symbols() {
  float c[16];
  for (int i = 0; i < 16; ++i) c[i] = 0.5f * i;
  EXPECT_OK(cudaMemcpyToSymbol(coefficients, c, sizeof c));
  float back[4] = {};
  EXPECT_OK(cudaMemcpyFromSymbol(back, coefficients, sizeof back, 8 * sizeof(float)));
  CHECK(back[0] == 4.0f && back[3] == 5.5f);
  EXPECT_ERR(cudaMemcpyToSymbol(coefficients, c, sizeof c, 4), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemcpyToSymbol(coefficients, c, 4, 0, cudaMemcpyDeviceToHost),
             cudaErrorInvalidMemcpyDirection);
  int not_a_symbol = 0;
  EXPECT_ERR(cudaMemcpyToSymbol(not_a_symbol, c, 4), cudaErrorInvalidSymbol);

  const int five = 5;
  EXPECT_OK(cudaMemcpyToSymbolAsync(counter, &five, sizeof five, 0, cudaMemcpyHostToDevice, 0));
  int* counter_address = nullptr;
  EXPECT_OK(cudaGetSymbolAddress(reinterpret_cast<void**>(&counter_address), counter));
  int seen = 0;
  EXPECT_OK(cudaMemcpy(&seen, counter_address, sizeof seen, cudaMemcpyDeviceToHost));
  CHECK_EQ(seen, 5);
  size_t size = 0;
  EXPECT_OK(cudaGetSymbolSize(&size, table));
  CHECK_EQ(size, 8 * sizeof(double));
  // Device-to-device into a symbol from device memory.
  double* d = nullptr;
  const double values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_OK(cudaMalloc(&d, sizeof values));
  EXPECT_OK(cudaMemcpy(d, values, sizeof values, cudaMemcpyHostToDevice));
  EXPECT_OK(cudaMemcpyToSymbol(table, d, sizeof values, 0, cudaMemcpyDeviceToDevice));
  double t[8] = {};
  EXPECT_OK(cudaMemcpyFromSymbolAsync(t, table, sizeof t, 0, cudaMemcpyDeviceToHost, 0));
  CHECK(t[7] == 8.0);
  EXPECT_OK(cudaFree(d));
  cudaGetLastError();

  // A __managed__ variable is host memory the program uses directly.
  managed_value = 41;
  ++managed_value;
  int m = 0;
  EXPECT_OK(cudaMemcpyFromSymbol(&m, managed_value, sizeof m));
  CHECK_EQ(m, 42);
}

static void host_and_managed() {
  int* pinned = nullptr;
  EXPECT_OK(cudaMallocHost(&pinned, 64 * sizeof(int)));
  pinned[3] = 9;
  int* mapped = nullptr;
  EXPECT_OK(cudaHostAlloc(&mapped, 4096, cudaHostAllocMapped));
  void* device_view = nullptr;
  EXPECT_OK(cudaHostGetDevicePointer(&device_view, mapped, 0));
  CHECK(device_view == mapped);
  unsigned flags = 0;
  EXPECT_OK(cudaHostGetFlags(&flags, mapped));
  CHECK(flags & cudaHostAllocMapped);
  EXPECT_ERR(cudaHostAlloc(&mapped, 16, 0x100), cudaErrorInvalidValue);
  EXPECT_ERR(cudaFree(pinned), cudaErrorInvalidValue);
  EXPECT_OK(cudaFreeHost(pinned));
  EXPECT_OK(cudaFreeHost(mapped));

  std::vector<float> program_memory(1024);
  EXPECT_OK(cudaHostRegister(program_memory.data(), 4096, cudaHostRegisterDefault));
  EXPECT_ERR(cudaHostRegister(program_memory.data() + 4, 16, cudaHostRegisterDefault),
             cudaErrorHostMemoryAlreadyRegistered);
  EXPECT_OK(cudaHostGetDevicePointer(&device_view, program_memory.data() + 8, 0));
  CHECK(device_view == program_memory.data() + 8);
  EXPECT_OK(cudaMemset(program_memory.data(), 0, 4096));
  EXPECT_OK(cudaHostUnregister(program_memory.data()));
  EXPECT_ERR(cudaHostUnregister(program_memory.data()), cudaErrorHostMemoryNotRegistered);
  cudaGetLastError();

  float* managed = nullptr;
  EXPECT_OK(cudaMallocManaged(&managed, 256 * sizeof(float)));
  managed[255] = 2.5f;
  cudaMemLocation where = {};
  where.type = cudaMemLocationTypeDevice;
  where.id = 0;
  EXPECT_OK(cudaMemPrefetchAsync(managed, 256 * sizeof(float), where, 0, 0));
  EXPECT_OK(cudaMemAdvise(managed, 256 * sizeof(float), cudaMemAdviseSetReadMostly, where));
  // The runtime answers a zero size itself: no allocation, and success.
  float* none = managed;
  EXPECT_OK(cudaMallocManaged(&none, 0));
  CHECK(none == nullptr);

  cudaPointerAttributes a;
  EXPECT_OK(cudaPointerGetAttributes(&a, managed + 10));
  CHECK(a.type == cudaMemoryTypeManaged && a.hostPointer == managed + 10);
  float* device = nullptr;
  EXPECT_OK(cudaMalloc(&device, 64));
  EXPECT_OK(cudaPointerGetAttributes(&a, device));
  CHECK(a.type == cudaMemoryTypeDevice && a.devicePointer == device && a.device == 0);
  int local = 0;
  EXPECT_OK(cudaPointerGetAttributes(&a, &local));
  CHECK(a.type == cudaMemoryTypeUnregistered);
  EXPECT_OK(cudaFree(managed));
  EXPECT_OK(cudaFree(device));
}

int main() {
  one_dimension();
  two_and_three_dimensions();
  symbols();
  host_and_managed();
  float* out = nullptr;
  cudaMalloc(&out, sizeof(float));
  use<<<1, 1>>>(out);
  EXPECT_OK(cudaGetLastError());
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT_OK(cudaDeviceReset());
  int zero = -1;
  EXPECT_OK(cudaMemcpyFromSymbol(&zero, counter, sizeof zero));
  CHECK_EQ(zero, 0);  // variables start again from their initial contents
  if (failures) return 1;
  std::printf("memory: ok\n");
  return 0;
}
