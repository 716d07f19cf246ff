// transpose_bench.cu: the transpose ladder. Seed 004's 8192x8192 float transposes and the
// fixes bankcheck suggests for their shared-memory tile (pad each row by one element, XOR
// swizzle, rotation), in five block shapes, each checked bit-exact against a CPU transpose
// and timed with CUDA events against a device-to-device cudaMemcpy measured in the same run.
//
//   32x32  seed 004's shape: block 32x32, one element per thread, grid 256x256.
//   32x8   the classic shape: 32x32 tile, block 32x8, four elements per thread, grid 256x256.
//   64x2   the occupancy case: 64x64 float tile (16 KB) plus a 512-byte array, block 64x2
//          (128 threads), 32 elements per thread, grid 128x128. Padding the tile to [64][65]
//          (16.25 KB) costs a resident block per SM on sm_90 (13 -> 12); XOR and rotation
//          do not.
//   64x8   a 64x64 tile (16 KB), block 64x8 (512 threads), eight elements per thread, grid
//          128x128: each block writes 256-byte runs of its output rows.
//   float4 the same tile with 256 threads and 16-byte global loads and stores, four of each
//          per thread; each thread gathers the four elements of an output float4 from a tile
//          column.
//   probe  not in the ladder: what else moves the conflict-free transposes (more elements
//          per thread, cache hints, the transposes' global traffic without the tile).
//
// Usage: transpose_bench [--reps N] [--warmup N] [--tsv FILE] [--check-only]
//   --check-only launches each kernel once (after the copy), checks it and exits: the run to
//   put under Nsight Compute. Exit status: 0 all correct, 1 a kernel was wrong, 2 a CUDA error.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(call)                                                      \
  do {                                                                   \
    cudaError_t err_ = (call);                                           \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                            \
      std::exit(2);                                                      \
    }                                                                    \
  } while (0)

// -- matrix size --
const int N = 8192;
// -- tile and block sizes --
const int BS = 32;         // seed 004: 32x32 tile, 32x32 threads
const int BLOCK_ROWS = 8;  // classic: 32x32 tile, 32x8 threads
const int TILE64 = 64;     // occupancy case: 64x64 tile, 64x2 threads
const int ROWS64 = 2;

// ---------------------------------------------------------------------------------------
// 32x32: seed 004's kernels, one element per thread, on pointers instead of __device__
// arrays.

// bankcheck: kernel=copy_32x32 grid=256,256 block=32,32
__global__ void copy_32x32(const float* __restrict__ idata, float* __restrict__ odata) {
  int ni = blockIdx.y * blockDim.y + threadIdx.y;
  int nj = blockIdx.x * blockDim.x + threadIdx.x;
  odata[ni * N + nj] = idata[ni * N + nj];
}

// bankcheck: kernel=naive_32x32 grid=256,256 block=32,32
__global__ void naive_32x32(const float* idata, float* odata) {
  int ni = blockIdx.y * blockDim.y + threadIdx.y;
  int nj = blockIdx.x * blockDim.x + threadIdx.x;
  odata[nj * N + ni] = idata[ni * N + nj];
}

// Stores rows, loads columns: the 32 lanes of a warp load tile[0..31][ty], one bank, 32-way.
// bankcheck: kernel=shared_32x32 grid=256,256 block=32,32
__global__ void shared_32x32(const float* idata, float* odata) {
  __shared__ float tile[BS][BS];
  int ni = blockIdx.y * blockDim.y + threadIdx.y;
  int nj = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.y][threadIdx.x] = idata[ni * N + nj];
  __syncthreads();
  ni = blockIdx.x * blockDim.x + threadIdx.y;
  nj = blockIdx.y * blockDim.y + threadIdx.x;
  odata[ni * N + nj] = tile[threadIdx.x][threadIdx.y];
}

// Fix 1, pad each row by one element: column c of row r is in bank (r + c) % 32.
// bankcheck: kernel=padded_32x32 grid=256,256 block=32,32
__global__ void padded_32x32(const float* idata, float* odata) {
  __shared__ float tile[BS][BS + 1];
  int ni = blockIdx.y * blockDim.y + threadIdx.y;
  int nj = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.y][threadIdx.x] = idata[ni * N + nj];
  __syncthreads();
  ni = blockIdx.x * blockDim.x + threadIdx.y;
  nj = blockIdx.y * blockDim.y + threadIdx.x;
  odata[ni * N + nj] = tile[threadIdx.x][threadIdx.y];
}

// Fix 2, XOR swizzle (CuTe Swizzle<5,0,5>): element (r, c) is stored at column c ^ r, so a
// row is a permutation of the banks and so is a column.
// bankcheck: kernel=xor_32x32 grid=256,256 block=32,32
__global__ void xor_32x32(const float* idata, float* odata) {
  __shared__ float tile[BS][BS];
  int ni = blockIdx.y * blockDim.y + threadIdx.y;
  int nj = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.y][threadIdx.x ^ threadIdx.y] = idata[ni * N + nj];
  __syncthreads();
  ni = blockIdx.x * blockDim.x + threadIdx.y;
  nj = blockIdx.y * blockDim.y + threadIdx.x;
  odata[ni * N + nj] = tile[threadIdx.x][threadIdx.y ^ threadIdx.x];
}

// Fix 3, rotation (seed 004's padding-free kernel): element (r, c) is stored at column
// (c + r) % 32.
// bankcheck: kernel=rotated_32x32 grid=256,256 block=32,32
__global__ void rotated_32x32(const float* idata, float* odata) {
  __shared__ float tile[BS][BS];
  int ni = blockIdx.y * blockDim.y + threadIdx.y;
  int nj = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.y][(threadIdx.x + threadIdx.y) % BS] = idata[ni * N + nj];
  __syncthreads();
  ni = blockIdx.x * blockDim.x + threadIdx.y;
  nj = blockIdx.y * blockDim.y + threadIdx.x;
  odata[ni * N + nj] = tile[threadIdx.x][(threadIdx.x + threadIdx.y) % BS];
}

// ---------------------------------------------------------------------------------------
// Each shape's copy kernel makes its transposes' global loads, and stores of the same shape
// (each warp one row segment) at the untransposed place, with no tile. Its pointers are
// __restrict__: without it the compiler must assume that a store may change the element the
// next load reads, so each thread of the 32x8 copy issued its loads one at a time (85% of
// the memcpy on the H100; 100% with __restrict__). The transposes need no such promise:
// all their loads go to the tile before the barrier.

// ---------------------------------------------------------------------------------------
// 32x8: the same tiles, a 32x8 block, each thread four rows of the tile (BLOCK_ROWS apart).

// bankcheck: kernel=copy_32x8 grid=256,256 block=32,8
__global__ void copy_32x8(const float* __restrict__ idata, float* __restrict__ odata) {
  int x = blockIdx.x * BS + threadIdx.x;
  int y = blockIdx.y * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS) odata[(y + j) * N + x] = idata[(y + j) * N + x];
}

// bankcheck: kernel=naive_32x8 grid=256,256 block=32,8
__global__ void naive_32x8(const float* idata, float* odata) {
  int x = blockIdx.x * BS + threadIdx.x;
  int y = blockIdx.y * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS) odata[x * N + (y + j)] = idata[(y + j) * N + x];
}

// bankcheck: kernel=shared_32x8 grid=256,256 block=32,8
__global__ void shared_32x8(const float* idata, float* odata) {
  __shared__ float tile[BS][BS];
  int x = blockIdx.x * BS + threadIdx.x;
  int y = blockIdx.y * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * N + x];
  __syncthreads();
  x = blockIdx.y * BS + threadIdx.x;
  y = blockIdx.x * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS)
    odata[(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
}

// bankcheck: kernel=padded_32x8 grid=256,256 block=32,8
__global__ void padded_32x8(const float* idata, float* odata) {
  __shared__ float tile[BS][BS + 1];
  int x = blockIdx.x * BS + threadIdx.x;
  int y = blockIdx.y * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * N + x];
  __syncthreads();
  x = blockIdx.y * BS + threadIdx.x;
  y = blockIdx.x * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS)
    odata[(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
}

// bankcheck: kernel=xor_32x8 grid=256,256 block=32,8
__global__ void xor_32x8(const float* idata, float* odata) {
  __shared__ float tile[BS][BS];
  int x = blockIdx.x * BS + threadIdx.x;
  int y = blockIdx.y * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS) {
    int r = threadIdx.y + j;
    tile[r][threadIdx.x ^ r] = idata[(y + j) * N + x];
  }
  __syncthreads();
  x = blockIdx.y * BS + threadIdx.x;
  y = blockIdx.x * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS) {
    int c = threadIdx.y + j;
    odata[(y + j) * N + x] = tile[threadIdx.x][c ^ threadIdx.x];
  }
}

// bankcheck: kernel=rotated_32x8 grid=256,256 block=32,8
__global__ void rotated_32x8(const float* idata, float* odata) {
  __shared__ float tile[BS][BS];
  int x = blockIdx.x * BS + threadIdx.x;
  int y = blockIdx.y * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS) {
    int r = threadIdx.y + j;
    tile[r][(threadIdx.x + r) % BS] = idata[(y + j) * N + x];
  }
  __syncthreads();
  x = blockIdx.y * BS + threadIdx.x;
  y = blockIdx.x * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS) {
    int c = threadIdx.y + j;
    odata[(y + j) * N + x] = tile[threadIdx.x][(threadIdx.x + c) % BS];
  }
}

// ---------------------------------------------------------------------------------------
// 64x2, the occupancy case: a 64x64 tile (16 KB) and extra[128] (512 B) per block, 128
// threads. Per block, static shared memory plus the 1 KB the system reserves, rounded up to
// 128 B: 17,920 B for [64][64] (13 blocks in 228 KB), 18,176 B for [64][65] (12 blocks).
// extra[] stands for the small arrays real kernels keep beside their tile; every thread
// writes a 1 there and, after the barrier, multiplies by another thread's entry, so the
// array stays and the output stays exact. __launch_bounds__(128, 13) keeps registers from
// limiting residency before shared memory does.

// bankcheck: kernel=copy_64x2 grid=128,128 block=64,2
__global__ void __launch_bounds__(128, 13)
    copy_64x2(const float* __restrict__ idata, float* __restrict__ odata) {
  int x = blockIdx.x * TILE64 + threadIdx.x;
  int y = blockIdx.y * TILE64 + threadIdx.y;
#pragma unroll 8
  for (int i = 0; i < TILE64; i += ROWS64) odata[(y + i) * N + x] = idata[(y + i) * N + x];
}

// bankcheck: kernel=shared_64x64 grid=128,128 block=64,2
__global__ void __launch_bounds__(128, 13) shared_64x64(const float* idata, float* odata) {
  __shared__ float tile[TILE64][TILE64];
  __shared__ float extra[TILE64 * ROWS64];
  int t = threadIdx.y * TILE64 + threadIdx.x;
  int x = blockIdx.x * TILE64 + threadIdx.x;
  int y = blockIdx.y * TILE64 + threadIdx.y;
  extra[t] = 1.0f;
#pragma unroll 8
  for (int i = 0; i < TILE64; i += ROWS64)
    tile[threadIdx.y + i][threadIdx.x] = idata[(y + i) * N + x];
  __syncthreads();
  float one = extra[TILE64 * ROWS64 - 1 - t];
  x = blockIdx.y * TILE64 + threadIdx.x;
  y = blockIdx.x * TILE64 + threadIdx.y;
#pragma unroll 8
  for (int i = 0; i < TILE64; i += ROWS64)
    odata[(y + i) * N + x] = tile[threadIdx.x][threadIdx.y + i] * one;
}

// bankcheck: kernel=padded_64x65 grid=128,128 block=64,2
__global__ void __launch_bounds__(128, 13) padded_64x65(const float* idata, float* odata) {
  __shared__ float tile[TILE64][TILE64 + 1];
  __shared__ float extra[TILE64 * ROWS64];
  int t = threadIdx.y * TILE64 + threadIdx.x;
  int x = blockIdx.x * TILE64 + threadIdx.x;
  int y = blockIdx.y * TILE64 + threadIdx.y;
  extra[t] = 1.0f;
#pragma unroll 8
  for (int i = 0; i < TILE64; i += ROWS64)
    tile[threadIdx.y + i][threadIdx.x] = idata[(y + i) * N + x];
  __syncthreads();
  float one = extra[TILE64 * ROWS64 - 1 - t];
  x = blockIdx.y * TILE64 + threadIdx.x;
  y = blockIdx.x * TILE64 + threadIdx.y;
#pragma unroll 8
  for (int i = 0; i < TILE64; i += ROWS64)
    odata[(y + i) * N + x] = tile[threadIdx.x][threadIdx.y + i] * one;
}

// Element (r, c) at column c ^ r (r, c < 64): the low five bits of the column are those of c
// XOR r, distinct across any 32 consecutive c, and across any 32 consecutive r.
// bankcheck: kernel=xor_64x64 grid=128,128 block=64,2
__global__ void __launch_bounds__(128, 13) xor_64x64(const float* idata, float* odata) {
  __shared__ float tile[TILE64][TILE64];
  __shared__ float extra[TILE64 * ROWS64];
  int t = threadIdx.y * TILE64 + threadIdx.x;
  int x = blockIdx.x * TILE64 + threadIdx.x;
  int y = blockIdx.y * TILE64 + threadIdx.y;
  extra[t] = 1.0f;
#pragma unroll 8
  for (int i = 0; i < TILE64; i += ROWS64) {
    int r = threadIdx.y + i;
    tile[r][threadIdx.x ^ r] = idata[(y + i) * N + x];
  }
  __syncthreads();
  float one = extra[TILE64 * ROWS64 - 1 - t];
  x = blockIdx.y * TILE64 + threadIdx.x;
  y = blockIdx.x * TILE64 + threadIdx.y;
#pragma unroll 8
  for (int i = 0; i < TILE64; i += ROWS64) {
    int c = threadIdx.y + i;
    odata[(y + i) * N + x] = tile[threadIdx.x][c ^ threadIdx.x] * one;
  }
}

// Element (r, c) at column (c + r) % 64.
// bankcheck: kernel=rotated_64x64 grid=128,128 block=64,2
__global__ void __launch_bounds__(128, 13) rotated_64x64(const float* idata, float* odata) {
  __shared__ float tile[TILE64][TILE64];
  __shared__ float extra[TILE64 * ROWS64];
  int t = threadIdx.y * TILE64 + threadIdx.x;
  int x = blockIdx.x * TILE64 + threadIdx.x;
  int y = blockIdx.y * TILE64 + threadIdx.y;
  extra[t] = 1.0f;
#pragma unroll 8
  for (int i = 0; i < TILE64; i += ROWS64) {
    int r = threadIdx.y + i;
    tile[r][(threadIdx.x + r) % TILE64] = idata[(y + i) * N + x];
  }
  __syncthreads();
  float one = extra[TILE64 * ROWS64 - 1 - t];
  x = blockIdx.y * TILE64 + threadIdx.x;
  y = blockIdx.x * TILE64 + threadIdx.y;
#pragma unroll 8
  for (int i = 0; i < TILE64; i += ROWS64) {
    int c = threadIdx.y + i;
    odata[(y + i) * N + x] = tile[threadIdx.x][(threadIdx.x + c) % TILE64] * one;
  }
}

// ---------------------------------------------------------------------------------------
// Probes beyond the tile layout, to see what stands between the conflict-free transposes
// and the copy: more elements per thread (32x4: 8 each), streaming cache hints on the padded
// 32x8 kernel, tileswap_32x8, which moves every 32x32 tile to its transposed place without
// transposing inside it (the transposes' global addresses in the same order, with no tile
// and no barrier), and the order in which blocks take tiles.

// bankcheck: kernel=tileswap_32x8 grid=256,256 block=32,8
__global__ void tileswap_32x8(const float* __restrict__ idata, float* __restrict__ odata) {
  int x = blockIdx.x * BS + threadIdx.x;
  int y = blockIdx.y * BS + threadIdx.y;
  int ox = blockIdx.y * BS + threadIdx.x;
  int oy = blockIdx.x * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS) odata[(oy + j) * N + ox] = idata[(y + j) * N + x];
}

template <int ROWS>
__device__ __forceinline__ void padded_32xR(const float* idata, float* odata) {
  __shared__ float tile[BS][BS + 1];
  int x = blockIdx.x * BS + threadIdx.x;
  int y = blockIdx.y * BS + threadIdx.y;
#pragma unroll
  for (int j = 0; j < BS; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * N + x];
  __syncthreads();
  x = blockIdx.y * BS + threadIdx.x;
  y = blockIdx.x * BS + threadIdx.y;
#pragma unroll
  for (int j = 0; j < BS; j += ROWS) odata[(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
}

template <int ROWS>
__device__ __forceinline__ void xor_32xR(const float* idata, float* odata) {
  __shared__ float tile[BS][BS];
  int x = blockIdx.x * BS + threadIdx.x;
  int y = blockIdx.y * BS + threadIdx.y;
#pragma unroll
  for (int j = 0; j < BS; j += ROWS) {
    int r = threadIdx.y + j;
    tile[r][threadIdx.x ^ r] = idata[(y + j) * N + x];
  }
  __syncthreads();
  x = blockIdx.y * BS + threadIdx.x;
  y = blockIdx.x * BS + threadIdx.y;
#pragma unroll
  for (int j = 0; j < BS; j += ROWS) {
    int c = threadIdx.y + j;
    odata[(y + j) * N + x] = tile[threadIdx.x][c ^ threadIdx.x];
  }
}

__global__ void padded_32x4(const float* idata, float* odata) { padded_32xR<4>(idata, odata); }
__global__ void xor_32x4(const float* idata, float* odata) { xor_32xR<4>(idata, odata); }

// padded_32x8 with evict-first loads and stores (ld.global.cs, st.global.cs): each element is
// touched once, so nothing is worth keeping in L2.
__global__ void padded_32x8_cs(const float* idata, float* odata) {
  __shared__ float tile[BS][BS + 1];
  int x = blockIdx.x * BS + threadIdx.x;
  int y = blockIdx.y * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = __ldcs(&idata[(y + j) * N + x]);
  __syncthreads();
  x = blockIdx.y * BS + threadIdx.x;
  y = blockIdx.x * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS)
    __stcs(&odata[(y + j) * N + x], tile[threadIdx.x][threadIdx.y + j]);
}

// Grouped block order: the grid's blocks, in launch order, walk G x G squares of tiles
// instead of whole rows of tiles, so that the blocks resident at one time read and write
// G-tile (G x 128 B) runs of both matrices rather than whole 32 KB input rows and 128 B
// output runs. (bx, by) is the tile this block handles.
template <int G>
__device__ __forceinline__ void grouped_tile(int& bx, int& by) {
  const int tiles = N / BS, per_row = tiles / G;
  int b = blockIdx.y * gridDim.x + blockIdx.x;
  int g = b / (G * G), in = b % (G * G);
  bx = (g % per_row) * G + in % G;
  by = (g / per_row) * G + in / G;
}

template <int G>
__device__ __forceinline__ void padded_32x8_grouped(const float* idata, float* odata) {
  __shared__ float tile[BS][BS + 1];
  int bx, by;
  grouped_tile<G>(bx, by);
  int x = bx * BS + threadIdx.x;
  int y = by * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * N + x];
  __syncthreads();
  x = by * BS + threadIdx.x;
  y = bx * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS)
    odata[(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
}
__global__ void padded_32x8_g8(const float* idata, float* odata) {
  padded_32x8_grouped<8>(idata, odata);
}
__global__ void padded_32x8_g32(const float* idata, float* odata) {
  padded_32x8_grouped<32>(idata, odata);
}

__global__ void tileswap_32x8_g32(const float* __restrict__ idata, float* __restrict__ odata) {
  int bx, by;
  grouped_tile<32>(bx, by);
  int x = bx * BS + threadIdx.x;
  int y = by * BS + threadIdx.y;
  int ox = by * BS + threadIdx.x;
  int oy = bx * BS + threadIdx.y;
  for (int j = 0; j < BS; j += BLOCK_ROWS) odata[(oy + j) * N + ox] = idata[(y + j) * N + x];
}

// ---------------------------------------------------------------------------------------
// Wide tiles: a 64x64 tile per block (grid 128x128), so that each block writes 256-byte runs
// of each of its 64 output rows instead of the 32x32 tile's 128-byte runs. The conflicting
// kernels are also in bench/transpose/wide_tile.cu, where `bankcheck fix` reads them; the
// fixes below are written exactly as it prints them (results/bankcheck_fix_wide.txt).
//
//   64x8   block 64x8 (512 threads), eight elements per thread, 4-byte accesses.
//   float4 256 threads, 16-byte global loads and stores, four of each per thread: a warp
//          covers 8 float4 columns of 4 rows, stores the 4 elements of each float4 into a
//          tile row and gathers those of an output float4 from a tile column (8-way; the
//          stores 4-way).
const int T = 64;   // tile side
const int R8 = 8;   // rows of the 64x8 block
const int V = 4;    // floats per float4
const int VR = 16;  // tile rows one pass of the float4 kernels covers

// bankcheck: kernel=copy_64x8 grid=128,128 block=64,8
__global__ void copy_64x8(const float* __restrict__ idata, float* __restrict__ odata) {
  int x = blockIdx.x * T + threadIdx.x;
  int y = blockIdx.y * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += R8) odata[(y + j) * N + x] = idata[(y + j) * N + x];
}

// bankcheck: kernel=shared_64x8 grid=128,128 block=64,8
__global__ void shared_64x8(const float* idata, float* odata) {
  __shared__ float tile[T][T];
  int x = blockIdx.x * T + threadIdx.x;
  int y = blockIdx.y * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += R8) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * N + x];
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x;
  y = blockIdx.x * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += R8) odata[(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
}

// bankcheck: kernel=padded_64x8 grid=128,128 block=64,8
__global__ void padded_64x8(const float* idata, float* odata) {
  __shared__ float tile[T][T + 1];
  int x = blockIdx.x * T + threadIdx.x;
  int y = blockIdx.y * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += R8) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * N + x];
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x;
  y = blockIdx.x * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += R8) odata[(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
}

// bankcheck: kernel=xor_64x8 grid=128,128 block=64,8
__global__ void xor_64x8(const float* idata, float* odata) {
  __shared__ float tile[T][T];
  int x = blockIdx.x * T + threadIdx.x;
  int y = blockIdx.y * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += R8) tile[threadIdx.y + j][threadIdx.x ^ ((threadIdx.y + j) & 31)] = idata[(y + j) * N + x];
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x;
  y = blockIdx.x * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += R8) odata[(y + j) * N + x] = tile[threadIdx.x][(threadIdx.y + j) ^ (threadIdx.x & 31)];
}

// bankcheck: kernel=rotated_64x8 grid=128,128 block=64,8
__global__ void rotated_64x8(const float* idata, float* odata) {
  __shared__ float tile[T][T];
  int x = blockIdx.x * T + threadIdx.x;
  int y = blockIdx.y * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += R8) tile[threadIdx.y + j][(threadIdx.x + (threadIdx.y + j)) % T] = idata[(y + j) * N + x];
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x;
  y = blockIdx.x * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += R8) odata[(y + j) * N + x] = tile[threadIdx.x][(threadIdx.y + j + threadIdx.x) % T];
}

// Thread t: float4 column c (0..15) and first row r (0..15) of its passes; lane l of warp w
// has c = (l & 7) + 8 * (w & 1), r = (l >> 3) + 4 * (w >> 1).
// bankcheck: kernel=copy_v4 grid=128,128 block=256
__global__ void copy_v4(const float* __restrict__ idata, float* __restrict__ odata) {
  const float4* in4 = reinterpret_cast<const float4*>(idata);
  float4* out4 = reinterpret_cast<float4*>(odata);
  int c = (threadIdx.x & 7) + ((threadIdx.x >> 5) & 1) * 8;
  int r = ((threadIdx.x >> 3) & 3) + (threadIdx.x >> 6) * 4;
#pragma unroll
  for (int j = 0; j < T; j += VR) {
    int i = (blockIdx.y * T + r + j) * (N / V) + blockIdx.x * (T / V) + c;
    out4[i] = in4[i];
  }
}

// bankcheck: kernel=shared_v4 grid=128,128 block=256
__global__ void shared_v4(const float* idata, float* odata) {
  __shared__ float tile[T][T];
  const float4* in4 = reinterpret_cast<const float4*>(idata);
  float4* out4 = reinterpret_cast<float4*>(odata);
  int c = (threadIdx.x & 7) + ((threadIdx.x >> 5) & 1) * 8;
  int r = ((threadIdx.x >> 3) & 3) + (threadIdx.x >> 6) * 4;
#pragma unroll
  for (int j = 0; j < T; j += VR) {
    float4 v = in4[(blockIdx.y * T + r + j) * (N / V) + blockIdx.x * (T / V) + c];
    tile[r + j][V * c + 0] = v.x;
    tile[r + j][V * c + 1] = v.y;
    tile[r + j][V * c + 2] = v.z;
    tile[r + j][V * c + 3] = v.w;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < T; j += VR) {
    float4 v;
    v.x = tile[V * c + 0][r + j];
    v.y = tile[V * c + 1][r + j];
    v.z = tile[V * c + 2][r + j];
    v.w = tile[V * c + 3][r + j];
    out4[(blockIdx.x * T + r + j) * (N / V) + blockIdx.y * (T / V) + c] = v;
  }
}

// bankcheck: kernel=padded_v4 grid=128,128 block=256
__global__ void padded_v4(const float* idata, float* odata) {
  __shared__ float tile[T][T + 1];
  const float4* in4 = reinterpret_cast<const float4*>(idata);
  float4* out4 = reinterpret_cast<float4*>(odata);
  int c = (threadIdx.x & 7) + ((threadIdx.x >> 5) & 1) * 8;
  int r = ((threadIdx.x >> 3) & 3) + (threadIdx.x >> 6) * 4;
#pragma unroll
  for (int j = 0; j < T; j += VR) {
    float4 v = in4[(blockIdx.y * T + r + j) * (N / V) + blockIdx.x * (T / V) + c];
    tile[r + j][V * c + 0] = v.x;
    tile[r + j][V * c + 1] = v.y;
    tile[r + j][V * c + 2] = v.z;
    tile[r + j][V * c + 3] = v.w;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < T; j += VR) {
    float4 v;
    v.x = tile[V * c + 0][r + j];
    v.y = tile[V * c + 1][r + j];
    v.z = tile[V * c + 2][r + j];
    v.w = tile[V * c + 3][r + j];
    out4[(blockIdx.x * T + r + j) * (N / V) + blockIdx.y * (T / V) + c] = v;
  }
}

// bankcheck: kernel=xor_v4 grid=128,128 block=256
__global__ void xor_v4(const float* idata, float* odata) {
  __shared__ float tile[T][T];
  const float4* in4 = reinterpret_cast<const float4*>(idata);
  float4* out4 = reinterpret_cast<float4*>(odata);
  int c = (threadIdx.x & 7) + ((threadIdx.x >> 5) & 1) * 8;
  int r = ((threadIdx.x >> 3) & 3) + (threadIdx.x >> 6) * 4;
#pragma unroll
  for (int j = 0; j < T; j += VR) {
    float4 v = in4[(blockIdx.y * T + r + j) * (N / V) + blockIdx.x * (T / V) + c];
    tile[r + j][(V * c + 0) ^ ((r + j) & 31)] = v.x;
    tile[r + j][(V * c + 1) ^ ((r + j) & 31)] = v.y;
    tile[r + j][(V * c + 2) ^ ((r + j) & 31)] = v.z;
    tile[r + j][(V * c + 3) ^ ((r + j) & 31)] = v.w;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < T; j += VR) {
    float4 v;
    v.x = tile[V * c + 0][(r + j) ^ ((V * c + 0) & 31)];
    v.y = tile[V * c + 1][(r + j) ^ ((V * c + 1) & 31)];
    v.z = tile[V * c + 2][(r + j) ^ ((V * c + 2) & 31)];
    v.w = tile[V * c + 3][(r + j) ^ ((V * c + 3) & 31)];
    out4[(blockIdx.x * T + r + j) * (N / V) + blockIdx.y * (T / V) + c] = v;
  }
}

// bankcheck: kernel=rotated_v4 grid=128,128 block=256
__global__ void rotated_v4(const float* idata, float* odata) {
  __shared__ float tile[T][T];
  const float4* in4 = reinterpret_cast<const float4*>(idata);
  float4* out4 = reinterpret_cast<float4*>(odata);
  int c = (threadIdx.x & 7) + ((threadIdx.x >> 5) & 1) * 8;
  int r = ((threadIdx.x >> 3) & 3) + (threadIdx.x >> 6) * 4;
#pragma unroll
  for (int j = 0; j < T; j += VR) {
    float4 v = in4[(blockIdx.y * T + r + j) * (N / V) + blockIdx.x * (T / V) + c];
    tile[r + j][(V * c + 0 + (r + j)) % T] = v.x;
    tile[r + j][(V * c + 1 + (r + j)) % T] = v.y;
    tile[r + j][(V * c + 2 + (r + j)) % T] = v.z;
    tile[r + j][(V * c + 3 + (r + j)) % T] = v.w;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < T; j += VR) {
    float4 v;
    v.x = tile[V * c + 0][(r + j + (V * c + 0)) % T];
    v.y = tile[V * c + 1][(r + j + (V * c + 1)) % T];
    v.z = tile[V * c + 2][(r + j + (V * c + 2)) % T];
    v.w = tile[V * c + 3][(r + j + (V * c + 3)) % T];
    out4[(blockIdx.x * T + r + j) * (N / V) + blockIdx.y * (T / V) + c] = v;
  }
}

// Wide-tile probes. tileswap_v4 moves every 64x64 tile to its transposed place without
// transposing inside it, with padded_v4's float4 loads and stores: the wide transposes'
// global traffic without the tile.
// bankcheck: kernel=tileswap_v4 grid=128,128 block=256
__global__ void tileswap_v4(const float* __restrict__ idata, float* __restrict__ odata) {
  const float4* in4 = reinterpret_cast<const float4*>(idata);
  float4* out4 = reinterpret_cast<float4*>(odata);
  int c = (threadIdx.x & 7) + ((threadIdx.x >> 5) & 1) * 8;
  int r = ((threadIdx.x >> 3) & 3) + (threadIdx.x >> 6) * 4;
#pragma unroll
  for (int j = 0; j < T; j += VR)
    out4[(blockIdx.x * T + r + j) * (N / V) + blockIdx.y * (T / V) + c] =
        in4[(blockIdx.y * T + r + j) * (N / V) + blockIdx.x * (T / V) + c];
}

// tileswap_64x8 moves every 64x64 tile to its transposed place without transposing inside
// it, with the 64x8 kernels' loads and stores. padded_64xR is padded_64x8 with a 64xROWS
// block (64 / ROWS elements per thread).
// bankcheck: kernel=tileswap_64x8 grid=128,128 block=64,8
__global__ void tileswap_64x8(const float* __restrict__ idata, float* __restrict__ odata) {
  int x = blockIdx.x * T + threadIdx.x;
  int y = blockIdx.y * T + threadIdx.y;
  int ox = blockIdx.y * T + threadIdx.x;
  int oy = blockIdx.x * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += R8) odata[(oy + j) * N + ox] = idata[(y + j) * N + x];
}

template <int ROWS>
__device__ __forceinline__ void padded_64xR(const float* idata, float* odata) {
  __shared__ float tile[T][T + 1];
  int x = blockIdx.x * T + threadIdx.x;
  int y = blockIdx.y * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * N + x];
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x;
  y = blockIdx.x * T + threadIdx.y;
#pragma unroll
  for (int j = 0; j < T; j += ROWS) odata[(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
}
__global__ void padded_64x4(const float* idata, float* odata) { padded_64xR<4>(idata, odata); }
__global__ void padded_64x16(const float* idata, float* odata) { padded_64xR<16>(idata, odata); }

// padded_v4_rc<TR, TC, B>: padded_v4 on a tile of TR input rows by TC input columns (TC and
// TR multiples of 32) with B threads: grid (N / TC, N / TR), tile[TR][TC + 1]. In both phases
// a warp covers 8 float4 columns of 4 rows, so every tile access is conflict-free; each block
// writes TR * 4-byte runs of its TC output rows. padded_v4_rc<64, 64, 256> is padded_v4.
template <int TR, int TC, int B>
__device__ __forceinline__ void padded_v4_rc(const float* idata, float* odata) {
  __shared__ float tile[TR][TC + 1];
  const float4* in4 = reinterpret_cast<const float4*>(idata);
  float4* out4 = reinterpret_cast<float4*>(odata);
  const int t = threadIdx.x;
#pragma unroll
  for (int p = 0; p < TR * TC / V / B; ++p) {
    int u = t + B * p, g = u >> 5;
    int c = (u & 7) + 8 * (g % (TC / 32)), r = ((u >> 3) & 3) + 4 * (g / (TC / 32));
    float4 v = in4[(blockIdx.y * TR + r) * (N / V) + blockIdx.x * (TC / V) + c];
    tile[r][V * c + 0] = v.x;
    tile[r][V * c + 1] = v.y;
    tile[r][V * c + 2] = v.z;
    tile[r][V * c + 3] = v.w;
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < TR * TC / V / B; ++p) {
    int u = t + B * p, g = u >> 5;
    int k = (u & 7) + 8 * (g % (TR / 32)), o = ((u >> 3) & 3) + 4 * (g / (TR / 32));
    float4 v;
    v.x = tile[V * k + 0][o];
    v.y = tile[V * k + 1][o];
    v.z = tile[V * k + 2][o];
    v.w = tile[V * k + 3][o];
    out4[(blockIdx.x * TC + o) * (N / V) + blockIdx.y * (TR / V) + k] = v;
  }
}
__global__ void padded_v4_t128(const float* idata, float* odata) {
  padded_v4_rc<64, 64, 128>(idata, odata);
}
__global__ void padded_v4_t512(const float* idata, float* odata) {
  padded_v4_rc<64, 64, 512>(idata, odata);
}
__global__ void padded_v4_32x32(const float* idata, float* odata) {
  padded_v4_rc<32, 32, 64>(idata, odata);
}
__global__ void padded_v4_128x32(const float* idata, float* odata) {
  padded_v4_rc<128, 32, 256>(idata, odata);
}
__global__ void padded_v4_128x64(const float* idata, float* odata) {
  padded_v4_rc<128, 64, 256>(idata, odata);
}
__global__ void padded_v4_64x128(const float* idata, float* odata) {
  padded_v4_rc<64, 128, 256>(idata, odata);
}

// ---------------------------------------------------------------------------------------
// Host

typedef void (*Kernel)(const float*, float*);

enum Expect { kCopy, kTranspose, kTileSwap, kTileSwap64 };

struct Variant {
  const char* name;
  const char* shape;  // 32x32, 32x8, 64x2, or "memcpy"
  const char* what;   // the rung of the ladder: copy, naive, conflicting, padded, xor, rotated
  Kernel kernel;      // nullptr: cudaMemcpy device to device
  dim3 grid, block;
  Expect expect;    // what the output must equal
  bool max_shared;  // ask for the largest shared-memory carveout
};

static const dim3 kGrid32(N / BS, N / BS), kGrid64(N / TILE64, N / TILE64);
static const dim3 kBlock32x32(BS, BS), kBlock32x8(BS, BLOCK_ROWS), kBlock64x2(TILE64, ROWS64),
    kBlock64x8(T, R8);

static const Variant kVariants[] = {
    {"memcpy", "memcpy", "copy", nullptr, dim3(), dim3(), kCopy, false},
    {"copy_32x32", "32x32", "copy", copy_32x32, kGrid32, kBlock32x32, kCopy, false},
    {"naive_32x32", "32x32", "naive", naive_32x32, kGrid32, kBlock32x32, kTranspose, false},
    {"shared_32x32", "32x32", "conflicting", shared_32x32, kGrid32, kBlock32x32, kTranspose, false},
    {"padded_32x32", "32x32", "padded", padded_32x32, kGrid32, kBlock32x32, kTranspose, false},
    {"xor_32x32", "32x32", "xor", xor_32x32, kGrid32, kBlock32x32, kTranspose, false},
    {"rotated_32x32", "32x32", "rotated", rotated_32x32, kGrid32, kBlock32x32, kTranspose, false},
    {"copy_32x8", "32x8", "copy", copy_32x8, kGrid32, kBlock32x8, kCopy, false},
    {"naive_32x8", "32x8", "naive", naive_32x8, kGrid32, kBlock32x8, kTranspose, false},
    {"shared_32x8", "32x8", "conflicting", shared_32x8, kGrid32, kBlock32x8, kTranspose, false},
    {"padded_32x8", "32x8", "padded", padded_32x8, kGrid32, kBlock32x8, kTranspose, false},
    {"xor_32x8", "32x8", "xor", xor_32x8, kGrid32, kBlock32x8, kTranspose, false},
    {"rotated_32x8", "32x8", "rotated", rotated_32x8, kGrid32, kBlock32x8, kTranspose, false},
    {"copy_64x2", "64x2", "copy", copy_64x2, kGrid64, kBlock64x2, kCopy, true},
    {"shared_64x64", "64x2", "conflicting", shared_64x64, kGrid64, kBlock64x2, kTranspose, true},
    {"padded_64x65", "64x2", "padded", padded_64x65, kGrid64, kBlock64x2, kTranspose, true},
    {"xor_64x64", "64x2", "xor", xor_64x64, kGrid64, kBlock64x2, kTranspose, true},
    {"rotated_64x64", "64x2", "rotated", rotated_64x64, kGrid64, kBlock64x2, kTranspose, true},
    {"copy_64x8", "64x8", "copy", copy_64x8, kGrid64, kBlock64x8, kCopy, false},
    {"shared_64x8", "64x8", "conflicting", shared_64x8, kGrid64, kBlock64x8, kTranspose, false},
    {"padded_64x8", "64x8", "padded", padded_64x8, kGrid64, kBlock64x8, kTranspose, false},
    {"xor_64x8", "64x8", "xor", xor_64x8, kGrid64, kBlock64x8, kTranspose, false},
    {"rotated_64x8", "64x8", "rotated", rotated_64x8, kGrid64, kBlock64x8, kTranspose, false},
    {"copy_v4", "float4", "copy", copy_v4, kGrid64, dim3(256), kCopy, false},
    {"shared_v4", "float4", "conflicting", shared_v4, kGrid64, dim3(256), kTranspose, false},
    {"padded_v4", "float4", "padded", padded_v4, kGrid64, dim3(256), kTranspose, false},
    {"xor_v4", "float4", "xor", xor_v4, kGrid64, dim3(256), kTranspose, false},
    {"rotated_v4", "float4", "rotated", rotated_v4, kGrid64, dim3(256), kTranspose, false},
    {"tileswap_32x8", "probe", "tileswap", tileswap_32x8, kGrid32, kBlock32x8, kTileSwap, false},
    {"padded_32x4", "probe", "padded", padded_32x4, kGrid32, dim3(BS, 4), kTranspose, false},
    {"xor_32x4", "probe", "xor", xor_32x4, kGrid32, dim3(BS, 4), kTranspose, false},
    {"padded_32x8_cs", "probe", "padded", padded_32x8_cs, kGrid32, kBlock32x8, kTranspose, false},
    {"padded_32x8_g8", "probe", "padded", padded_32x8_g8, kGrid32, kBlock32x8, kTranspose, false},
    {"padded_32x8_g32", "probe", "padded", padded_32x8_g32, kGrid32, kBlock32x8, kTranspose, false},
    {"tileswap_32x8_g32", "probe", "tileswap", tileswap_32x8_g32, kGrid32, kBlock32x8, kTileSwap,
     false},
    {"tileswap_64x8", "probe", "tileswap", tileswap_64x8, kGrid64, kBlock64x8, kTileSwap64, false},
    {"padded_64x4", "probe", "padded", padded_64x4, kGrid64, dim3(T, 4), kTranspose, false},
    {"padded_64x16", "probe", "padded", padded_64x16, kGrid64, dim3(T, 16), kTranspose, false},
    {"tileswap_v4", "probe", "tileswap", tileswap_v4, kGrid64, dim3(256), kTileSwap64, false},
    {"padded_v4_t128", "probe", "padded", padded_v4_t128, kGrid64, dim3(128), kTranspose, false},
    {"padded_v4_t512", "probe", "padded", padded_v4_t512, kGrid64, dim3(512), kTranspose, false},
    {"padded_v4_32x32", "probe", "padded", padded_v4_32x32, kGrid32, dim3(64), kTranspose, false},
    {"padded_v4_128x32", "probe", "padded", padded_v4_128x32, dim3(N / 32, N / 128), dim3(256),
     kTranspose, false},
    {"padded_v4_128x64", "probe", "padded", padded_v4_128x64, dim3(N / 64, N / 128), dim3(256),
     kTranspose, false},
    {"padded_v4_64x128", "probe", "padded", padded_v4_64x128, dim3(N / 128, N / 64), dim3(256),
     kTranspose, false},
};
static const int kCount = sizeof(kVariants) / sizeof(kVariants[0]);
static const size_t kElems = (size_t)N * N;
static const size_t kBytes = kElems * sizeof(float);

static uint64_t rng_state = 248309;
static float next_random() {  // xorshift64*, uniform in [0, 1e6)
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (float)((rng_state * 2685821657736338717ull) >> 40) * (1e6f / 16777216.0f);
}

static void launch(const Variant& v, const float* in, float* out) {
  if (v.kernel == nullptr) {
    CHECK(cudaMemcpyAsync(out, in, kBytes, cudaMemcpyDeviceToDevice));
  } else {
    v.kernel<<<v.grid, v.block>>>(in, out);
    CHECK(cudaGetLastError());
  }
}

// Poisons the output (all-ones bytes are NaNs, which never compare equal bit for bit to a
// finite input), runs the variant once, and compares every element bit for bit.
static bool check(const Variant& v, const float* d_in, float* d_out,
                  const std::vector<float>* want_of[], std::vector<float>& out, const char* when) {
  CHECK(cudaMemset(d_out, 0xFF, kBytes));
  launch(v, d_in, d_out);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), d_out, kBytes, cudaMemcpyDeviceToHost));
  const std::vector<float>& want = *want_of[v.expect];
  if (std::memcmp(out.data(), want.data(), kBytes) == 0) {
    std::printf("%s: OK (%s)\n", v.name, when);
    return true;
  }
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < kElems; ++i)
    if (std::memcmp(&out[i], &want[i], sizeof(float)) != 0 && bad++ == 0) first = i;
  std::printf("%s: WRONG (%s; %zu of %zu elements differ; first [%zu][%zu]: got %g, want %g)\n",
              v.name, when, bad, kElems, first / N, first % N, out[first], want[first]);
  return false;
}

static double percentile(std::vector<float> v, double p) {  // nearest rank on a sorted copy
  std::sort(v.begin(), v.end());
  size_t i = (size_t)(p * (v.size() - 1) + 0.5);
  return v[i];
}

int main(int argc, char** argv) {
  int reps = 200, warmup = 10;
  bool check_only = false;
  const char* tsv_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (a == "--warmup" && i + 1 < argc)
      warmup = std::atoi(argv[++i]);
    else if (a == "--tsv" && i + 1 < argc)
      tsv_path = argv[++i];
    else if (a == "--check-only")
      check_only = true;
    else {
      std::fprintf(stderr, "usage: %s [--reps N] [--warmup N] [--tsv FILE] [--check-only]\n",
                   argv[0]);
      return 2;
    }
  }
  if (reps < 1 || warmup < 0) {
    std::fprintf(stderr, "--reps must be at least 1, --warmup at least 0\n");
    return 2;
  }

  cudaDeviceProp prop;
  int dev = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaGetDeviceProperties(&prop, dev));
  std::printf("device: %s, sm_%d%d, %d SMs, %zu B shared per SM, %d B L2\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount, prop.sharedMemPerMultiprocessor,
              prop.l2CacheSize);

  std::vector<float> in(kElems), ref(kElems), swapped(kElems), swapped64(kElems), out(kElems);
  for (size_t i = 0; i < kElems; ++i) in[i] = next_random();
  const int B = 32;  // blocked, so that the reference takes a fraction of a second
  for (int bi = 0; bi < N; bi += B)
    for (int bj = 0; bj < N; bj += B)
      for (int i = 0; i < B; ++i)
        for (int j = 0; j < B; ++j) {
          ref[(size_t)(bj + j) * N + bi + i] = in[(size_t)(bi + i) * N + bj + j];
          swapped[(size_t)(bj + i) * N + bi + j] = in[(size_t)(bi + i) * N + bj + j];
        }
  for (int bi = 0; bi < N; bi += T)  // 64x64 tiles moved to their transposed place
    for (int bj = 0; bj < N; bj += T)
      for (int i = 0; i < T; ++i)
        std::memcpy(&swapped64[(size_t)(bj + i) * N + bi], &in[(size_t)(bi + i) * N + bj],
                    T * sizeof(float));
  const std::vector<float>* want_of[] = {&in, &ref, &swapped, &swapped64};  // indexed by Expect

  float *d_in = nullptr, *d_out = nullptr;
  CHECK(cudaMalloc(&d_in, kBytes));
  CHECK(cudaMalloc(&d_out, kBytes));
  CHECK(cudaMemcpy(d_in, in.data(), kBytes, cudaMemcpyHostToDevice));

  for (const Variant& v : kVariants)
    if (v.kernel != nullptr && v.max_shared)
      CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared));

  int failed = 0;
  std::vector<bool> ok(kCount);
  for (int k = 0; k < kCount; ++k) {
    ok[k] = check(kVariants[k], d_in, d_out, want_of, out, "before timing");
    failed += !ok[k];
  }
  if (check_only || failed) {
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return failed ? 1 : 0;
  }

  // Round robin: every repetition runs every variant once, starting one further along each
  // time, so that clock or thermal drift and the effect of the previous kernel spread evenly.
  std::vector<cudaEvent_t> start(kCount), stop(kCount);
  for (int k = 0; k < kCount; ++k) {
    CHECK(cudaEventCreate(&start[k]));
    CHECK(cudaEventCreate(&stop[k]));
  }
  std::vector<std::vector<float>> ms(kCount);
  for (int r = 0; r < warmup + reps; ++r) {
    for (int j = 0; j < kCount; ++j) {
      int k = (r + j) % kCount;
      CHECK(cudaEventRecord(start[k]));
      launch(kVariants[k], d_in, d_out);
      CHECK(cudaEventRecord(stop[k]));
    }
    CHECK(cudaDeviceSynchronize());
    if (r < warmup) continue;
    for (int k = 0; k < kCount; ++k) {
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, start[k], stop[k]));
      ms[k].push_back(t);
    }
  }
  for (int k = 0; k < kCount; ++k) {
    bool again = check(kVariants[k], d_in, d_out, want_of, out, "after timing");
    ok[k] = ok[k] && again;
    failed += !again;
  }

  // Bytes moved: every element read once and written once.
  const double bytes = 2.0 * (double)kBytes;
  double copy_gbs = bytes / (percentile(ms[0], 0.5) * 1e-3) / 1e9;
  FILE* tsv = tsv_path ? std::fopen(tsv_path, "w") : nullptr;
  if (tsv_path && !tsv) {
    std::fprintf(stderr, "cannot write %s\n", tsv_path);
    return 2;
  }
  const char* header =
      "kernel\tshape\tvariant\tgrid\tblock\tregs\tstatic_smem_B\tblocks_per_sm\t"
      "theoretical_occupancy_pct\treps\tmedian_ms\tmin_ms\tmax_ms\tmedian_GBps\tmax_GBps\t"
      "pct_of_memcpy\tcheck\n";
  std::printf("\n%s", header);
  if (tsv) std::fputs(header, tsv);
  for (int k = 0; k < kCount; ++k) {
    const Variant& v = kVariants[k];
    int regs = 0, blocks = 0;
    size_t smem = 0;
    if (v.kernel != nullptr) {
      cudaFuncAttributes fa;
      CHECK(cudaFuncGetAttributes(&fa, v.kernel));
      regs = fa.numRegs;
      smem = fa.sharedSizeBytes;
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v.kernel,
                                                          v.block.x * v.block.y * v.block.z, 0));
    }
    double med = percentile(ms[k], 0.5), lo = percentile(ms[k], 0.0), hi = percentile(ms[k], 1.0);
    double gbs = bytes / (med * 1e-3) / 1e9;
    double occ = v.kernel ? 100.0 * blocks * ((v.block.x * v.block.y + 31) / 32) /
                                (prop.maxThreadsPerMultiProcessor / 32)
                          : 0.0;
    char grid[32] = "-", block[32] = "-";
    if (v.kernel) {
      std::snprintf(grid, sizeof grid, "%ux%u", v.grid.x, v.grid.y);
      std::snprintf(block, sizeof block, "%ux%u", v.block.x, v.block.y);
    }
    char line[512];
    std::snprintf(
        line, sizeof line,
        "%s\t%s\t%s\t%s\t%s\t%d\t%zu\t%d\t%.1f\t%zu\t%.4f\t%.4f\t%.4f\t%.1f\t%.1f\t%.1f\t%s"
        "\n",
        v.name, v.shape, v.what, grid, block, regs, smem, blocks, occ, ms[k].size(), med, lo, hi,
        gbs, bytes / (lo * 1e-3) / 1e9, 100.0 * gbs / copy_gbs, ok[k] ? "OK" : "WRONG");
    std::fputs(line, stdout);
    if (tsv) std::fputs(line, tsv);
  }
  if (tsv) std::fclose(tsv);
  for (int k = 0; k < kCount; ++k) {
    CHECK(cudaEventDestroy(start[k]));
    CHECK(cudaEventDestroy(stop[k]));
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return failed ? 1 : 0;
}
