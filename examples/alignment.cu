// Global-memory alignment and coalescing (seed 002): an array of 3-float structures with
// and without __align__(16) against a structure of arrays, a 3-byte pixel array, rows of
// a 2-D array with an unpadded pitch against a pitched one, and a base pointer one element
// off its alignment. `bankcheck check` counts each global request's 32-byte sectors
// against the ideal (the bytes its lanes need, packed) and names the stride pattern.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct Vec3 {
  float x, y, z;
};
struct __align__(16) Vec3a {
  float x, y, z;
};
struct Pixel {
  unsigned char r, g, b;
};

constexpr int kN = 1 << 16;            // elements
constexpr int kWidth = 1001;           // floats per row: 4004 B, not a multiple of 128
constexpr int kRows = 256;
constexpr int kPitch = 4096;           // what cudaMallocPitch gives for 4004-byte rows

// bankcheck: kernel=aos_float3 grid=256 block=256 arg=v=random:786432 arg=out=zeros:262144
__global__ void aos_float3(const Vec3* v, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = v[i].x + v[i].y + v[i].z;
}

// bankcheck: kernel=aos_float3_aligned grid=256 block=256 arg=v=random:1048576 arg=out=zeros:262144
__global__ void aos_float3_aligned(const Vec3a* v, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const Vec3a a = v[i];
  out[i] = a.x + a.y + a.z;
}

// bankcheck: kernel=soa_float3 grid=256 block=256 arg=x=random:262144 arg=y=random:262144 arg=z=random:262144 arg=out=zeros:262144
__global__ void soa_float3(const float* x, const float* y, const float* z, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = x[i] + y[i] + z[i];
}

// bankcheck: kernel=pixels grid=256 block=256 arg=p=random:196608 arg=gray=zeros:65536
__global__ void pixels(const Pixel* p, unsigned char* gray) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const Pixel q = p[i];
  gray[i] = static_cast<unsigned char>((q.r + q.g + q.b) / 3);
}

__device__ void copy_row_segment(const char* in, char* out, int width, int pitch_bytes) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width) return;
  const float* src = reinterpret_cast<const float*>(in + static_cast<long>(row) * pitch_bytes);
  float* dst = reinterpret_cast<float*>(out + static_cast<long>(row) * pitch_bytes);
  dst[x] = 2.0f * src[x];
}

// bankcheck: kernel=rows_unpadded grid=32,32 block=32,8 arg=in=random:1025024 arg=out=zeros:1025024 arg=width=1001 arg=pitch_bytes=4004
__global__ void rows_unpadded(const char* in, char* out, int width, int pitch_bytes) {
  copy_row_segment(in, out, width, pitch_bytes);
}

// bankcheck: kernel=rows_pitched grid=32,32 block=32,8 arg=in=random:1048576 arg=out=zeros:1048576 arg=width=1001 arg=pitch_bytes=4096
__global__ void rows_pitched(const char* in, char* out, int width, int pitch_bytes) {
  copy_row_segment(in, out, width, pitch_bytes);
}

// bankcheck: kernel=offset_by_one grid=256 block=256 arg=in=random:262148 arg=out=zeros:262144
__global__ void offset_by_one(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i + 1];  // the window starts one float past the allocation's alignment
}

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

static float frand() { return static_cast<float>(std::rand() % 2000) / 1000.0f - 1.0f; }

static bool report(const char* name, bool ok) {
  std::printf("%s: %s\n", name, ok ? "OK" : "WRONG");
  return ok;
}

template <typename T>
static T* upload(const std::vector<T>& h) {
  T* d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
static std::vector<T> download(const T* d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

int main() {
  std::srand(2002);
  bool ok = true;
  const dim3 grid(kN / 256), block(256);
  {
    std::vector<Vec3> v(kN);
    std::vector<Vec3a> va(kN);
    std::vector<float> x(kN), y(kN), z(kN);
    for (int i = 0; i < kN; ++i) {
      v[i] = {frand(), frand(), frand()};
      va[i].x = x[i] = v[i].x;
      va[i].y = y[i] = v[i].y;
      va[i].z = z[i] = v[i].z;
    }
    std::vector<float> ref(kN);
    for (int i = 0; i < kN; ++i) ref[i] = v[i].x + v[i].y + v[i].z;
    Vec3* dv = upload(v);
    Vec3a* dva = upload(va);
    float *dx = upload(x), *dy = upload(y), *dz = upload(z), *dout;
    CHECK(cudaMalloc(&dout, kN * sizeof(float)));
    aos_float3<<<grid, block>>>(dv, dout);
    CHECK(cudaGetLastError());
    ok &= report("aos_float3", download(dout, kN) == ref);
    aos_float3_aligned<<<grid, block>>>(dva, dout);
    CHECK(cudaGetLastError());
    ok &= report("aos_float3_aligned", download(dout, kN) == ref);
    soa_float3<<<grid, block>>>(dx, dy, dz, dout);
    CHECK(cudaGetLastError());
    ok &= report("soa_float3", download(dout, kN) == ref);
    CHECK(cudaFree(dv));
    CHECK(cudaFree(dva));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaFree(dz));
    CHECK(cudaFree(dout));
  }
  {
    std::vector<Pixel> p(kN);
    for (auto& q : p) q = {static_cast<unsigned char>(std::rand()), static_cast<unsigned char>(std::rand()),
                           static_cast<unsigned char>(std::rand())};
    Pixel* dp = upload(p);
    unsigned char* dg;
    CHECK(cudaMalloc(&dg, kN));
    pixels<<<grid, block>>>(dp, dg);
    CHECK(cudaGetLastError());
    const auto g = download(dg, kN);
    bool good = true;
    for (int i = 0; i < kN; ++i) good &= g[i] == static_cast<unsigned char>((p[i].r + p[i].g + p[i].b) / 3);
    ok &= report("pixels", good);
    CHECK(cudaFree(dp));
    CHECK(cudaFree(dg));
  }
  for (int pitch : {kWidth * 4, kPitch}) {
    const size_t bytes = static_cast<size_t>(kRows) * pitch;
    std::vector<char> in(bytes);
    for (size_t r = 0; r < static_cast<size_t>(kRows); ++r)
      for (int x = 0; x < kWidth; ++x) {
        const float f = frand();
        std::memcpy(&in[r * pitch + x * 4], &f, 4);
      }
    char *din = upload(in), *dout;
    CHECK(cudaMalloc(&dout, bytes));
    CHECK(cudaMemset(dout, 0, bytes));
    const dim3 g2(32, 32), b2(32, 8);
    if (pitch == kPitch) rows_pitched<<<g2, b2>>>(din, dout, kWidth, pitch);
    else rows_unpadded<<<g2, b2>>>(din, dout, kWidth, pitch);
    CHECK(cudaGetLastError());
    const auto out = download(dout, bytes);
    bool good = true;
    for (size_t r = 0; r < static_cast<size_t>(kRows); ++r)
      for (int x = 0; x < kWidth; ++x) {
        float a, b;
        std::memcpy(&a, &in[r * pitch + x * 4], 4);
        std::memcpy(&b, &out[r * pitch + x * 4], 4);
        good &= b == 2.0f * a;
      }
    ok &= report(pitch == kPitch ? "rows_pitched" : "rows_unpadded", good);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
  }
  {
    std::vector<float> in(kN + 1);
    for (auto& f : in) f = frand();
    float *din = upload(in), *dout;
    CHECK(cudaMalloc(&dout, kN * sizeof(float)));
    offset_by_one<<<grid, block>>>(din, dout);
    CHECK(cudaGetLastError());
    const auto out = download(dout, kN);
    bool good = true;
    for (int i = 0; i < kN; ++i) good &= out[i] == in[i + 1];
    ok &= report("offset_by_one", good);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
  }
  CHECK(cudaDeviceSynchronize());
  return ok ? 0 : 1;
}
