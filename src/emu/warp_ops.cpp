// The reference semantics of the warp-wide instructions: shfl.sync, vote, match and
// activemask, over the warp's executing lanes.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>

#include "cta.hpp"

namespace bankcheck::emu::detail {

std::uint32_t shfl_lanes(ptx::ShflMode mode, std::uint32_t exec, const std::uint64_t* vals,
                         const std::uint64_t* b, const std::uint64_t* c, std::uint64_t* out) {
  static_assert(
      static_cast<int>(ptx::ShflMode::Up) == 0 && static_cast<int>(ptx::ShflMode::Down) == 1 &&
      static_cast<int>(ptx::ShflMode::Bfly) == 2 && static_cast<int>(ptx::ShflMode::Idx) == 3);
  std::uint32_t valid = 0;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    bool ok = false;
    const std::int32_t j =
        shfl_source(static_cast<int>(mode), static_cast<std::uint32_t>(l),
                    static_cast<std::uint32_t>(b[l]), static_cast<std::uint32_t>(c[l]), ok);
    out[l] = static_cast<std::uint32_t>(vals[j]);
    valid |= static_cast<std::uint32_t>(ok) << l;
  }
  return valid;
}

namespace {

// The lanes each executing lane's vote, match or redux is over: the executing lanes of the
// membermask it names (its own lane always among them). The lanes of a warp may name
// different masks in one instruction (cooperative groups' labeled and tiled partitions: each
// group of lanes reduces, votes or matches with its own mask), and each group gets its own
// result, as on the GPU.
std::array<std::uint32_t, 32> member_groups(Ctx& c, const ptx::Opnd& membermask, int w,
                                            std::uint32_t exec) {
  std::array<std::uint32_t, 32> g{};
  for (int l = 0; l < 32; ++l)
    if ((exec >> l) & 1u)
      g[static_cast<std::size_t>(l)] =
          (static_cast<std::uint32_t>(c.val(membermask, w, l)) & exec) | (1u << l);
  return g;
}

}  // namespace

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
      // redux.sync: every executing lane gets the reduction over its group (member_groups).
      const bool s = ptx::ty_signed(in.type);
      const auto groups = member_groups(c, in.src[1], w, exec);
      std::uint32_t vals[32] = {};
      for (int l = 0; l < 32; ++l)
        if ((exec >> l) & 1u) vals[l] = static_cast<std::uint32_t>(c.val(in.src[0], w, l));
      const auto combine = [&](std::uint32_t r, std::uint32_t v) -> std::uint32_t {
        switch (in.mod.atom) {
          case ptx::AtomOp::Add:
            return r + v;
          case ptx::AtomOp::Min:
            return s ? static_cast<std::uint32_t>(
                           std::min(static_cast<std::int32_t>(r), static_cast<std::int32_t>(v)))
                     : std::min(r, v);
          case ptx::AtomOp::Max:
            return s ? static_cast<std::uint32_t>(
                           std::max(static_cast<std::int32_t>(r), static_cast<std::int32_t>(v)))
                     : std::max(r, v);
          case ptx::AtomOp::And:
            return r & v;
          case ptx::AtomOp::Or:
            return r | v;
          default:
            return r ^ v;
        }
      };
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint32_t g = groups[static_cast<std::size_t>(l)];
        const int first = std::countr_zero(g);
        std::uint32_t r = vals[first];
        for (int j = first + 1; j < 32; ++j)
          if ((g >> j) & 1u) r = combine(r, vals[j]);
        c.set(in.dst[0], w, l, r, Ty::B32);
      }
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
      const std::uint32_t all_p = c.pred_mask(in.src[0], w, exec);
      const auto groups = member_groups(c, in.src[1], w, exec);
      const auto mode = in.mod.vote;
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint32_t g = groups[static_cast<std::size_t>(l)], p = all_p & g;
        std::uint64_t r = 0;
        if (mode == ptx::VoteMode::All)
          r = p == g;
        else if (mode == ptx::VoteMode::Any)
          r = p != 0;
        else if (mode == ptx::VoteMode::Uni)
          r = p == 0 || p == g;
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
      const auto groups = member_groups(c, in.src[1], w, exec);
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint32_t g = groups[static_cast<std::size_t>(l)];
        std::uint32_t same = 0;  // the lanes of the group whose value is this lane's
        for (int j = 0; j < 32; ++j)
          if (((g >> j) & 1u) && vals[j] == vals[l]) same |= 1u << j;
        const bool all_same = same == g;
        std::uint32_t m = 0;
        if (in.mod.match == ptx::MatchMode::Any) {
          m = same;
        } else {
          m = all_same ? g : 0;
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
