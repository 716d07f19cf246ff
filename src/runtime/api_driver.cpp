// The driver API behind the runtime: there is none. Libraries that run their own GPU code
// (cuBLAS, cuDNN, CUTLASS's TMA descriptors, PyTorch) ask for driver functions through
// cudaGetDriverEntryPoint; the answer is a failure and one sentence naming the library that
// asked, so that a program that merely links such a library still runs until it uses it.
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <string>

#include "runtime.hpp"

using namespace bankcheck::runtime;

namespace {

// The file name of the library holding `address`; empty for the program itself or when
// unknown.
std::string library_of(const void* address) {
  Dl_info info{};
  if (!dladdr(address, &info) || !info.dli_fname || !*info.dli_fname) return "";
  char self[PATH_MAX], lib[PATH_MAX];
  if (realpath("/proc/self/exe", self) && realpath(info.dli_fname, lib) && std::string(self) == lib)
    return "";
  const std::string path = info.dli_fname;
  return path.substr(path.find_last_of('/') + 1);
}

cudaError_t refuse(const char* call_name, const char* symbol, void** funcPtr,
                   cudaDriverEntryPointQueryResult* status, const void* caller) {
  if (funcPtr) *funcPtr = nullptr;
  if (status) *status = cudaDriverEntryPointSymbolNotFound;
  const std::string who = library_of(caller);
  const std::string what = std::string("the CUDA driver function ") + (symbol ? symbol : "(null)") +
                           " (" + call_name + ")";
  if (who.empty())
    diagnose_once(std::string("driver ") + (symbol ? symbol : ""),
                  "the program asked for " + what +
                      "; bankcheck's CUDA runtime has no driver behind it, so the call returned "
                      "cudaErrorNotSupported");
  else
    diagnose_once("driver " + who, who + " asked for " + what +
                                       "; bankcheck's CUDA runtime has no driver behind "
                                       "it, so " +
                                       who +
                                       " cannot run its own GPU code under bankcheck (the call "
                                       "returned cudaErrorNotSupported)");
  return cudaErrorNotSupported;
}

}  // namespace

BANKCHECK_API cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr,
                                                  unsigned long long,
                                                  cudaDriverEntryPointQueryResult* driverStatus) {
  const void* caller = __builtin_return_address(0);
  return call([&](Runtime&) {
    return refuse("cudaGetDriverEntryPoint", symbol, funcPtr, driverStatus, caller);
  });
}
// Deprecated in CUDA 12.5 in favour of the ByVersion form; still exported and still called.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
BANKCHECK_PER_THREAD(cudaGetDriverEntryPoint, cudaGetDriverEntryPoint_ptsz)
#pragma GCC diagnostic pop

BANKCHECK_API cudaError_t cudaGetDriverEntryPointByVersion(
    const char* symbol, void** funcPtr, unsigned int, unsigned long long,
    cudaDriverEntryPointQueryResult* driverStatus) {
  const void* caller = __builtin_return_address(0);
  return call([&](Runtime&) {
    return refuse("cudaGetDriverEntryPointByVersion", symbol, funcPtr, driverStatus, caller);
  });
}
BANKCHECK_PER_THREAD(cudaGetDriverEntryPointByVersion, cudaGetDriverEntryPointByVersion_ptsz)
