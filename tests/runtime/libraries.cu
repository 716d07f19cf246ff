// Driver functions asked for by name, as libraries do (cudaGetDriverEntryPoint): a library of
// the program's own asks for the tensor map encoders (served: asks.cpp) and for
// cuTensorMapEncodeIm2colWide, the program for cuMemExportToShareableHandle; all are found, and
// those not implemented by bankcheck's driver return CUDA_ERROR_NOT_SUPPORTED and name their caller
// once. The program links cuBLAS too, uncalled.
#include <cublas_v2.h>
#include <cuda.h>

#include "check.h"

extern "C" int ask_for_driver_function();

int main(int argc, char**) {
  if (argc > 5) {  // never taken: cuBLAS stays linked but uncalled
    cublasHandle_t handle;
    cublasCreate(&handle);
  }
  CHECK_EQ(ask_for_driver_function(), 0);
  CHECK_EQ(ask_for_driver_function(), 0);  // said once
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  EXPECT_OK(cudaGetDriverEntryPointByVersion("cuMemExportToShareableHandle", &fn, 12000,
                                             cudaEnableDefault, &status));
  CHECK(fn != nullptr && status == cudaDriverEntryPointSuccess);
  if (fn) {
    int fd = -1;
    CHECK_EQ(reinterpret_cast<decltype(&cuMemExportToShareableHandle)>(fn)(
                 &fd, 1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
             CUDA_ERROR_NOT_SUPPORTED);
  }
  // An unknown name is not found.
  EXPECT_ERR(
      cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &fn, 12000, cudaEnableDefault, &status),
      cudaErrorSymbolNotFound);
  CHECK(fn == nullptr && status == cudaDriverEntryPointSymbolNotFound);
  int* p = nullptr;
  EXPECT_OK(cudaMalloc(&p, 16));
  EXPECT_OK(cudaFree(p));
  if (failures) return 1;
  std::printf("libraries: ok\n");
  return 0;
}
