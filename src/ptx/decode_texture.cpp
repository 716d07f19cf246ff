// The decoder's form for texture fetches through texture objects (src/emu/texture.cpp):
//   tex.{1d,2d,3d}.v4.{f32,s32,u32}.{f32,s32} {d0, d1, d2, d3}, [t, {c0, ...}];
// t a .u64 register holding the object; the coordinates' count is the geometry's (.3d takes
// four, the last unused). Arrays of textures, cubes, multisample textures, the level,
// gradient, offset and depth-compare operands, and texture references are refused.
#include "decode_form.hpp"

namespace bankcheck::ptx::detail {

void Form::form_Tex() {
  ins.op = Opc::Tex;
  const int dims = has(in, ".1d") ? 1 : has(in, ".2d") ? 2 : has(in, ".3d") ? 3 : 0;
  if (!dims)
    fail(in, "tex: only .1d, .2d and .3d textures are emulated (not arrays, cubes or multisample)");
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
  if (c.size() < static_cast<std::size_t>(dims))
    fail(in, fmt::format("tex.{}d needs {} coordinates, got {}", dims, dims, c.size()));
  for (int i = 0; i < dims; ++i)
    ins.src[ins.nsrc++] = operand(in, c[static_cast<std::size_t>(i)], tl);
  ins.vec = static_cast<std::uint8_t>(dims);
}

}  // namespace bankcheck::ptx::detail
