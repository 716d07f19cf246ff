// The driver's answer to the CUDA runtime's integrity check (integrity.hpp).
#include "integrity.hpp"

#include <cstring>

namespace bankcheck::runtime {

namespace {

// RFC 1319's permutation of 0..255 built from the digits of pi.
constexpr std::uint8_t kPi[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,
    243, 192, 199, 115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212,
    224, 22,  103, 66,  111, 24,  138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160,
    251, 245, 142, 187, 47,  238, 122, 169, 104, 121, 145, 21,  178, 7,   63,  148, 194, 16,  137,
    11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,  53,  62,  204, 231, 191, 247, 151,
    3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,  172, 86,  170, 198, 79,  184,
    56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,  100,
    113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246,
    28,  70,  97,  105, 52,  64,  126, 15,  85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249,
    206, 186, 197, 234, 38,  44,  83,  13,  110, 133, 40,  132, 9,   211, 223, 205, 244, 65,  129,
    77,  82,  106, 220, 55,  200, 108, 193, 171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120,
    136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254, 59,  0,   29,  57,  242, 239, 183, 14,
    102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,  49,  68,  80,  180, 143, 237, 31,
    26,  219, 153, 141, 51,  159, 17,  131, 20};

// The key is not stored as such in the runtime: it is unscrambled from these 64 bytes by the
// walk in hmac_key(), as the runtime does.
constexpr std::uint8_t kKeySource[64] = {
    0x6b, 0xcf, 0x32, 0x0f, 0xa4, 0x49, 0xd3, 0xa8, 0x33, 0xf8, 0xd0, 0x8e, 0x12, 0x4e, 0xa8, 0x00,
    0xeb, 0x94, 0x2c, 0x8f, 0x34, 0x49, 0xde, 0xf6, 0xbf, 0x29, 0x91, 0x20, 0xc7, 0x65, 0xf6, 0xba,
    0x78, 0x5c, 0x66, 0x27, 0xa7, 0xb2, 0x73, 0x92, 0xdb, 0x22, 0x1e, 0x20, 0x14, 0x6f, 0x87, 0xff,
    0xa5, 0xc3, 0x18, 0x01, 0x66, 0x64, 0xa5, 0x0e, 0x70, 0x51, 0x52, 0xa7, 0x80, 0x4b, 0xdf, 0xef};

// The fixed answer to codes ending in 0 (ending in 1: byte 7 is 24).
constexpr std::uint8_t kFixedAnswer[16] = {0x5c, 0x67, 0xcb, 0x03, 0x1c, 0x18, 0x41, 0x33,
                                           0xe8, 0xd1, 0x4c, 0x1f, 0xaa, 0x83, 0xd3, 0x8e};

std::array<std::uint8_t, 16> hmac_key() {
  std::array<std::uint8_t, 16> key{};
  unsigned i = 13;
  std::uint8_t carry = 0x8b;
  do {
    const std::uint8_t value = kKeySource[i + 16] ^ kKeySource[i + 32] ^ kKeySource[i + 48];
    const std::uint8_t where = carry ^ kKeySource[i] ^ kKeySource[i + 16];
    carry = static_cast<std::uint8_t>(~(value ^ carry));
    key[where >> 4] = value;
    i = where & 0xf;
  } while (i != 13);
  return key;
}

template <class T>
void feed(Md2& h, const T& value) {
  std::uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  h.update(bytes);
}

}  // namespace

void Md2::block(const std::uint8_t* b) {
  std::uint8_t last = checksum_[15];
  for (int i = 0; i < 16; ++i) {
    x_[16 + i] = b[i];
    x_[32 + i] = x_[i] ^ b[i];
    last = checksum_[i] ^= kPi[b[i] ^ last];
  }
  std::uint8_t t = 0;
  for (int round = 0; round < 18; ++round) {
    for (std::uint8_t& v : x_) t = v ^= kPi[t];
    t = static_cast<std::uint8_t>(t + round);
  }
}

void Md2::update(std::span<const std::uint8_t> bytes) {
  for (const std::uint8_t b : bytes) {
    pending_[count_++] = b;
    if (count_ == 16) {
      block(pending_.data());
      count_ = 0;
    }
  }
}

std::array<std::uint8_t, 16> Md2::digest() {
  const auto pad = static_cast<std::uint8_t>(16 - count_);
  std::uint8_t padding[16];
  std::memset(padding, pad, sizeof padding);
  update({padding, pad});
  const std::array<std::uint8_t, 16> sum = checksum_;
  update(sum);
  std::array<std::uint8_t, 16> out;
  std::memcpy(out.data(), x_.data(), 16);
  return out;
}

std::array<std::uint8_t, 16> integrity_answer(const IntegrityQuestion& q) {
  std::array<std::uint8_t, 16> out;
  if (q.code % 10 < 2) {
    std::memcpy(out.data(), kFixedAnswer, 16);
    if (q.code % 10 == 1) out[7] = 24;
    return out;
  }
  const std::array<std::uint8_t, 16> key = hmac_key();
  std::array<std::uint8_t, 16> pad;
  Md2 inner;
  for (int i = 0; i < 16; ++i) pad[i] = key[i] ^ 0x36;
  inner.update(pad);
  feed(inner, q.driver_version);
  feed(inner, q.code);
  feed(inner, q.process);
  feed(inner, q.thread);
  feed(inner, q.runtime_table);
  feed(inner, q.integrity_table);
  feed(inner, q.function);
  feed(inner, q.timestamp);
  for (const IntegrityDevice& d : q.devices) {
    inner.update(d.uuid);
    feed(inner, d.pci_domain);
    feed(inner, d.pci_bus);
    feed(inner, d.pci_device);
  }
  const std::array<std::uint8_t, 16> inner_digest = inner.digest();
  Md2 outer;
  for (int i = 0; i < 16; ++i) pad[i] = key[i] ^ 0x5c;
  outer.update(pad);
  outer.update(inner_digest);
  return outer.digest();
}

}  // namespace bankcheck::runtime
