// Texture fetches as programs make them: texture objects over CUDA arrays (1D, 2D, 3D),
// pitched 2D memory and linear memory, with each address mode (wrap, clamp, mirror, border),
// point and linear filtering, normalized and unnormalized coordinates, and 8-bit data read
// as normalized floats. Each fetched value is printed as the bits of its float (or its
// integer), so that two runs compare byte for byte: bench/device/textures.sh records it on
// the GPU, the CTest run_textures_as_on_the_gpu replays it under `bankcheck run`.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "cuda_check.h"

constexpr int kW = 8, kH = 4, kD = 3;  // the textures' extent
constexpr int kN = 40;                 // fetches per test

// Coordinates that cross every edge, between and on texel centres.
__device__ float coord(int i, int extent, bool normalized) {
  const float x = -1.75f + 0.3125f * static_cast<float>(i) * extent / 8.0f;
  return normalized ? x / extent : x;
}

__global__ void fetch1d(cudaTextureObject_t t, float* out, bool normalized) {
  const int i = threadIdx.x;
  out[i] = tex1D<float>(t, coord(i, kW, normalized));
}

__global__ void fetch2d(cudaTextureObject_t t, float* out, bool normalized) {
  const int i = threadIdx.x;
  out[i] = tex2D<float>(t, coord(i, kW, normalized), coord(kN - 1 - i, kH, normalized) * 0.9f);
}

__global__ void fetch2d4(cudaTextureObject_t t, float4* out, bool normalized) {
  const int i = threadIdx.x;
  out[i] = tex2D<float4>(t, coord(i, kW, normalized), coord(i / 2, kH, normalized));
}

__global__ void fetch3d(cudaTextureObject_t t, float* out, bool normalized) {
  const int i = threadIdx.x;
  out[i] = tex3D<float>(t, coord(i, kW, normalized), coord(i % 7, kH, normalized),
                        coord(kN - 1 - i, kD, normalized));
}

__global__ void fetch_linear(cudaTextureObject_t t, int* out) {
  const int i = threadIdx.x;
  out[i] = tex1Dfetch<int>(t, i - 4);  // out of range at both ends: zeros
}

struct Texture {
  cudaResourceDesc res{};
  cudaTextureDesc tex{};
};

int main() {
  std::vector<float> host(kW * kH * kD);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>((i * 37) % 23) * 0.25f - 1.0f;
  std::vector<unsigned char> bytes(kW * kH * 4);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>((i * 89) % 256);

  const cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
  const cudaChannelFormatDesc u4 = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a1, a2, a2u, a3;
  CHECK(cudaMallocArray(&a1, &f1, kW));
  CHECK(cudaMallocArray(&a2, &f1, kW, kH));
  CHECK(cudaMallocArray(&a2u, &u4, kW, kH));
  CHECK(cudaMalloc3DArray(&a3, &f1, make_cudaExtent(kW, kH, kD)));
  CHECK(cudaMemcpy2DToArray(a1, 0, 0, host.data(), kW * 4, kW * 4, 1, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(a2, 0, 0, host.data(), kW * 4, kW * 4, kH, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(a2u, 0, 0, bytes.data(), kW * 4, kW * 4, kH, cudaMemcpyHostToDevice));
  cudaMemcpy3DParms p3{};
  p3.srcPtr = make_cudaPitchedPtr(host.data(), kW * 4, kW, kH);
  p3.dstArray = a3;
  p3.extent = make_cudaExtent(kW, kH, kD);
  p3.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p3));
  // The array read back: the copies both ways.
  std::vector<float> back(kW * kH);
  CHECK(cudaMemcpy2DFromArray(back.data(), kW * 4, a2, 0, 0, kW * 4, kH, cudaMemcpyDeviceToHost));
  if (std::memcmp(back.data(), host.data(), back.size() * 4) != 0) {
    std::fprintf(stderr, "FAIL: the array read back differs\n");
    return 1;
  }

  float* pitched;
  size_t pitch;
  CHECK(cudaMallocPitch(&pitched, &pitch, kW * 4, kH));
  CHECK(cudaMemcpy2D(pitched, pitch, host.data(), kW * 4, kW * 4, kH, cudaMemcpyHostToDevice));
  int* ints;
  CHECK(cudaMalloc(&ints, kW * 4));
  std::vector<int> hints(kW);
  for (int i = 0; i < kW; ++i) hints[i] = 1000 + i * i;
  CHECK(cudaMemcpy(ints, hints.data(), kW * 4, cudaMemcpyHostToDevice));

  float* out;
  CHECK(cudaMalloc(&out, kN * sizeof(float4)));
  const cudaTextureAddressMode modes[] = {cudaAddressModeWrap, cudaAddressModeClamp,
                                          cudaAddressModeMirror, cudaAddressModeBorder};
  const char* mode_names[] = {"wrap", "clamp", "mirror", "border"};
  const cudaTextureFilterMode filters[] = {cudaFilterModePoint, cudaFilterModeLinear};
  const char* filter_names[] = {"point", "linear"};

  auto show = [&](const char* what, int count, int per) -> int {
    std::vector<unsigned> v(kN * 4);
    if (cudaMemcpy(v.data(), out, count * per * 4, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    std::printf("%s:", what);
    for (int i = 0; i < count * per; ++i) std::printf(" %08x", v[i]);
    std::printf("\n");
    return 0;
  };

  for (int dims = 1; dims <= 3; ++dims)
    for (int m = 0; m < 4; ++m)
      for (int f = 0; f < 2; ++f)
        for (int norm = 0; norm < 2; ++norm) {
          // Wrap and mirror need normalized coordinates.
          if (!norm && (modes[m] == cudaAddressModeWrap || modes[m] == cudaAddressModeMirror))
            continue;
          Texture t;
          t.res.resType = cudaResourceTypeArray;
          t.res.res.array.array = dims == 1 ? a1 : dims == 2 ? a2 : a3;
          for (int d = 0; d < 3; ++d) t.tex.addressMode[d] = modes[m];
          t.tex.filterMode = filters[f];
          t.tex.readMode = cudaReadModeElementType;
          t.tex.normalizedCoords = norm;
          t.tex.borderColor[0] = 0.5f;
          cudaTextureObject_t obj;
          CHECK(cudaCreateTextureObject(&obj, &t.res, &t.tex, nullptr));
          CHECK(cudaMemset(out, 0xFF, kN * sizeof(float4)));
          if (dims == 1) fetch1d<<<1, kN>>>(obj, out, norm);
          if (dims == 2) fetch2d<<<1, kN>>>(obj, out, norm);
          if (dims == 3) fetch3d<<<1, kN>>>(obj, out, norm);
          CHECK(cudaDeviceSynchronize());
          char what[96];
          std::snprintf(what, sizeof what, "array %dd %s %s %s", dims, mode_names[m],
                        filter_names[f], norm ? "normalized" : "texels");
          if (show(what, kN, 1)) return 1;
          CHECK(cudaDestroyTextureObject(obj));
        }

  // Pitched 2D memory, as simplePitchLinearTexture reads it.
  for (int f = 0; f < 2; ++f) {
    Texture t;
    t.res.resType = cudaResourceTypePitch2D;
    t.res.res.pitch2D.devPtr = pitched;
    t.res.res.pitch2D.desc = f1;
    t.res.res.pitch2D.width = kW;
    t.res.res.pitch2D.height = kH;
    t.res.res.pitch2D.pitchInBytes = pitch;
    t.tex.addressMode[0] = t.tex.addressMode[1] = cudaAddressModeWrap;
    t.tex.filterMode = filters[f];
    t.tex.normalizedCoords = 1;
    cudaTextureObject_t obj;
    CHECK(cudaCreateTextureObject(&obj, &t.res, &t.tex, nullptr));
    fetch2d<<<1, kN>>>(obj, out, true);
    CHECK(cudaDeviceSynchronize());
    if (show(f ? "pitch2d wrap linear" : "pitch2d wrap point", kN, 1)) return 1;
    CHECK(cudaDestroyTextureObject(obj));
  }

  // uchar4 read as normalized floats, clamp and border.
  for (int m = 1; m < 4; m += 2)
    for (int f = 0; f < 2; ++f) {
      Texture t;
      t.res.resType = cudaResourceTypeArray;
      t.res.res.array.array = a2u;
      t.tex.addressMode[0] = t.tex.addressMode[1] = modes[m];
      t.tex.filterMode = filters[f];
      t.tex.readMode = cudaReadModeNormalizedFloat;
      t.tex.normalizedCoords = 0;
      t.tex.borderColor[0] = 0.25f;
      t.tex.borderColor[1] = 0.5f;
      t.tex.borderColor[2] = 0.75f;
      t.tex.borderColor[3] = 1.0f;
      cudaTextureObject_t obj;
      CHECK(cudaCreateTextureObject(&obj, &t.res, &t.tex, nullptr));
      fetch2d4<<<1, kN>>>(obj, reinterpret_cast<float4*>(out), false);
      CHECK(cudaDeviceSynchronize());
      char what[64];
      std::snprintf(what, sizeof what, "uchar4 %s %s", mode_names[m], filter_names[f]);
      if (show(what, kN, 4)) return 1;
      CHECK(cudaDestroyTextureObject(obj));
    }

  // Linear memory of ints, fetched by index.
  {
    Texture t;
    t.res.resType = cudaResourceTypeLinear;
    t.res.res.linear.devPtr = ints;
    t.res.res.linear.desc = cudaCreateChannelDesc<int>();
    t.res.res.linear.sizeInBytes = kW * 4;
    cudaTextureObject_t obj;
    CHECK(cudaCreateTextureObject(&obj, &t.res, &t.tex, nullptr));
    fetch_linear<<<1, kN>>>(obj, reinterpret_cast<int*>(out));
    CHECK(cudaDeviceSynchronize());
    if (show("linear int", kN, 1)) return 1;
    CHECK(cudaDestroyTextureObject(obj));
  }

  CHECK(cudaFreeArray(a1));
  CHECK(cudaFreeArray(a2));
  CHECK(cudaFreeArray(a2u));
  CHECK(cudaFreeArray(a3));
  CHECK(cudaFree(pitched));
  CHECK(cudaFree(ints));
  CHECK(cudaFree(out));
  std::printf("textures: done\n");
  return 0;
}
