// A program for `bankcheck run`'s own tests: a transpose through a shared tile with a 32-way
// bank conflict, launched repeatedly (argv[1] times) with one configuration and once with
// another; a second kernel without shared memory; exit code argv[2] (default 0).
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::printf("%s failed: %s\n", #call, cudaGetErrorName(e));                    \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

__global__ void tile_transpose(float* out, const float* in, int n) {
  __shared__ float tile[32][32];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.x][threadIdx.y] = in[y * n + x];  // column writes: 32 lanes in one bank
  __syncthreads();
  out[(blockIdx.x * 32 + threadIdx.y) * n + blockIdx.y * 32 + threadIdx.x] =
      tile[threadIdx.y][threadIdx.x];
}

__global__ void scale(float* v, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= a;
}

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 3;
  const int code = argc > 2 ? std::atoi(argv[2]) : 0;
  const int n = 64;
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * n * sizeof(float)));
  float host[n * n];
  for (int i = 0; i < n * n; ++i) host[i] = static_cast<float>(i);
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
  for (int r = 0; r < repeats; ++r) tile_transpose<<<dim3(2, 2), dim3(32, 32)>>>(out, in, n);
  tile_transpose<<<dim3(1, 1), dim3(32, 32)>>>(out, in, n);  // another configuration
  scale<<<(n * n + 255) / 256, 256>>>(out, n * n, 2.0f);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  // out = 2 * transpose(in): out[x][y] = 2 * in[y][x].
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      if (host[x * n + y] != 2.0f * static_cast<float>(y * n + x)) {
        std::printf("wrong at %d,%d\n", x, y);
        return 1;
      }
  std::printf("done\n");
  return code;
}
