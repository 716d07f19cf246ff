// The decoder's forms for texture and surface objects (src/emu/texture.cpp):
//   tex.{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.{f32,s32} {d0, d1, d2, d3}, [t, {c0, ...}];
//   suld.b.{1d,2d,3d,a1d,a2d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero} d, [s, {x, ...}];
//   sust.b.{...} [s, {x, ...}], a;
// t, s a .u64 register holding the object. The coordinates are the geometry's (a layered
// one's layer first; .3d takes four, the last unused); a surface's x is in bytes. Cubes,
// multisample textures, the level, gradient, offset and depth-compare operands, formatted
// surface stores (.p) and texture and surface references are refused.
#include "decode_form.hpp"

namespace bankcheck::ptx::detail {

// The geometry's coordinates: 1, 2 or 3 (0: a geometry not emulated); `layered` for .a1d
// and .a2d.
int Form::object_geometry(bool& layered) const {
  layered = has(in, ".a1d") || has(in, ".a2d");
  return has(in, ".1d") || has(in, ".a1d")   ? 1
         : has(in, ".2d") || has(in, ".a2d") ? 2
         : has(in, ".3d")                    ? 3
                                             : 0;
}

// [object, {coordinates}]: the object's register as src[0], the `dims` coordinates of type
// `coord` as src[1...], a layered one's layer (the first element) as src[3].
void Form::object_operands(const Operand& a, int dims, bool layered, Ty coord,
                           const std::string& what) {
  if (a.kind != Operand::Kind::Address || !a.base_is_reg || a.elems.size() != 1 ||
      a.elems[0].kind != Operand::Kind::Vector)
    fail(in, fmt::format("{}: the operand must be [{} object register, {{coordinates}}] ({} "
                         "references are not emulated)",
                         op, what, what));
  Operand handle;
  handle.kind = Operand::Kind::Register;
  handle.name = a.name;
  handle.pos = a.pos;
  ins.src[ins.nsrc++] = operand(in, handle, Ty::U64);
  const std::vector<Operand>& c = a.elems[0].elems;
  const std::size_t first = layered ? 1 : 0;  // the layer comes first
  if (c.size() < first + static_cast<std::size_t>(dims))
    fail(in, fmt::format("{} needs {} coordinates, got {}", op, first + dims, c.size()));
  for (int i = 0; i < dims; ++i)
    ins.src[ins.nsrc++] = operand(in, c[first + static_cast<std::size_t>(i)], coord);
  if (layered) {
    ins.src[3] = operand(in, c[0], Ty::U32);
    ins.nsrc = 4;
  }
  ins.mod.layered = layered;
}

void Form::form_Tex() {
  ins.op = Opc::Tex;
  bool layered = false;
  const int dims = object_geometry(layered);
  if (!dims)
    fail(in,
         "tex: only .1d, .2d, .3d, .a1d and .a2d textures are emulated (not cubes or "
         "multisample)");
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
  object_operands(in.operands[1], dims, layered, tl, "texture");
  ins.vec = static_cast<std::uint8_t>(dims);
}

void Form::form_Surf() {
  const bool load = opc == Opc::Suld;
  ins.op = opc;
  if (!has(in, ".b")) fail(in, op + ": only the unformatted form (.b) is emulated");
  bool layered = false;
  const int dims = object_geometry(layered);
  if (!dims) fail(in, op + ": only .1d, .2d, .3d, .a1d and .a2d surfaces are emulated");
  ins.mod.geom = static_cast<std::uint8_t>(dims);
  ins.mod.surf = has(in, ".clamp")  ? SurfMode::Clamp
                 : has(in, ".zero") ? SurfMode::Zero
                                    : SurfMode::Trap;
  ins.vec = has(in, ".v4") ? 4 : has(in, ".v2") ? 2 : 1;
  if (t0 != Ty::B8 && t0 != Ty::B16 && t0 != Ty::B32 && t0 != Ty::B64)
    fail(in, op + " needs .b8, .b16, .b32 or .b64");
  ins.type = t0;
  need(2);
  const Operand& v = in.operands[load ? 0 : 1];
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
  object_operands(in.operands[load ? 1 : 0], dims, layered, Ty::S32, "surface");
}

}  // namespace bankcheck::ptx::detail
