// Texture objects as the emulator reads them (PTX `tex`): what a texture object of bankcheck's
// driver (cuTexObjectCreate) describes, in plain values, and one fetch. The driver registers
// each object with the executor under its handle (GlobalMemory::textures); a kernel's `tex`
// names the handle.
//
// A fetch follows the CUDA programming guide's texture fetching, as measured on the H200
// (bench/device/results/textures): coordinates scaled by the extent when normalized; nearest
// point: texel floor(x); linear: x - 0.5 split into a texel and a weight with 8 fractional
// bits, neighbours blended in f32; each texel index through the address mode (wrap and
// mirror only with normalized coordinates, clamp otherwise; border gives the border colour,
// converted to the texture's format); 8- and 16-bit integers read as normalized floats unless
// read as integers; missing channels 0 and alpha 1. Linear memory (tex1Dfetch) is fetched by
// index, zeros outside.
#pragma once

#include <cstdint>

namespace bankcheck::emu {

enum class TexFormat : std::uint8_t { U8, U16, U32, S8, S16, S32, F16, F32 };
enum class TexAddress : std::uint8_t { Wrap, Clamp, Mirror, Border };

struct Texture {
  const std::uint8_t* data = nullptr;  // texel (0, 0, 0): a device address, or an array's storage
  std::uint64_t width = 1, height = 1, depth = 1;  // in texels
  std::uint64_t pitch = 0, slice = 0;  // bytes from a row to the next, a slice to the next
  std::uint8_t dims = 1;               // of the resource: 1, 2 or 3
  std::uint32_t layers = 0;            // a layered array's layers (its slices), 0 for the others
  bool linear = false;                 // linear memory (a 1D resource fetched by integer index)
  TexFormat format = TexFormat::F32;
  std::uint8_t channels = 1;  // 1, 2 or 4
  TexAddress address[3] = {TexAddress::Wrap, TexAddress::Wrap, TexAddress::Wrap};
  bool filter_linear = false;
  bool normalized_coords = false;
  bool read_as_integer = false;  // 8- and 16-bit integers as they are, not normalized
  float border[4] = {0, 0, 0, 0};
};

// The bytes of one texel.
unsigned texel_bytes(const Texture& t);

// One fetch of `t` at `coords` (dims of them: f32 bits, or s32 with `integer_coords`) in
// `layer` of a layered texture: the four components, each f32 bits or a 32-bit integer
// (integer formats read as integers).
void texture_fetch(const Texture& t, const std::uint32_t* coords, bool integer_coords,
                   std::uint32_t out[4], std::uint32_t layer = 0);

// The slice a layer index reads: past the last (negative ones too, as unsigned), the last
// (bench/device/results/textures/layered.txt).
inline std::uint64_t layer_of(const Texture& t, std::uint32_t layer) {
  return t.layers == 0 ? 0 : (layer < t.layers ? layer : t.layers - 1);
}

}  // namespace bankcheck::emu
