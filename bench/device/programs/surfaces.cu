// Surface loads and stores as programs make them: surface objects over 1D, 2D and 3D arrays
// of floats, uchar4 and ints, written with surf*Dwrite and read with surf*Dread, inside and
// outside the array with the zero and clamp boundary modes, then the arrays copied back. Each
// value is printed as hex words, so that two runs compare byte for byte: bench/device/
// textures.sh records it on the GPU, the CTest run_textures_as_on_the_gpu replays it.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "cuda_check.h"

constexpr int kW = 8, kH = 4, kD = 2;

__global__ void write2d(cudaSurfaceObject_t s) {
  const int x = threadIdx.x, y = threadIdx.y;
  surf2Dwrite(static_cast<float>(x * 10 + y), s, x * 4, y);
}

__global__ void write2d_outside(cudaSurfaceObject_t s) {
  // Lanes past the right edge and below the bottom: dropped in the zero mode.
  const int x = threadIdx.x, y = threadIdx.y;
  surf2Dwrite(-1.0f, s, (x + kW / 2) * 4, y + kH / 2, cudaBoundaryModeZero);
}

__global__ void read2d(cudaSurfaceObject_t s, float* out, cudaSurfaceBoundaryMode mode) {
  const int i = threadIdx.x;
  const int x = i % 12 - 2, y = i / 12 - 1;  // two columns and a row outside each side
  if (mode == cudaBoundaryModeZero)
    out[i] = surf2Dread<float>(s, x * 4, y, cudaBoundaryModeZero);
  else
    out[i] = surf2Dread<float>(s, x * 4, y, cudaBoundaryModeClamp);
}

__global__ void rw_uchar4(cudaSurfaceObject_t s) {
  const int x = threadIdx.x, y = threadIdx.y;
  uchar4 v = surf2Dread<uchar4>(s, x * 4, y);
  v.x += 1;
  v.w = static_cast<unsigned char>(x * y);
  surf2Dwrite(v, s, x * 4, y);
}

__global__ void rw1d(cudaSurfaceObject_t s) {
  const int x = threadIdx.x;
  surf1Dwrite(surf1Dread<int>(s, x * 4) * 3 + x, s, x * 4);
}

__global__ void rw3d(cudaSurfaceObject_t s) {
  const int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  surf3Dwrite(make_float2(static_cast<float>(x + 100 * z), static_cast<float>(y)), s, x * 8, y, z);
}

template <typename T>
int show(const char* what, const std::vector<T>& v) {
  std::printf("%s:", what);
  const unsigned* w = reinterpret_cast<const unsigned*>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(T) / 4; ++i) std::printf(" %08x", w[i]);
  std::printf("\n");
  return 0;
}

int main() {
  const cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
  const cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
  const cudaChannelFormatDesc u4 = cudaCreateChannelDesc<uchar4>();
  const cudaChannelFormatDesc i1 = cudaCreateChannelDesc<int>();
  cudaArray_t a2, au, a1, a3;
  CHECK(cudaMallocArray(&a2, &f1, kW, kH, cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&au, &u4, kW, kH, cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&a1, &i1, kW, 0, cudaArraySurfaceLoadStore));
  CHECK(cudaMalloc3DArray(&a3, &f2, make_cudaExtent(kW, kH, kD), cudaArraySurfaceLoadStore));
  auto surface = [](cudaArray_t a) {
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaSurfaceObject_t s = 0;
    cudaCreateSurfaceObject(&s, &r);
    return s;
  };
  const cudaSurfaceObject_t s2 = surface(a2), su = surface(au), s1 = surface(a1), s3 = surface(a3);

  write2d<<<1, dim3(kW, kH)>>>(s2);
  write2d_outside<<<1, dim3(kW, kH)>>>(s2);
  float* out;
  CHECK(cudaMalloc(&out, 72 * sizeof(float)));
  std::vector<float> host(72);
  for (auto mode : {cudaBoundaryModeZero, cudaBoundaryModeClamp}) {
    read2d<<<1, 72>>>(s2, out, mode);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host.data(), out, host.size() * sizeof(float), cudaMemcpyDeviceToHost));
    show(mode == cudaBoundaryModeZero ? "read2d zero" : "read2d clamp", host);
  }
  std::vector<float> f(kW * kH);
  CHECK(cudaMemcpy2DFromArray(f.data(), kW * 4, a2, 0, 0, kW * 4, kH, cudaMemcpyDeviceToHost));
  show("array2d", f);

  std::vector<uchar4> bytes(kW * kH);
  for (int i = 0; i < kW * kH; ++i)
    bytes[i] = make_uchar4(static_cast<unsigned char>(i * 7), static_cast<unsigned char>(i),
                           static_cast<unsigned char>(255 - i), 0);
  CHECK(cudaMemcpy2DToArray(au, 0, 0, bytes.data(), kW * 4, kW * 4, kH, cudaMemcpyHostToDevice));
  rw_uchar4<<<1, dim3(kW, kH)>>>(su);
  CHECK(cudaMemcpy2DFromArray(bytes.data(), kW * 4, au, 0, 0, kW * 4, kH, cudaMemcpyDeviceToHost));
  show("uchar4", bytes);

  std::vector<int> ints(kW);
  for (int i = 0; i < kW; ++i) ints[i] = 1000 + i;
  CHECK(cudaMemcpy2DToArray(a1, 0, 0, ints.data(), kW * 4, kW * 4, 1, cudaMemcpyHostToDevice));
  rw1d<<<1, kW>>>(s1);
  CHECK(cudaMemcpy2DFromArray(ints.data(), kW * 4, a1, 0, 0, kW * 4, 1, cudaMemcpyDeviceToHost));
  show("int1d", ints);

  rw3d<<<1, dim3(kW, kH, kD)>>>(s3);
  std::vector<float2> f3(kW * kH * kD);
  cudaMemcpy3DParms p{};
  p.srcArray = a3;
  p.dstPtr = make_cudaPitchedPtr(f3.data(), kW * sizeof(float2), kW, kH);
  p.extent = make_cudaExtent(kW, kH, kD);
  p.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&p));
  show("float2 3d", f3);

  for (auto s : {s2, su, s1, s3}) CHECK(cudaDestroySurfaceObject(s));
  for (auto a : {a2, au, a1, a3}) CHECK(cudaFreeArray(a));
  CHECK(cudaFree(out));
  std::printf("surfaces: done\n");
  return 0;
}
