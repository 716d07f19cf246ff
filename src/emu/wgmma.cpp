// wgmma.mma_async: the warpgroup's D = A x B + D (m64nNkK), A from registers or from shared
// memory through a matrix descriptor, B from shared memory through one; and wgmma.fence,
// commit_group and wait_group, which move nothing: the multiply is done when it issues,
// as cp.async's copies are (a kernel that reads D before its wait_group gets the result
// where the GPU might not; not reported).
//
// A warpgroup is four consecutive warps, the first a multiple of 4. Warp q of it (q = warp
// % 4) owns rows 16q..16q+15 of D and of A: each warp's rows depend on its own registers
// and on B alone, so each warp computes its rows when it executes the instruction, reading
// shared memory then (a kernel that overwrites A or B before every warp of the warpgroup
// waited on the group is wrong on the GPU too).
//
// Fragments (the PTX ISA's "Register fragments" for wgmma, which are mma.m16n8k*'s): lane
// 4g + t holds, for each 8 columns j of D, d[4j + i] = D(16q + g + 8 (i >> 1), 8j + 2t +
// (i & 1)) (f32 and s32; an f16 D pairs d[2r] with d[2r + 1] in one register); A from
// registers: mma's A fragment of m16kK for the warp's 16 rows.
//
// The descriptors (64 bits): start address >> 4 in bits 0-13, leading-dimension byte offset
// (LBO) >> 4 in 16-29, stride-dimension byte offset (SBO) >> 4 in 32-45, base offset in
// 49-51, layout in 62-63 (0 no swizzle, 1 128-byte, 2 64-byte, 3 32-byte). Element (mn, k)
// of an operand (mn a row of A or a column of B), T = 16 bytes / element size, W the
// swizzle's bytes, in CuTe's canonical GMMA layouts (cute/atom/mma_traits_sm90_gmma.hpp):
//   K-major,  no swizzle: (mn % 8) * 16 + (mn / 8) * SBO + (k / T) * LBO + (k % T) * size
//   K-major,  swizzle W:  (mn % 8) * W  + (mn / 8) * SBO + (k / T) * 16  + (k % T) * size
//   MN-major, no swizzle: (mn / T) * SBO + (k % 8) * 16 + (k / 8) * LBO + (mn % T) * size
//   MN-major, swizzle W:  (mn / T % (W/16)) * 16 + (mn / T / (W/16)) * LBO + (k % 8) * W
//                         + (k / 8) * SBO + (mn % T) * size
// plus the start address, then the swizzle (swizzle_address) on the shared address. The
// swizzle is taken on the address itself, which is what the ISA's base offset asks for
// when it is (start >> 7) & 7 and what a 0 means for a start aligned to the pattern
// (CUTLASS's descriptors); other base offsets are not modelled. MN-major (imm-trans) is the
// 16-bit types' only.
//
// Arithmetic: each element of D is D (unless scale-d is false) plus the K exact products
// summed in float64 in k order and rounded once, as mma.sync's (matrix_ops.cpp); imm-scale
// -1 negates A or B; s32 wraps, or clamps with .satfinite.
//
// Requests: the shared operands' 16-byte rows as the hardware's core matrices group them,
// AccessKind::Wgmma events of 32 lanes (lane 8m + r: row r of core matrix m), A per warp,
// B once per warpgroup (by its warp 0); each warp's first event counts its execution and
// warp 0's carries the operand bytes the measured rule costs (events.hpp,
// model::wgmma_request).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bankcheck/model/hopper.hpp"
#include "cta.hpp"
#include "narrow_float.hpp"

namespace bankcheck::emu::detail {

using ptx::MmaElem;

namespace {

int elem_bytes(MmaElem e) {
  switch (e) {
    case MmaElem::F16:
    case MmaElem::BF16:
      return 2;
    case MmaElem::TF32:
      return 4;
    default:
      return 1;
  }
}

// One element from its bytes in shared memory.
double element(MmaElem e, const std::uint8_t* p) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, static_cast<std::size_t>(elem_bytes(e)));
  return mma_input(e, v, 0);
}

struct Descriptor {
  std::uint64_t start = 0, lbo = 0, sbo = 0;
  unsigned base_offset = 0;
  unsigned swizzle_bits = 0;  // B of Swizzle<B,4,3>: 0, 1 (32B), 2 (64B), 3 (128B)
  unsigned width = 0;         // the swizzle's bytes (0: none)
};

Descriptor decode(std::uint64_t d) {
  Descriptor r;
  r.start = (d & 0x3FFF) << 4;
  r.lbo = ((d >> 16) & 0x3FFF) << 4;
  r.sbo = ((d >> 32) & 0x3FFF) << 4;
  r.base_offset = static_cast<unsigned>((d >> 49) & 7);
  switch ((d >> 62) & 3) {
    case 1:
      r.swizzle_bits = 3;
      r.width = 128;
      break;
    case 2:
      r.swizzle_bits = 2;
      r.width = 64;
      break;
    case 3:
      r.swizzle_bits = 1;
      r.width = 32;
      break;
    default:
      break;
  }
  return r;
}

// The shared address of element (mn, k), `size` bytes each.
std::uint64_t address(const Descriptor& d, bool mn_major, std::uint64_t mn, std::uint64_t k,
                      std::uint64_t size) {
  const std::uint64_t t = 16 / size;
  std::uint64_t off = 0;
  if (!mn_major) {
    off = d.width ? (mn % 8) * d.width + (mn / 8) * d.sbo + (k / t) * 16
                  : (mn % 8) * 16 + (mn / 8) * d.sbo + (k / t) * d.lbo;
    off += (k % t) * size;
  } else {
    const std::uint64_t chunk = mn / t;
    if (d.width) {
      const std::uint64_t per = d.width / 16;
      off = (chunk % per) * 16 + (chunk / per) * d.lbo + (k % 8) * d.width + (k / 8) * d.sbo;
    } else {
      off = chunk * d.sbo + (k % 8) * 16 + (k / 8) * d.lbo;
    }
    off += (mn % t) * size;
  }
  return swizzle_address(d.start + off, d.swizzle_bits);
}

// An operand read from shared memory: `rows` (mn) x K elements as doubles (mn-major in the
// array: [mn * K + k]), and its 16-byte rows as events.
struct Operand {
  std::vector<double> v;
};

void read_operand(Ctx& c, const Instr& in, int pc, int w, const Descriptor& d, bool mn_major,
                  MmaElem e, std::uint64_t mn0, std::uint64_t rows, std::uint64_t K, bool negate,
                  std::uint8_t which, AccessEvent& proto, Operand& out) {
  const std::uint64_t size = static_cast<std::uint64_t>(elem_bytes(e));
  out.v.assign(rows * K, 0.0);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t k = 0; k < K; ++k) {
      const std::uint64_t a = address(d, mn_major, mn0 + r, k, size);
      if (a + size > c.shared.size())
        c.fail(EmuError::Kind::OutOfBounds, pc,
               fmt::format("wgmma.mma_async reads {} element ({}, {}) at shared offset {}, past "
                           "the {}-byte shared window (descriptor start {}, LBO {}, SBO {}; warp "
                           "{})",
                           which == 0 ? "A" : "B", mn0 + r, k, a, c.shared.size(), d.start, d.lbo,
                           d.sbo, w));
      const double x = element(e, c.shared.data() + a);
      out.v[r * K + k] = negate ? -x : x;
    }
  // The 16-byte rows of the core matrices, in the order ldmatrix.x4 would name them: for
  // K-major, rows are mn and each core matrix is 8 mn by 16 bytes of k; for MN-major, rows
  // are k and each core matrix is 8 k by 16 bytes of mn.
  const std::uint64_t t = 16 / size;
  std::vector<std::uint64_t> rows16;
  if (!mn_major) {
    for (std::uint64_t kc = 0; kc < K / t; ++kc)
      for (std::uint64_t g = 0; g < rows / 8; ++g)
        for (std::uint64_t r = 0; r < 8; ++r)
          rows16.push_back(address(d, false, mn0 + 8 * g + r, kc * t, size));
  } else {
    for (std::uint64_t kg = 0; kg < K / 8; ++kg)
      for (std::uint64_t mc = 0; mc < rows / t; ++mc)
        for (std::uint64_t r = 0; r < 8; ++r)
          rows16.push_back(address(d, true, mn0 + mc * t, 8 * kg + r, size));
  }
  if (c.bookkeeping)
    for (std::uint64_t a : rows16)
      if (c.test_reads(in.site) && !c.written->test(a & ~std::uint64_t{15}, 16))
        c.read_unwritten_at(in.site);
  if (!c.has_listeners) return;
  proto.operand = which;
  proto.swizzle = static_cast<std::int8_t>(d.swizzle_bits);
  std::uint64_t addr[32] = {};
  for (std::size_t i = 0; i < rows16.size(); i += 32) {
    std::uint32_t mask = 0;
    for (std::size_t l = 0; l < 32 && i + l < rows16.size(); ++l) {
      addr[l] = rows16[i + l] & ~std::uint64_t{15};
      mask |= 1u << l;
    }
    proto.matrices = static_cast<std::uint8_t>((std::popcount(mask) + 7) / 8);
    c.emit_kind(in, in.site, w, mask, Space::Shared, addr, 16, proto);
    // The warp's execution is counted once, with its first event.
    proto.continues = true;
    proto.wgmma_a_bytes = proto.wgmma_b_bytes = 0;
  }
}

// A's element (row, k) of the warp's 16 rows from lane registers: mma's A fragment.
void register_a(Ctx& c, const Instr& in, int w, MmaElem e, unsigned K, bool negate,
                std::vector<double>& a) {
  const ptx::WgmmaMods& m = in.mod.wg;
  a.assign(16 * K, 0.0);
  const Opnd* regs = in.frag.data() + 2 * m.nd;
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
      const auto reg = static_cast<std::uint32_t>(c.val(regs[i], w, lane));
      const int row = g + 8 * (i & 1);
      if (e == MmaElem::TF32) {
        a[static_cast<std::size_t>(row) * K + static_cast<unsigned>(t + 4 * (i >> 1))] =
            mma_input(e, reg, 0);
      } else if (elem_bytes(e) == 2) {
        for (int j = 0; j < 2; ++j)
          a[static_cast<std::size_t>(row) * K + static_cast<unsigned>(2 * t + j + 8 * (i >> 1))] =
              mma_input(e, reg, j);
      } else {
        for (int j = 0; j < 4; ++j)
          a[static_cast<std::size_t>(row) * K + static_cast<unsigned>(4 * t + j + 16 * (i >> 1))] =
              mma_input(e, reg, j);
      }
    }
  }
  if (negate)
    for (double& x : a) x = -x;
}

}  // namespace

void wgmma_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active) {
  const ptx::WgmmaMods& m = in.mod.wg;
  if (m.op != ptx::WgmmaOp::Mma) return;  // fence, commit_group, wait_group: nothing to do
  if (exec != 0xFFFFFFFFu || active != 0xFFFFFFFFu)
    c.fail(EmuError::Kind::Unsupported, pc,
           fmt::format("wgmma.mma_async executed by lanes 0x{:08x} of warp {}: every thread of "
                       "the warpgroup must execute it (.sync.aligned)",
                       exec, w));
  const unsigned N = m.n, K = m.k;
  const unsigned q = static_cast<unsigned>(w) % 4;
  // The warp's events: its first counts its execution, and the warpgroup's first warp's
  // carries the operand bytes the warpgroup's execution reads (model::wgmma_operands).
  AccessEvent proto;
  proto.kind = AccessKind::Wgmma;
  proto.op = model::Op::Load;
  if (q == 0) {
    const model::WgmmaOperands o = model::wgmma_operands(static_cast<int>(N), !m.a_regs);
    proto.wgmma_a_bytes = static_cast<std::uint16_t>(o.a_bytes);
    proto.wgmma_b_bytes = static_cast<std::uint16_t>(o.b_bytes);
  }
  std::vector<double> a;
  if (m.a_regs) {
    register_a(c, in, w, m.a, K, m.neg_a, a);
  } else {
    Operand op;
    read_operand(c, in, pc, w, decode(c.val(in.src[0], w, 0)), m.trans_a, m.a, 16 * q, 16, K,
                 m.neg_a, 0, proto, op);
    a = std::move(op.v);
  }
  // B: every warp reads it for its arithmetic; the warpgroup's first warp sends its rows.
  Operand b;
  {
    const bool had = c.has_listeners;
    if (q != 0) c.has_listeners = false;
    read_operand(c, in, pc, w, decode(c.val(in.src[1], w, 0)), m.trans_b, m.b, 0, N, K, m.neg_b, 1,
                 proto, b);
    c.has_listeners = had;
  }
  // A warp that sent no rows (A from registers, not the first warp) still executed it.
  if (c.has_listeners && !proto.continues) {
    const std::uint64_t none[32] = {};
    c.emit_kind(in, in.site, w, 0, Space::Shared, none, 16, proto);
  }
  const bool accumulate = c.val(in.src[2], w, 0) & 1;
  const bool pairs = m.d == MmaElem::F16;
  const bool ints = m.d == MmaElem::S32;
  const Opnd* d = in.frag.data();
  const Opnd* d_in = in.frag.data() + m.nd;
  for (int lane = 0; lane < 32; ++lane) {
    const unsigned g = static_cast<unsigned>(lane) / 4, t = static_cast<unsigned>(lane) % 4;
    for (unsigned j = 0; j < N / 8; ++j)
      for (unsigned i = 0; i < 4; ++i) {
        const unsigned row = g + 8 * (i >> 1), col = 8 * j + 2 * t + (i & 1);
        const unsigned e = 4 * j + i;  // the element's index in the f32 fragment
        const unsigned reg = pairs ? e / 2 : e;
        const int half = pairs ? static_cast<int>(e % 2) : 0;
        const std::uint64_t old = c.val(d_in[reg], w, lane);
        const double* ar = &a[static_cast<std::size_t>(row) * K];
        const double* bc = &b.v[static_cast<std::size_t>(col) * K];
        std::uint64_t out;
        if (ints) {
          std::int64_t s = accumulate ? static_cast<std::int32_t>(old) : 0;
          for (unsigned k = 0; k < K; ++k)
            s += static_cast<std::int64_t>(ar[k]) * static_cast<std::int64_t>(bc[k]);
          if (m.satfinite) s = std::clamp<std::int64_t>(s, INT32_MIN, INT32_MAX);
          out = static_cast<std::uint32_t>(s);
        } else {
          const double init = !accumulate ? 0.0
                              : pairs
                                  ? half_to_float(static_cast<std::uint16_t>(old >> (16 * half)))
                                  : as_f32(old);
          const std::uint32_t r = mma_float_element(m.d, init, ar, bc, 1, static_cast<int>(K));
          out = pairs ? ((old & ~(0xFFFFull << (16 * half))) |
                         (std::uint64_t{r & 0xFFFF} << (16 * half)))
                      : r;
        }
        c.set(d[reg], w, lane, out, pairs ? Ty::B32 : ints ? Ty::S32 : Ty::F32);
      }
  }
}

}  // namespace bankcheck::emu::detail
