// A dynamic-programming wavefront (Needleman-Wunsch, as Rodinia's needle): each thread owns
// a row of the score tile and sweeps its columns, reading the north-west, north and west
// neighbours. Row 0 has no north: its lanes take a floor instead. wavefront_rebased.ptx is
// this kernel's PTX with the loop's address register anchored one row up (tx - 1), as nvcc
// anchors such tiles: a negative 32-bit base plus a positive offset for row 0.
#include <climits>
#define B 16
__global__ void wavefront(const int* ref, int* score, int penalty, int n) {
  __shared__ int temp[B + 1][B + 1];
  const int tx = threadIdx.x;
  for (int ty = 0; ty <= B; ++ty) temp[tx][ty] = ref[tx * (B + 1) + ty];
  __syncthreads();
#pragma unroll 1
  for (int ty = 1; ty < n; ++ty) {
    const int nw = tx > 0 ? temp[tx - 1][ty - 1] : INT_MIN / 2;
    const int up = tx > 0 ? temp[tx - 1][ty] - penalty : INT_MIN / 2;
    const int w = temp[tx][ty - 1] - penalty;
    __syncthreads();
    temp[tx][ty] = max(nw, max(up, w));
    __syncthreads();
  }
  score[tx] = temp[tx][B];
}
