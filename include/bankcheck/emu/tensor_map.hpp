// Tensor maps (CUtensorMap) as bankcheck encodes them: the 128 bytes that the CPU device's
// cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col write and that the emulator reads when a
// cp.async.bulk.tensor names the map. The driver's own encoding is opaque (and changes
// between drivers); this one is bankcheck's, documented here, and never leaves the process.
// Host-only: no CUDA header is needed (the arguments are the driver API's, as plain values;
// the results are the CUresult values the driver returns).
//
// Layout (little-endian; the map is 128 bytes, 64-byte aligned where the program keeps it):
//
//   offset size  field
//     0     4    magic 0x4D544342 ("BCTM"): a map this library encoded
//     4     1    version (1)
//     5     1    mode: 0 tiled, 1 im2col
//     6     1    data type (CUtensorMapDataType)
//     7     1    rank, 1..5
//     8     1    interleave (CUtensorMapInterleave)
//     9     1    swizzle (CUtensorMapSwizzle)
//    10     1    L2 promotion (CUtensorMapL2promotion)
//    11     1    out-of-bounds fill (CUtensorMapFloatOOBfill)
//    12     2    im2col: channels per pixel (1..256)
//    14     2    im2col: pixels per column (1..1024)
//    16     8    global address
//    24    20    global dims minus one, u32 x 5 (a dim may be 2^32)
//    44     4    zero
//    48    32    global strides of dims 1..4 in bytes, u64 x 4 (dim 0's is the element size)
//    80     5    box dims minus one, u8 x 5 (tiled; a box dim is 1..256)
//    85     5    element strides, u8 x 5 (1..8)
//    90     2    zero
//    92     6    im2col: lower corner, s16 x 3 (W, H, D)
//    98     6    im2col: upper corner, s16 x 3 (W, H, D)
//   104    24    zero
#pragma once

#include <cstdint>
#include <string>

namespace bankcheck::emu {

inline constexpr std::size_t kTensorMapBytes = 128;
inline constexpr std::uint32_t kTensorMapMagic = 0x4D544342u;  // "BCTM"

// The CUresult values the encoders return (the driver API's numbers).
inline constexpr int kTensorMapSuccess = 0;        // CUDA_SUCCESS
inline constexpr int kTensorMapInvalidValue = 1;   // CUDA_ERROR_INVALID_VALUE

// The driver API's enumerations, by value (cuda.h, CUDA 12.x/13.x).
enum class TensorDataType : std::uint8_t {
  U8 = 0,
  U16,
  U32,
  S32,
  U64,
  S64,
  F16,
  F32,
  F64,
  BF16,
  F32Ftz,
  TF32,
  TF32Ftz,
  U4x16Align8,   // the packed sub-byte types: sm_100 and later, refused here
  U4x16Align16,
  U6x16Align16
};
enum class TensorInterleave : std::uint8_t { None = 0, B16, B32 };
// 128B_ATOM_* are sm_100 modes: refused by the encoders (the device is a Hopper).
enum class TensorSwizzle : std::uint8_t { None = 0, B32, B64, B128 };
enum class TensorOobFill : std::uint8_t { Zero = 0, NanRequestZeroFma };

// Bytes of one element of `t` (0 for the packed sub-byte types).
int tensor_element_bytes(TensorDataType t);
// Whether `t` is a floating-point type (the NaN fill applies to those only).
bool tensor_float_type(TensorDataType t);

// A decoded map: every field in its natural unit.
struct TensorMap {
  enum class Mode : std::uint8_t { Tiled, Im2col };
  Mode mode = Mode::Tiled;
  TensorDataType type = TensorDataType::U8;
  unsigned rank = 0;
  unsigned element_bytes = 0;
  TensorInterleave interleave = TensorInterleave::None;
  TensorSwizzle swizzle = TensorSwizzle::None;
  unsigned l2_promotion = 0;
  TensorOobFill oob_fill = TensorOobFill::Zero;
  std::uint64_t address = 0;
  std::uint64_t dim[5] = {1, 1, 1, 1, 1};         // elements per dimension
  std::uint64_t stride[5] = {0, 0, 0, 0, 0};      // bytes; stride[0] = element_bytes
  std::uint32_t box[5] = {1, 1, 1, 1, 1};         // tiled: the box, in elements
  std::uint32_t element_stride[5] = {1, 1, 1, 1, 1};
  // im2col: the bounding box corners (W, H, D), channels per pixel and pixels per column.
  int lower[3] = {0, 0, 0}, upper[3] = {0, 0, 0};
  std::uint32_t channels = 0, pixels = 0;
};

// cuTensorMapEncodeTiled's checks (cuda.h's documentation of it) and encoding into the 128
// bytes at `map`. Returns kTensorMapSuccess, or kTensorMapInvalidValue with the broken rule
// in `why` (when not null); on failure `map` is left unchanged.
int encode_tiled(void* map, unsigned data_type, unsigned rank, std::uint64_t global_address,
                 const std::uint64_t* global_dim, const std::uint64_t* global_strides,
                 const std::uint32_t* box_dim, const std::uint32_t* element_strides,
                 unsigned interleave, unsigned swizzle, unsigned l2_promotion, unsigned oob_fill,
                 std::string* why = nullptr);

// cuTensorMapEncodeIm2col's, the same way: rank 3..5, the corners (rank - 2 of them, W
// first, in the ranges the driver documents), channels per pixel and pixels per column.
int encode_im2col(void* map, unsigned data_type, unsigned rank, std::uint64_t global_address,
                  const std::uint64_t* global_dim, const std::uint64_t* global_strides,
                  const int* lower_corner, const int* upper_corner, std::uint32_t channels_per_pixel,
                  std::uint32_t pixels_per_column, const std::uint32_t* element_strides,
                  unsigned interleave, unsigned swizzle, unsigned l2_promotion, unsigned oob_fill,
                  std::string* why = nullptr);

// cuTensorMapReplaceAddress: a new global address (16-byte aligned, 32 with 32-byte
// interleave) in a map this library encoded.
int replace_address(void* map, std::uint64_t global_address, std::string* why = nullptr);

// Reads the 128 bytes at `bytes`. False, with the reason in `why`, when they are not a map
// this library encoded (a map never encoded, or the driver's own, reads as such).
bool decode_tensor_map(const void* bytes, TensorMap& out, std::string* why = nullptr);

}  // namespace bankcheck::emu
