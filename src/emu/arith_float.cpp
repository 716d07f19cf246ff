// The reference semantics of float arithmetic (add ... tanh, f32 and f64), per lane, as
// the PTX ISA defines each operation and sm_90 rounds it.
#include <algorithm>
#include <bit>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>

#include "cta.hpp"

namespace bankcheck::emu::detail {

// One correctly rounded float operation in type F. Operands and result pass through
// volatile so the compiler cannot move the arithmetic out from between the rounding-mode
// changes of with_rounding().
template <typename F>
F directed_op(Opc op, F a, F b, F c) {
  volatile F x = a, y = b, z = c;
  volatile F v;
  switch (op) {
    case Opc::Add:
      v = x + y;
      break;
    case Opc::Sub:
      v = x - y;
      break;
    case Opc::Mul:
      v = x * y;
      break;
    case Opc::Div:
      v = x / y;
      break;
    case Opc::Rcp:
      v = F(1) / x;
      break;
    case Opc::Sqrt:
      v = std::sqrt(static_cast<F>(x));
      break;
    default:
      v = std::fma(static_cast<F>(x), static_cast<F>(y), static_cast<F>(z));
      break;
  }
  return static_cast<F>(v);
}

// The correctly rounded float operations under .rz/.rm/.rp: the host's arithmetic in that
// rounding mode.
std::uint64_t arith_directed(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const int mode = fe_mode(float_round(in));
  if (in.type == Ty::F64) {
    const double r = with_rounding(
        mode, [&] { return directed_op<double>(in.op, as_f64(a), as_f64(b), as_f64(c)); });
    return from_f64(saturate(in, r));
  }
  const float r = with_rounding(
      mode, [&] { return directed_op<float>(in.op, as_f32(a), as_f32(b), as_f32(c)); });
  return canonical_f32(saturate(in, r));
}

// Float arithmetic for one lane: round to nearest with the host's arithmetic, the
// directed roundings under the host's rounding mode, NaNs as sm_90 gives them.
std::uint64_t float_arith(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const Ty t = in.type;
  const bool d = t == Ty::F64;
  // f64 NaN operands as sm_90 propagates them (measured): add, mul and fma give the
  // second operand's NaN (quieted) when it is one, else the first's (the host prefers
  // the first); neg and abs give the operand's NaN quieted, sign unchanged.
  if (d && (in.op == Opc::Add || in.op == Opc::Mul || in.op == Opc::Fma || in.op == Opc::Mad)) {
    if (std::isnan(as_f64(b))) return from_f64(saturate(in, as_f64(b | kQuietF64)));
    if (std::isnan(as_f64(a))) return from_f64(saturate(in, as_f64(a | kQuietF64)));
  }
  if (d && (in.op == Opc::Neg || in.op == Opc::Abs) && std::isnan(as_f64(a))) return a | kQuietF64;
  if (directed_round(in)) {
    switch (in.op) {
      case Opc::Add:
      case Opc::Sub:
      case Opc::Mul:
      case Opc::Div:
      case Opc::Mad:
      case Opc::Fma:
      case Opc::Rcp:
      case Opc::Sqrt:
        return arith_directed(in, a, b, c);
      default:
        break;
    }
  }
  auto F = [&](std::uint64_t x) { return d ? as_f64(x) : static_cast<double>(as_f32(x)); };
  auto out = [&](double r) { return from_f64(saturate(in, r)); };
  auto outf = [&](float r) { return canonical_f32(saturate(in, r)); };
  switch (in.op) {
    case Opc::Add:
      return d ? out(as_f64(a) + as_f64(b)) : outf(as_f32(a) + as_f32(b));
    case Opc::Sub:
      return d ? out(as_f64(a) - as_f64(b)) : outf(as_f32(a) - as_f32(b));
    case Opc::Mul:
      return d ? out(as_f64(a) * as_f64(b)) : outf(as_f32(a) * as_f32(b));
    case Opc::Div:
      return d ? out(as_f64(a) / as_f64(b)) : outf(as_f32(a) / as_f32(b));
    case Opc::Mad:
    case Opc::Fma:
      return d ? out(std::fma(as_f64(a), as_f64(b), as_f64(c)))
               : outf(std::fma(as_f32(a), as_f32(b), as_f32(c)));
    case Opc::Min:
    case Opc::Max:
      return float_min_max(in.op == Opc::Max, d, a, b);
    // f32 abs/neg return the canonical NaN for a NaN (as measured); f64 ones flip bits.
    case Opc::Abs:
      return d ? from_f64(std::fabs(F(a))) : canonical_f32(std::fabs(as_f32(a)));
    case Opc::Neg:
      return d ? from_f64(-F(a)) : canonical_f32(-as_f32(a));
    case Opc::Rcp:
      return d ? out(1.0 / F(a)) : outf(1.0f / as_f32(a));
    case Opc::Sqrt:
      return d ? out(std::sqrt(F(a))) : outf(std::sqrt(as_f32(a)));
    case Opc::Rsqrt:
      return d ? out(1.0 / std::sqrt(F(a))) : outf(1.0f / std::sqrt(as_f32(a)));
    case Opc::Ex2:
      return d ? out(std::exp2(F(a))) : outf(exp2_f32(as_f32(a)));
    case Opc::Lg2:
      return d ? out(std::log2(F(a))) : outf(std::log2(as_f32(a)));
    case Opc::Sin:
      return d ? out(std::sin(F(a))) : outf(std::sin(as_f32(a)));
    case Opc::Cos:
      return d ? out(std::cos(F(a))) : outf(std::cos(as_f32(a)));
    case Opc::Tanh:
      return d ? out(std::tanh(F(a))) : outf(std::tanh(as_f32(a)));
    case Opc::Copysign:
      return d ? from_f64(std::copysign(F(b), F(a)))
               : from_f32(std::copysign(as_f32(b), as_f32(a)));
    default:
      return 0;
  }
}

}  // namespace bankcheck::emu::detail
