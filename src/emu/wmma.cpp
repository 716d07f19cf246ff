// wmma on one warp: wmma.load.{a,b,c} and wmma.store.d move an m16n16k16 fragment between
// memory and the lanes' registers, wmma.mma multiplies. The fragments are the measured ones
// of bankcheck/emu/wmma_fragment.hpp; the arithmetic is mma.sync's (matrix_ops.cpp: exact
// products summed in float64 in k order, rounded once).
//
// The requests are the ones ptxas 13.0 makes of each form for sm_90 (cuobjdump of
// bench/hardware/wmma/probe_wmma.cu, results/wmma_sass.txt, and of every form of
// probe_forms.cu, results/forms/probe_forms.sass.txt.gz), in the memory's own rows and
// columns (a column-major matrix's memory rows are its columns), block (R, C) of register
// pair p being the fragment's 8x8 block (8 (p & 1), 8 (p >> 1)) stored there:
//
//   fragment                         requests                  lane 4g + t (8m + r for LDSM)
//   A, B in .shared (f16, bf16)      1 LDSM.16.M88.4 / MT88.4  row r of block m, 16 bytes
//   A, B global or generic           4 x 32-bit, per block     the pair at (R + g, C + 2t)
//   C, D f16 (any layout, space)     4 x 32-bit, per block     the pair at (R + g, C + 2t)
//   C, D f32 row-major               4 x 64-bit, per block     the pair at (R + g, C + 2t)
//   C, D f32 column-major            8 x 32-bit, per element   its element
//
// 16-bit fragments stored the other way round are read with the same requests and
// transposed in registers (ptxas: LDSM.MT88, or MOVM after the loads), so their requests
// do not depend on the layout. A/B are LDSM only with .shared: from a generic address (the
// bf16 loads of <mma.h> are generic) ptxas issues 32-bit LDs.
#include <fmt/format.h>

#include <cstring>

#include "bankcheck/emu/wmma_fragment.hpp"
#include "cta.hpp"

namespace bankcheck::emu::detail {
namespace {

using ptx::MmaElem;
using ptx::WmmaFrag;

// One request: bytes per lane, and the memory position of each lane's first element (an
// ldmatrix-like request: lane 8m + r gives row r of matrix m, 8 elements).
struct Request {
  unsigned width = 0;
  bool matrix = false;
  WmmaPos at[32];
};

MmaElem elem_of(const ptx::MatrixMods& m) {
  switch (m.frag) {
    case WmmaFrag::A:
      return m.a;
    case WmmaFrag::B:
      return m.b;
    case WmmaFrag::C:
      return m.c;
    default:
      return m.d;
  }
}

// The requests of a wmma.load or wmma.store, in SASS order (per register block).
int requests(const Instr& in, Request (&out)[8]) {
  const ptx::MatrixMods& m = in.mod.mx;
  const bool f32 = elem_of(m) == MmaElem::F32;
  const bool operand = m.frag == WmmaFrag::A || m.frag == WmmaFrag::B;
  const auto block = [&](int p) { return wmma_memory({8 * (p & 1), 8 * (p >> 1)}, m.col); };
  if (f32 && m.col) {  // one element a request
    for (int e = 0; e < 8; ++e) {
      out[e].width = 4;
      for (int l = 0; l < 32; ++l) out[e].at[l] = wmma_memory(wmma_element(m.frag, l, e), true);
    }
    return 8;
  }
  if (operand && in.space == Space::Shared) {
    out[0].width = 16;
    out[0].matrix = true;
    for (int l = 0; l < 32; ++l) {
      const WmmaPos b = block(l / 8);
      out[0].at[l] = {b.row + l % 8, b.col};
    }
    return 1;
  }
  for (int p = 0; p < 4; ++p) {
    out[p].width = f32 ? 8 : 4;
    const WmmaPos b = block(p);
    for (int l = 0; l < 32; ++l) out[p].at[l] = {b.row + l / 4, b.col + 2 * (l % 4)};
  }
  return 4;
}

[[noreturn]] void whole_warp(Ctx& c, int pc, int w, std::uint32_t exec) {
  c.fail(EmuError::Kind::Unsupported, pc,
         fmt::format("{} executed by lanes 0x{:08x} of warp {}: every lane of the warp must "
                     "execute it together",
                     c.k.texts[static_cast<std::size_t>(pc)].substr(
                         0, c.k.texts[static_cast<std::size_t>(pc)].find_first_of(" \t")),
                     exec, w));
}

// wmma.load / wmma.store: the fragment's 256 elements pass through `tile` (element bits by
// memory position), filled from memory by the requests (load) or from the registers (store).
void move(Ctx& c, const Instr& in, int pc, int w) {
  const ptx::MatrixMods& m = in.mod.mx;
  const bool load = in.op == Opc::WmmaLoad;
  const MmaElem e = elem_of(m);
  const unsigned esize = e == MmaElem::F32 ? 4 : 2;
  const bool pairs = esize == 2;  // two elements a register
  const int regs = static_cast<int>(in.frag.size());
  std::uint32_t tile[16][16] = {};
  const auto at = [&](int lane, int x) -> std::uint32_t& {
    const WmmaPos p = wmma_memory(wmma_element(m.frag, lane, x), m.col);
    return tile[p.row][p.col];
  };
  if (!load)
    for (int l = 0; l < 32; ++l)
      for (int r = 0; r < regs; ++r) {
        const auto v =
            static_cast<std::uint32_t>(c.val(in.frag[static_cast<std::size_t>(r)], w, l));
        if (pairs) {
          at(l, 2 * r) = v & 0xFFFFu;
          at(l, 2 * r + 1) = v >> 16;
        } else {
          at(l, r) = v;
        }
      }
  Request reqs[8];
  const int n = requests(in, reqs);
  for (int q = 0; q < n; ++q) {
    const Request& rq = reqs[q];
    std::uint64_t addrs[32] = {};
    std::uint32_t by_space[6] = {};
    for (int l = 0; l < 32; ++l) {
      const std::uint64_t stride = in.nsrc > 0 ? c.val(in.src[0], w, l) & 0xFFFFFFFFu : 16;
      const WmmaPos p = rq.at[l];
      const std::uint64_t a =
          c.address(in, w, l) +
          (static_cast<std::uint64_t>(p.row) * stride + static_cast<std::uint64_t>(p.col)) * esize;
      Space actual;
      std::uint8_t* bytes = c.resolve(in, pc, in.space, a, rq.width, w, l, actual);
      by_space[static_cast<int>(actual)] |= 1u << l;
      addrs[l] = in.space == Space::Generic && actual == Space::Shared ? a - ptx::kSharedWindow : a;
      for (unsigned i = 0; i < rq.width / esize; ++i) {
        std::uint32_t& x = tile[p.row][p.col + static_cast<int>(i)];
        if (load) {
          x = 0;
          std::memcpy(&x, bytes + i * esize, esize);
        } else {
          std::memcpy(bytes + i * esize, &x, esize);
        }
      }
    }
    if (rq.matrix) {
      AccessEvent proto;
      proto.kind = AccessKind::Matrix;
      proto.matrices = 4;
      proto.trans = m.frag == WmmaFrag::A ? m.col : !m.col;
      c.emit_kind(in, in.site, w, 0xFFFFFFFFu, Space::Shared, addrs, 16, proto);
      continue;
    }
    for (Space s : {Space::Shared, Space::Global, Space::Local})
      if (by_space[static_cast<int>(s)] && in.site >= 0)
        c.emit(in, w, by_space[static_cast<int>(s)], s, addrs, rq.width);
  }
  if (load)
    for (int l = 0; l < 32; ++l)
      for (int r = 0; r < regs; ++r) {
        // An f16 A or B fragment's registers 4-7 repeat 0-3 (x[8..15] = x[0..7], measured).
        const std::uint64_t v =
            pairs ? at(l, 2 * r) | (static_cast<std::uint64_t>(at(l, 2 * r + 1)) << 16) : at(l, r);
        c.set(in.frag[static_cast<std::size_t>(r)], w, l, v, Ty::B32);
      }
}

// wmma.mma: D = A B + C over the whole 16x16x16, as two mma.m16n8k16 would compute it.
void multiply(Ctx& c, const Instr& in, int w) {
  const ptx::MatrixMods& m = in.mod.mx;
  const Opnd* d = in.frag.data();
  const Opnd* a = d + m.nd;
  const Opnd* b = a + m.na;
  const Opnd* cc = b + m.nb;
  double A[16][16], B[16][16], C[16][16];
  // Register r of a fragment of pairs holds x[2r], x[2r + 1]; of f32, x[r]. An f16 A or B
  // fragment's registers 4-7 repeat 0-3: the tensor core reads 0-3 (wmma_sass.txt).
  const auto gather = [&](double(&to)[16][16], WmmaFrag f, MmaElem e, const Opnd* regs, int n) {
    for (int l = 0; l < 32; ++l)
      for (int r = 0; r < n && r < (e == MmaElem::F32 ? 8 : 4); ++r) {
        const auto v = static_cast<std::uint32_t>(c.val(regs[r], w, l));
        for (int j = 0; j < (e == MmaElem::F32 ? 1 : 2); ++j) {
          const WmmaPos p = wmma_element(f, l, e == MmaElem::F32 ? r : 2 * r + j);
          to[p.row][p.col] = mma_input(e, v, j);
        }
      }
  };
  gather(A, WmmaFrag::A, m.a, a, m.na);
  gather(B, WmmaFrag::B, m.b, b, m.nb);
  gather(C, WmmaFrag::C, m.c, cc, m.nc);
  std::uint32_t out[32][8] = {};
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < m.nd; ++r) {
      const int per = m.d == MmaElem::F32 ? 1 : 2;
      for (int j = 0; j < per; ++j) {
        const WmmaPos p = wmma_element(WmmaFrag::D, l, per == 1 ? r : 2 * r + j);
        const std::uint32_t bits =
            mma_float_element(m.d, C[p.row][p.col], A[p.row], &B[0][p.col], 16, 16);
        out[l][r] |= bits << (16 * j);
      }
    }
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < m.nd; ++r) c.set(d[r], w, l, out[l][r], Ty::B32);
}

}  // namespace

void wmma_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active) {
  if (exec != 0xFFFFFFFFu || active != exec) whole_warp(c, pc, w, exec);
  if (in.op == Opc::WmmaMma)
    multiply(c, in, w);
  else
    move(c, in, pc, w);
}

}  // namespace bankcheck::emu::detail
