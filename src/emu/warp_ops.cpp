// The reference semantics of the warp-wide instructions: shfl.sync, vote, match and
// activemask, over the warp's executing lanes.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "cta.hpp"

namespace bankcheck::emu::detail {

std::uint32_t shfl_lanes(ptx::ShflMode mode, std::uint32_t exec, const std::uint64_t* vals,
                         const std::uint64_t* b, const std::uint64_t* c, std::uint64_t* out) {
  std::uint32_t valid = 0;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const std::uint32_t bv = static_cast<std::uint32_t>(b[l]) & 0x1f;
    const std::uint32_t cv = static_cast<std::uint32_t>(c[l]);
    const std::uint32_t seg = (cv >> 8) & 0x1f, clamp = cv & 0x1f;
    const std::uint32_t lane = static_cast<std::uint32_t>(l);
    const std::uint32_t max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
    std::int32_t j = 0;
    bool ok = false;
    switch (mode) {
      case ptx::ShflMode::Up:
        j = static_cast<std::int32_t>(lane) - static_cast<std::int32_t>(bv);
        ok = j >= static_cast<std::int32_t>(max_lane);
        break;
      case ptx::ShflMode::Down:
        j = static_cast<std::int32_t>(lane + bv);
        ok = j <= static_cast<std::int32_t>(max_lane);
        break;
      case ptx::ShflMode::Bfly:
        j = static_cast<std::int32_t>(lane ^ bv);
        ok = j <= static_cast<std::int32_t>(max_lane);
        break;
      case ptx::ShflMode::Idx:
        j = static_cast<std::int32_t>(min_lane | (bv & ~seg));
        ok = j <= static_cast<std::int32_t>(max_lane);
        break;
    }
    if (!ok) j = static_cast<std::int32_t>(lane);
    out[l] = static_cast<std::uint32_t>(vals[j & 31]);
    valid |= static_cast<std::uint32_t>(ok) << l;
  }
  return valid;
}

void warp_op(Ctx& c, const Instr& in, int w, std::uint32_t exec, std::uint32_t active) {
  switch (in.op) {
    case Opc::Elect: {
      // elect.sync d|p, membermask: the leader is the lowest executing lane of the mask;
      // every executing lane gets its lane number in d, and p true in the leader alone.
      std::uint32_t members = 0;
      for (int l = 0; l < 32; ++l)
        if ((exec >> l) & 1u) members |= static_cast<std::uint32_t>(c.val(in.src[0], w, l));
      const std::uint32_t candidates = members & exec;
      const int leader = candidates ? std::countr_zero(candidates) : -1;
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        c.set(in.dst[0], w, l, static_cast<std::uint64_t>(leader < 0 ? 0 : leader), Ty::U32);
        c.set(in.dst[1], w, l, l == leader ? 1 : 0, Ty::Pred);
      }
      break;
    }
    case Opc::Redux: {
      // redux.sync: every executing lane gets the reduction over the executing lanes (the
      // membermask must name exactly those; the warp loop runs them together).
      const bool s = ptx::ty_signed(in.type);
      std::uint32_t r = 0;
      bool first = true;
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint32_t v = static_cast<std::uint32_t>(c.val(in.src[0], w, l));
        if (first) {
          r = v;
          first = false;
          continue;
        }
        switch (in.mod.atom) {
          case ptx::AtomOp::Add:
            r += v;
            break;
          case ptx::AtomOp::Min:
            r = s ? static_cast<std::uint32_t>(
                        std::min(static_cast<std::int32_t>(r), static_cast<std::int32_t>(v)))
                  : std::min(r, v);
            break;
          case ptx::AtomOp::Max:
            r = s ? static_cast<std::uint32_t>(
                        std::max(static_cast<std::int32_t>(r), static_cast<std::int32_t>(v)))
                  : std::max(r, v);
            break;
          case ptx::AtomOp::And:
            r &= v;
            break;
          case ptx::AtomOp::Or:
            r |= v;
            break;
          default:
            r ^= v;
            break;
        }
      }
      for (int l = 0; l < 32; ++l)
        if ((exec >> l) & 1u) c.set(in.dst[0], w, l, r, Ty::B32);
      break;
    }
    case Opc::Shfl: {
      std::uint64_t vals[32], b[32], cc[32], r[32];
      for (int l = 0; l < 32; ++l) {
        vals[l] = c.val(in.src[0], w, l);
        b[l] = c.val(in.src[1], w, l);
        cc[l] = c.val(in.src[2], w, l);
      }
      const std::uint32_t ok = shfl_lanes(in.mod.shfl, exec, vals, b, cc, r);
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        c.set(in.dst[0], w, l, r[l], Ty::B32);
        if (in.ndst > 1) c.set(in.dst[1], w, l, (ok >> l) & 1u, Ty::Pred);
      }
      break;
    }
    case Opc::Vote: {
      const std::uint32_t p = c.pred_mask(in.src[0], w, exec);
      const auto mode = in.mod.vote;
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        std::uint64_t r = 0;
        if (mode == ptx::VoteMode::All)
          r = p == exec;
        else if (mode == ptx::VoteMode::Any)
          r = p != 0;
        else if (mode == ptx::VoteMode::Uni)
          r = p == 0 || p == exec;
        else
          r = p;
        c.set(in.dst[0], w, l, r, mode == ptx::VoteMode::Ballot ? Ty::B32 : Ty::Pred);
      }
      break;
    }
    case Opc::Match: {
      std::uint64_t vals[32];
      for (int l = 0; l < 32; ++l)
        vals[l] = (exec >> l) & 1u ? c.val(in.src[0], w, l) & mask_of(in.type) : 0;
      bool all_same = true;
      int first = std::countr_zero(exec);
      for (int l = 0; l < 32; ++l)
        if (((exec >> l) & 1u) && vals[l] != vals[first]) all_same = false;
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        std::uint32_t m = 0;
        if (in.mod.match == ptx::MatchMode::Any) {
          for (int j = 0; j < 32; ++j)
            if (((exec >> j) & 1u) && vals[j] == vals[l]) m |= 1u << j;
        } else {
          m = all_same ? exec : 0;
        }
        c.set(in.dst[0], w, l, m, Ty::B32);
        if (in.ndst > 1) c.set(in.dst[1], w, l, all_same, Ty::Pred);
      }
      break;
    }
    case Opc::Activemask:
      for (int l = 0; l < 32; ++l)
        if ((active >> l) & 1u) c.set(in.dst[0], w, l, active, Ty::B32);
      break;
    default:
      break;
  }
}

}  // namespace bankcheck::emu::detail
