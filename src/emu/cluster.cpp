// Thread-block clusters' addresses: mapa (a shared address of this CTA to the same offset in
// the CTA of a given rank) and getctarank (the rank a shared::cluster address names), in
// bankcheck's encoding of shared::cluster addresses (ptx::kClusterRankShift: the rank plus
// one above bit 24, 0 for the executing CTA). The cluster barrier and the scheduling of a
// cluster's CTAs are the warp loop's (emulator.cpp); accesses to another CTA's shared
// memory go through the memory path (memory.cpp, Ctx::shared_owner).
#include "cta.hpp"

namespace bankcheck::emu::detail {

void cluster_address(Ctx& c, const Instr& in, int w, std::uint32_t exec) {
  const bool generic = in.space == Space::Generic;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    std::uint64_t a = c.val(in.src[0], w, l);
    if (generic) a -= ptx::kSharedWindow;
    a = static_cast<std::uint32_t>(a);
    const std::uint64_t tag = a >> ptx::kClusterRankShift;
    const std::uint64_t own = tag == 0 ? c.cluster_rank : tag - 1;
    if (in.op == Opc::Getctarank) {
      c.set(in.dst[0], w, l, own, in.type);
      continue;
    }
    const std::uint64_t rank = c.val(in.src[1], w, l) & 0xFFFFFFFFu;
    std::uint64_t r = (a & ptx::kClusterOffsetMask) | ((rank + 1) << ptx::kClusterRankShift);
    if (generic) r += ptx::kSharedWindow;
    c.set(in.dst[0], w, l, r, in.type);
  }
}

}  // namespace bankcheck::emu::detail
