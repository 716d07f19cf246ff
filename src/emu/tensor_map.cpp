// bankcheck's tensor maps: the driver API's checks of cuTensorMapEncodeTiled and
// cuTensorMapEncodeIm2col (as cuda.h documents them), the 128-byte encoding of
// tensor_map.hpp, and its decoder.
#include "bankcheck/emu/tensor_map.hpp"

#include <fmt/format.h>

#include <cstring>

namespace bankcheck::emu {

namespace {

constexpr std::uint8_t kVersion = 1;

// Field offsets of the encoding (tensor_map.hpp).
constexpr std::size_t kMagic = 0, kVersionAt = 4, kMode = 5, kType = 6, kRank = 7,
                      kInterleave = 8, kSwizzle = 9, kL2 = 10, kOob = 11, kChannels = 12,
                      kPixels = 14, kAddress = 16, kDims = 24, kStrides = 48, kBox = 80,
                      kElementStrides = 85, kLower = 92, kUpper = 98;

template <typename T>
void put(std::uint8_t* p, std::size_t at, T v) {
  std::memcpy(p + at, &v, sizeof v);
}
template <typename T>
T get(const std::uint8_t* p, std::size_t at) {
  T v;
  std::memcpy(&v, p + at, sizeof v);
  return v;
}

int fail(std::string* why, std::string message) {
  if (why) *why = std::move(message);
  return kTensorMapInvalidValue;
}

// The checks both encoders share: type, rank range, address, dims, strides, element
// strides, interleave, swizzle, L2 promotion, fill. `inner_bytes` is the box's inner
// dimension in bytes (boxDim[0] or channelsPerPixel times the element size).
int check_common(unsigned data_type, unsigned rank, std::uint64_t address,
                 const std::uint64_t* dim, const std::uint64_t* stride,
                 const std::uint32_t* element_strides, unsigned interleave, unsigned swizzle,
                 unsigned l2, unsigned oob, std::string* why) {
  if (data_type > static_cast<unsigned>(TensorDataType::U6x16Align16))
    return fail(why, fmt::format("tensorDataType {} is not a CUtensorMapDataType", data_type));
  if (tensor_element_bytes(static_cast<TensorDataType>(data_type)) == 0)
    return fail(why, fmt::format("tensorDataType {} (a packed sub-byte type) needs sm_100; the "
                                 "device is an sm_90",
                                 data_type));
  if (interleave > static_cast<unsigned>(TensorInterleave::B32))
    return fail(why, fmt::format("interleave {} is not a CUtensorMapInterleave", interleave));
  if (swizzle > 6) return fail(why, fmt::format("swizzle {} is not a CUtensorMapSwizzle", swizzle));
  if (swizzle > static_cast<unsigned>(TensorSwizzle::B128))
    return fail(why, fmt::format("swizzle {} (a 128B_ATOM mode) needs sm_100; the device is an "
                                 "sm_90",
                                 swizzle));
  if (l2 > 3) return fail(why, fmt::format("l2Promotion {} is not a CUtensorMapL2promotion", l2));
  if (oob > 1) return fail(why, fmt::format("oobFill {} is not a CUtensorMapFloatOOBfill", oob));
  const auto type = static_cast<TensorDataType>(data_type);
  if (oob == 1 && !tensor_float_type(type))
    return fail(why, "oobFill NAN_REQUEST_ZERO_FMA needs a floating-point tensorDataType");
  if (interleave != 0 && rank < 3)
    return fail(why, fmt::format("tensorRank {} with interleave: an interleaved layout needs a "
                                 "rank of at least 3",
                                 rank));
  if (address % 16 != 0)
    return fail(why, fmt::format("globalAddress 0x{:x} is not 16-byte aligned", address));
  if (interleave == 2 && address % 32 != 0)
    return fail(why, fmt::format("globalAddress 0x{:x} is not 32-byte aligned (32-byte "
                                 "interleave)",
                                 address));
  if (interleave == 2 && swizzle != 1)
    return fail(why, "interleave 32B needs swizzle 32B");
  for (unsigned d = 0; d < rank; ++d)
    if (dim[d] == 0 || dim[d] > (std::uint64_t{1} << 32))
      return fail(why, fmt::format("globalDim[{}] = {} is not in [1, 2^32]", d, dim[d]));
  for (unsigned d = 0; d + 1 < rank; ++d) {
    const std::uint64_t s = stride[d];
    if (s % 16 != 0 || s >= (std::uint64_t{1} << 40))
      return fail(why, fmt::format("globalStrides[{}] = {} is not a multiple of 16 below 2^40", d,
                                   s));
    if (interleave == 2 && s % 32 != 0)
      return fail(why, fmt::format("globalStrides[{}] = {} is not a multiple of 32 (32-byte "
                                   "interleave)",
                                   d, s));
  }
  for (unsigned d = 0; d < rank; ++d)
    if (element_strides[d] == 0 || element_strides[d] > 8)
      return fail(why, fmt::format("elementStrides[{}] = {} is not in [1, 8]", d,
                                   element_strides[d]));
  return kTensorMapSuccess;
}

int check_inner(unsigned interleave, unsigned swizzle, std::uint64_t inner_bytes,
                const char* what, std::string* why) {
  if (interleave != 0) return kTensorMapSuccess;
  static constexpr unsigned kSpan[] = {0, 32, 64, 128};
  if (swizzle != 0 && inner_bytes > kSpan[swizzle])
    return fail(why, fmt::format("the box's inner dimension ({} = {} bytes) is wider than the "
                                 "{}-byte swizzle",
                                 what, inner_bytes, kSpan[swizzle]));
  return kTensorMapSuccess;
}

void write_common(std::uint8_t* m, TensorMap::Mode mode, unsigned data_type, unsigned rank,
                  std::uint64_t address, const std::uint64_t* dim, const std::uint64_t* stride,
                  const std::uint32_t* element_strides, unsigned interleave, unsigned swizzle,
                  unsigned l2, unsigned oob) {
  std::memset(m, 0, kTensorMapBytes);
  put<std::uint32_t>(m, kMagic, kTensorMapMagic);
  m[kVersionAt] = kVersion;
  m[kMode] = static_cast<std::uint8_t>(mode);
  m[kType] = static_cast<std::uint8_t>(data_type);
  m[kRank] = static_cast<std::uint8_t>(rank);
  m[kInterleave] = static_cast<std::uint8_t>(interleave);
  m[kSwizzle] = static_cast<std::uint8_t>(swizzle);
  m[kL2] = static_cast<std::uint8_t>(l2);
  m[kOob] = static_cast<std::uint8_t>(oob);
  put<std::uint64_t>(m, kAddress, address);
  for (unsigned d = 0; d < 5; ++d) {
    put<std::uint32_t>(m, kDims + 4 * d, d < rank ? static_cast<std::uint32_t>(dim[d] - 1) : 0);
    m[kElementStrides + d] = static_cast<std::uint8_t>(d < rank ? element_strides[d] : 1);
  }
  for (unsigned d = 0; d + 1 < rank; ++d) put<std::uint64_t>(m, kStrides + 8 * d, stride[d]);
}

}  // namespace

int tensor_element_bytes(TensorDataType t) {
  switch (t) {
    case TensorDataType::U8:
      return 1;
    case TensorDataType::U16:
    case TensorDataType::F16:
    case TensorDataType::BF16:
      return 2;
    case TensorDataType::U32:
    case TensorDataType::S32:
    case TensorDataType::F32:
    case TensorDataType::F32Ftz:
    case TensorDataType::TF32:
    case TensorDataType::TF32Ftz:
      return 4;
    case TensorDataType::U64:
    case TensorDataType::S64:
    case TensorDataType::F64:
      return 8;
    default:
      return 0;
  }
}

bool tensor_float_type(TensorDataType t) {
  switch (t) {
    case TensorDataType::F16:
    case TensorDataType::F32:
    case TensorDataType::F64:
    case TensorDataType::BF16:
    case TensorDataType::F32Ftz:
    case TensorDataType::TF32:
    case TensorDataType::TF32Ftz:
      return true;
    default:
      return false;
  }
}

int encode_tiled(void* map, unsigned data_type, unsigned rank, std::uint64_t global_address,
                 const std::uint64_t* global_dim, const std::uint64_t* global_strides,
                 const std::uint32_t* box_dim, const std::uint32_t* element_strides,
                 unsigned interleave, unsigned swizzle, unsigned l2_promotion, unsigned oob_fill,
                 std::string* why) {
  if (!map) return fail(why, "tensorMap is null");
  if (reinterpret_cast<std::uintptr_t>(map) % 64 != 0)
    return fail(why, "tensorMap is not 64-byte aligned");
  if (rank == 0 || rank > 5)
    return fail(why, fmt::format("tensorRank {} is not in [1, 5]", rank));
  if (!global_dim || (rank > 1 && !global_strides) || !box_dim || !element_strides)
    return fail(why, "a null array argument");
  if (int r = check_common(data_type, rank, global_address, global_dim, global_strides,
                           element_strides, interleave, swizzle, l2_promotion, oob_fill, why))
    return r;
  const auto bytes =
      static_cast<std::uint64_t>(tensor_element_bytes(static_cast<TensorDataType>(data_type)));
  for (unsigned d = 0; d < rank; ++d)
    if (box_dim[d] == 0 || box_dim[d] > 256)
      return fail(why, fmt::format("boxDim[{}] = {} is not in [1, 256]", d, box_dim[d]));
  if (interleave == 0 && box_dim[0] * bytes % 16 != 0)
    return fail(why, fmt::format("boxDim[0] x element size = {} bytes is not a multiple of 16",
                                 box_dim[0] * bytes));
  if (int r = check_inner(interleave, swizzle, box_dim[0] * bytes, "boxDim[0] x element size", why))
    return r;
  auto* m = static_cast<std::uint8_t*>(map);
  write_common(m, TensorMap::Mode::Tiled, data_type, rank, global_address, global_dim,
               global_strides, element_strides, interleave, swizzle, l2_promotion, oob_fill);
  for (unsigned d = 0; d < rank; ++d) m[kBox + d] = static_cast<std::uint8_t>(box_dim[d] - 1);
  return kTensorMapSuccess;
}

int encode_im2col(void* map, unsigned data_type, unsigned rank, std::uint64_t global_address,
                  const std::uint64_t* global_dim, const std::uint64_t* global_strides,
                  const int* lower_corner, const int* upper_corner, std::uint32_t channels_per_pixel,
                  std::uint32_t pixels_per_column, const std::uint32_t* element_strides,
                  unsigned interleave, unsigned swizzle, unsigned l2_promotion, unsigned oob_fill,
                  std::string* why) {
  if (!map) return fail(why, "tensorMap is null");
  if (reinterpret_cast<std::uintptr_t>(map) % 64 != 0)
    return fail(why, "tensorMap is not 64-byte aligned");
  if (rank < 3 || rank > 5)
    return fail(why, fmt::format("tensorRank {} is not 3, 4 or 5 (im2col)", rank));
  if (!global_dim || !global_strides || !lower_corner || !upper_corner || !element_strides)
    return fail(why, "a null array argument");
  if (int r = check_common(data_type, rank, global_address, global_dim, global_strides,
                           element_strides, interleave, swizzle, l2_promotion, oob_fill, why))
    return r;
  // The corners' range shrinks with the spatial dimensions (cuda.h).
  const int spatial = static_cast<int>(rank) - 2;
  const int range = spatial == 1 ? 32768 : spatial == 2 ? 128 : 16;
  for (int i = 0; i < spatial; ++i)
    for (const int* c : {lower_corner, upper_corner})
      if (c[i] < -range || c[i] >= range)
        return fail(why, fmt::format("pixelBox{}Corner[{}] = {} is not in [{}, {}]",
                                     c == lower_corner ? "Lower" : "Upper", i, c[i], -range,
                                     range - 1));
  // A non-empty bounding box: in each spatial dimension lower <= dim - 1 + upper.
  for (int i = 0; i < spatial; ++i) {
    const auto extent = static_cast<std::int64_t>(global_dim[1 + i]) - 1 + upper_corner[i];
    if (extent < lower_corner[i])
      return fail(why, fmt::format("the pixel bounding box is empty in dimension {}", 1 + i));
  }
  if (channels_per_pixel == 0 || channels_per_pixel > 256)
    return fail(why, fmt::format("channelsPerPixel {} is not in [1, 256]", channels_per_pixel));
  if (pixels_per_column == 0 || pixels_per_column > 1024)
    return fail(why, fmt::format("pixelsPerColumn {} is not in [1, 1024]", pixels_per_column));
  const auto bytes =
      static_cast<std::uint64_t>(tensor_element_bytes(static_cast<TensorDataType>(data_type)));
  if (interleave == 0 && channels_per_pixel * bytes % 16 != 0)
    return fail(why, fmt::format("channelsPerPixel x element size = {} bytes is not a multiple "
                                 "of 16",
                                 channels_per_pixel * bytes));
  if (int r = check_inner(interleave, swizzle, channels_per_pixel * bytes,
                          "channelsPerPixel x element size", why))
    return r;
  auto* m = static_cast<std::uint8_t*>(map);
  write_common(m, TensorMap::Mode::Im2col, data_type, rank, global_address, global_dim,
               global_strides, element_strides, interleave, swizzle, l2_promotion, oob_fill);
  put<std::uint16_t>(m, kChannels, static_cast<std::uint16_t>(channels_per_pixel));
  put<std::uint16_t>(m, kPixels, static_cast<std::uint16_t>(pixels_per_column));
  for (int i = 0; i < spatial; ++i) {
    put<std::int16_t>(m, kLower + 2 * static_cast<std::size_t>(i),
                      static_cast<std::int16_t>(lower_corner[i]));
    put<std::int16_t>(m, kUpper + 2 * static_cast<std::size_t>(i),
                      static_cast<std::int16_t>(upper_corner[i]));
  }
  return kTensorMapSuccess;
}

int replace_address(void* map, std::uint64_t global_address, std::string* why) {
  TensorMap t;
  if (!map || !decode_tensor_map(map, t, why)) return kTensorMapInvalidValue;
  if (global_address % 16 != 0)
    return fail(why, fmt::format("globalAddress 0x{:x} is not 16-byte aligned", global_address));
  if (t.interleave == TensorInterleave::B32 && global_address % 32 != 0)
    return fail(why, fmt::format("globalAddress 0x{:x} is not 32-byte aligned (32-byte "
                                 "interleave)",
                                 global_address));
  put<std::uint64_t>(static_cast<std::uint8_t*>(map), kAddress, global_address);
  return kTensorMapSuccess;
}

bool decode_tensor_map(const void* bytes, TensorMap& t, std::string* why) {
  const auto* m = static_cast<const std::uint8_t*>(bytes);
  if (get<std::uint32_t>(m, kMagic) != kTensorMapMagic || m[kVersionAt] != kVersion) {
    if (why)
      *why = "not a tensor map encoded by cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col in "
             "this process (its 128 bytes do not start with bankcheck's mark)";
    return false;
  }
  t = TensorMap{};
  t.mode = m[kMode] == 1 ? TensorMap::Mode::Im2col : TensorMap::Mode::Tiled;
  t.type = static_cast<TensorDataType>(m[kType]);
  t.rank = m[kRank];
  t.element_bytes = static_cast<unsigned>(tensor_element_bytes(t.type));
  t.interleave = static_cast<TensorInterleave>(m[kInterleave]);
  t.swizzle = static_cast<TensorSwizzle>(m[kSwizzle]);
  t.l2_promotion = m[kL2];
  t.oob_fill = static_cast<TensorOobFill>(m[kOob]);
  if (t.rank < 1 || t.rank > 5 || t.element_bytes == 0 || m[kSwizzle] > 3 || m[kInterleave] > 2 ||
      m[kMode] > 1) {
    if (why) *why = "a tensor map with fields out of range (its bytes were overwritten?)";
    return false;
  }
  t.address = get<std::uint64_t>(m, kAddress);
  t.stride[0] = t.element_bytes;
  for (unsigned d = 0; d < 5; ++d) {
    t.dim[d] = d < t.rank ? std::uint64_t{get<std::uint32_t>(m, kDims + 4 * d)} + 1 : 1;
    t.element_stride[d] = d < t.rank ? m[kElementStrides + d] : 1;
    t.box[d] = d < t.rank ? std::uint32_t{m[kBox + d]} + 1 : 1;
  }
  for (unsigned d = 1; d < t.rank; ++d) t.stride[d] = get<std::uint64_t>(m, kStrides + 8 * (d - 1));
  if (t.mode == TensorMap::Mode::Im2col) {
    t.channels = get<std::uint16_t>(m, kChannels);
    t.pixels = get<std::uint16_t>(m, kPixels);
    for (std::size_t i = 0; i < 3; ++i) {
      t.lower[i] = get<std::int16_t>(m, kLower + 2 * i);
      t.upper[i] = get<std::int16_t>(m, kUpper + 2 * i);
    }
  }
  return true;
}

}  // namespace bankcheck::emu
