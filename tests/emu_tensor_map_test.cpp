// bankcheck's tensor maps (emu/tensor_map.hpp): every field encoded is decoded unchanged
// over random valid arguments, and each rule of the driver's documentation refuses the
// arguments that break it with CUDA_ERROR_INVALID_VALUE and a sentence naming the rule.
#include "bankcheck/emu/tensor_map.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace emu = bankcheck::emu;

namespace {

struct alignas(64) Map {
  std::uint8_t bytes[128];
};

struct Tiled {
  unsigned type = 7;  // F32
  unsigned rank = 2;
  std::uint64_t address = 0x200000000000;
  std::uint64_t dim[5] = {256, 128, 1, 1, 1};
  std::uint64_t stride[4] = {1024, 0, 0, 0};
  std::uint32_t box[5] = {32, 16, 1, 1, 1};
  std::uint32_t estride[5] = {1, 1, 1, 1, 1};
  unsigned interleave = 0, swizzle = 3, l2 = 0, oob = 0;
  int encode(Map& m, std::string* why = nullptr) const {
    return emu::encode_tiled(m.bytes, type, rank, address, dim, stride, box, estride, interleave,
                             swizzle, l2, oob, why);
  }
};

std::string refusal(const Tiled& t) {
  Map m{};
  std::string why;
  EXPECT_EQ(t.encode(m, &why), emu::kTensorMapInvalidValue);
  EXPECT_FALSE(why.empty());
  return why;
}

}  // namespace

TEST(TensorMap, TiledRoundTripsOverRandomArguments) {
  std::mt19937 g(7);
  const unsigned types[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  int encoded = 0;
  for (int n = 0; n < 2000; ++n) {
    Tiled t;
    t.type = types[g() % 13];
    const unsigned bytes =
        static_cast<unsigned>(emu::tensor_element_bytes(static_cast<emu::TensorDataType>(t.type)));
    t.rank = 1 + g() % 5;
    t.address = 0x200000000000 + 16 * (g() % 4096);
    t.swizzle = g() % 4;
    t.oob = emu::tensor_float_type(static_cast<emu::TensorDataType>(t.type)) ? g() % 2 : 0;
    t.l2 = g() % 4;
    std::uint64_t s = 0;
    for (unsigned d = 0; d < t.rank; ++d) {
      t.dim[d] = 1 + g() % (d == 0 ? 3000 : 64);  // the strides stay below 2^40
      t.estride[d] = 1 + g() % 8;
      t.box[d] = 1 + g() % 256;
      if (d == 0) {
        const unsigned span = t.swizzle ? 16u << t.swizzle : 256 * bytes;
        const unsigned max_units = std::min(span, 256 * bytes) / 16;  // 16-byte units
        t.box[0] = (1 + g() % max_units) * 16 / bytes;
        s = (t.dim[0] * bytes + 15) / 16 * 16;
      } else {
        t.stride[d - 1] = s;
        s *= t.dim[d];
      }
    }
    Map m{};
    std::string why;
    ASSERT_EQ(t.encode(m, &why), emu::kTensorMapSuccess) << why;
    ++encoded;
    emu::TensorMap d;
    ASSERT_TRUE(emu::decode_tensor_map(m.bytes, d, &why)) << why;
    EXPECT_EQ(d.mode, emu::TensorMap::Mode::Tiled);
    EXPECT_EQ(static_cast<unsigned>(d.type), t.type);
    EXPECT_EQ(d.rank, t.rank);
    EXPECT_EQ(d.element_bytes, bytes);
    EXPECT_EQ(d.address, t.address);
    EXPECT_EQ(static_cast<unsigned>(d.swizzle), t.swizzle);
    EXPECT_EQ(static_cast<unsigned>(d.oob_fill), t.oob);
    EXPECT_EQ(d.l2_promotion, t.l2);
    EXPECT_EQ(d.stride[0], bytes);
    for (unsigned k = 0; k < t.rank; ++k) {
      EXPECT_EQ(d.dim[k], t.dim[k]);
      EXPECT_EQ(d.box[k], t.box[k]);
      EXPECT_EQ(d.element_stride[k], t.estride[k]);
      if (k > 0) {
        EXPECT_EQ(d.stride[k], t.stride[k - 1]);
      }
    }
  }
  EXPECT_EQ(encoded, 2000);
}

TEST(TensorMap, LargestDimensionAndStrideFit) {
  Tiled t;
  t.dim[0] = std::uint64_t{1} << 32;
  t.dim[1] = 2;
  t.stride[0] = (std::uint64_t{1} << 40) - 16;
  Map m{};
  ASSERT_EQ(t.encode(m), emu::kTensorMapSuccess);
  emu::TensorMap d;
  ASSERT_TRUE(emu::decode_tensor_map(m.bytes, d));
  EXPECT_EQ(d.dim[0], std::uint64_t{1} << 32);
  EXPECT_EQ(d.stride[1], (std::uint64_t{1} << 40) - 16);
}

TEST(TensorMap, EachDocumentedRuleRefuses) {
  auto with = [](auto change) {
    Tiled t;
    change(t);
    return refusal(t);
  };
  EXPECT_NE(with([](Tiled& t) { t.rank = 0; }).find("tensorRank"), std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.rank = 6; }).find("tensorRank"), std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.type = 16; }).find("tensorDataType"), std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.type = 13; }).find("sm_100"), std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.address += 8; }).find("16-byte aligned"), std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.dim[1] = 0; }).find("globalDim[1]"), std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.stride[0] = 1000; }).find("globalStrides[0]"),
            std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.box[1] = 257; }).find("boxDim[1]"), std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.box[0] = 3; }).find("multiple of 16"), std::string::npos);
  // 64 floats = 256 bytes: wider than the 128-byte swizzle.
  EXPECT_NE(with([](Tiled& t) { t.box[0] = 64; }).find("128-byte swizzle"), std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.estride[1] = 9; }).find("elementStrides[1]"), std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.swizzle = 4; }).find("128B_ATOM"), std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.type = 0, t.oob = 1; }).find("floating-point"),
            std::string::npos);
  EXPECT_NE(with([](Tiled& t) { t.interleave = 1; }).find("rank of at least 3"),
            std::string::npos);
  EXPECT_NE(with([](Tiled& t) {
              t.rank = 3, t.interleave = 2, t.stride[1] = 1024 * 128;
            }).find("swizzle 32B"),
            std::string::npos);
  // A refused encoding leaves the map as it was.
  Tiled bad;
  bad.rank = 0;
  Map m{};
  m.bytes[0] = 0xAB;
  EXPECT_EQ(bad.encode(m), emu::kTensorMapInvalidValue);
  EXPECT_EQ(m.bytes[0], 0xAB);
}

TEST(TensorMap, Im2colRoundTripsAndChecksItsCorners) {
  Map m{};
  const std::uint64_t dim[4] = {64, 10, 12, 2};  // C, W, H, N
  const std::uint64_t stride[3] = {64 * 2, 64 * 2 * 10, 64 * 2 * 10 * 12};
  const int lower[2] = {-1, -1}, upper[2] = {-1, -1};
  const std::uint32_t es[4] = {1, 1, 1, 1};
  std::string why;
  ASSERT_EQ(emu::encode_im2col(m.bytes, 6, 4, 0x200000000000, dim, stride, lower, upper, 64, 128,
                               es, 0, 3, 0, 0, &why),
            emu::kTensorMapSuccess)
      << why;
  emu::TensorMap d;
  ASSERT_TRUE(emu::decode_tensor_map(m.bytes, d, &why)) << why;
  EXPECT_EQ(d.mode, emu::TensorMap::Mode::Im2col);
  EXPECT_EQ(d.channels, 64u);
  EXPECT_EQ(d.pixels, 128u);
  EXPECT_EQ(d.lower[0], -1);
  EXPECT_EQ(d.upper[1], -1);
  EXPECT_EQ(d.dim[2], 12u);
  // Rank 4: corners within [-128, 127].
  const int far[2] = {-129, 0};
  EXPECT_EQ(emu::encode_im2col(m.bytes, 6, 4, 0x200000000000, dim, stride, far, upper, 64, 128, es,
                               0, 3, 0, 0, &why),
            emu::kTensorMapInvalidValue);
  EXPECT_NE(why.find("pixelBoxLowerCorner[0]"), std::string::npos) << why;
  // 64 channels of f16 = 128 bytes: wider than a 64-byte swizzle.
  EXPECT_EQ(emu::encode_im2col(m.bytes, 6, 4, 0x200000000000, dim, stride, lower, upper, 64, 128,
                               es, 0, 2, 0, 0, &why),
            emu::kTensorMapInvalidValue);
  EXPECT_NE(why.find("64-byte swizzle"), std::string::npos) << why;
  EXPECT_EQ(emu::encode_im2col(m.bytes, 6, 2, 0x200000000000, dim, stride, lower, upper, 64, 128,
                               es, 0, 3, 0, 0, &why),
            emu::kTensorMapInvalidValue);
}

TEST(TensorMap, BytesNotEncodedHereAreRefused) {
  Map zero{};
  emu::TensorMap d;
  std::string why;
  EXPECT_FALSE(emu::decode_tensor_map(zero.bytes, d, &why));
  EXPECT_NE(why.find("cuTensorMapEncodeTiled"), std::string::npos);
}

TEST(TensorMap, ReplaceAddress) {
  Tiled t;
  Map m{};
  ASSERT_EQ(t.encode(m), emu::kTensorMapSuccess);
  EXPECT_EQ(emu::replace_address(m.bytes, 0x300000000010), emu::kTensorMapSuccess);
  emu::TensorMap d;
  ASSERT_TRUE(emu::decode_tensor_map(m.bytes, d));
  EXPECT_EQ(d.address, 0x300000000010u);
  EXPECT_EQ(emu::replace_address(m.bytes, 0x300000000018), emu::kTensorMapInvalidValue);
}
