// hotspot.cu: a transient thermal simulation of a chip, written the way Rodinia's HotSpot
// is: the chip is a grid of cells, each time step updates every cell from its four
// neighbours, its power and the ambient temperature. One launch advances
// `pyramid_height` time steps: a 16x16 block loads a tile with a halo of that width into
// shared memory and shrinks the computed region by one cell per side per step ("pyramid"),
// so neighbouring blocks overlap and the tiles' global loads are misaligned. Two global
// buffers are swapped between launches (ping-pong); the last launch does the remainder
// when sim_time is not a multiple of the pyramid height.
//
//   usage: hotspot [grid_rows] [grid_cols] [pyramid_height] [sim_time]
//   default: hotspot 100 120 2 7   (4 launches of calculate_temp, grid 10x9 of 16x16)
//
// The result is compared with a CPU simulation of sim_time single steps.
#include <cuda_runtime.h>

#include <algorithm>
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

#define BLOCK_SIZE 16
#define EXPAND_RATE 2  // one more step per launch widens the halo by one cell per side
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))

// Chip parameters (a 16 mm x 16 mm die, 0.5 mm thick).
#define MAX_PD (3.0e6)        // maximum power density of the chip
#define PRECISION 0.001f
#define SPEC_HEAT_SI 1.75e6f  // capacitance fitting factor
#define K_SI 100.0f
#define FACTOR_CHIP 0.5f

static const float t_chip = 0.0005f;
static const float chip_height = 0.016f;
static const float chip_width = 0.016f;
static const float amb_temp = 80.0f;

__global__ void calculate_temp(int iteration, const float* power, const float* temp_src,
                               float* temp_dst, int grid_cols, int grid_rows, int border_cols,
                               int border_rows, float Cap, float Rx, float Ry, float Rz,
                               float step) {
  __shared__ float temp_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float power_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float temp_t[BLOCK_SIZE][BLOCK_SIZE];  // the step being computed

  const float amb = 80.0f;
  int bx = blockIdx.x;
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  float step_div_Cap = step / Cap;
  float Rx_1 = 1.0f / Rx;
  float Ry_1 = 1.0f / Ry;
  float Rz_1 = 1.0f / Rz;

  // The cells this block writes: a square of BLOCK_SIZE - 2 * iteration, whose tile starts
  // `border` cells up and left of it.
  int small_block_rows = BLOCK_SIZE - iteration * EXPAND_RATE;
  int small_block_cols = BLOCK_SIZE - iteration * EXPAND_RATE;
  int blkY = small_block_rows * by - border_rows;
  int blkX = small_block_cols * bx - border_cols;
  int blkYmax = blkY + BLOCK_SIZE - 1;
  int blkXmax = blkX + BLOCK_SIZE - 1;

  int yidx = blkY + ty;
  int xidx = blkX + tx;
  int loadYidx = yidx, loadXidx = xidx;
  int index = grid_cols * loadYidx + loadXidx;

  if (IN_RANGE(loadYidx, 0, grid_rows - 1) && IN_RANGE(loadXidx, 0, grid_cols - 1)) {
    temp_on_cuda[ty][tx] = temp_src[index];
    power_on_cuda[ty][tx] = power[index];
  }
  __syncthreads();

  // Tile rows and columns that lie inside the chip; a neighbour outside is the cell itself.
  int validYmin = (blkY < 0) ? -blkY : 0;
  int validYmax = (blkYmax > grid_rows - 1) ? BLOCK_SIZE - 1 - (blkYmax - grid_rows + 1)
                                            : BLOCK_SIZE - 1;
  int validXmin = (blkX < 0) ? -blkX : 0;
  int validXmax = (blkXmax > grid_cols - 1) ? BLOCK_SIZE - 1 - (blkXmax - grid_cols + 1)
                                            : BLOCK_SIZE - 1;

  int N = ty - 1;
  int S = ty + 1;
  int W = tx - 1;
  int E = tx + 1;
  N = (N < validYmin) ? validYmin : N;
  S = (S > validYmax) ? validYmax : S;
  W = (W < validXmin) ? validXmin : W;
  E = (E > validXmax) ? validXmax : E;

  bool computed = false;
  for (int i = 0; i < iteration; i++) {
    computed = false;
    if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && IN_RANGE(ty, i + 1, BLOCK_SIZE - i - 2) &&
        IN_RANGE(tx, validXmin, validXmax) && IN_RANGE(ty, validYmin, validYmax)) {
      computed = true;
      temp_t[ty][tx] =
          temp_on_cuda[ty][tx] +
          step_div_Cap * (power_on_cuda[ty][tx] +
                          (temp_on_cuda[S][tx] + temp_on_cuda[N][tx] - 2.0f * temp_on_cuda[ty][tx]) *
                              Ry_1 +
                          (temp_on_cuda[ty][E] + temp_on_cuda[ty][W] - 2.0f * temp_on_cuda[ty][tx]) *
                              Rx_1 +
                          (amb - temp_on_cuda[ty][tx]) * Rz_1);
    }
    __syncthreads();
    if (i == iteration - 1) break;
    if (computed) temp_on_cuda[ty][tx] = temp_t[ty][tx];  // the next step reads this one
    __syncthreads();
  }

  // Only the cells computed in the last step are this block's own.
  if (computed) temp_dst[index] = temp_t[ty][tx];
}

// Runs sim_time steps, pyramid_height per launch; returns the index of the buffer holding
// the result.
static int compute_tran_temp(const float* d_power, float* d_temp[2], int col, int row,
                             int total_iterations, int num_iterations, int blockCols,
                             int blockRows, int borderCols, int borderRows, int* launches) {
  dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
  dim3 dimGrid(blockCols, blockRows);

  float grid_height = chip_height / row;
  float grid_width = chip_width / col;

  float Cap = FACTOR_CHIP * SPEC_HEAT_SI * t_chip * grid_width * grid_height;
  float Rx = grid_width / (2.0f * K_SI * t_chip * grid_height);
  float Ry = grid_height / (2.0f * K_SI * t_chip * grid_width);
  float Rz = t_chip / (K_SI * grid_height * grid_width);

  float max_slope = MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI);
  float step = PRECISION / max_slope;

  int src = 1, dst = 0;
  for (int t = 0; t < total_iterations; t += num_iterations) {
    int temp = src;
    src = dst;
    dst = temp;
    calculate_temp<<<dimGrid, dimBlock>>>(std::min(num_iterations, total_iterations - t),
                                          d_power, d_temp[src], d_temp[dst], col, row,
                                          borderCols, borderRows, Cap, Rx, Ry, Rz, step);
    CUDA_CHECK(cudaGetLastError());
    ++*launches;
  }
  return dst;
}

// The same model, one step at a time, on the CPU.
static void reference(std::vector<float>& temp, const std::vector<float>& power, int rows,
                      int cols, int steps) {
  float grid_height = chip_height / rows;
  float grid_width = chip_width / cols;
  float Cap = FACTOR_CHIP * SPEC_HEAT_SI * t_chip * grid_width * grid_height;
  float Rx = grid_width / (2.0f * K_SI * t_chip * grid_height);
  float Ry = grid_height / (2.0f * K_SI * t_chip * grid_width);
  float Rz = t_chip / (K_SI * grid_height * grid_width);
  float max_slope = MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI);
  float step = PRECISION / max_slope;
  float step_div_Cap = step / Cap;
  float Rx_1 = 1.0f / Rx, Ry_1 = 1.0f / Ry, Rz_1 = 1.0f / Rz;

  std::vector<float> next(temp.size());
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        int n = std::max(r - 1, 0), so = std::min(r + 1, rows - 1);
        int w = std::max(c - 1, 0), e = std::min(c + 1, cols - 1);
        float t = temp[r * cols + c];
        next[r * cols + c] =
            t + step_div_Cap * (power[r * cols + c] +
                                (temp[so * cols + c] + temp[n * cols + c] - 2.0f * t) * Ry_1 +
                                (temp[r * cols + e] + temp[r * cols + w] - 2.0f * t) * Rx_1 +
                                (amb_temp - t) * Rz_1);
      }
    }
    temp.swap(next);
  }
}

static void usage(const char* argv0) {
  fprintf(stderr, "usage: %s [grid_rows] [grid_cols] [pyramid_height] [sim_time]\n", argv0);
  fprintf(stderr, "  pyramid_height: time steps per launch, 1 to %d\n", BLOCK_SIZE / 2 - 1);
  exit(EXIT_FAILURE);
}

int main(int argc, char** argv) {
  int grid_rows = 100, grid_cols = 120, pyramid_height = 2, total_iterations = 7;
  if (argc > 5) usage(argv[0]);
  if (argc > 1) grid_rows = atoi(argv[1]);
  if (argc > 2) grid_cols = atoi(argv[2]);
  if (argc > 3) pyramid_height = atoi(argv[3]);
  if (argc > 4) total_iterations = atoi(argv[4]);
  if (grid_rows <= 0 || grid_cols <= 0 || total_iterations <= 0 || pyramid_height <= 0 ||
      BLOCK_SIZE - pyramid_height * EXPAND_RATE <= 0)
    usage(argv[0]);

  // The pyramid: each launch writes the inner (BLOCK_SIZE - 2 * height)^2 cells of a tile.
  int borderCols = pyramid_height * EXPAND_RATE / 2;
  int borderRows = pyramid_height * EXPAND_RATE / 2;
  int smallBlockCol = BLOCK_SIZE - pyramid_height * EXPAND_RATE;
  int smallBlockRow = BLOCK_SIZE - pyramid_height * EXPAND_RATE;
  int blockCols = grid_cols / smallBlockCol + ((grid_cols % smallBlockCol == 0) ? 0 : 1);
  int blockRows = grid_rows / smallBlockRow + ((grid_rows % smallBlockRow == 0) ? 0 : 1);

  printf("pyramid height %d, grid %d x %d, border [%d, %d], blocks %d x %d, %d steps\n",
         pyramid_height, grid_rows, grid_cols, borderCols, borderRows, blockCols, blockRows,
         total_iterations);

  // Initial temperatures around 330 K and a power map with a few hot units.
  size_t size = (size_t)grid_rows * grid_cols;
  std::vector<float> temp(size), power(size);
  unsigned seed = 12345u;
  auto next_rand = [&seed]() {
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
  };
  for (size_t i = 0; i < size; ++i) {
    temp[i] = 323.0f + 20.0f * next_rand();
    power[i] = 0.5f * next_rand();
  }
  for (int r = grid_rows / 4; r < grid_rows / 3; ++r)
    for (int c = grid_cols / 2; c < grid_cols / 2 + grid_cols / 8; ++c) power[r * grid_cols + c] = 4.0f;

  float* d_temp[2];
  float* d_power;
  CUDA_CHECK(cudaMalloc(&d_temp[0], size * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_temp[1], size * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_power, size * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_temp[0], temp.data(), size * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_power, power.data(), size * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_temp[1], 0, size * sizeof(float)));

  printf("Start computing the transient temperature\n");
  int launches = 0;
  int ret = compute_tran_temp(d_power, d_temp, grid_cols, grid_rows, total_iterations,
                              pyramid_height, blockCols, blockRows, borderCols, borderRows,
                              &launches);
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("Ending simulation: %d launches\n", launches);

  std::vector<float> result(size);
  CUDA_CHECK(cudaMemcpy(result.data(), d_temp[ret], size * sizeof(float), cudaMemcpyDeviceToHost));

  reference(temp, power, grid_rows, grid_cols, total_iterations);
  double max_err = 0.0;
  size_t worst = 0;
  for (size_t i = 0; i < size; ++i) {
    double err = std::fabs((double)result[i] - (double)temp[i]);
    if (std::isnan(err)) {
      max_err = INFINITY;
      worst = i;
      break;
    }
    if (err > max_err) {
      max_err = err;
      worst = i;
    }
  }
  printf("max |gpu - cpu| = %.3g K at cell (%zu, %zu): gpu %.5f cpu %.5f\n", max_err,
         worst / grid_cols, worst % grid_cols, result[worst], temp[worst]);

  CUDA_CHECK(cudaFree(d_power));
  CUDA_CHECK(cudaFree(d_temp[0]));
  CUDA_CHECK(cudaFree(d_temp[1]));

  bool ok = max_err < 1e-3;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
