// cp.async (the LDGSTS copy from global to shared memory) and its groups.
//
// The copy is performed when the instruction issues: the emulator runs one warp at a time
// to its next barrier, so by the time another warp could read the destination after
// cp.async.wait_group/wait_all and a barrier, the data is there, as on the GPU.
// commit_group and wait_group therefore move nothing; a kernel that reads the destination
// before its wait reads the copied data here where the GPU might not (a race the emulator
// does not report).
//
// Each cp.async sends two events, both of kind Ldgsts: its global side (a load of cp-size
// bytes per lane whose src-size is not 0, on Instr::site2) and its shared side (on
// Instr::site, analysed by model::analyze_ldgsts). The global side's sectors follow the
// shared side's wavefronts for .cg (model::ldgsts_sectors), so the shared-side event
// carries them to site2 (AccessEvent::global_site) and the global one counts the request.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cta.hpp"

namespace bankcheck::emu::detail {

void async_copy(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec) {
  if (in.op != Opc::CpAsync) return;  // commit_group, wait_group, wait_all: see above
  const unsigned size = in.vec;
  std::uint64_t sh[32] = {}, gl[32] = {};
  std::uint32_t reads = 0;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const std::uint64_t d = c.address(in, w, l);
    const std::uint64_t s = c.address_of(in.mem2, w, l);
    unsigned n = size;
    if (in.mod.mx.src_size)
      n = static_cast<unsigned>(std::min<std::uint64_t>(c.val(in.src[0], w, l) & 0xffffffffu, size));
    Space actual;
    std::uint8_t* dst = c.resolve(in, pc, Space::Shared, d, size, w, l, actual);
    std::uint8_t bytes[16] = {};
    if (n > 0) {
      if (s % size)
        c.fail(EmuError::Kind::Misaligned, pc,
               fmt::format("misaligned {}-byte cp.async source at address 0x{:x} (lane {} of warp "
                           "{}); the GPU faults here with 'misaligned address'",
                           size, s, l, w));
      // The first and the last byte read: both in one buffer (buffers lie far apart).
      const std::uint8_t* src = c.resolve(in, pc, Space::Global, s, 1, w, l, actual);
      c.resolve(in, pc, Space::Global, s + n - 1, 1, w, l, actual);
      if (c.footprint) {
        if (GlobalMemory::Buffer* b = c.mem.find(s, n))
          c.footprint->mark(*b, s - b->base, n, Footprint::Access::Read);
        else
          c.footprint->lost();
      }
      std::memcpy(bytes, src, n);
      reads |= 1u << l;
    }
    std::memcpy(dst, bytes, size);
    sh[l] = d;
    gl[l] = s;
  }
  if (!c.has_listeners) return;
  AccessEvent proto;
  proto.kind = AccessKind::Ldgsts;
  proto.bypass = in.mod.mx.bypass;
  proto.src_size = in.mod.mx.src_size;
  if (reads && in.site2 >= 0) c.emit_kind(in, in.site2, w, reads, Space::Global, gl, size, proto);
  proto.reads = reads;
  proto.global_site = reads ? in.site2 : -1;
  std::memcpy(proto.global_addr, gl, sizeof gl);
  c.emit_kind(in, in.site, w, exec, Space::Shared, sh, size, proto);
}

}  // namespace bankcheck::emu::detail
