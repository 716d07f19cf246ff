// Texture fetches (bankcheck/emu/texture.hpp): address modes, nearest-point and linear
// filtering, and the texel formats, as the H200 computes them
// (bench/device/results/textures, replayed by the CTest run_textures_as_on_the_gpu).
#include "bankcheck/emu/texture.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "cta.hpp"
#include "narrow_float.hpp"

namespace bankcheck::emu {
namespace {

bool integer_result(const Texture& t) {
  switch (t.format) {
    case TexFormat::U32:
    case TexFormat::S32:
      return true;
    case TexFormat::F16:
    case TexFormat::F32:
      return false;
    default:
      return t.read_as_integer;
  }
}

// The scale of a normalized integer format (its largest value), 0 for the others.
float unorm_scale(TexFormat f) {
  switch (f) {
    case TexFormat::U8:
      return 255.0f;
    case TexFormat::U16:
      return 65535.0f;
    case TexFormat::S8:
      return 127.0f;
    case TexFormat::S16:
      return 32767.0f;
    default:
      return 0.0f;
  }
}

// A normalized integer format's channel `c` of the texel at `p` in its own steps (the
// integer stored).
std::int32_t steps(const Texture& t, const std::uint8_t* p, unsigned c) {
  auto read = [&](auto v) {
    std::memcpy(&v, p + c * sizeof v, sizeof v);
    return static_cast<std::int32_t>(v);
  };
  switch (t.format) {
    case TexFormat::U8:
      return read(std::uint8_t{});
    case TexFormat::U16:
      return read(std::uint16_t{});
    case TexFormat::S8:
      return read(std::int8_t{});
    default:
      return read(std::int16_t{});
  }
}

// The border colour's channel `c` in a normalized format's steps: rounded to nearest, halves
// toward zero (0.5 of an 8-bit channel reads back as 127/255).
std::int32_t border_steps(const Texture& t, unsigned c) {
  const float scale = unorm_scale(t.format);
  const bool is_signed = t.format == TexFormat::S8 || t.format == TexFormat::S16;
  const float q = std::ceil(t.border[c] * scale - 0.5f);
  return static_cast<std::int32_t>(std::clamp(q, is_signed ? -scale : 0.0f, scale));
}

// Steps of a normalized format as the float the fetch returns; with `weights`, `q` is the
// sum of a linear fetch's weighted taps in 256ths of a step, which the texture unit rounds to
// 16-bit steps first (halves up; an 8-bit step is 257 of them) and returns as such
// (bench/device/results/textures: uchar4 linear). Signed formats: the sum as it is.
std::uint32_t from_steps(const Texture& t, std::int64_t q, bool weights) {
  if (weights && (t.format == TexFormat::U8 || t.format == TexFormat::U16)) {
    const std::int64_t per_step = t.format == TexFormat::U8 ? 257 : 1;
    const std::int64_t q16 = (q * per_step * 2 + 256) / 512;  // q * per_step / 256, halves up
    return std::bit_cast<std::uint32_t>(static_cast<float>(q16) / 65535.0f);
  }
  const double scale = unorm_scale(t.format) * (weights ? 256.0 : 1.0);
  return std::bit_cast<std::uint32_t>(std::max(static_cast<float>(q / scale), -1.0f));
}

// Channel `c` of the texel at `p`, or of the border when `border`, as the fetch returns it
// (f32 bits or an integer); with `in_steps`, a normalized format's channel in its steps.
std::uint32_t channel(const Texture& t, const std::uint8_t* p, unsigned c, bool border,
                      bool in_steps) {
  const bool integer = integer_result(t);
  if (unorm_scale(t.format) != 0.0f) {
    const std::int32_t q = border ? border_steps(t, c) : steps(t, p, c);
    if (integer)
      return static_cast<std::uint32_t>(border ? static_cast<std::int32_t>(t.border[c]) : q);
    return in_steps ? static_cast<std::uint32_t>(q) : from_steps(t, q, false);
  }
  const float b = t.border[c];
  std::uint32_t v;
  switch (t.format) {
    case TexFormat::F16: {
      std::uint16_t h;
      std::memcpy(&h, p + 2 * c, 2);
      if (border)
        h = static_cast<std::uint16_t>(
            detail::double_to_narrow(detail::kF16, b, ptx::Round::None, false));
      return std::bit_cast<std::uint32_t>(
          static_cast<float>(detail::narrow_to_double(detail::kF16, h)));
    }
    case TexFormat::F32:
      if (border) return std::bit_cast<std::uint32_t>(b);
      std::memcpy(&v, p + 4 * c, 4);
      return v;
    default:  // 32-bit integers
      if (border) return static_cast<std::uint32_t>(static_cast<std::int32_t>(b));
      std::memcpy(&v, p + 4 * c, 4);
      return v;
  }
}

// The four components of texel (i, j, k), or of the border when `border`; channels the
// format lacks are 0, and alpha 1 (in steps: the format's largest).
void texel(const Texture& t, std::int64_t i, std::int64_t j, std::int64_t k, bool border,
           bool in_steps, std::uint32_t out[4]) {
  const bool integer = integer_result(t);
  const std::uint32_t one = integer    ? 1u
                            : in_steps ? static_cast<std::uint32_t>(unorm_scale(t.format))
                                       : std::bit_cast<std::uint32_t>(1.0f);
  const std::uint8_t* p = border ? nullptr
                                 : t.data + static_cast<std::uint64_t>(k) * t.slice +
                                       static_cast<std::uint64_t>(j) * t.pitch +
                                       static_cast<std::uint64_t>(i) * texel_bytes(t);
  for (unsigned c = 0; c < 4; ++c) {
    if (c < t.channels)
      out[c] = channel(t, p, c, border, in_steps);
    else
      out[c] = c == 3 ? one : 0u;
  }
}

// A texel index through the address mode; `border` set when it falls outside a bordered
// texture.
std::int64_t address(std::int64_t i, std::int64_t n, TexAddress mode, bool& border) {
  switch (mode) {
    case TexAddress::Wrap:
      return ((i % n) + n) % n;
    case TexAddress::Mirror: {
      const std::int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
      return m < n ? m : 2 * n - 1 - m;
    }
    case TexAddress::Clamp:
      return std::clamp<std::int64_t>(i, 0, n - 1);
    case TexAddress::Border:
      if (i < 0 || i >= n) border = true;
      return std::clamp<std::int64_t>(i, 0, n - 1);
  }
  return 0;
}

// floor(x) as an index, kept in range (a huge or NaN coordinate gives an edge texel).
std::int64_t floor_index(float x) {
  if (!(x == x)) return 0;
  return static_cast<std::int64_t>(std::floor(std::clamp(x, -1e15f, 1e15f)));
}

// 2^21: a normalized coordinate's fractional bits (bench/device/results/textures/weights.txt,
// the steps of 1D textures of widths 3 to 1000).
constexpr double kCoordScale = 2097152.0;

int round_half_up(double x) { return static_cast<int>(std::floor(x + 0.5)); }

// The weights of the taps of a linear fetch, in 256ths, from each dimension's weight of its
// next texel (`a`): tap bit d set is the next texel in dimension d. As the H200's texture
// unit rounds them (weights.txt): in 2D the product of the two next texels' weights is rounded
// (halves up) and the others follow from it, so that each row and column keeps its share; in
// 3D each slice's share is split so in turn (within a 256th of the H200's on 8% of the
// weights measured).
void tap_weights(unsigned dims, const int* a, int* w) {
  if (dims == 1) {
    w[0] = 256 - a[0];
    w[1] = a[0];
    return;
  }
  const auto plane = [&](int total, int* out) {
    const int x = round_half_up(total * a[0] / 256.0), y = round_half_up(total * a[1] / 256.0);
    const int p = dims == 2 ? round_half_up(a[0] * a[1] / 256.0) : round_half_up(x * a[1] / 256.0);
    const int px = dims == 2 ? a[0] : x, py = dims == 2 ? a[1] : y;
    out[0] = total - px - py + p;
    out[1] = px - p;
    out[2] = py - p;
    out[3] = p;
  };
  if (dims == 2) {
    plane(256, w);
    return;
  }
  plane(256 - a[2], w);
  plane(a[2], w + 4);
}

}  // namespace

unsigned texel_bytes(const Texture& t) {
  unsigned b = 4;
  switch (t.format) {
    case TexFormat::U8:
    case TexFormat::S8:
      b = 1;
      break;
    case TexFormat::U16:
    case TexFormat::S16:
    case TexFormat::F16:
      b = 2;
      break;
    default:
      break;
  }
  return b * t.channels;
}

void texture_fetch(const Texture& t, const std::uint32_t* coords, bool integer_coords,
                   std::uint32_t out[4], std::uint32_t layer) {
  const auto slice = static_cast<std::int64_t>(layer_of(t, layer));
  const std::int64_t extent[3] = {static_cast<std::int64_t>(t.width),
                                  static_cast<std::int64_t>(t.height),
                                  static_cast<std::int64_t>(t.depth)};
  // Linear memory: by index, zeros outside.
  if (t.linear) {
    const std::int64_t i = integer_coords ? static_cast<std::int32_t>(coords[0])
                                          : floor_index(std::bit_cast<float>(coords[0]));
    if (i < 0 || i >= extent[0]) {
      out[0] = out[1] = out[2] = out[3] = 0;
      return;
    }
    texel(t, i, 0, 0, false, false, out);
    return;
  }
  const bool linear = t.filter_linear && !integer_coords && !integer_result(t);
  // A 1D texture filters as a 2D one of one row at y = 0: half of each tap from the row
  // before it, which only the border mode shows.
  // (Not a layered one: H200, layered.txt.)
  const unsigned dims = linear && t.dims == 1 && t.layers == 0 ? 2 : t.dims;
  // Per dimension: the first texel and, for linear filtering, the next one's weight in
  // 256ths.
  std::int64_t first[3] = {0, 0, 0};
  int weight[3] = {0, 0, 0};
  TexAddress mode[3];
  for (unsigned d = 0; d < 3; ++d) {
    mode[d] = t.address[d];
    if (!t.normalized_coords && (mode[d] == TexAddress::Wrap || mode[d] == TexAddress::Mirror))
      mode[d] = TexAddress::Clamp;
    if (d >= dims) continue;
    if (integer_coords) {
      first[d] = static_cast<std::int32_t>(coords[d]);
      continue;
    }
    const float x = d < t.dims ? std::bit_cast<float>(coords[d]) : 0.0f;
    if (!(x == x)) continue;  // NaN: the first texel
    // A normalized coordinate keeps 21 fractional bits (truncated), then scales exactly.
    const double u = t.normalized_coords
                         ? std::floor(std::clamp(static_cast<double>(x), -1e9, 1e9) * kCoordScale) /
                               kCoordScale * static_cast<double>(extent[d])
                         : std::clamp(static_cast<double>(x), -1e15, 1e15);
    if (!linear) {
      first[d] = static_cast<std::int64_t>(std::floor(u));
      continue;
    }
    const double ub = u - 0.5;
    first[d] = static_cast<std::int64_t>(std::floor(ub));
    weight[d] = static_cast<int>(std::floor((ub - std::floor(ub)) * 256.0 + 0.5));
    if (weight[d] == 256) {
      weight[d] = 0;
      ++first[d];
    }
  }
  if (!linear) {
    bool border = false;
    std::int64_t idx[3] = {0, 0, slice};
    for (unsigned d = 0; d < dims; ++d) idx[d] = address(first[d], extent[d], mode[d], border);
    texel(t, idx[0], idx[1], idx[2], border, false, out);
    return;
  }
  // The taps' weights in 256ths (tap bit d: the next texel in dimension d).
  int w[8];
  tap_weights(dims, weight, w);
  // Normalized integer formats blend in their steps (equal taps give the texel exactly),
  // floats in f32.
  const bool in_steps = unorm_scale(t.format) != 0.0f;
  float sum[4] = {0, 0, 0, 0};
  std::int64_t qsum[4] = {0, 0, 0, 0};
  for (unsigned tap = 0; tap < (1u << dims); ++tap) {
    std::int64_t idx[3] = {0, 0, slice};
    bool border = false;
    for (unsigned d = 0; d < dims; ++d)
      idx[d] = address(first[d] + ((tap >> d) & 1u), d < t.dims ? extent[d] : 1, mode[d], border);
    std::uint32_t v[4];
    texel(t, idx[0], idx[1], idx[2], border, in_steps, v);
    const float f = static_cast<float>(w[tap]) / 256.0f;
    for (unsigned c = 0; c < 4; ++c) {
      if (in_steps)
        qsum[c] += std::int64_t{w[tap]} * static_cast<std::int32_t>(v[c]);
      else
        sum[c] += f * std::bit_cast<float>(v[c]);
    }
  }
  for (unsigned c = 0; c < 4; ++c)
    out[c] = in_steps ? from_steps(t, qsum[c], true) : std::bit_cast<std::uint32_t>(sum[c]);
}

}  // namespace bankcheck::emu

// ---------------------------------------------------------------- the instruction

namespace bankcheck::emu::detail {
namespace {

// A handle that names no texture (surface) object: a program's mistake under `bankcheck run`,
// or `check`, which has none to give.
[[noreturn]] void missing_object(Ctx& c, int pc, const char* what, std::uint64_t handle, int l,
                                 int w) {
  if (!c.mem.program_objects)
    c.fail(EmuError::Kind::Unsupported, pc,
           fmt::format("the kernel reads through a {} object, which `bankcheck check` cannot "
                       "make: the program creates it (run the program under `bankcheck run`)",
                       what));
  c.fail(EmuError::Kind::Unsupported, pc,
         fmt::format("{} object {} does not exist (lane {} of warp {}): it was never created, or "
                     "was destroyed",
                     what, handle, l, w));
}

}  // namespace

void texture_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec) {
  const bool integer_coords = in.type2 == Ty::S32;
  for (std::uint32_t e = exec; e; e &= e - 1) {
    const int l = std::countr_zero(e);
    const std::uint64_t handle = c.val(in.src[0], w, l);
    const auto it = c.mem.textures.find(handle);
    if (it == c.mem.textures.end()) missing_object(c, pc, "texture", handle, l, w);
    std::uint32_t coords[3] = {0, 0, 0};
    for (unsigned d = 0; d < in.vec; ++d)
      coords[d] = static_cast<std::uint32_t>(c.val(in.src[1 + d], w, l));
    std::uint32_t out[4];
    const auto layer = in.mod.layered ? static_cast<std::uint32_t>(c.val(in.src[3], w, l)) : 0u;
    texture_fetch(it->second, coords, integer_coords, out, layer);
    for (unsigned i = 0; i < 4; ++i) c.set(in.frag[i], w, l, out[i], Ty::B32);
  }
}

}  // namespace bankcheck::emu::detail

namespace bankcheck::emu::detail {

void surface_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec) {
  const bool load = in.op == Opc::Suld;
  const unsigned esize = in.type == Ty::B64   ? 8
                         : in.type == Ty::B32 ? 4
                         : in.type == Ty::B16 ? 2
                                              : 1;
  const unsigned size = esize * in.vec;
  for (std::uint32_t e = exec; e; e &= e - 1) {
    const int l = std::countr_zero(e);
    const std::uint64_t handle = c.val(in.src[0], w, l);
    const auto it = c.mem.surfaces.find(handle);
    if (it == c.mem.surfaces.end()) missing_object(c, pc, "surface", handle, l, w);
    const Texture& s = it->second;
    // x in bytes, then rows and slices; each against its extent.
    const std::int64_t limit[3] = {static_cast<std::int64_t>(s.width * texel_bytes(s)) - size,
                                   static_cast<std::int64_t>(s.height) - 1,
                                   static_cast<std::int64_t>(s.depth) - 1};
    std::int64_t at[3] = {0, 0, 0};
    bool outside = false;
    for (unsigned d = 0; d < in.mod.geom; ++d) {
      at[d] = static_cast<std::int32_t>(c.val(in.src[1 + d], w, l));
      if (at[d] < 0 || at[d] > limit[d]) {
        outside = true;
        at[d] = std::clamp<std::int64_t>(at[d], 0, std::max<std::int64_t>(limit[d], 0));
      }
    }
    if (outside && in.mod.surf == ptx::SurfMode::Trap)
      c.fail(EmuError::Kind::OutOfBounds, pc,
             fmt::format("{} outside surface object {} (lane {} of warp {}: x {} bytes, y {}, z "
                         "{}; the surface is {} bytes by {} by {})",
                         load ? "suld" : "sust", handle, l, w, c.val(in.src[1], w, l),
                         in.mod.geom > 1 ? static_cast<std::int64_t>(c.val(in.src[2], w, l)) : 0,
                         in.mod.geom > 2 ? static_cast<std::int64_t>(c.val(in.src[3], w, l)) : 0,
                         s.width * texel_bytes(s), s.height, s.depth));
    if (in.mod.layered)  // the layer is the slice
      at[2] = static_cast<std::int64_t>(
          layer_of(s, static_cast<std::uint32_t>(c.val(in.src[3], w, l))));
    if (at[0] % esize != 0)
      c.fail(EmuError::Kind::Misaligned, pc,
             fmt::format("{} at x = {} bytes, not a multiple of its {}-byte elements (lane {} of "
                         "warp {})",
                         load ? "suld" : "sust", at[0], esize, l, w));
    const bool dropped = outside && in.mod.surf == ptx::SurfMode::Zero;
    auto* p = const_cast<std::uint8_t*>(s.data) + static_cast<std::uint64_t>(at[2]) * s.slice +
              static_cast<std::uint64_t>(at[1]) * s.pitch + static_cast<std::uint64_t>(at[0]);
    for (unsigned i = 0; i < in.vec; ++i) {
      if (load) {
        std::uint64_t v = 0;
        if (!dropped) std::memcpy(&v, p + i * esize, esize);
        c.set(in.frag[i], w, l, v, esize == 8 ? Ty::B64 : Ty::B32);
      } else if (!dropped) {
        const std::uint64_t v = c.val(in.frag[i], w, l);
        std::memcpy(p + i * esize, &v, esize);
      }
    }
  }
}

}  // namespace bankcheck::emu::detail
