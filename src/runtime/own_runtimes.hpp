// NVIDIA's libraries (cuBLAS, cuDNN, cuFFT, ...) link a CUDA runtime of their own and open the
// GPU driver themselves: nothing they do reaches this library, and without a driver their calls
// fail with their own status (cuBLAS: CUBLAS_STATUS_NOT_INITIALIZED). Saying which of them the
// program has loaded is the one thing this runtime can do about it.
#pragma once

namespace bankcheck::runtime {

// One line on standard error per such library loaded in the process, once each.
void note_libraries_with_their_own_runtime();

}  // namespace bankcheck::runtime
