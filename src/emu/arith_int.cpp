// The reference semantics of integer arithmetic and bit operations (add ... bfind), per
// lane, as the PTX ISA defines each operation.
#include <algorithm>
#include <bit>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>

#include "cta.hpp"

namespace bankcheck::emu::detail {

// Integer arithmetic for one lane, wrapping at the operation's width.
std::uint64_t int_arith(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const Ty t = in.type;
  const std::uint64_t m = mask_of(t);
  const bool s = ptx::ty_signed(t);
  const int bits = ptx::ty_bytes(t) * 8;
  switch (in.op) {
    case Opc::Add:
      if ((in.flags & ptx::kFlagSat) && t == Ty::S32) {
        const std::int64_t r = sext(a, t) + sext(b, t);
        return static_cast<std::uint64_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)) & m;
      }
      return (a + b) & m;
    case Opc::Sub:
      if ((in.flags & ptx::kFlagSat) && t == Ty::S32) {
        const std::int64_t r = sext(a, t) - sext(b, t);
        return static_cast<std::uint64_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)) & m;
      }
      return (a - b) & m;
    case Opc::Mul:
    case Opc::Mad: {
      const auto mode = in.mod.mul;
      std::uint64_t r;
      if (mode == ptx::MulMode::Lo) {
        r = (a * b) & m;
        if (in.op == Opc::Mad) r = (r + c) & m;
        return r;
      }
      if (mode == ptx::MulMode::Wide) {
        const std::uint64_t wm = bits == 32 ? ~0ull : 0xFFFFFFFFull;
        r = s ? static_cast<std::uint64_t>(sext(a, t) * sext(b, t)) : (a & m) * (b & m);
        if (in.op == Opc::Mad) r += c;
        return r & wm;
      }
      // Hi
      if (bits == 64) {
        if (s)
          r = static_cast<std::uint64_t>((static_cast<i128>(static_cast<std::int64_t>(a)) *
                                          static_cast<i128>(static_cast<std::int64_t>(b))) >>
                                         64);
        else
          r = static_cast<std::uint64_t>((static_cast<u128>(a) * b) >> 64);
      } else {
        if (s)
          r = static_cast<std::uint64_t>((sext(a, t) * sext(b, t)) >> bits);
        else
          r = ((a & m) * (b & m)) >> bits;
      }
      if (in.op == Opc::Mad) r += c;
      return r & m;
    }
    case Opc::Div:
      return int_div(t, a, b);
    case Opc::Rem:
      return int_rem(t, a, b);
    case Opc::Min:
      return s ? (sext(a, t) < sext(b, t) ? a : b) & m : ((a & m) < (b & m) ? a : b) & m;
    case Opc::Max:
      return s ? (sext(a, t) > sext(b, t) ? a : b) & m : ((a & m) > (b & m) ? a : b) & m;
    case Opc::Abs: {
      // Negated as unsigned: abs of the most negative value wraps to itself, as on the
      // GPU, where std::llabs(INT64_MIN) would be undefined behaviour.
      const std::int64_t v = sext(a, t);
      return (v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v)) & m;
    }
    case Opc::Neg:
      return (0 - a) & m;
    case Opc::And:
      return (a & b) & m;
    case Opc::Or:
      return (a | b) & m;
    case Opc::Xor:
      return (a ^ b) & m;
    case Opc::Not:
      return (~a) & m;
    case Opc::CNot:
      return (a & m) == 0 ? 1 : 0;
    case Opc::Shl:
      return (b & 0xffffffffu) >= static_cast<std::uint64_t>(bits) ? 0 : (a << b) & m;
    case Opc::Shr:
      if (s) {
        const std::uint64_t sh =
            std::min<std::uint64_t>(b & 0xffffffffu, static_cast<std::uint64_t>(bits - 1));
        return static_cast<std::uint64_t>(sext(a, t) >> sh) & m;
      }
      return (b & 0xffffffffu) >= static_cast<std::uint64_t>(bits) ? 0 : ((a & m) >> b) & m;
    case Opc::Popc:
      return static_cast<std::uint64_t>(std::popcount(a & m));
    case Opc::Clz:
      return static_cast<std::uint64_t>(
          bits == 64 ? std::countl_zero(a) : std::countl_zero(static_cast<std::uint32_t>(a)));
    case Opc::Brev: {
      std::uint64_t r = 0;
      for (int i = 0; i < bits; ++i)
        if ((a >> i) & 1) r |= 1ull << (bits - 1 - i);
      return r;
    }
    case Opc::Bfind: {
      std::uint64_t x = a & m;
      if (s && sext(a, t) < 0) x = ~x & m;
      if (x == 0) return 0xFFFFFFFFu;
      const int pos = 63 - std::countl_zero(x);
      return in.mod.shiftamt ? static_cast<std::uint64_t>(bits - 1 - pos)
                             : static_cast<std::uint64_t>(pos);
    }
    default:
      return 0;
  }
}

// Extended precision: the operation on W-bit unsigned values (W = 32 or 64) with a carry
// in (addc, subc, madc: the last source, the flag %cc) and a carry out (.cc: the last
// destination). For subtraction the flag is the borrow: subc computes a - (b + CF), and
// sets CF when that is below zero, so that sub.cc/subc chains subtract multi-word
// numbers as add.cc/addc chains add them. mad.cc adds c to the low or high half of a * b.
void carry_arith(Ctx& c, const Instr& in, int w, std::uint32_t exec) {
  const int bits = ptx::ty_bytes(in.type) * 8;
  const u128 m = bits == 64 ? u128{~0ull} : u128{0xffffffffu};
  const bool carry_in = in.op == Opc::Addc || in.op == Opc::Subc || in.op == Opc::Madc;
  const bool carry_out = in.flags & ptx::kFlagCc;
  const bool sub = in.op == Opc::Sub || in.op == Opc::Subc;
  const bool mad = in.op == Opc::Mad || in.op == Opc::Madc;
  const int nops = mad ? 3 : 2;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const u128 a = c.val(in.src[0], w, l) & m, b = c.val(in.src[1], w, l) & m;
    const u128 cf = carry_in ? (c.val(in.src[nops], w, l) & 1) : 0;
    u128 r;
    bool out;
    if (sub) {
      r = (a - b - cf) & m;
      out = a < b + cf;
    } else if (mad) {
      const u128 p = a * b;
      const u128 part = in.mod.mul == ptx::MulMode::Hi ? (p >> bits) & m : p & m;
      const u128 s = part + (c.val(in.src[2], w, l) & m) + cf;
      r = s & m;
      out = (s >> bits) != 0;
    } else {
      const u128 s = a + b + cf;
      r = s & m;
      out = (s >> bits) != 0;
    }
    c.set(in.dst[0], w, l, static_cast<std::uint64_t>(r), in.type);
    if (carry_out) c.set(in.dst[1], w, l, out, Ty::Pred);
  }
}

}  // namespace bankcheck::emu::detail
