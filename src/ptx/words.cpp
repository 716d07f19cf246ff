// PTX's words and literals (words.hpp).
#include "words.hpp"

#include "bankcheck/ptx/ir.hpp"

#include <algorithm>
#include <bit>
#include <iterator>
#include <string>

namespace bankcheck::ptx::detail {

int type_size(std::string_view t) {
  struct Entry {
    std::string_view name;
    int size;
  };
  static constexpr Entry kTypes[] = {
      {".b8", 1},         {".u8", 1},      {".s8", 1},      {".b16", 2},    {".u16", 2},
      {".s16", 2},        {".f16", 2},     {".bf16", 2},    {".b32", 4},    {".u32", 4},
      {".s32", 4},        {".f32", 4},     {".f16x2", 4},   {".bf16x2", 4}, {".tf32", 4},
      {".b64", 8},        {".u64", 8},     {".s64", 8},     {".f64", 8},    {".b128", 16},
      {".e4m3", 1},       {".e5m2", 1},    {".e2m1x2", 1},  {".e4m3x2", 2}, {".e5m2x2", 2},
      {".e2m3x2", 2},     {".e3m2x2", 2},  {".ue8m0x2", 2}, {".pred", 0},   {".texref", 0},
      {".samplerref", 0}, {".surfref", 0},
  };
  for (const auto& e : kTypes) {
    if (e.name == t) return e.size;
  }
  return -1;
}

bool is_state_space(std::string_view d) {
  return d == ".global" || d == ".shared" || d == ".const" || d == ".local" || d == ".param";
}

StateSpace state_space(std::string_view d) {
  if (d == ".shared") return StateSpace::Shared;
  if (d == ".const") return StateSpace::Const;
  if (d == ".local") return StateSpace::Local;
  if (d == ".param") return StateSpace::Param;
  if (d == ".reg") return StateSpace::Reg;
  return StateSpace::Global;
}

bool is_perf_directive(std::string_view d) {
  static constexpr std::string_view kNames[] = {
      ".maxntid",           ".reqntid",        ".minnctapersm",      ".maxnctapersm",
      ".maxnreg",           ".maxclusterrank", ".reqnctapercluster", ".explicitcluster",
      ".blocksareclusters", ".noreturn",       ".abi_preserve",      ".abi_preserve_control",
  };
  return std::find(std::begin(kNames), std::end(kNames), d) != std::end(kNames);
}

std::vector<std::string_view> split_dots(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t b = 0;
  for (std::size_t k = 1; k <= text.size(); ++k) {
    if (k == text.size() || text[k] == '.') {
      parts.push_back(text.substr(b, k - b));
      b = k;
    }
  }
  return parts;
}

std::uint16_t float_to_half(float f) {
  const auto x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t h = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  const std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry rounds up to inf
  return static_cast<std::uint16_t>(sign | h);
}

std::uint16_t float_to_bf16(float f) {
  const auto x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu))
    return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

void write_element(Variable& v, int size, const Number& n, bool negative) {
  std::uint64_t bits = 0;
  const std::string_view t = v.type;
  const double dv = n.is_float
                        ? n.fvalue
                        : (negative ? -static_cast<double>(n.value) : static_cast<double>(n.value));
  const double value = n.is_float && negative ? -dv : dv;
  if (t == ".f32") {
    if (n.is_float && n.fbits == 32) {
      bits = n.bits ^ (negative ? 0x80000000u : 0u);
    } else {
      bits = std::bit_cast<std::uint32_t>(static_cast<float>(value));
    }
  } else if (t == ".f64") {
    bits = std::bit_cast<std::uint64_t>(value);
  } else if (t == ".f16") {
    bits = float_to_half(static_cast<float>(value));
  } else if (t == ".bf16") {
    bits = float_to_bf16(static_cast<float>(value));
  } else if (n.is_float) {
    // Raw bits of a hex float (0f / 0d) stored into an integer-typed element.
    bits = n.bits;
    if (negative) bits ^= std::uint64_t{1} << (n.fbits - 1);
  } else {
    bits = negative ? 0 - n.value : n.value;
  }
  const bool sign_fill = !n.is_float && negative && t != ".f32" && t != ".f64";
  for (int k = 0; k < size; ++k) {
    std::uint8_t byte = 0;
    if (k < 8) {
      byte = static_cast<std::uint8_t>(bits >> (8 * k));
    } else if (sign_fill) {
      byte = 0xff;
    }
    v.init.push_back(byte);
  }
}

}  // namespace bankcheck::ptx::detail

namespace bankcheck::ptx {

// What an instruction does, without how it is typed, where it reads or how it is shaped:
// the opcode, then each modifier unless it is a type, a state space (with or without
// ::cta/::cluster), a scope or memory order, a shape or size (.m64n128k16, .2d, .x4, .v4), a cache or completion qualifier (it has '::': .L2::evict_last,
// .mbarrier::complete_tx::bytes) or .sync/.aligned; a barrier's first modifier is kept
// (bar.sync, barrier.arrive).
std::string instruction_family(const std::string& opcode, const std::vector<std::string>& mods) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  // .2d, .m64n128k16, .v4, .x4, .m8n8 (not a mode such as prmt's .f4e)
  const auto is_shape = [&](std::string_view m) {
    return m.size() > 2 && (digit(m[1]) || ((m[1] == 'm' || m[1] == 'v' || m[1] == 'x') && digit(m[2])));
  };
  const auto dropped = [&](std::string_view m) {
    const std::string_view head = m.substr(0, m.find("::"));
    return detail::type_size(m) >= 0 || detail::is_state_space(head) ||
           m.find("::") != std::string_view::npos || m == ".sync" || m == ".aligned" ||
           m == ".cta" || m == ".gpu" || m == ".sys" || m == ".cluster" || m == ".relaxed" ||
           m == ".acquire" || m == ".release" || m == ".acq_rel" ||
           is_shape(m);
  };
  std::string out = opcode;
  for (std::size_t i = 0; i < mods.size(); ++i) {
    const std::string_view m = mods[i];
    const bool first_of_barrier = i == 0 && (opcode == "bar" || opcode == "barrier");
    if (first_of_barrier || !dropped(m)) out += m;
  }
  return out;
}

}  // namespace bankcheck::ptx
