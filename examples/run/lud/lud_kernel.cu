// lud_kernel.cu: blocked right-looking LU decomposition without pivoting, in the style of
// Rodinia's lud. Each step of BLOCK_SIZE columns runs three kernels:
//   lud_diagonal   one block of 16 threads factors the diagonal 16x16 tile in shared
//                  memory (thread tx walks row tx of L and column tx of U: a column walk
//                  shadow[tx][i] across threads);
//   lud_perimeter  one block of 32 threads per tile right of and below the diagonal one:
//                  threads 0-15 solve the U row tiles, 16-31 the L column tiles;
//   lud_internal   a 16x16 block per trailing tile: m -= L_col * U_row from two shared
//                  tiles.
#include "common.h"

__global__ void lud_diagonal(float* m, int matrix_dim, int offset) {
  __shared__ float shadow[BLOCK_SIZE][BLOCK_SIZE];
  int i, j;

  int array_offset = offset * matrix_dim + offset;
  for (i = 0; i < BLOCK_SIZE; i++) {
    shadow[i][threadIdx.x] = m[array_offset + threadIdx.x];
    array_offset += matrix_dim;
  }
  __syncthreads();

  for (i = 0; i < BLOCK_SIZE - 1; i++) {
    if (threadIdx.x > i) {  // column i of L
      for (j = 0; j < i; j++) shadow[threadIdx.x][i] -= shadow[threadIdx.x][j] * shadow[j][i];
      shadow[threadIdx.x][i] /= shadow[i][i];
    }
    __syncthreads();
    if (threadIdx.x > i) {  // row i + 1 of U
      for (j = 0; j < i + 1; j++) shadow[i + 1][threadIdx.x] -= shadow[i + 1][j] * shadow[j][threadIdx.x];
    }
    __syncthreads();
  }

  // Row 0 of the tile is already U's.
  array_offset = (offset + 1) * matrix_dim + offset;
  for (i = 1; i < BLOCK_SIZE; i++) {
    m[array_offset + threadIdx.x] = shadow[i][threadIdx.x];
    array_offset += matrix_dim;
  }
}

__global__ void lud_perimeter(float* m, int matrix_dim, int offset) {
  __shared__ float dia[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];

  int i, j, array_offset;
  int idx;

  if (threadIdx.x < BLOCK_SIZE) {
    idx = threadIdx.x;
    array_offset = offset * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE / 2; i++) {
      dia[i][idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = offset * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE; i++) {
      peri_row[i][idx] = m[array_offset + (blockIdx.x + 1) * BLOCK_SIZE + idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = threadIdx.x - BLOCK_SIZE;
    array_offset = (offset + BLOCK_SIZE / 2) * matrix_dim + offset;
    for (i = BLOCK_SIZE / 2; i < BLOCK_SIZE; i++) {
      dia[i][idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = (offset + (blockIdx.x + 1) * BLOCK_SIZE) * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE; i++) {
      peri_col[i][idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
  }
  __syncthreads();

  if (threadIdx.x < BLOCK_SIZE) {  // U tile right of the diagonal: forward substitution
    idx = threadIdx.x;
    for (i = 1; i < BLOCK_SIZE; i++) {
      for (j = 0; j < i; j++) peri_row[i][idx] -= dia[i][j] * peri_row[j][idx];
    }
  } else {  // L tile below the diagonal: thread idx solves row idx
    idx = threadIdx.x - BLOCK_SIZE;
    for (i = 0; i < BLOCK_SIZE; i++) {
      for (j = 0; j < i; j++) peri_col[idx][i] -= peri_col[idx][j] * dia[j][i];
      peri_col[idx][i] /= dia[i][i];
    }
  }
  __syncthreads();

  if (threadIdx.x < BLOCK_SIZE) {
    idx = threadIdx.x;
    array_offset = (offset + 1) * matrix_dim + offset;
    for (i = 1; i < BLOCK_SIZE; i++) {
      m[array_offset + (blockIdx.x + 1) * BLOCK_SIZE + idx] = peri_row[i][idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = threadIdx.x - BLOCK_SIZE;
    array_offset = (offset + (blockIdx.x + 1) * BLOCK_SIZE) * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE; i++) {
      m[array_offset + idx] = peri_col[i][idx];
      array_offset += matrix_dim;
    }
  }
}

__global__ void lud_internal(float* m, int matrix_dim, int offset) {
  __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];

  int i;
  float sum;

  int global_row_id = offset + (blockIdx.y + 1) * BLOCK_SIZE;
  int global_col_id = offset + (blockIdx.x + 1) * BLOCK_SIZE;

  peri_row[threadIdx.y][threadIdx.x] =
      m[(offset + threadIdx.y) * matrix_dim + global_col_id + threadIdx.x];
  peri_col[threadIdx.y][threadIdx.x] =
      m[(global_row_id + threadIdx.y) * matrix_dim + offset + threadIdx.x];
  __syncthreads();

  sum = 0;
  for (i = 0; i < BLOCK_SIZE; i++) sum += peri_col[threadIdx.y][i] * peri_row[i][threadIdx.x];
  m[(global_row_id + threadIdx.y) * matrix_dim + global_col_id + threadIdx.x] -= sum;
}

int lud_cuda(float* m, int matrix_dim) {
  int i = 0, launches = 0;
  dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
  for (i = 0; i < matrix_dim - BLOCK_SIZE; i += BLOCK_SIZE) {
    lud_diagonal<<<1, BLOCK_SIZE>>>(m, matrix_dim, i);
    CUDA_CHECK(cudaGetLastError());
    lud_perimeter<<<(matrix_dim - i) / BLOCK_SIZE - 1, BLOCK_SIZE * 2>>>(m, matrix_dim, i);
    CUDA_CHECK(cudaGetLastError());
    dim3 dimGrid((matrix_dim - i) / BLOCK_SIZE - 1, (matrix_dim - i) / BLOCK_SIZE - 1);
    lud_internal<<<dimGrid, dimBlock>>>(m, matrix_dim, i);
    CUDA_CHECK(cudaGetLastError());
    launches += 3;
  }
  lud_diagonal<<<1, BLOCK_SIZE>>>(m, matrix_dim, i);
  CUDA_CHECK(cudaGetLastError());
  return launches + 1;
}
