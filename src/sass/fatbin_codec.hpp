// The two codecs of compressed fat binary entries, each decoding to exactly the size the
// entry's header states and no more: an LZ4 block (flag 0x2000, nvcc --compress-mode=speed)
// and a zstd frame (flag 0x8000, nvcc's default). Messages say what went wrong, without
// the entry's offset, which the caller adds.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bankcheck/sass/result.hpp"

namespace bankcheck::sass::detail {

// Precondition: `size` is within the caller's limits (it is allocated up front).
Result<std::vector<std::uint8_t>> decode_lz4(std::span<const std::uint8_t> in, std::uint64_t size);
Result<std::vector<std::uint8_t>> decode_zstd(std::span<const std::uint8_t> in, std::uint64_t size);

}  // namespace bankcheck::sass::detail
