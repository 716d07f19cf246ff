// needle.cu: Needleman-Wunsch global alignment of two DNA sequences, in the style of
// Rodinia's nw. The (n+1) x (n+1) score matrix is computed in 16x16 tiles along
// anti-diagonals of tiles: launch i of the first loop scores the i tiles of tile diagonal
// i (the upper-left triangle), the second loop the lower-right triangle, so a run makes
// 2 * n/16 - 1 launches. A block of 16 threads loads its tile's substitution scores and
// the row and column above and left of it (a strided column read) into shared memory and
// sweeps the tile's cells diagonal by diagonal with a barrier after each.
//
//   usage: needle [n] [penalty]       n: sequence length, a multiple of 16
//   default: needle 256 10   (16 launches of needle_cuda_shared_1, 15 of needle_cuda_shared_2)
//
// The matrix is compared exactly with the CPU's dynamic program.
#include <cuda_runtime.h>

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

// Substitution scores of A, C, G, T: +5 for a match, -4 for a mismatch, -2 between the
// two purines or the two pyrimidines.
static const int similarity[4][4] = {
    {5, -4, -2, -4}, {-4, 5, -4, -2}, {-2, -4, 5, -4}, {-4, -2, -4, 5}};

__host__ __device__ inline int maximum(int a, int b, int c) {
  int k = (a <= b) ? b : a;
  return (k <= c) ? c : k;
}

// Scores the tile whose top-left cell is `index_nw` (the cell diagonal to its first cell).
// temp holds the tile with its north row and west column; ref the substitution scores.
__device__ __forceinline__ void score_tile(const int* reference, int* matrix, int cols,
                                           int penalty, int index_nw) {
  __shared__ int temp[BLOCK_SIZE + 1][BLOCK_SIZE + 1];
  __shared__ int ref[BLOCK_SIZE][BLOCK_SIZE];
  int tx = threadIdx.x;
  int index = index_nw + cols + 1 + tx;  // row 0 of the tile, column tx
  int index_n = index_nw + 1 + tx;       // the row above the tile
  int index_w = index_nw + cols;         // the column left of the tile

  if (tx == 0) temp[tx][0] = matrix[index_nw];
  for (int ty = 0; ty < BLOCK_SIZE; ty++) ref[ty][tx] = reference[index + cols * ty];
  __syncthreads();

  temp[tx + 1][0] = matrix[index_w + cols * tx];
  __syncthreads();

  temp[0][tx + 1] = matrix[index_n];
  __syncthreads();

  // Upper-left half of the tile: diagonal m has m + 1 cells.
  for (int m = 0; m < BLOCK_SIZE; m++) {
    if (tx <= m) {
      int t_index_x = tx + 1;
      int t_index_y = m - tx + 1;
      temp[t_index_y][t_index_x] =
          maximum(temp[t_index_y - 1][t_index_x - 1] + ref[t_index_y - 1][t_index_x - 1],
                  temp[t_index_y][t_index_x - 1] - penalty,
                  temp[t_index_y - 1][t_index_x] - penalty);
    }
    __syncthreads();
  }

  // Lower-right half.
  for (int m = BLOCK_SIZE - 2; m >= 0; m--) {
    if (tx <= m) {
      int t_index_x = tx + BLOCK_SIZE - m;
      int t_index_y = BLOCK_SIZE - tx;
      temp[t_index_y][t_index_x] =
          maximum(temp[t_index_y - 1][t_index_x - 1] + ref[t_index_y - 1][t_index_x - 1],
                  temp[t_index_y][t_index_x - 1] - penalty,
                  temp[t_index_y - 1][t_index_x] - penalty);
    }
    __syncthreads();
  }

  for (int ty = 0; ty < BLOCK_SIZE; ty++) matrix[index + ty * cols] = temp[ty + 1][tx + 1];
}

// Tile diagonal i (1-based) of the upper-left triangle: tile (i - 1 - bx, bx).
__global__ void needle_cuda_shared_1(const int* reference, int* matrix, int cols, int penalty,
                                     int i, int block_width) {
  int b_index_x = blockIdx.x;
  int b_index_y = i - 1 - blockIdx.x;
  int index_nw = cols * BLOCK_SIZE * b_index_y + BLOCK_SIZE * b_index_x;
  score_tile(reference, matrix, cols, penalty, index_nw);
}

// Tile diagonal i of the lower-right triangle, counted down from block_width - 1.
__global__ void needle_cuda_shared_2(const int* reference, int* matrix, int cols, int penalty,
                                     int i, int block_width) {
  int b_index_x = blockIdx.x + block_width - i;
  int b_index_y = block_width - blockIdx.x - 1;
  int index_nw = cols * BLOCK_SIZE * b_index_y + BLOCK_SIZE * b_index_x;
  score_tile(reference, matrix, cols, penalty, index_nw);
}

static void usage(const char* argv0) {
  fprintf(stderr, "usage: %s [n] [penalty]\n  n: sequence length, a positive multiple of %d\n",
          argv0, BLOCK_SIZE);
  exit(EXIT_FAILURE);
}

int main(int argc, char** argv) {
  int n = 256, penalty = 10;
  if (argc > 3) usage(argv[0]);
  if (argc > 1) n = atoi(argv[1]);
  if (argc > 2) penalty = atoi(argv[2]);
  if (n <= 0 || n % BLOCK_SIZE != 0) usage(argv[0]);

  int max_rows = n + 1, max_cols = n + 1;
  size_t size = (size_t)max_rows * max_cols;
  std::vector<int> reference(size, 0), input_itemsets(size, 0);

  // Two random sequences; the first row and column of the score matrix are gap penalties.
  std::vector<int> seq_a(max_rows), seq_b(max_cols);
  unsigned seed = 7u;  // a fixed LCG: the same sequences on every machine
  auto next_base = [&seed]() {
    seed = seed * 1103515245u + 12345u;
    return (int)((seed >> 16) % 4);
  };
  for (int i = 1; i < max_rows; i++) seq_a[i] = next_base();
  for (int j = 1; j < max_cols; j++) seq_b[j] = next_base();
  for (int i = 1; i < max_rows; i++)
    for (int j = 1; j < max_cols; j++)
      reference[i * max_cols + j] = similarity[seq_a[i]][seq_b[j]];
  for (int i = 1; i < max_rows; i++) input_itemsets[i * max_cols] = -i * penalty;
  for (int j = 1; j < max_cols; j++) input_itemsets[j] = -j * penalty;

  int *reference_cuda, *matrix_cuda;
  CUDA_CHECK(cudaMalloc(&reference_cuda, size * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&matrix_cuda, size * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(reference_cuda, reference.data(), size * sizeof(int),
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(matrix_cuda, input_itemsets.data(), size * sizeof(int),
                        cudaMemcpyHostToDevice));

  dim3 dimBlock(BLOCK_SIZE, 1);
  int block_width = (max_cols - 1) / BLOCK_SIZE;
  int launches = 0;

  printf("Processing top-left matrix\n");
  for (int i = 1; i <= block_width; i++) {
    dim3 dimGrid(i, 1);
    needle_cuda_shared_1<<<dimGrid, dimBlock>>>(reference_cuda, matrix_cuda, max_cols, penalty,
                                                i, block_width);
    CUDA_CHECK(cudaGetLastError());
    ++launches;
  }
  printf("Processing bottom-right matrix\n");
  for (int i = block_width - 1; i >= 1; i--) {
    dim3 dimGrid(i, 1);
    needle_cuda_shared_2<<<dimGrid, dimBlock>>>(reference_cuda, matrix_cuda, max_cols, penalty,
                                                i, block_width);
    CUDA_CHECK(cudaGetLastError());
    ++launches;
  }
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<int> output(size);
  CUDA_CHECK(cudaMemcpy(output.data(), matrix_cuda, size * sizeof(int), cudaMemcpyDeviceToHost));

  // The same recurrence, row by row.
  std::vector<int> expected = input_itemsets;
  for (int i = 1; i < max_rows; i++)
    for (int j = 1; j < max_cols; j++)
      expected[i * max_cols + j] =
          maximum(expected[(i - 1) * max_cols + j - 1] + reference[i * max_cols + j],
                  expected[i * max_cols + j - 1] - penalty,
                  expected[(i - 1) * max_cols + j] - penalty);

  size_t wrong = 0, first = size;
  for (size_t k = 0; k < size; ++k)
    if (output[k] != expected[k]) {
      if (first == size) first = k;
      ++wrong;
    }
  printf("%d launches, alignment score %d (cpu %d)\n", launches, output[size - 1],
         expected[size - 1]);
  if (wrong)
    printf("%zu cells differ, first at (%zu, %zu): gpu %d cpu %d\n", wrong, first / max_cols,
           first % max_cols, output[first], expected[first]);

  CUDA_CHECK(cudaFree(reference_cuda));
  CUDA_CHECK(cudaFree(matrix_cuda));

  printf("%s\n", wrong == 0 ? "PASSED" : "FAILED");
  return wrong == 0 ? 0 : 1;
}
