// CUDA arrays through the driver API's 1D copies (cuMemcpyHtoA, AtoH, DtoA, AtoD, AtoA), a
// kernel reading one through a texture object, and the copies the driver refuses. Prints
// "arrays: ok".
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "driver_check.h"

__global__ void twice(cudaTextureObject_t t, float* out) {
  out[threadIdx.x] = 3.0f * tex1D<float>(t, threadIdx.x + 0.5f);
}

int main() {
  cudaFree(nullptr);  // the runtime's primary context, current
  constexpr int n = 64;
  CUDA_ARRAY_DESCRIPTOR desc = {};
  desc.Width = n;
  desc.Format = CU_AD_FORMAT_FLOAT;
  desc.NumChannels = 1;
  CUarray a, b;
  CHECK(cuArrayCreate(&a, &desc), CUDA_SUCCESS);
  CHECK(cuArrayCreate(&b, &desc), CUDA_SUCCESS);
  std::vector<float> host(n), back(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i) * 0.5f;
  CHECK(cuMemcpyHtoA(a, 0, host.data(), n * sizeof(float)), CUDA_SUCCESS);
  CHECK(cuMemcpyAtoA(b, 4 * sizeof(float), a, 0, (n - 4) * sizeof(float)), CUDA_SUCCESS);
  CHECK(cuMemcpyAtoH(back.data(), b, 4 * sizeof(float), (n - 4) * sizeof(float)), CUDA_SUCCESS);
  for (int i = 0; i < n - 4; ++i)
    if (back[i] != host[i]) {
      std::fprintf(stderr, "FAIL: word %d of the copied array is %g, not %g\n", i, back[i],
                   host[i]);
      return 1;
    }
  CUdeviceptr dev;
  CHECK(cuMemAlloc(&dev, n * sizeof(float)), CUDA_SUCCESS);
  CHECK(cuMemcpyAtoD(dev, a, 0, n * sizeof(float)), CUDA_SUCCESS);
  CHECK(cuMemcpyDtoA(b, 0, dev, n * sizeof(float)), CUDA_SUCCESS);
  CHECK(cuMemcpyHtoA(a, 8, host.data(), n * sizeof(float)),
        CUDA_ERROR_INVALID_VALUE);  // past the end
  CHECK(cuMemcpyAtoH(back.data(), reinterpret_cast<CUarray>(&desc), 0, 4),
        CUDA_ERROR_INVALID_HANDLE);

  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = reinterpret_cast<cudaArray_t>(b);
  cudaTextureDesc tex{};
  cudaTextureObject_t t;
  if (cudaCreateTextureObject(&t, &res, &tex, nullptr) != cudaSuccess) {
    std::fprintf(stderr, "FAIL: cudaCreateTextureObject\n");
    return 1;
  }
  float* out;
  cudaMalloc(&out, n * sizeof(float));
  twice<<<1, n>>>(t, out);
  cudaMemcpy(back.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    if (back[i] != 3.0f * host[i]) {
      std::fprintf(stderr, "FAIL: fetch %d gave %g, not %g\n", i, back[i], 3.0f * host[i]);
      return 1;
    }
  cudaDestroyTextureObject(t);
  CHECK(cuArrayDestroy(a), CUDA_SUCCESS);
  CHECK(cuArrayDestroy(b), CUDA_SUCCESS);
  CHECK(cuArrayDestroy(b), CUDA_ERROR_INVALID_HANDLE);
  std::printf("arrays: ok\n");
  return 0;
}
