// Device printf: the text one thread's call prints. nvcc passes vprintf the format's address
// and a buffer of the arguments, each at the next multiple of its own size from the buffer's
// start: int, unsigned and char (promoted) 4 bytes, long long, size_t and pointers 8, float
// promoted to double 8.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace bankcheck::emu {

struct PrintfArguments {
  // `size` (4 or 8) bytes at `offset` of the argument buffer, little-endian.
  std::function<std::uint64_t(std::uint64_t offset, unsigned size)> read;
  // The NUL-terminated string at a device address (%s).
  std::function<std::string(std::uint64_t address)> string;
};

// Appends what printf(format, ...) prints to `out`, each conversion as the host's C library
// formats it (flags, width and precision, `*` read from the buffer as an int; %n writes
// nothing), and returns the number of arguments the format read: vprintf's return value.
int format_device_printf(std::string_view format, const PrintfArguments& args, std::string& out);

}  // namespace bankcheck::emu
