// The decoder's form for texture fetches through texture objects (src/emu/texture.cpp):
//   tex.{1d,2d,3d}.v4.{f32,s32,u32}.{f32,s32} {d0, d1, d2, d3}, [t, {c0, ...}];
// t a .u64 register holding the object; the coordinates' count is the geometry's (.3d takes
// four, the last unused). Arrays of textures, cubes, multisample textures, the level,
// gradient, offset and depth-compare operands, and texture references are refused.
#include "decode_form.hpp"

namespace bankcheck::ptx::detail {

void Form::form_Tex() {
  ins.op = Opc::Tex;
  const bool layered = has(in, ".a1d") || has(in, ".a2d");
  const int dims = has(in, ".1d") || has(in, ".a1d")   ? 1
                   : has(in, ".2d") || has(in, ".a2d") ? 2
                   : has(in, ".3d")                    ? 3
                                                       : 0;
  if (!dims)
    fail(in,
         "tex: only .1d, .2d, .3d, .a1d and .a2d textures are emulated (not cubes or "
         "multisample)");
  ins.mod.layered = layered;
  if (!has(in, ".v4")) fail(in, "tex: only .v4 results are emulated");
  if (tys.size() != 2) fail(in, "tex needs a result type and a coordinate type");
  if (t0 != Ty::F32 && t0 != Ty::S32 && t0 != Ty::U32)
    fail(in, "tex: the result type must be .f32, .s32 or .u32");
  if (tl != Ty::F32 && tl != Ty::S32) fail(in, "tex: the coordinate type must be .f32 or .s32");
  ins.type = t0;
  ins.type2 = tl;
  if (in.operands.size() != 2)
    fail(in, "tex with a level, gradients, an offset or a depth comparison is not emulated");
  frag_list(in.operands[0], Ty::B32, "tex's result");
  if (ins.frag.size() != 4) fail(in, "tex's result must be four registers");
  ins.frag_defs = 4;
  const Operand& a = in.operands[1];
  if (a.kind != Operand::Kind::Address || !a.base_is_reg || a.elems.size() != 1 ||
      a.elems[0].kind != Operand::Kind::Vector)
    fail(in,
         "tex: the operand must be [texture object register, {coordinates}] (texture "
         "references are not emulated)");
  Operand handle;
  handle.kind = Operand::Kind::Register;
  handle.name = a.name;
  handle.pos = a.pos;
  ins.src[ins.nsrc++] = operand(in, handle, Ty::U64);
  const std::vector<Operand>& c = a.elems[0].elems;
  const std::size_t first = layered ? 1 : 0;  // a layered texture's layer comes first
  if (c.size() < first + static_cast<std::size_t>(dims))
    fail(in, fmt::format("tex needs {} coordinates, got {}", first + dims, c.size()));
  for (int i = 0; i < dims; ++i)
    ins.src[ins.nsrc++] = operand(in, c[first + static_cast<std::size_t>(i)], tl);
  if (layered) {
    ins.src[3] = operand(in, c[0], Ty::U32);
    ins.nsrc = 4;
  }
  ins.vec = static_cast<std::uint8_t>(dims);
}

}  // namespace bankcheck::ptx::detail

namespace bankcheck::ptx::detail {

// suld.b.{1d,2d,3d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero} d, [s, {x, y, z, _}];
// sust.b.{...} [s, {x, ...}], a;   x in bytes. The formatted forms (.p) and arrays of
// surfaces are refused.
void Form::form_Surf() {
  const bool load = opc == Opc::Suld;
  ins.op = opc;
  if (!has(in, ".b")) fail(in, op + ": only the unformatted form (.b) is emulated");
  const bool layered = has(in, ".a1d") || has(in, ".a2d");
  const int dims = has(in, ".1d") || has(in, ".a1d")   ? 1
                   : has(in, ".2d") || has(in, ".a2d") ? 2
                   : has(in, ".3d")                    ? 3
                                                       : 0;
  if (!dims) fail(in, op + ": only .1d, .2d, .3d, .a1d and .a2d surfaces are emulated");
  ins.mod.geom = static_cast<std::uint8_t>(dims);
  ins.mod.layered = layered;
  ins.mod.surf = has(in, ".clamp")  ? SurfMode::Clamp
                 : has(in, ".zero") ? SurfMode::Zero
                                    : SurfMode::Trap;
  ins.vec = has(in, ".v4") ? 4 : has(in, ".v2") ? 2 : 1;
  if (t0 != Ty::B8 && t0 != Ty::B16 && t0 != Ty::B32 && t0 != Ty::B64)
    fail(in, op + " needs .b8, .b16, .b32 or .b64");
  ins.type = t0;
  need(2);
  const Operand& a = in.operands[load ? 1 : 0];
  const Operand& v = in.operands[load ? 0 : 1];
  if (a.kind != Operand::Kind::Address || !a.base_is_reg || a.elems.size() != 1 ||
      a.elems[0].kind != Operand::Kind::Vector)
    fail(in, op + ": the operand must be [surface object register, {coordinates}] (surface "
                  "references are not emulated)");
  Operand values = v;  // one value: a list of one
  if (v.kind != Operand::Kind::Vector) {
    values = Operand{};
    values.kind = Operand::Kind::Vector;
    values.elems = {v};
    values.pos = v.pos;
  }
  frag_list(values, t0 == Ty::B64 ? Ty::B64 : t0 == Ty::B32 ? Ty::B32 : Ty::B16, "the values");
  if (ins.frag.size() != ins.vec) fail(in, fmt::format("{} needs {} values", op, ins.vec));
  ins.frag_defs = load ? ins.vec : 0;
  Operand handle;
  handle.kind = Operand::Kind::Register;
  handle.name = a.name;
  handle.pos = a.pos;
  ins.src[ins.nsrc++] = operand(in, handle, Ty::U64);
  const std::vector<Operand>& c = a.elems[0].elems;
  const std::size_t first = layered ? 1 : 0;  // a layered surface's layer comes first
  if (c.size() < first + static_cast<std::size_t>(dims))
    fail(in, fmt::format("{} needs {} coordinates, got {}", op, first + dims, c.size()));
  for (int i = 0; i < dims; ++i)
    ins.src[ins.nsrc++] = operand(in, c[first + static_cast<std::size_t>(i)], Ty::S32);
  if (layered) {
    ins.src[3] = operand(in, c[0], Ty::U32);
    ins.nsrc = 4;
  }
}

}  // namespace bankcheck::ptx::detail
