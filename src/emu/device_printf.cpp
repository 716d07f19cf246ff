// Device printf (vprintf, ptx::Opc::Printf): each executing lane's format and argument buffer
// read from its call parameters, formatted as the host's C library formats each conversion,
// appended to the emulator's output (Ctx::printed) in lane order; vprintf's return value (the
// arguments read) written to the call's return slot.
#include "bankcheck/emu/device_printf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "cta.hpp"

namespace bankcheck::emu {
namespace {

// One conversion as snprintf formats it (`spec` is a complete conversion specification).
template <typename T>
std::string c_format(const std::string& spec, T value) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  const int n = std::snprintf(nullptr, 0, spec.c_str(), value);
  if (n <= 0) return {};
  std::string s(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), spec.c_str(), value);
#pragma GCC diagnostic pop
  s.pop_back();
  return s;
}

// Widths and precisions beyond this are read as this (a format cannot make one conversion
// allocate without bound).
constexpr long kMostDigits = 1 << 16;

}  // namespace

int format_device_printf(std::string_view f, const PrintfArguments& args, std::string& out) {
  std::uint64_t at = 0;  // the next argument's offset in the buffer
  int count = 0;
  const auto next = [&](unsigned size) {
    at = (at + size - 1) / size * size;
    const std::uint64_t v = args.read(at, size);
    at += size;
    ++count;
    return v;
  };
  const auto digits = [&](std::size_t& j) {
    long v = 0;
    while (j < f.size() && std::isdigit(static_cast<unsigned char>(f[j])))
      v = std::min(kMostDigits, v * 10 + (f[j++] - '0'));
    return v;
  };
  for (std::size_t i = 0; i < f.size();) {
    if (f[i] != '%') {
      const std::size_t j = std::min(f.find('%', i), f.size());
      out.append(f.substr(i, j - i));
      i = j;
      continue;
    }
    // %[flags][width][.precision][length]conversion
    std::size_t j = i + 1;
    std::string spec = "%";
    while (j < f.size() && std::strchr("-+ #0", f[j]) && f[j]) spec += f[j++];
    if (j < f.size() && f[j] == '*') {
      ++j;
      const long w = std::clamp<long>(static_cast<std::int32_t>(next(4)), -kMostDigits, kMostDigits);
      spec += w < 0 ? fmt::format("-{}", -w) : std::to_string(w);  // negative: left-justified
    } else if (const long w = digits(j); w > 0) {
      spec += std::to_string(w);
    }
    if (j < f.size() && f[j] == '.') {
      ++j;
      long p = 0;
      if (j < f.size() && f[j] == '*') {
        ++j;
        p = std::min<long>(static_cast<std::int32_t>(next(4)), kMostDigits);
      } else {
        p = digits(j);
      }
      if (p >= 0) spec += fmt::format(".{}", p);  // a negative precision is none
    }
    std::string length;
    while (j < f.size() && std::strchr("hlLzjtq", f[j]) && f[j]) length += f[j++];
    if (j >= f.size()) {  // an incomplete specification is printed as written
      out.append(f.substr(i));
      break;
    }
    const char conv = f[j++];
    const bool wide = length == "l" || length == "ll" || length == "z" || length == "j" ||
                      length == "t" || length == "q";
    switch (conv) {
      case '%':
        out += '%';
        break;
      case 'd':
      case 'i': {
        const std::uint64_t v = next(wide ? 8 : 4);
        long long x = wide ? static_cast<long long>(v) : static_cast<std::int32_t>(v);
        if (length == "h") x = static_cast<short>(x);
        if (length == "hh") x = static_cast<signed char>(x);
        out += c_format(spec + "lld", x);
        break;
      }
      case 'u':
      case 'o':
      case 'x':
      case 'X': {
        const std::uint64_t v = next(wide ? 8 : 4);
        unsigned long long x = wide ? v : static_cast<std::uint32_t>(v);
        if (length == "h") x = static_cast<unsigned short>(x);
        if (length == "hh") x = static_cast<unsigned char>(x);
        out += c_format(spec + "ll" + conv, x);
        break;
      }
      case 'c':
        out += c_format(spec + "c", static_cast<int>(static_cast<unsigned char>(next(4))));
        break;
      case 's': {
        const std::uint64_t a = next(8);
        out += c_format(spec + "s", a ? args.string(a).c_str() : "(null)");
        break;
      }
      case 'p':
        out += c_format(spec + "p", reinterpret_cast<void*>(static_cast<std::uintptr_t>(next(8))));
        break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        const std::uint64_t v = next(8);
        double d;
        std::memcpy(&d, &v, sizeof d);
        out += c_format(spec + conv, d);
        break;
      }
      case 'n':  // the count of characters written: not written back
        next(8);
        break;
      default:  // not a conversion: printed as written
        out.append(f.substr(i, j - i));
        break;
    }
    i = j;
  }
  return count;
}

namespace detail {
namespace {

bool in_window(std::uint64_t a) {
  for (const std::uint64_t w : {ptx::kSharedWindow, ptx::kLocalWindow, ptx::kParamWindow})
    if (a >= w && a < w + ptx::kWindowSize) return true;
  return false;
}

// What a call to vprintf or __assertfail reads of one lane: its call parameters, and bytes
// and strings at generic addresses (the windows through resolve(); global memory read in
// place, so that the analyses' record of the bytes the CTAs read and wrote is the program's
// own).
struct LaneReader {
  Ctx& c;
  const Instr& in;
  int pc, w, l;
  Space actual = Space::Generic;

  const std::uint8_t* bytes(std::uint64_t a, std::uint64_t size) {
    if (in_window(a))
      return c.resolve(in, pc, Space::Generic, a, static_cast<unsigned>(size), w, l, actual);
    GlobalMemory::Buffer* b = c.mem.find(a, size);
    if (!b)
      c.fail(EmuError::Kind::OutOfBounds, pc,
             fmt::format("{} reads {} bytes at 0x{:x}, outside every buffer (lane {} of warp {})",
                         in.op == Opc::Printf ? "printf" : "assert", size, a, l, w));
    return b->data() + (a - b->base);
  }
  std::uint64_t param(std::int64_t offset, unsigned size = 8) {
    std::uint64_t v = 0;
    std::memcpy(
        &v, c.resolve(in, pc, Space::Local, static_cast<std::uint64_t>(offset), size, w, l, actual),
        size);
    return v;
  }
  std::string string(std::uint64_t a) {
    std::string s;
    for (; s.size() < (1u << 20); ++a) {
      const char ch = static_cast<char>(*bytes(a, 1));
      if (!ch) break;
      s += ch;
    }
    return s;
  }
};

}  // namespace

void device_printf(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec) {
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    LaneReader r{c, in, pc, w, l};
    const std::uint64_t format = r.param(in.mem.offset), buffer = r.param(in.mem2.offset);
    std::int32_t result = -1;  // a null format
    if (format) {
      std::string text;
      const PrintfArguments args{[&](std::uint64_t offset, unsigned size) {
                                   std::uint64_t v = 0;
                                   if (buffer)
                                     std::memcpy(&v, r.bytes(buffer + offset, size), size);
                                   return v;
                                 },
                                 [&](std::uint64_t a) { return r.string(a); }};
      result = format_device_printf(r.string(format), args, text);
      if (c.printed) *c.printed += text;
    }
    if (in.mod.printf_returns)
      std::memcpy(c.resolve(in, pc, Space::Local, static_cast<std::uint64_t>(in.mem3.offset), 4, w,
                            l, r.actual),
                  &result, 4);
  }
}

std::string assert_text(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec) {
  std::string out;
  if (!in.mod.assert_text) return out;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    LaneReader r{c, in, pc, w, l};
    const std::uint64_t message = r.param(in.mem.offset), file = r.param(in.mem2.offset),
                        function = r.param(in.mem3.offset);
    const auto line =
        static_cast<std::uint32_t>(r.param(static_cast<std::int64_t>(in.src[0].imm), 4));
    const auto text = [&](std::uint64_t a) { return a ? r.string(a) : std::string(); };
    using S = ptx::Special;
    out += fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.\n",
                       text(file), line, text(function), c.special(S::CtaidX, w, l),
                       c.special(S::CtaidY, w, l), c.special(S::CtaidZ, w, l),
                       c.special(S::TidX, w, l), c.special(S::TidY, w, l), c.special(S::TidZ, w, l),
                       text(message));
  }
  return out;
}

}  // namespace detail
}  // namespace bankcheck::emu
