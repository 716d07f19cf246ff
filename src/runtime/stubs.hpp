// The functions of the real driver this one does not implement: each is a generated weak stub
// (src/runtime/CMakeLists.txt) that says once who called it and returns
// CUDA_ERROR_NOT_SUPPORTED.
#pragma once

namespace bankcheck::runtime {

// Prints, once per function, "bankcheck: NAME was called (by CALLER), which bankcheck's CUDA
// driver does not implement; it returned CUDA_ERROR_NOT_SUPPORTED", and returns that error's
// value. `caller` is a return address in the calling code. A launch entry point among them
// (cuLaunch, cuLaunchGrid, cuLaunchGridAsync, cuLaunchCooperativeKernelMultiDevice) is told to
// the executor too (Executor::not_run): the report lists what did not run.
int unimplemented(const char* name, const void* caller);

}  // namespace bankcheck::runtime
