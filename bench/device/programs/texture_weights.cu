// How the GPU's texture unit weighs texels, read out directly (bench/device/textures.sh):
// 1. linear filtering of 2D and 3D textures whose texels are 0 but one corner of 1 (a
//    delta): each fetch at texel-space fractions (a, b, c)/256 returns that corner's weight;
//    printed times 65536;
// 2. nearest-point fetches of normalized coordinates (m + 2^-j) / W of 1D textures of
//    width W whose texels hold their index: where the index steps up tells the precision of
//    the coordinate's conversion to texel space.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "cuda_check.h"

__constant__ int kF[] = {0, 1, 3, 17, 64, 100, 127, 128, 129, 200, 254, 255};
constexpr int kNF = 12;

__global__ void weights2d(cudaTextureObject_t t, float* out) {
  const int a = kF[threadIdx.x % kNF], b = kF[threadIdx.x / kNF];
  out[threadIdx.x] = tex2D<float>(t, 0.5f + a / 256.0f, 0.5f + b / 256.0f) * 65536.0f;
}

__global__ void weights3d(cudaTextureObject_t t, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int a = kF[i % kNF], b = kF[(i / kNF) % kNF], c = kF[i / (kNF * kNF)];
  out[i] = tex3D<float>(t, 0.5f + a / 256.0f, 0.5f + b / 256.0f, 0.5f + c / 256.0f) * 65536.0f;
}

__global__ void steps(cudaTextureObject_t t, int width, float* out) {
  const int j = threadIdx.x + 2, m = blockIdx.x + 1;  // j = 2..31
  const float x = (static_cast<float>(m) + ldexpf(1.0f, -j)) / static_cast<float>(width);
  out[blockIdx.x * blockDim.x + threadIdx.x] = tex1D<float>(t, x);
}

int main() {
  float* out;
  CHECK(cudaMalloc(&out, kNF * kNF * kNF * sizeof(float)));
  std::vector<float> host(kNF * kNF * kNF);
  const cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
  // 1. 2D and 3D deltas.
  for (int dims = 2; dims <= 3; ++dims)
    for (int corner = 0; corner < (1 << dims); ++corner) {
      cudaArray_t a;
      if (dims == 2)
        CHECK(cudaMallocArray(&a, &f1, 2, 2));
      else
        CHECK(cudaMalloc3DArray(&a, &f1, make_cudaExtent(2, 2, 2)));
      std::vector<float> texels(8, 0.0f);
      texels[corner] = 1.0f;
      cudaMemcpy3DParms p{};
      p.srcPtr = make_cudaPitchedPtr(texels.data(), 2 * sizeof(float), 2, 2);
      p.dstArray = a;
      p.extent = make_cudaExtent(2, 2, dims == 3 ? 2 : 1);
      p.kind = cudaMemcpyHostToDevice;
      CHECK(cudaMemcpy3D(&p));
      cudaResourceDesc res{};
      res.resType = cudaResourceTypeArray;
      res.res.array.array = a;
      cudaTextureDesc tex{};
      tex.addressMode[0] = tex.addressMode[1] = tex.addressMode[2] = cudaAddressModeClamp;
      tex.filterMode = cudaFilterModeLinear;
      cudaTextureObject_t t;
      CHECK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
      const int n = dims == 2 ? kNF * kNF : kNF * kNF * kNF;
      if (dims == 2)
        weights2d<<<1, n>>>(t, out);
      else
        weights3d<<<kNF * kNF, kNF>>>(t, out);
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
      std::printf("weights %dd corner %d:", dims, corner);
      for (int i = 0; i < n; ++i) std::printf(" %g", host[i]);
      std::printf("\n");
      CHECK(cudaDestroyTextureObject(t));
      CHECK(cudaFreeArray(a));
    }
  // 2. Steps of normalized coordinates.
  for (int width : {3, 5, 7, 11, 1000}) {
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &f1, width));
    std::vector<float> index(width);
    for (int i = 0; i < width; ++i) index[i] = static_cast<float>(i);
    CHECK(cudaMemcpy2DToArray(a, 0, 0, index.data(), width * 4, width * 4, 1,
                              cudaMemcpyHostToDevice));
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaTextureDesc tex{};
    tex.addressMode[0] = cudaAddressModeClamp;
    tex.filterMode = cudaFilterModePoint;
    tex.normalizedCoords = 1;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
    const int ms = width < 12 ? width - 1 : 8;
    steps<<<ms, 30>>>(t, width, out);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host.data(), out, ms * 30 * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("steps width %d:", width);
    for (int i = 0; i < ms * 30; ++i) std::printf(" %g", host[i]);
    std::printf("\n");
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));
  }
  CHECK(cudaFree(out));
  std::printf("texture weights: done\n");
  return 0;
}
