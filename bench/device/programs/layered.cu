// Layered textures and surfaces: 1D and 2D layered arrays of floats read with tex1DLayered and
// tex2DLayered (point and linear filtering, clamp and border modes, layers inside and outside
// the array), and written and read with surf2DLayeredwrite and surf2DLayeredread. Each value is
// printed as hex words (bench/device/textures.sh records it on the GPU; the CTest
// run_textures_as_on_the_gpu replays it).
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "cuda_check.h"

constexpr int kW = 8, kH = 4, kL = 3, kN = 48;

// Lane i: layer i / 8 - 1 (from -1 to 4), x and y inside and past the edges.
__global__ void fetch2d(cudaTextureObject_t t, float* out) {
  const int i = threadIdx.x;
  out[i] = tex2DLayered<float>(t, -1.0f + 1.375f * (i % 8), 0.75f * (i % 5), i / 8 - 1);
}

__global__ void fetch1d(cudaTextureObject_t t, float* out) {
  const int i = threadIdx.x;
  out[i] = tex1DLayered<float>(t, -1.0f + 1.375f * (i % 8), i / 8 - 1);
}

__global__ void surfaces(cudaSurfaceObject_t s, float* out) {
  const int i = threadIdx.x;
  const int layer = i / 16, x = i % 8, y = (i / 8) % 2;
  surf2DLayeredwrite(static_cast<float>(100 * layer + 10 * y + x), s, x * 4, y, layer);
  __syncthreads();
  out[i] = surf2DLayeredread<float>(s, ((i + 3) % 9) * 4, y, layer, cudaBoundaryModeZero);
}

int main() {
  std::vector<float> host(kW * kH * kL);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>((i * 37) % 29) * 0.25f;
  const cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
  cudaArray_t a2, a1, as;
  CHECK(cudaMalloc3DArray(&a2, &f1, make_cudaExtent(kW, kH, kL), cudaArrayLayered));
  CHECK(cudaMalloc3DArray(&a1, &f1, make_cudaExtent(kW, 0, kL), cudaArrayLayered));
  CHECK(cudaMalloc3DArray(&as, &f1, make_cudaExtent(kW, kH, kL),
                          cudaArrayLayered | cudaArraySurfaceLoadStore));
  for (cudaArray_t a : {a2, a1}) {
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(host.data(), kW * 4, kW, a == a2 ? kH : 1);
    p.dstArray = a;
    p.extent = make_cudaExtent(kW, a == a2 ? kH : 1, kL);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
  }
  float* out;
  CHECK(cudaMalloc(&out, kN * sizeof(float)));
  std::vector<unsigned> v(kN);
  auto show = [&](const char* what) -> int {
    if (cudaMemcpy(v.data(), out, kN * 4, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    std::printf("%s:", what);
    for (unsigned x : v) std::printf(" %08x", x);
    std::printf("\n");
    return 0;
  };
  for (int dims = 1; dims <= 2; ++dims)
    for (auto mode : {cudaAddressModeClamp, cudaAddressModeBorder})
      for (auto filter : {cudaFilterModePoint, cudaFilterModeLinear}) {
        cudaResourceDesc res{};
        res.resType = cudaResourceTypeArray;
        res.res.array.array = dims == 1 ? a1 : a2;
        cudaTextureDesc tex{};
        tex.addressMode[0] = tex.addressMode[1] = tex.addressMode[2] = mode;
        tex.filterMode = filter;
        tex.borderColor[0] = 0.5f;
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
        if (dims == 1)
          fetch1d<<<1, kN>>>(t, out);
        else
          fetch2d<<<1, kN>>>(t, out);
        CHECK(cudaDeviceSynchronize());
        char what[64];
        std::snprintf(what, sizeof what, "layered %dd %s %s", dims,
                      mode == cudaAddressModeClamp ? "clamp" : "border",
                      filter == cudaFilterModePoint ? "point" : "linear");
        if (show(what)) return 1;
        CHECK(cudaDestroyTextureObject(t));
      }
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = as;
  cudaSurfaceObject_t s;
  CHECK(cudaCreateSurfaceObject(&s, &res));
  surfaces<<<1, kN>>>(s, out);
  CHECK(cudaDeviceSynchronize());
  if (show("layered surface")) return 1;
  CHECK(cudaDestroySurfaceObject(s));
  for (cudaArray_t a : {a2, a1, as}) CHECK(cudaFreeArray(a));
  CHECK(cudaFree(out));
  std::printf("layered: done\n");
  return 0;
}
