// The remaining functions real programs call that need no device: a channel descriptor (a
// plain value), the profiler's range markers (nothing to profile), and peer access (one
// device: it has no peer).
#include "runtime.hpp"

using namespace bankcheck::runtime;

BANKCHECK_API cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                          cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}

BANKCHECK_API cudaError_t cudaProfilerStart() {
  return call([&](Runtime&) { return cudaSuccess; });
}

BANKCHECK_API cudaError_t cudaProfilerStop() {
  return call([&](Runtime&) { return cudaSuccess; });
}

BANKCHECK_API cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  return call([&](Runtime&) {
    if (!canAccessPeer) return cudaErrorInvalidValue;
    if (device != 0 || peerDevice != 0) return cudaErrorInvalidDevice;
    *canAccessPeer = 0;
    return cudaSuccess;
  });
}
