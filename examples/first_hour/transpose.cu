// transpose.cu: a user's first matrix transpose, as one writes it before profiling: a naive
// kernel (each thread moves one element: the read walks a row, the write a column) and a
// tiled one through a 32x32 shared tile (both global sides walk rows, but the tile is read
// down a column). Its own command line and its own check against the CPU.
//
//   usage: transpose [-w WIDTH] [-h HEIGHT] [--iters N] [--kernel naive|tiled|both] [--quiet]
//   default: transpose -w 256 -h 256 --iters 1 --kernel both
//
// Prints "transpose: PASSED" (or the first wrong element) and exits 0 (or 1).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

constexpr int TILE = 32;
constexpr int ROWS = 8;

// out (width columns of height) = transpose of in (height rows of width).
__global__ void transpose_naive(const float* in, float* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[x * height + y] = in[y * width + x];
}

__global__ void transpose_tiled(const float* in, float* out, int width, int height) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

static void usage(const char* me) {
  fprintf(stderr,
          "usage: %s [-w WIDTH] [-h HEIGHT] [--iters N] [--kernel naive|tiled|both] [--quiet]\n",
          me);
  exit(2);
}

int main(int argc, char** argv) {
  int width = 256, height = 256, iters = 1;
  bool quiet = false;
  std::string which = "both";
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(argv[0]);
      return argv[++i];
    };
    if (!strcmp(a, "-w"))
      width = atoi(value());
    else if (!strcmp(a, "-h"))
      height = atoi(value());
    else if (!strcmp(a, "--iters"))
      iters = atoi(value());
    else if (!strcmp(a, "--kernel"))
      which = value();
    else if (!strcmp(a, "--quiet"))
      quiet = true;
    else
      usage(argv[0]);
  }
  if (width < 1 || height < 1 || iters < 1 ||
      (which != "naive" && which != "tiled" && which != "both"))
    usage(argv[0]);

  const size_t n = (size_t)width * height;
  std::vector<float> h_in(n), h_out(n), want(n);
  for (size_t i = 0; i < n; ++i) h_in[i] = (float)(i % 1000) * 0.5f;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) want[(size_t)x * height + y] = h_in[(size_t)y * width + x];

  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  bool ok = true;
  for (const char* name : {"naive", "tiled"}) {
    if (which != "both" && which != name) continue;
    CHECK(cudaMemset(d_out, 0xff, n * sizeof(float)));
    for (int it = 0; it < iters; ++it) {
      if (!strcmp(name, "naive")) {
        dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
        transpose_naive<<<grid, block>>>(d_in, d_out, width, height);
      } else {
        dim3 block(TILE, ROWS), grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
        transpose_tiled<<<grid, block>>>(d_in, d_out, width, height);
      }
      CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
      if (h_out[i] != want[i]) {
        fprintf(stderr, "transpose_%s: element %zu is %g, expected %g\n", name, i, h_out[i],
                want[i]);
        ok = false;
        break;
      }
    if (!quiet) printf("transpose_%s: %d x %d, %d iteration%s\n", name, width, height, iters,
                       iters == 1 ? "" : "s");
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  printf("transpose: %s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
