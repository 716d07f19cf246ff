// convolution.cu: separable 2D convolution of a batch of images, in the style of the CUDA
// samples' convolutionSeparable: the filter taps live in __constant__ memory (filled with
// cudaMemcpyToSymbol), the image geometry travels by value in a struct, the images sit in
// pitched allocations (cudaMallocPitch, cudaMemcpy2DAsync), and each image is filtered on
// its own stream.
//   convolutionRowsKernel          16x4 threads filter 4 x 16 pixels of 4 rows: a shared
//                                  tile with a 16-pixel halo on each side;
//   convolutionColumnsKernel<PAD>  16x8 threads filter 4 x 8 pixels of 16 columns: the tile
//                                  is stored column-major, s_Data[x][y], 48 + PAD words per
//                                  column: PAD = 0 puts half a warp's columns in the same
//                                  bank, PAD = 1 none.
// Pixels outside the image count as zero; widths and heights need not be multiples of the
// tiles.
//
//   usage: convolution [width] [height] [radius] [images]
//   default: convolution 300 200 4 2   (per image, on its stream: convolutionRowsKernel
//            (grid 5x50 of 16x4), convolutionColumnsKernel<0> and <1> (grid 19x7 of 16x8):
//            6 launches)
//
// Both column outputs are compared with a CPU convolution (relative 1e-5).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                               \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
              cudaGetErrorString(err_));                                               \
      exit(EXIT_FAILURE);                                                              \
    }                                                                                  \
  } while (0)

#define MAX_KERNEL_RADIUS 8
#define MAX_KERNEL_LENGTH (2 * MAX_KERNEL_RADIUS + 1)

#define ROWS_BLOCKDIM_X 16
#define ROWS_BLOCKDIM_Y 4
#define ROWS_RESULT_STEPS 4
#define ROWS_HALO_STEPS 1

#define COLUMNS_BLOCKDIM_X 16
#define COLUMNS_BLOCKDIM_Y 8
#define COLUMNS_RESULT_STEPS 4
#define COLUMNS_HALO_STEPS 1

static_assert(ROWS_HALO_STEPS * ROWS_BLOCKDIM_X >= MAX_KERNEL_RADIUS, "row halo too narrow");
static_assert(COLUMNS_HALO_STEPS * COLUMNS_BLOCKDIM_Y >= MAX_KERNEL_RADIUS,
              "column halo too narrow");

// Taps, centred: c_Kernel[MAX_KERNEL_RADIUS + j] weights the pixel j away.
__constant__ float c_Kernel[MAX_KERNEL_LENGTH];

struct ConvParams {
  int width;   // pixels per row
  int height;  // rows
  int pitch;   // floats from one row to the next
  int radius;  // taps on each side, <= MAX_KERNEL_RADIUS
  float scale; // applied to every output pixel
};

__global__ void convolutionRowsKernel(float* d_Dst, const float* d_Src, ConvParams p) {
  __shared__ float s_Data[ROWS_BLOCKDIM_Y][(ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X];

  // Offset to the left halo edge.
  const int baseX = (blockIdx.x * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X + threadIdx.x;
  const int baseY = blockIdx.y * ROWS_BLOCKDIM_Y + threadIdx.y;
  const bool rowInside = baseY < p.height;
  const float* src = d_Src + (size_t)(rowInside ? baseY : 0) * p.pitch;

  for (int i = 0; i < ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS; i++) {
    const int x = baseX + i * ROWS_BLOCKDIM_X;
    s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] =
        (rowInside && x >= 0 && x < p.width) ? src[x] : 0.0f;
  }
  __syncthreads();

  if (!rowInside) return;
  for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++) {
    const int x = baseX + i * ROWS_BLOCKDIM_X;
    if (x >= p.width) break;
    float sum = 0.0f;
    for (int j = -p.radius; j <= p.radius; j++)
      sum += c_Kernel[MAX_KERNEL_RADIUS - j] * s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X + j];
    d_Dst[(size_t)baseY * p.pitch + x] = sum * p.scale;
  }
}

template <int PAD>
__global__ void convolutionColumnsKernel(float* d_Dst, const float* d_Src, ConvParams p) {
  __shared__ float s_Data[COLUMNS_BLOCKDIM_X]
                         [(COLUMNS_RESULT_STEPS + 2 * COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + PAD];

  // Offset to the upper halo edge.
  const int baseX = blockIdx.x * COLUMNS_BLOCKDIM_X + threadIdx.x;
  const int baseY = (blockIdx.y * COLUMNS_RESULT_STEPS - COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + threadIdx.y;
  const bool colInside = baseX < p.width;

  for (int i = 0; i < COLUMNS_RESULT_STEPS + 2 * COLUMNS_HALO_STEPS; i++) {
    const int y = baseY + i * COLUMNS_BLOCKDIM_Y;
    s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y] =
        (colInside && y >= 0 && y < p.height) ? d_Src[(size_t)y * p.pitch + baseX] : 0.0f;
  }
  __syncthreads();

  if (!colInside) return;
  for (int i = COLUMNS_HALO_STEPS; i < COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS; i++) {
    const int y = baseY + i * COLUMNS_BLOCKDIM_Y;
    if (y >= p.height) break;
    float sum = 0.0f;
    for (int j = -p.radius; j <= p.radius; j++)
      sum += c_Kernel[MAX_KERNEL_RADIUS - j] * s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y + j];
    d_Dst[(size_t)y * p.pitch + baseX] = sum * p.scale;
  }
}

// ---------------------------------------------------------------------------------------
// Host

static void convolution_rows_cpu(std::vector<float>& dst, const std::vector<float>& src,
                                 const float* kernel, int w, int h, int r, float scale) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float sum = 0.0f;
      for (int j = -r; j <= r; j++)
        if (x + j >= 0 && x + j < w) sum += kernel[MAX_KERNEL_RADIUS - j] * src[y * w + x + j];
      dst[y * w + x] = sum * scale;
    }
}

static void convolution_columns_cpu(std::vector<float>& dst, const std::vector<float>& src,
                                    const float* kernel, int w, int h, int r, float scale) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float sum = 0.0f;
      for (int j = -r; j <= r; j++)
        if (y + j >= 0 && y + j < h) sum += kernel[MAX_KERNEL_RADIUS - j] * src[(y + j) * w + x];
      dst[y * w + x] = sum * scale;
    }
}

int main(int argc, char** argv) {
  int width = argc > 1 ? atoi(argv[1]) : 300;
  int height = argc > 2 ? atoi(argv[2]) : 200;
  int radius = argc > 3 ? atoi(argv[3]) : 4;
  int images = argc > 4 ? atoi(argv[4]) : 2;
  if (width < 1 || height < 1 || radius < 0 || radius > MAX_KERNEL_RADIUS || images < 1 ||
      images > 8) {
    fprintf(stderr, "usage: %s [width] [height] [radius 0..%d] [images 1..8]\n", argv[0],
            MAX_KERNEL_RADIUS);
    return EXIT_FAILURE;
  }

  // Binomial taps: exact in float, summing to one.
  float h_Kernel[MAX_KERNEL_LENGTH] = {0};
  {
    std::vector<double> row(1, 1.0);
    for (int k = 0; k < 2 * radius; k++) {
      std::vector<double> next(row.size() + 1, 0.0);
      for (size_t i = 0; i < row.size(); i++) {
        next[i] += row[i];
        next[i + 1] += row[i];
      }
      row = next;
    }
    for (int j = -radius; j <= radius; j++)
      h_Kernel[MAX_KERNEL_RADIUS + j] = (float)(row[j + radius] / std::ldexp(1.0, 2 * radius));
  }
  CUDA_CHECK(cudaMemcpyToSymbol(c_Kernel, h_Kernel, sizeof(h_Kernel)));

  size_t pitch_bytes = 0;
  float *d_Input, *d_Buffer, *d_Output[2];
  size_t row_bytes = width * sizeof(float);
  CUDA_CHECK(cudaMallocPitch(&d_Input, &pitch_bytes, row_bytes, (size_t)height * images));
  size_t pitch_check;
  CUDA_CHECK(cudaMallocPitch(&d_Buffer, &pitch_check, row_bytes, (size_t)height * images));
  CUDA_CHECK(cudaMallocPitch(&d_Output[0], &pitch_check, row_bytes, (size_t)height * images));
  CUDA_CHECK(cudaMallocPitch(&d_Output[1], &pitch_check, row_bytes, (size_t)height * images));
  if (pitch_check != pitch_bytes) {
    fprintf(stderr, "pitches differ: %zu and %zu\n", pitch_bytes, pitch_check);
    return EXIT_FAILURE;
  }
  printf("%d images of %d x %d, filter radius %d, row pitch %zu bytes\n", images, width, height,
         radius, pitch_bytes);

  ConvParams rows_params{width, height, (int)(pitch_bytes / sizeof(float)), radius, 1.0f};
  ConvParams cols_params = rows_params;
  cols_params.scale = 2.0f;

  size_t image_floats = (size_t)width * height;
  float *h_Input, *h_Output;
  CUDA_CHECK(cudaMallocHost(&h_Input, image_floats * images * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_Output, 2 * image_floats * images * sizeof(float)));
  unsigned seed = 99u;
  for (size_t i = 0; i < image_floats * images; i++) {
    seed = seed * 1664525u + 1013904223u;
    h_Input[i] = (float)(seed >> 16) / 65536.0f;
  }

  std::vector<cudaStream_t> streams(images);
  for (auto& s : streams) CUDA_CHECK(cudaStreamCreate(&s));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  dim3 rows_blocks((width + ROWS_RESULT_STEPS * ROWS_BLOCKDIM_X - 1) / (ROWS_RESULT_STEPS * ROWS_BLOCKDIM_X),
                   (height + ROWS_BLOCKDIM_Y - 1) / ROWS_BLOCKDIM_Y);
  dim3 rows_threads(ROWS_BLOCKDIM_X, ROWS_BLOCKDIM_Y);
  dim3 cols_blocks((width + COLUMNS_BLOCKDIM_X - 1) / COLUMNS_BLOCKDIM_X,
                   (height + COLUMNS_RESULT_STEPS * COLUMNS_BLOCKDIM_Y - 1) /
                       (COLUMNS_RESULT_STEPS * COLUMNS_BLOCKDIM_Y));
  dim3 cols_threads(COLUMNS_BLOCKDIM_X, COLUMNS_BLOCKDIM_Y);
  size_t pitch = pitch_bytes / sizeof(float);

  CUDA_CHECK(cudaEventRecord(start, 0));
  for (int img = 0; img < images; img++) {
    cudaStream_t s = streams[img];
    size_t first = (size_t)img * height * pitch;
    CUDA_CHECK(cudaMemcpy2DAsync(d_Input + first, pitch_bytes, h_Input + img * image_floats,
                                 row_bytes, row_bytes, height, cudaMemcpyHostToDevice, s));
    convolutionRowsKernel<<<rows_blocks, rows_threads, 0, s>>>(d_Buffer + first, d_Input + first,
                                                               rows_params);
    CUDA_CHECK(cudaGetLastError());
    convolutionColumnsKernel<0><<<cols_blocks, cols_threads, 0, s>>>(d_Output[0] + first,
                                                                     d_Buffer + first, cols_params);
    CUDA_CHECK(cudaGetLastError());
    convolutionColumnsKernel<1><<<cols_blocks, cols_threads, 0, s>>>(d_Output[1] + first,
                                                                     d_Buffer + first, cols_params);
    CUDA_CHECK(cudaGetLastError());
    for (int v = 0; v < 2; v++)
      CUDA_CHECK(cudaMemcpy2DAsync(h_Output + (2 * img + v) * image_floats, row_bytes,
                                   d_Output[v] + first, pitch_bytes, row_bytes, height,
                                   cudaMemcpyDeviceToHost, s));
  }
  for (int img = 0; img < images; img++) CUDA_CHECK(cudaEventRecord(stop, streams[img]));
  for (auto& s : streams) CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  printf("%d launches in %.3f ms\n", 3 * images, ms);

  bool ok = true;
  std::vector<float> src(image_floats), tmp(image_floats), ref(image_floats);
  for (int img = 0; img < images; img++) {
    src.assign(h_Input + img * image_floats, h_Input + (img + 1) * image_floats);
    convolution_rows_cpu(tmp, src, h_Kernel, width, height, radius, rows_params.scale);
    convolution_columns_cpu(ref, tmp, h_Kernel, width, height, radius, cols_params.scale);
    for (int v = 0; v < 2; v++) {
      const float* got = h_Output + (2 * img + v) * image_floats;
      double max_err = 0.0;
      for (size_t i = 0; i < image_floats; i++) {
        double err = std::fabs(got[i] - ref[i]) / (1.0 + std::fabs(ref[i]));
        if (std::isnan(err)) err = INFINITY;
        if (err > max_err) max_err = err;
      }
      printf("image %d, columns kernel with PAD=%d: max relative error %.3g\n", img, v, max_err);
      ok = ok && max_err < 1e-5;
    }
  }

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  for (auto& s : streams) CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFreeHost(h_Input));
  CUDA_CHECK(cudaFreeHost(h_Output));
  CUDA_CHECK(cudaFree(d_Input));
  CUDA_CHECK(cudaFree(d_Buffer));
  CUDA_CHECK(cudaFree(d_Output[0]));
  CUDA_CHECK(cudaFree(d_Output[1]));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
