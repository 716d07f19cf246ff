// What the device reports through cudaDeviceGetAttribute and cudaGetDeviceProperties.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>

#include "bankcheck/runtime/device.hpp"

namespace bankcheck::runtime {

// The attribute's value; nullopt for a value no attribute of CUDA 13.0 has (the reserved
// ones included), which the API reports as cudaErrorInvalidValue.
std::optional<long long> device_attribute(const DeviceProfile& device, cudaDeviceAttr attr);

// Every field, from the same values as device_attribute().
void fill_properties(const DeviceProfile& device, cudaDeviceProp& prop);

}  // namespace bankcheck::runtime
