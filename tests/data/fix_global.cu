// Global lines with sectors in excess, one kernel per pattern, for fix's global advice
// (tests/fix_global_test.sh): which change it names, and whether the code it writes is right.

// A naive transpose: the load walks a row, the store a column (stage, written).
// bankcheck: kernel=transpose_naive grid=4,16 block=32,8 arg=in=iota:65536 arg=out=zeros:65536 arg=width=128 arg=height=128
__global__ void transpose_naive(const float* in, float* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[x * height + y] = in[y * width + x];
}

// The same with 1-D blocks: nothing to stage in a block of one row (described only).
// bankcheck: kernel=transpose_rows grid=1,128 block=128 arg=in=iota:65536 arg=out=zeros:65536 arg=width=128 arg=height=128
__global__ void transpose_rows(const float* in, float* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x < width && y < height) out[x * height + y] = in[y * width + x];
}

// The same, returning early: the tile's barrier would not be reached by every thread.
// bankcheck: kernel=transpose_return grid=4,16 block=32,8 arg=in=iota:65536 arg=out=zeros:65536 arg=width=128 arg=height=128
__global__ void transpose_return(const float* in, float* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  out[x * height + y] = in[y * width + x];
}

// Four bytes per thread, one at a time (vector, written).
// bankcheck: kernel=sum_bytes grid=4 block=256 arg=data=iota:4096 arg=out=zeros:4096
__global__ void sum_bytes(const unsigned char* data, unsigned int* out) {
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  unsigned int s = 0;
  for (int k = 0; k < 4; ++k) s += data[i + k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// The same loop with a condition in it: one load of all four would read what it skips.
// bankcheck: kernel=sum_bytes_guarded grid=4 block=256 arg=data=iota:4096 arg=out=zeros:4096 arg=n=4096
__global__ void sum_bytes_guarded(const unsigned char* data, unsigned int* out, int n) {
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  unsigned int s = 0;
  for (int k = 0; k < 4; ++k)
    if (i + k < n) s += data[i + k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

struct Particle {
  float x, y, z, w, vx, vy, vz, m;
};

// One field of an array of structures (layout, described).
// bankcheck: kernel=masses grid=4 block=256 arg=p=iota:32768 arg=out=zeros:4096
__global__ void masses(const Particle* p, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = p[i].m;
}

// Rows of 100 floats read 16 at a time, two rows a warp: the second row's run straddles
// sectors (pitch).
// bankcheck: kernel=rows_of_100 grid=1 block=16,8 arg=in=iota:3200 arg=out=zeros:512
__global__ void rows_of_100(const float* in, float* out) {
  out[threadIdx.y * 16 + threadIdx.x] = in[threadIdx.y * 100 + threadIdx.x];
}

// One word of each 4 KB row (a scan's block totals): scattered, with nothing coalesced on the
// line to stage from; staging would move each row for one word. No advice.
// bankcheck: kernel=row_tails grid=4 block=256 arg=in=iota:4194304 arg=out=zeros:4096
__global__ void row_tails(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float tail = in[1023 + 1024 * i];
  out[i] = tail;
}

// A 32-byte structure copied whole: two 16-byte accesses per thread, lanes 32 B apart; no
// single aligned access holds it.
struct __align__(16) Pair32 {
  float4 a, b;
};
// bankcheck: kernel=copy_pairs grid=4 block=256 arg=in=iota:32768 arg=out=zeros:32768
__global__ void copy_pairs(const Pair32* in, Pair32* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}
