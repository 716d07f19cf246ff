// Kernels for tests/repeats_test.cpp: pure ones whose repeats may be skipped, and those that
// never may (in place, atomics, the clock), over float buffers of n elements.
__global__ void scale2(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
// Data-dependent reads: which bytes it reads follow idx.
__global__ void gather(float* out, const float* in, const int* idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i] % n];
}
// Reads and writes one buffer at once, in different words of each 8 bytes.
__global__ void odd_from_even(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i + 1 < n) v[2 * i + 1] = v[2 * i] + 1.0f;
}
__global__ void axpy(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}
__global__ void bump(unsigned* counter, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(counter, 1u);
}
__global__ void clocked(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + (clock64() < 0 ? 1.0f : 0.0f);
}
// Byte stores: granules of 4 bytes shared by neighbouring threads.
__global__ void flags(unsigned char* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.0f < in[i];
}
