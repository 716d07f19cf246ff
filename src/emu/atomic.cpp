// The reference semantics of atom and red: lane by lane in lane order (one serialization
// of the warp), global atomics under the memory's lock (CTAs run in parallel), through the
// memory path's resolve() and emit(). An 8-byte shared atomic also sends what its lanes
// work on (AtomicValues): SASS issues most of them as a CAS loop whose passes depend on it.
#include <cmath>
#include <cstring>
#include <mutex>

#include "cta.hpp"

namespace bankcheck::emu::detail {

void Ctx::atomic(const Instr& in, int pc, int w, std::uint32_t exec) {
  const unsigned size = static_cast<unsigned>(ptx::ty_bytes(in.type));
  std::uint64_t addrs[32] = {};
  std::uint32_t by_space[6] = {};
  const auto op = in.mod.atom;
  // add/min/max on f16, bf16 and their pairs: the narrow arithmetic of half.cpp, rounded to
  // nearest even, without .ftz (atom's .noftz).
  Instr half_op;
  const bool half = ptx::ty_half(in.type);
  if (half) {
    half_op.op = op == ptx::AtomOp::Min ? Opc::Min : op == ptx::AtomOp::Max ? Opc::Max : Opc::Add;
    half_op.type = in.type;
    half_op.mod.round = ptx::Round::Rn;
  }
  AtomicValues& values = atomic_values;
  values.op = op;
  values.type = in.type;
  for (int l = 0; l < 32; ++l) {  // lane order, as one serialization of the warp
    if (!((exec >> l) & 1u)) continue;
    const std::uint64_t a = address(in, w, l);
    Space actual;
    std::uint8_t* p = resolve(in, pc, in.space, a, size, w, l, actual);
    by_space[static_cast<int>(actual)] |= 1u << l;
    addrs[l] = (actual == Space::Shared && in.space == Space::Generic) ? a - ptx::kSharedWindow : a;
    std::unique_lock<std::mutex> lock(mem.atomic_mutex, std::defer_lock);
    if (actual == Space::Global) lock.lock();
    std::uint64_t old = 0;
    std::memcpy(&old, p, size);
    const std::uint64_t b = val(in.src[0], w, l);
    std::uint64_t nv = old;
    const Ty t = in.type;
    const bool f = ptx::ty_float(t), s = ptx::ty_signed(t);
    switch (op) {
      case ptx::AtomOp::Add:
        nv = f ? (size == 4 ? from_f32(as_f32(old) + as_f32(b)) : from_f64(as_f64(old) + as_f64(b)))
               : old + b;
        break;
      case ptx::AtomOp::Min:
        nv = f   ? (size == 4 ? from_f32(std::fmin(as_f32(old), as_f32(b)))
                              : from_f64(std::fmin(as_f64(old), as_f64(b))))
             : s ? (sext(old, t) < sext(b, t) ? old : b)
                 : ((old & mask_of(t)) < (b & mask_of(t)) ? old : b);
        break;
      case ptx::AtomOp::Max:
        nv = f   ? (size == 4 ? from_f32(std::fmax(as_f32(old), as_f32(b)))
                              : from_f64(std::fmax(as_f64(old), as_f64(b))))
             : s ? (sext(old, t) > sext(b, t) ? old : b)
                 : ((old & mask_of(t)) > (b & mask_of(t)) ? old : b);
        break;
      case ptx::AtomOp::Inc:
        nv = (old & mask_of(t)) >= (b & mask_of(t)) ? 0 : old + 1;
        break;
      case ptx::AtomOp::Dec:
        nv = ((old & mask_of(t)) == 0 || (old & mask_of(t)) > (b & mask_of(t))) ? b : old - 1;
        break;
      case ptx::AtomOp::And:
        nv = old & b;
        break;
      case ptx::AtomOp::Or:
        nv = old | b;
        break;
      case ptx::AtomOp::Xor:
        nv = old ^ b;
        break;
      case ptx::AtomOp::Exch:
        nv = b;
        break;
      case ptx::AtomOp::Cas:
        nv = (old & mask_of(t)) == (b & mask_of(t)) ? val(in.src[1], w, l) : old;
        break;
    }
    if (half && (op == ptx::AtomOp::Add || op == ptx::AtomOp::Min || op == ptx::AtomOp::Max))
      nv = half_arith(half_op, old & mask_of(t), b & mask_of(t), 0) & mask_of(t);
    if (size == 8 && actual == Space::Shared) {
      // The word before the instruction: an earlier lane on the same word has changed it.
      std::uint64_t before = old;
      for (int e = 0; e < l; ++e)
        if (((by_space[static_cast<int>(Space::Shared)] >> e) & 1u) && addrs[e] == addrs[l]) {
          before = values.word[e];
          break;
        }
      values.word[l] = before;
      values.operand[l] = b;
    }
    std::memcpy(p, &nv, size);
    if (in.op == Opc::Atom) set(in.dst[0], w, l, old, t);
  }
  for (Space sp : {Space::Shared, Space::Global, Space::Local}) {
    const std::uint32_t m = by_space[static_cast<int>(sp)];
    if (!m || in.site < 0) continue;
    event.values = sp == Space::Shared && size == 8 ? &values : nullptr;
    emit(in, w, m, sp, addrs, size);
  }
  event.values = nullptr;
}

}  // namespace bankcheck::emu::detail
