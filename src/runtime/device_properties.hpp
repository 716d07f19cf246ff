// What the device reports through cuDeviceGetAttribute (and, through the CUDA runtime on top,
// cudaDeviceGetAttribute and cudaGetDeviceProperties).
#pragma once

#ifndef __CUDA_API_VERSION_INTERNAL
#define __CUDA_API_VERSION_INTERNAL 1
#endif
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <array>
#include <optional>

#include "bankcheck/runtime/device.hpp"

namespace bankcheck::runtime {

// The attribute's value; nullopt for a value no attribute of CUDA 13.0 has (the reserved
// ones included), which the API reports as cudaErrorInvalidValue.
std::optional<long long> device_attribute(const DeviceProfile& device, cudaDeviceAttr attr);

// The same for the driver's attributes (the runtime's values, and the driver's own).
std::optional<long long> driver_attribute(const DeviceProfile& device, CUdevice_attribute attr);

// The device's UUID (cuDeviceGetUuid).
std::array<unsigned char, 16> device_uuid(const DeviceProfile& device);

}  // namespace bankcheck::runtime
