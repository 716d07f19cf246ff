// `--arg map=tensormap:...`: the parser of a tensor map argument and its encoding
// (tensor_map_arg.hpp).
#include "tensor_map_arg.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <vector>

#include "bankcheck/driver/error.hpp"
#include "bankcheck/emu/tensor_map.hpp"

namespace bankcheck::driver {

namespace {

constexpr std::string_view kPrefix = "tensormap:";

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(b, i - b));
      b = i + 1;
    }
  return out;
}

std::uint64_t number(const std::string& s, const std::string& what, const std::string& where) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size())
    throw DriverError(fmt::format("{}: tensormap {}: '{}' is not a number", where, what, s));
  return v;
}

// "4096x1024" -> its values, innermost first.
std::vector<std::uint64_t> shape(const std::string& s, const std::string& what,
                                 const std::string& where) {
  std::vector<std::uint64_t> out;
  for (const std::string& part : split(s, 'x')) out.push_back(number(part, what, where));
  if (out.empty() || out.size() > 5)
    throw DriverError(fmt::format("{}: tensormap {} '{}' has {} dimensions (1 to 5)", where, what,
                                  s, out.size()));
  return out;
}

}  // namespace

bool is_tensor_map_arg(std::string_view value) {
  return value.substr(0, kPrefix.size()) == kPrefix;
}

TensorMapArg parse_tensor_map_arg(const std::string& value, const std::string& where) {
  const std::vector<std::string> parts = split(std::string_view(value).substr(kPrefix.size()), ',');
  if (parts.size() < 3)
    throw DriverError(fmt::format(
        "{}: '{}': a tensor map is tensormap:TYPE,DIMS,BOX[,KEY=VALUE...] (tensormap:f16,"
        "4096x4096,64x64,swizzle=128B)",
        where, value));
  TensorMapArg a;
  static const std::pair<const char*, std::pair<unsigned, const char*>> kTypes[] = {
      {"u8", {0, "unsigned char"}}, {"u16", {1, "unsigned short"}}, {"u32", {2, "unsigned"}},
      {"s32", {3, "int"}},          {"u64", {4, "unsigned long"}},  {"s64", {5, "long"}},
      {"f16", {6, "half"}},         {"f32", {7, "float"}},          {"f64", {8, "double"}},
      {"bf16", {9, "half"}},        {"tf32", {11, "float"}}};
  bool known = false;
  for (const auto& [name, t] : kTypes)
    if (parts[0] == name) {
      a.type = t.first;
      a.element = t.second;
      known = true;
    }
  if (!known)
    throw DriverError(
        fmt::format("{}: tensormap type '{}' (u8, u16, u32, s32, u64, s64, f16, f32, "
                    "f64, bf16 or tf32)",
                    where, parts[0]));
  const std::vector<std::uint64_t> dims = shape(parts[1], "dims", where);
  const std::vector<std::uint64_t> box = shape(parts[2], "box", where);
  if (box.size() != dims.size())
    throw DriverError(fmt::format("{}: tensormap box '{}' has {} dimensions, the tensor {}", where,
                                  parts[2], box.size(), dims.size()));
  a.rank = static_cast<unsigned>(dims.size());
  for (unsigned d = 0; d < a.rank; ++d) {
    a.dims[d] = dims[d];
    a.box[d] = static_cast<std::uint32_t>(box[d]);
  }
  const auto es = static_cast<std::uint64_t>(
      emu::tensor_element_bytes(static_cast<emu::TensorDataType>(a.type)));
  std::uint64_t next = (a.dims[0] * es + 15) / 16 * 16;
  for (unsigned d = 1; d < a.rank; ++d) {
    a.strides[d - 1] = next;
    next *= a.dims[d];
  }
  for (std::size_t i = 3; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    if (eq == std::string::npos)
      throw DriverError(
          fmt::format("{}: tensormap '{}': expected KEY=VALUE (swizzle, oob, "
                      "interleave, strides, estrides, data)",
                      where, parts[i]));
    const std::string key = parts[i].substr(0, eq), v = parts[i].substr(eq + 1);
    if (key == "swizzle") {
      static const char* kModes[] = {"none", "32B", "64B", "128B"};
      unsigned m = 4;
      for (unsigned j = 0; j < 4; ++j)
        if (v == kModes[j]) m = j;
      if (m == 4)
        throw DriverError(
            fmt::format("{}: tensormap swizzle '{}' (none, 32B, 64B or 128B)", where, v));
      a.swizzle = m;
    } else if (key == "interleave") {
      a.interleave = v == "none" ? 0 : v == "16B" ? 1 : v == "32B" ? 2 : 3;
      if (a.interleave == 3)
        throw DriverError(
            fmt::format("{}: tensormap interleave '{}' (none, 16B or 32B)", where, v));
    } else if (key == "oob") {
      if (v != "zero" && v != "nan")
        throw DriverError(fmt::format("{}: tensormap oob '{}' (zero or nan)", where, v));
      a.oob = v == "nan" ? 1 : 0;
    } else if (key == "strides") {
      const std::vector<std::uint64_t> s = shape(v, "strides", where);
      if (s.size() + 1 != a.rank)
        throw DriverError(
            fmt::format("{}: tensormap strides '{}': {} values for a {}-dimensional "
                        "tensor (one per dimension after the first)",
                        where, v, s.size(), a.rank));
      for (std::size_t d = 0; d < s.size(); ++d) a.strides[d] = s[d];
    } else if (key == "estrides") {
      const std::vector<std::uint64_t> s = shape(v, "estrides", where);
      if (s.size() != a.rank)
        throw DriverError(fmt::format("{}: tensormap estrides '{}': {} values for {} dimensions",
                                      where, v, s.size(), a.rank));
      for (std::size_t d = 0; d < s.size(); ++d) a.estrides[d] = static_cast<std::uint32_t>(s[d]);
    } else if (key == "data") {
      a.data = v;
    } else {
      throw DriverError(
          fmt::format("{}: tensormap key '{}' (swizzle, oob, interleave, strides, "
                      "estrides, data)",
                      where, key));
    }
  }
  a.bytes = a.rank == 1 ? a.dims[0] * es : a.strides[a.rank - 2] * a.dims[a.rank - 1];
  return a;
}

void encode_tensor_map_arg(const TensorMapArg& a, std::uint64_t address, std::uint8_t* to,
                           const std::string& where) {
  alignas(64) std::uint8_t map[emu::kTensorMapBytes];
  std::string why;
  if (emu::encode_tiled(map, a.type, a.rank, address, a.dims, a.strides, a.box, a.estrides,
                        a.interleave, a.swizzle, 0, a.oob, &why) != emu::kTensorMapSuccess)
    throw DriverError(fmt::format(
        "{}: the tensor map is not one cuTensorMapEncodeTiled accepts: {}", where, why));
  std::memcpy(to, map, sizeof map);
}

}  // namespace bankcheck::driver
