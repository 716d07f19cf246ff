// Libraries beside the program: it links cuBLAS (which carries its own runtime and needs the
// real driver) without calling it, and a library of its own that asks the runtime for a driver
// function; the program asks for one too. It must run, and bankcheck must say who asked.
#include <cublas_v2.h>

#include "check.h"

extern "C" int ask_for_driver_function();

int main(int argc, char**) {
  if (argc > 5) {  // never taken: cuBLAS stays linked but uncalled
    cublasHandle_t handle;
    cublasCreate(&handle);
  }
  CHECK_EQ(ask_for_driver_function(), 0);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  // The unversioned form is deprecated in CUDA 12.5 but still called by older code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_ERR(cudaGetDriverEntryPoint("cuMemCreate", &fn, cudaEnableDefault, &status),
             cudaErrorNotSupported);
#pragma GCC diagnostic pop
  cudaGetLastError();
  int* p = nullptr;
  EXPECT_OK(cudaMalloc(&p, 16));
  EXPECT_OK(cudaFree(p));
  if (failures) return 1;
  std::printf("libraries: ok\n");
  return 0;
}
