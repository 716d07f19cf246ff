// Buffers larger than bankcheck's memory budget (3 GiB): 10 GiB of device memory, of which a
// kernel touches one float every 64 MiB. Only the touched pages cost memory: the program checks
// its results and its own peak resident set (under 1 GiB, bankcheck's included).
// Prints "lazy memory: ok".
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

__global__ void mark(float* big, size_t stride, int marks, float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < marks) big[i * stride] = value + i;
}

static long peak_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

int main() {
  const size_t gib = size_t{1} << 30;
  float *big = nullptr, *second = nullptr;
  if (cudaMalloc(&big, 8 * gib) != cudaSuccess || cudaMalloc(&second, 2 * gib) != cudaSuccess) {
    std::fprintf(stderr, "FAIL: cudaMalloc of 10 GiB\n");
    return 1;
  }
  const size_t stride = (size_t{64} << 20) / sizeof(float);  // one float every 64 MiB
  const int marks = static_cast<int>(8 * gib / sizeof(float) / stride);
  mark<<<1, 128>>>(big, stride, marks, 1.0f);
  mark<<<1, 128>>>(second, stride, marks / 4, 2.0f);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  for (int i = 0; i < marks; i += 37) {
    float v = 0;
    cudaMemcpy(&v, big + i * stride, sizeof v, cudaMemcpyDeviceToHost);
    if (v != 1.0f + i) {
      std::fprintf(stderr, "FAIL: mark %d is %g\n", i, v);
      return 1;
    }
  }
  float v = 0;
  cudaMemcpy(&v, second + stride, sizeof v, cudaMemcpyDeviceToHost);
  if (v != 3.0f) return 1;
  // What the device has left, as the program sees it.
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  if (total - free_bytes < 10 * gib) return 1;
  const long peak = peak_kib();
  if (peak < 0 || peak > (1 << 20)) {
    std::fprintf(stderr, "FAIL: peak resident set %ld KiB\n", peak);
    return 1;
  }
  cudaFree(big);
  cudaFree(second);
  std::printf("lazy memory: ok\n");
  return 0;
}
