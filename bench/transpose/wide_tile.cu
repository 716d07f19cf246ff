// wide_tile.cu: the wide-tile transposes of the ladder (bench/transpose/transpose_bench.cu)
// as they are before any fix, for `bankcheck check` and `bankcheck fix`. 8192x8192 float,
// a 64x64 tile per block, so that each block writes 256-byte runs of every output row it
// touches instead of the 128-byte runs of the 32x32 tile.
//
//   shared_64x8  block 64x8 (512 threads), eight elements per thread, 4-byte accesses: the
//                column loads tile[tx][ty + j] put all 32 lanes of a warp in one bank.
//   shared_v4    256 threads, 16-byte (float4) global loads and stores, four of each per
//                thread. A warp covers 8 float4 columns of 4 rows; it stores the 4 elements
//                of a float4 into a tile row, and gathers the 4 elements of an output float4
//                from a tile column, tile[4c + i][r]: 8-way on the gather, 4-way on the
//                stores.
//
//   bankcheck check bench/transpose/wide_tile.cu
//   bankcheck fix bench/transpose/wide_tile.cu --kernel shared_v4
const int N = 8192;
const int T = 64;   // tile side
const int R8 = 8;   // rows of the 64x8 block
const int V = 4;    // floats per float4
const int VR = 16;  // tile rows one pass of the float4 kernel covers

// bankcheck: kernel=shared_64x8 grid=128,128 block=64,8 arg=idata=random:256M arg=odata=zeros:256M
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

// Thread t: float4 column c (0..15) and first row r (0..15) of its passes; lane l of warp w
// has c = (l & 7) + 8 * (w & 1), r = (l >> 3) + 4 * (w >> 1).
// bankcheck: kernel=shared_v4 grid=128,128 block=256 arg=idata=random:256M arg=odata=zeros:256M
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
