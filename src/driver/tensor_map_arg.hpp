// A CUtensorMap kernel parameter given to `check` (a PTX-only run has no host code to encode
// one): `--arg map=tensormap:TYPE,DIMS,BOX[,KEY=VALUE...]`, a buffer for the tensor and the
// map that describes it, encoded by bankcheck's own encoder (emu/tensor_map.hpp) as
// cuTensorMapEncodeTiled would be called with the same values.
//
//   TYPE   u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 tf32 (CU_TENSOR_MAP_DATA_TYPE_*)
//   DIMS   the tensor's size, innermost first: 4096x1024 (1 to 5 dimensions)
//   BOX    the box, in the same order: 64x64
//   keys   swizzle=none|32B|64B|128B, oob=zero|nan, interleave=none|16B|32B,
//          strides=S1xS2... (bytes of dimensions 1.., default packed: each row padded to 16
//          bytes), estrides=E0xE1... (element strides, default 1),
//          data=zeros|random|iota|@FILE (the tensor's bytes, default zeros)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bankcheck::driver {

struct TensorMapArg {
  unsigned type = 0;    // CUtensorMapDataType
  std::string element;  // a C type for the data fill: "float", "half", "int", ...
  unsigned rank = 0;
  std::uint64_t dims[5] = {1, 1, 1, 1, 1};
  std::uint64_t strides[4] = {0, 0, 0, 0};  // bytes, dimensions 1..rank-1
  std::uint32_t box[5] = {1, 1, 1, 1, 1};
  std::uint32_t estrides[5] = {1, 1, 1, 1, 1};
  unsigned swizzle = 0, interleave = 0, oob = 0;
  std::string data = "zeros";  // the tensor buffer's value, as a pointer argument takes it
  std::uint64_t bytes = 0;     // the tensor's bytes: the last dimension times its stride
};

bool is_tensor_map_arg(std::string_view value);

// Throws DriverError naming `where` and the part at fault.
TensorMapArg parse_tensor_map_arg(const std::string& value, const std::string& where);

// The 128 bytes of the map at `to`, its tensor at `address`; throws DriverError with the
// encoder's reason (the driver's rule the values break).
void encode_tensor_map_arg(const TensorMapArg& a, std::uint64_t address, std::uint8_t* to,
                           const std::string& where);

}  // namespace bankcheck::driver
