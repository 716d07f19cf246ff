// The reference tier: every instruction the emulator knows, lane by lane, written to read
// like the PTX ISA's description of it. The arithmetic, comparison, conversion, warp and
// atomic families have files of their own; this one dispatches, and holds data movement
// (mov, selp, cvta, ...) and the bit-field operations.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "cta.hpp"

namespace bankcheck::emu::detail {

namespace {

// dp4a: c plus the four products of a's and b's bytes; dp2a: c plus the two products of
// a's 16-bit halves with b's bytes 0-1 (.lo) or 2-3 (.hi). Each part is signed or not by
// its operand's type; the sum wraps at 32 bits.
std::uint64_t dot(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const bool sa = ptx::ty_signed(in.type), sb = ptx::ty_signed(in.type2);
  auto byte = [&](std::uint64_t v, int i, bool s) -> std::int64_t {
    const std::uint8_t x = static_cast<std::uint8_t>(v >> (8 * i));
    return s ? static_cast<std::int8_t>(x) : x;
  };
  auto half = [&](std::uint64_t v, int i, bool s) -> std::int64_t {
    const std::uint16_t x = static_cast<std::uint16_t>(v >> (16 * i));
    return s ? static_cast<std::int16_t>(x) : x;
  };
  std::int64_t r = static_cast<std::int32_t>(static_cast<std::uint32_t>(c));
  if (in.op == Opc::Dp4a)
    for (int i = 0; i < 4; ++i) r += byte(a, i, sa) * byte(b, i, sb);
  else
    for (int i = 0; i < 2; ++i) r += half(a, i, sa) * byte(b, i + (in.mod.hi ? 2 : 0), sb);
  return static_cast<std::uint32_t>(r);
}

// setp/set of f16x2 and bf16x2: each half compared on its own. setp writes the low
// halves' result to the first predicate and the high halves' to the second (p|q); set
// writes each half's result into the same half of the destination (1.0 or all ones).
void packed_compare(Ctx& c, const Instr& in, int w, std::uint32_t exec) {
  const Ty t = in.type;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const std::uint64_t a = c.val(in.src[0], w, l), b = c.val(in.src[1], w, l);
    bool r[2] = {compare(in.cmp, t, a, b), compare(in.cmp, t, a >> 16, b >> 16)};
    if (in.mod.boolop != ptx::BoolOp::None) {
      const bool p = c.val(in.src[2], w, l) & 1;
      for (bool& x : r)
        x = in.mod.boolop == ptx::BoolOp::And  ? (x && p)
            : in.mod.boolop == ptx::BoolOp::Or ? (x || p)
                                               : (x != p);
    }
    if (in.op == Opc::Setp) {
      c.set(in.dst[0], w, l, r[0], Ty::Pred);
      if (in.ndst > 1) c.set(in.dst[1], w, l, r[1], Ty::Pred);
      continue;
    }
    const Ty dt = in.type2;
    const std::uint64_t one = dt == Ty::F16X2 ? 0x3c00 : dt == Ty::BF16X2 ? 0x3f80 : 0xffff;
    c.set(in.dst[0], w, l, (r[0] ? one : 0) | ((r[1] ? one : 0) << 16), dt);
  }
}

}  // namespace

// Whether the kernel reads the grid-sync workspace (%envreg1-2): cooperative groups'
// this_grid().sync() traps when a launch that is not cooperative leaves it null.
static bool reads_grid_workspace(const ptx::Kernel& k) {
  for (const Instr& in : k.code)
    for (int i = 0; i < in.nsrc && i < 4; ++i)
      if (in.src[i].kind == Opnd::Kind::Special &&
          (in.src[i].reg == static_cast<std::uint32_t>(ptx::Special::Envreg1) ||
           in.src[i].reg == static_cast<std::uint32_t>(ptx::Special::Envreg2)))
        return true;
  return false;
}

void general(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active) {
  if (in.op == Opc::Trap) {
    if (!exec) return;
    if (!in.mod.assert_fail && c.grid_workspace == 0 && reads_grid_workspace(c.k))
      c.fail(EmuError::Kind::Trap, pc,
             "grid synchronization (cooperative groups' this_grid().sync()) in a launch that is "
             "not cooperative: the kernel trapped because it has no grid workspace. Launch it "
             "with cudaLaunchCooperativeKernel (or the cooperative launch attribute), where every "
             "CTA is resident; bankcheck run then runs the grid's CTAs together, and check does "
             "with --cooperative (or `cooperative` in a launch comment)");
    if (!in.mod.assert_fail) c.fail(EmuError::Kind::Trap, pc, "the kernel executed trap");
    EmuError e(EmuError::Kind::Assert, "assertion failed (assert() in the kernel)", pc);
    e.device_text = assert_text(c, in, pc, w, exec);
    throw e;
  }
  if (!exec && in.op != Opc::Activemask) return;

  switch (in.op) {
    case Opc::Ld:
    case Opc::St:
      c.load_store(in, pc, w, exec);
      break;
    case Opc::Atom:
    case Opc::Red:
      c.atomic(in, pc, w, exec);
      break;
    case Opc::Mov:
      if (in.mod.mov == ptx::MovForm::Pack) {
        const int pb = ptx::ty_bytes(in.type2) * 8;
        for (int l = 0; l < 32; ++l) {
          if (!((exec >> l) & 1u)) continue;
          std::uint64_t v = 0;
          for (int i = 0; i < in.nsrc; ++i)
            v |= (c.val(in.src[i], w, l) & mask_of(in.type2)) << (i * pb);
          c.set(in.dst[0], w, l, v, in.type);
        }
      } else if (in.mod.mov == ptx::MovForm::Unpack) {
        const int pb = ptx::ty_bytes(in.type2) * 8;
        for (int l = 0; l < 32; ++l) {
          if (!((exec >> l) & 1u)) continue;
          const std::uint64_t v = c.val(in.src[0], w, l);
          for (int i = 0; i < in.ndst; ++i) c.set(in.dst[i], w, l, v >> (i * pb), in.type2);
        }
      } else if (in.dst[0].kind == Opnd::Kind::Pred) {
        const std::uint32_t m = c.pred_mask(in.src[0], w, exec);
        std::uint32_t& p = c.P(w, in.dst[0].reg);
        p = (p & ~exec) | m;
      } else {
        for (int l = 0; l < 32; ++l)
          if ((exec >> l) & 1u) c.set(in.dst[0], w, l, c.val(in.src[0], w, l), in.type);
      }
      break;
    case Opc::Setp:
    case Opc::Set: {
      const Ty t = in.type;
      if (ptx::ty_packed(t)) {
        packed_compare(c, in, w, exec);
        break;
      }
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        bool r = compare(in.cmp, t, c.val(in.src[0], w, l), c.val(in.src[1], w, l));
        bool r2 = !r;
        if (in.mod.boolop != ptx::BoolOp::None) {
          const bool p = c.val(in.src[2], w, l) & 1;
          if (in.mod.boolop == ptx::BoolOp::And) {
            r = r && p;
            r2 = r2 && p;
          }
          if (in.mod.boolop == ptx::BoolOp::Or) {
            r = r || p;
            r2 = r2 || p;
          }
          if (in.mod.boolop == ptx::BoolOp::Xor) {
            r = r != p;
            r2 = r2 != p;
          }
        }
        if (in.op == Opc::Setp) {
          c.set(in.dst[0], w, l, r, Ty::Pred);
          if (in.ndst > 1) c.set(in.dst[1], w, l, r2, Ty::Pred);
        } else {
          const Ty dt = in.type2;
          const std::uint64_t v = dt == Ty::F16       ? (r ? 0x3c00 : 0)
                                  : dt == Ty::BF16    ? (r ? 0x3f80 : 0)
                                  : ptx::ty_float(dt) ? (r ? from_f32(1.0f) : 0)
                                                      : (r ? mask_of(dt) : 0);
          c.set(in.dst[0], w, l, v, dt);
        }
      }
      break;
    }
    case Opc::Selp:
      for (int l = 0; l < 32; ++l)
        if ((exec >> l) & 1u)
          c.set(in.dst[0], w, l,
                (c.val(in.src[2], w, l) & 1) ? c.val(in.src[0], w, l) : c.val(in.src[1], w, l),
                in.type);
      break;
    case Opc::Slct:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t cv = c.val(in.src[2], w, l);
        const bool ge = in.type2 == Ty::F32 ? as_f32(cv) >= 0.f : sext(cv, Ty::S32) >= 0;
        c.set(in.dst[0], w, l, ge ? c.val(in.src[0], w, l) : c.val(in.src[1], w, l), in.type);
      }
      break;
    case Opc::Cvt:
      for (int l = 0; l < 32; ++l)
        if ((exec >> l) & 1u)
          c.set(in.dst[0], w, l,
                in.nsrc > 1 ? narrow_convert(in, c.val(in.src[0], w, l), c.val(in.src[1], w, l))
                            : convert(in, c.val(in.src[0], w, l)),
                in.type);
      break;
    case Opc::Cvta:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        std::uint64_t v = c.val(in.src[0], w, l);
        const std::uint64_t base = in.space == Space::Shared  ? ptx::kSharedWindow
                                   : in.space == Space::Local ? ptx::kLocalWindow
                                   : in.space == Space::Param ? ptx::kParamWindow
                                                              : 0;
        v = in.mod.to_space ? v - base : v + base;
        c.set(in.dst[0], w, l, v, in.type);
      }
      break;
    case Opc::Isspacep:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t v = c.val(in.src[0], w, l);
        const bool sh = v >= ptx::kSharedWindow && v < ptx::kSharedWindow + ptx::kWindowSize;
        const bool lo = v >= ptx::kLocalWindow && v < ptx::kLocalWindow + ptx::kWindowSize;
        const bool r = in.space == Space::Shared  ? sh
                       : in.space == Space::Local ? lo
                                                  : (!sh && !lo);
        c.set(in.dst[0], w, l, r, Ty::Pred);
      }
      break;
    case Opc::And:
    case Opc::Or:
    case Opc::Xor:
    case Opc::Not:
    case Opc::CNot:
      if (in.type == Ty::Pred) {
        for (int l = 0; l < 32; ++l) {
          if (!((exec >> l) & 1u)) continue;
          const bool a = c.val(in.src[0], w, l) & 1,
                     b = in.nsrc > 1 ? (c.val(in.src[1], w, l) & 1) : false;
          const bool r = in.op == Opc::And   ? (a && b)
                         : in.op == Opc::Or  ? (a || b)
                         : in.op == Opc::Xor ? (a != b)
                                             : !a;
          c.set(in.dst[0], w, l, r, Ty::Pred);
        }
        break;
      }
      [[fallthrough]];
    case Opc::Add:
    case Opc::Sub:
    case Opc::Mad:
      if (in.flags & ptx::kFlagCc) {
        carry_arith(c, in, w, exec);
        break;
      }
      [[fallthrough]];
    case Opc::Mul:
    case Opc::Div:
    case Opc::Rem:
    case Opc::Min:
    case Opc::Max:
    case Opc::Abs:
    case Opc::Neg:
    case Opc::Shl:
    case Opc::Shr:
    case Opc::Popc:
    case Opc::Clz:
    case Opc::Brev:
    case Opc::Fma:
    case Opc::Rcp:
    case Opc::Sqrt:
    case Opc::Rsqrt:
    case Opc::Ex2:
    case Opc::Lg2:
    case Opc::Sin:
    case Opc::Cos:
    case Opc::Tanh:
    case Opc::Copysign:
    case Opc::Bfind: {
      const Ty dt = arith_result_type(in);
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t a = c.val(in.src[0], w, l);
        const std::uint64_t b = in.nsrc > 1 ? c.val(in.src[1], w, l) : 0;
        const std::uint64_t cc = in.nsrc > 2 ? c.val(in.src[2], w, l) : 0;
        c.set(in.dst[0], w, l, arith(in, a, b, cc), dt);
      }
      break;
    }
    case Opc::Bfe:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const int bits = ptx::ty_bytes(in.type) * 8;
        const std::uint64_t a = c.val(in.src[0], w, l);
        const unsigned pos = static_cast<unsigned>(c.val(in.src[1], w, l) & 0xff);
        const unsigned len = static_cast<unsigned>(c.val(in.src[2], w, l) & 0xff);
        std::uint64_t r = 0;
        const bool s = ptx::ty_signed(in.type);
        const unsigned msb = pos + len - 1;
        const bool sbit =
            s ? (len == 0 ? false
                          : ((a >> std::min<unsigned>(msb, static_cast<unsigned>(bits - 1))) & 1))
              : false;
        for (int i = 0; i < bits; ++i) {
          bool bit;
          if (static_cast<unsigned>(i) < len &&
              pos + static_cast<unsigned>(i) <= static_cast<unsigned>(bits - 1))
            bit = (a >> (pos + static_cast<unsigned>(i))) & 1;
          else
            bit = sbit;
          if (bit) r |= 1ull << i;
        }
        c.set(in.dst[0], w, l, r, in.type);
      }
      break;
    case Opc::Bfi:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const int bits = ptx::ty_bytes(in.type) * 8;
        const std::uint64_t a = c.val(in.src[0], w, l), b = c.val(in.src[1], w, l);
        const unsigned pos = static_cast<unsigned>(c.val(in.src[2], w, l) & 0xff);
        const unsigned len = static_cast<unsigned>(c.val(in.src[3], w, l) & 0xff);
        std::uint64_t r = b;
        for (unsigned i = 0; i < len && pos + i < static_cast<unsigned>(bits); ++i) {
          r &= ~(1ull << (pos + i));
          r |= ((a >> i) & 1) << (pos + i);
        }
        c.set(in.dst[0], w, l, r, in.type);
      }
      break;
    case Opc::Bmsk:  // the PTX ISA's semantics, word for word
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint32_t a = static_cast<std::uint32_t>(c.val(in.src[0], w, l)),
                            b = static_cast<std::uint32_t>(c.val(in.src[1], w, l));
        const std::uint32_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
        std::uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0u : ~0u << sum;
        bool overflow = sum >= 32;
        if (in.mod.clamp) {
          if (a >= 32) mask0 = 0, overflow = true;
          if (b >= 32) overflow = true;
        }
        if (overflow)
          mask1 = 0;
        else if (b1 == 0)
          mask1 = ~0u;
        c.set(in.dst[0], w, l, mask0 & ~mask1, Ty::B32);
      }
      break;
    case Opc::Prmt:
      if (in.mod.funnel != ptx::Funnel::None) {  // shf.{l,r}.{wrap,clamp}.b32: {b, a} shifted
        const bool right =
            in.mod.funnel == ptx::Funnel::RightWrap || in.mod.funnel == ptx::Funnel::RightClamp;
        const bool clamp =
            in.mod.funnel == ptx::Funnel::LeftClamp || in.mod.funnel == ptx::Funnel::RightClamp;
        for (int l = 0; l < 32; ++l) {
          if (!((exec >> l) & 1u)) continue;
          const std::uint64_t ab = (c.val(in.src[0], w, l) & 0xffffffffu) |
                                   ((c.val(in.src[1], w, l) & 0xffffffffu) << 32);
          const std::uint32_t cv = static_cast<std::uint32_t>(c.val(in.src[2], w, l));
          const std::uint32_t n = clamp ? std::min<std::uint32_t>(cv, 32) : (cv & 31);
          const std::uint64_t r = right ? (ab >> n) : ((ab << n) >> 32);
          c.set(in.dst[0], w, l, r & 0xffffffffu, Ty::B32);
        }
        break;
      }
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t bytes =
            (c.val(in.src[0], w, l) & 0xffffffffu) | ((c.val(in.src[1], w, l) & 0xffffffffu) << 32);
        const std::uint32_t sel = static_cast<std::uint32_t>(c.val(in.src[2], w, l));
        std::uint32_t r = 0;
        for (int i = 0; i < 4; ++i) {
          const unsigned s = (sel >> (4 * i)) & 0xf;
          std::uint32_t byte = static_cast<std::uint32_t>((bytes >> (8 * (s & 7))) & 0xff);
          if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
          r |= byte << (8 * i);
        }
        c.set(in.dst[0], w, l, r, Ty::B32);
      }
      break;
    case Opc::Lop3:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint32_t a = static_cast<std::uint32_t>(c.val(in.src[0], w, l));
        const std::uint32_t b = static_cast<std::uint32_t>(c.val(in.src[1], w, l));
        const std::uint32_t cc = static_cast<std::uint32_t>(c.val(in.src[2], w, l));
        const std::uint32_t lut = static_cast<std::uint32_t>(c.val(in.src[3], w, l));
        std::uint32_t r = 0;
        for (int i = 0; i < 32; ++i) {
          const unsigned idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((cc >> i) & 1);
          r |= ((lut >> idx) & 1) << i;
        }
        c.set(in.dst[0], w, l, r, Ty::B32);
      }
      break;
    case Opc::Testp:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t v = c.val(in.src[0], w, l);
        const double x = in.type == Ty::F64 ? as_f64(v) : as_f32(v);
        bool r = false;
        switch (in.mod.fclass) {
          case ptx::FloatClass::Finite:
            r = std::isfinite(x);
            break;
          case ptx::FloatClass::Infinite:
            r = std::isinf(x);
            break;
          case ptx::FloatClass::Number:
            r = !std::isnan(x);
            break;
          case ptx::FloatClass::NotANumber:
            r = std::isnan(x);
            break;
          // f32 values classified as float (a subnormal float is a normal double);
          // .normal holds for zeros too (as measured): finite and not subnormal.
          case ptx::FloatClass::Normal:
            r = std::isfinite(x) &&
                (in.type == Ty::F64 ? std::fpclassify(x)
                                    : std::fpclassify(static_cast<float>(x))) != FP_SUBNORMAL;
            break;
          case ptx::FloatClass::Subnormal:
            r = (in.type == Ty::F64 ? std::fpclassify(x)
                                    : std::fpclassify(static_cast<float>(x))) == FP_SUBNORMAL;
            break;
        }
        c.set(in.dst[0], w, l, r, Ty::Pred);
      }
      break;
    case Opc::Addc:
    case Opc::Subc:
    case Opc::Madc:
      carry_arith(c, in, w, exec);
      break;
    case Opc::Sad:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t a = c.val(in.src[0], w, l), b = c.val(in.src[1], w, l);
        const bool s = ptx::ty_signed(in.type);
        const std::uint64_t d =
            s ? (sext(a, in.type) < sext(b, in.type)
                     ? static_cast<std::uint64_t>(sext(b, in.type)) -
                           static_cast<std::uint64_t>(sext(a, in.type))
                     : static_cast<std::uint64_t>(sext(a, in.type)) -
                           static_cast<std::uint64_t>(sext(b, in.type)))
              : ((a & mask_of(in.type)) < (b & mask_of(in.type)) ? (b - a) : (a - b));
        c.set(in.dst[0], w, l, d + c.val(in.src[2], w, l), in.type);
      }
      break;
    case Opc::Dp4a:
    case Opc::Dp2a:
      for (int l = 0; l < 32; ++l)
        if ((exec >> l) & 1u)
          c.set(in.dst[0], w, l,
                dot(in, c.val(in.src[0], w, l), c.val(in.src[1], w, l), c.val(in.src[2], w, l)),
                Ty::B32);
      break;
    case Opc::Redux:
    case Opc::Shfl:
    case Opc::Vote:
    case Opc::Match:
    case Opc::Activemask:
      warp_op(c, in, w, exec, active);
      break;
    case Opc::Ldmatrix:
    case Opc::Stmatrix:
    case Opc::Mma:
    case Opc::Movmatrix:
      matrix_op(c, in, pc, w, exec, active);
      break;
    case Opc::WmmaLoad:
    case Opc::WmmaStore:
    case Opc::WmmaMma:
      wmma_op(c, in, pc, w, exec, active);
      break;
    case Opc::CpAsync:
    case Opc::CpAsyncCommit:
    case Opc::CpAsyncWait:
      async_copy(c, in, pc, w, exec);
      break;
    case Opc::Mbarrier:
      mbarrier_op(c, in, pc, w, exec);
      break;
    case Opc::CpAsyncBulk:
      bulk_copy(c, in, pc, w, exec);
      break;
    case Opc::CpAsyncBulkTensor:
      tensor_copy(c, in, pc, w, exec);
      break;
    case Opc::Wgmma:
      wgmma_op(c, in, pc, w, exec, active);
      break;
    case Opc::Mapa:
    case Opc::Getctarank:
      cluster_address(c, in, w, exec);
      break;
    case Opc::Elect:
      warp_op(c, in, w, exec, active);
      break;
    case Opc::Printf:
      device_printf(c, in, pc, w, exec);
      break;
    case Opc::Tex:
      texture_op(c, in, pc, w, exec);
      break;
    case Opc::Suld:
    case Opc::Sust:
      surface_op(c, in, pc, w, exec);
      break;
    case Opc::Nop:
      break;
    default:
      c.fail(EmuError::Kind::Unsupported, pc, "instruction not supported by the emulator");
  }
}
}  // namespace bankcheck::emu::detail
