// LZ4 and zstd decoding through the Debian libraries, bounded by the stated size.
#include "fatbin_codec.hpp"

#include <lz4.h>
#include <zstd.h>

#include <climits>
#include <string>

namespace bankcheck::sass::detail {

namespace {

std::string num(std::uint64_t v) { return std::to_string(v); }

}  // namespace

Result<std::vector<std::uint8_t>> decode_lz4(std::span<const std::uint8_t> in, std::uint64_t size) {
  // The raw block format (no frame: the payload starts with a token, not 04 22 4d 18) has no
  // size of its own; the block API works in int.
  if (in.size() > INT_MAX || size > INT_MAX)
    return Error{"LZ4 block of " + num(in.size()) + " bytes to " + num(size) +
                 " is larger than the LZ4 block API takes (2 GiB)"};
  // A sequence encodes at most 255 more bytes of match length per input byte, so a block
  // cannot expand more than about 255 times: refuse before allocating for a false size.
  if (size > 255 * std::uint64_t(in.size()) + 16)
    return Error{"LZ4 block of " + num(in.size()) + " bytes cannot decode to the " + num(size) +
                 " stated"};
  std::vector<std::uint8_t> out(size);
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                    reinterpret_cast<char*>(out.data()), int(in.size()), int(size));
  if (n < 0) return Error{"corrupt LZ4 block (" + num(in.size()) + " bytes)"};
  if (std::uint64_t(n) != size)
    return Error{"LZ4 block decodes to " + num(n) + " bytes, not the " + num(size) + " stated"};
  return out;
}

Result<std::vector<std::uint8_t>> decode_zstd(std::span<const std::uint8_t> in,
                                              std::uint64_t size) {
  // The frame header's content size, when present (nvcc writes it), must agree with the
  // entry's before anything is allocated.
  const unsigned long long framed = ZSTD_getFrameContentSize(in.data(), in.size());
  if (framed == ZSTD_CONTENTSIZE_ERROR)
    return Error{"not a zstd frame (no magic 28 b5 2f fd, or a truncated frame header)"};
  if (framed != ZSTD_CONTENTSIZE_UNKNOWN && framed != size)
    return Error{"zstd frame holds " + num(framed) + " bytes, not the " + num(size) + " stated"};
  std::vector<std::uint8_t> out(size);
  const std::size_t n = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(n)) return Error{std::string("corrupt zstd data: ") + ZSTD_getErrorName(n)};
  if (n != size)
    return Error{"zstd data decodes to " + num(n) + " bytes, not the " + num(size) + " stated"};
  return out;
}

}  // namespace bankcheck::sass::detail
