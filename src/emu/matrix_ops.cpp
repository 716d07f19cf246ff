// The tensor-core instructions of one warp: ldmatrix and stmatrix (8x8 matrices of 16-bit
// elements between shared memory and the lanes' registers) and mma.sync (a warp-wide
// matrix multiply-accumulate), with the fragment layouts of the PTX ISA ("Matrix fragments
// for mma.m16n8k*", "Warp-level matrix load instruction: ldmatrix").
//
// mma's arithmetic: each element of D is C plus the K products, summed in float64 in k
// order and rounded once (f32: round to nearest even; f16: to_half .rn). The products of
// f16, bf16, tf32 and 8-bit inputs are exact in float64, so the only rounding is the last
// one. The H100's tensor cores align and truncate inside the sum instead, so GPU results
// may differ from these in the last bits of f32 (the tests compare against a float64
// reference with a tolerance; the integer forms are exact, wrapping or, with .satfinite,
// clamping to s32).
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cta.hpp"
#include "narrow_float.hpp"

namespace bankcheck::emu::detail {

using ptx::MmaElem;

namespace {
// bf16 is the upper half of an f32. (A local helper: the f16/bf16 arithmetic has its own.)
float bf16_to_float(std::uint16_t h) { return as_f32(static_cast<std::uint64_t>(h) << 16); }
}  // namespace

double mma_input(MmaElem e, std::uint32_t reg, int j) {
  switch (e) {
    case MmaElem::F16:
      return half_to_float(static_cast<std::uint16_t>(reg >> (16 * j)));
    case MmaElem::BF16:
      return bf16_to_float(static_cast<std::uint16_t>(reg >> (16 * j)));
    case MmaElem::TF32:  // the low 13 bits of the f32 pattern are not part of a tf32
      return as_f32(reg & 0xFFFFE000u);
    case MmaElem::F32:
      return as_f32(reg);
    case MmaElem::S8:
      return static_cast<std::int8_t>(reg >> (8 * j));
    case MmaElem::U8:
      return static_cast<std::uint8_t>(reg >> (8 * j));
    case MmaElem::S32:
      return static_cast<std::int32_t>(reg);
    case MmaElem::E4M3:
      return narrow_to_double(kE4M3, (reg >> (8 * j)) & 0xFFu);
    case MmaElem::E5M2:
      return narrow_to_double(kE5M2, (reg >> (8 * j)) & 0xFFu);
    case MmaElem::None:
      break;
  }
  return 0;
}

std::uint32_t mma_float_element(MmaElem d, double c, const double* a, const double* b,
                                int b_stride, int k) {
  double s = c;
  for (int i = 0; i < k; ++i) s += a[i] * b[i * b_stride];
  if (d == MmaElem::F16) return to_half(s, ptx::Round::Rn);
  const float f = static_cast<float>(s);
  return std::isnan(f) ? 0x7fffffffu : static_cast<std::uint32_t>(from_f32(f));
}

namespace {

int per_reg(MmaElem e) {
  return e == MmaElem::F16 || e == MmaElem::BF16 ? 2 : (e == MmaElem::S8 || e == MmaElem::U8 ? 4 : 1);
}

struct Pos {
  int row, col;
};

// Where element j of register i of lane (g = lane / 4, t = lane % 4) sits, per operand.
Pos pos_a(const ptx::MatrixMods& m, int i, int j, int g, int t) {
  if (m.a == MmaElem::TF32)
    return m.k == 8 ? Pos{g + 8 * (i & 1), t + 4 * (i >> 1)} : Pos{g + 8 * i, t};
  if (m.a == MmaElem::S8 || m.a == MmaElem::U8) return {g + 8 * (i & 1), 4 * t + j + 16 * (i >> 1)};
  return m.k == 16 ? Pos{g + 8 * (i & 1), 2 * t + j + 8 * (i >> 1)} : Pos{g + 8 * i, 2 * t + j};
}
Pos pos_b(const ptx::MatrixMods& m, int i, int j, int g, int t) {  // {k, n}
  if (m.b == MmaElem::TF32) return {t + 4 * i, g};
  if (m.b == MmaElem::S8 || m.b == MmaElem::U8) return {4 * t + j + 16 * i, g};
  return {2 * t + j + 8 * i, g};
}
Pos pos_c(MmaElem e, int i, int j, int g, int t) {
  if (e == MmaElem::F16) return {g + 8 * i, 2 * t + j};
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}

// The shape tensor-core GEMMs use, m16n8k16 with f16 or bf16 inputs and f32 C and D,
// without the general loops: the same arithmetic (exact products, summed in float64 in k
// order, rounded once), its fragment positions written out.
bool mma_16816_f32(Ctx& c, const ptx::MatrixMods& m, const Opnd* d, int w) {
  if (m.k != 16 || m.c != MmaElem::F32 || m.d != MmaElem::F32 || m.a != m.b ||
      (m.a != MmaElem::F16 && m.a != MmaElem::BF16) || m.na != 4 || m.nb != 2 || m.nc != 4 ||
      m.nd != 4)
    return false;
  // Every f16 as a float, looked up: the conversion dominated the instruction's cost.
  static const std::vector<float> kHalf = [] {
    std::vector<float> t(65536);
    for (std::uint32_t h = 0; h < 65536; ++h) t[h] = half_to_float(static_cast<std::uint16_t>(h));
    return t;
  }();
  const bool bf = m.a == MmaElem::BF16;
  const float* half = kHalf.data();
  const auto value = [bf, half](std::uint32_t reg, int j) {
    const auto h = static_cast<std::uint16_t>(reg >> (16 * j));
    return static_cast<double>(bf ? bf16_to_float(h) : half[h]);
  };
  const Opnd* a = d + 4;
  const Opnd* b = a + 4;
  const Opnd* cc = b + 2;
  double A[16][16], B[16][8], S[16][8];  // S starts as C and becomes D
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int i = 0; i < 4; ++i) {
      const auto r = static_cast<std::uint32_t>(c.val(a[i], w, l));
      const int row = g + 8 * (i & 1), col = 2 * t + 8 * (i >> 1);
      A[row][col] = value(r, 0);
      A[row][col + 1] = value(r, 1);
    }
    for (int i = 0; i < 2; ++i) {
      const auto r = static_cast<std::uint32_t>(c.val(b[i], w, l));
      B[2 * t + 8 * i][g] = value(r, 0);
      B[2 * t + 8 * i + 1][g] = value(r, 1);
    }
    for (int i = 0; i < 4; ++i)
      S[g + 8 * (i >> 1)][2 * t + (i & 1)] = as_f32(c.val(cc[i], w, l));
  }
  // k outermost per row, the 8 columns innermost: each sum still runs in k order, and the
  // column loop vectorises.
  for (int row = 0; row < 16; ++row)
    for (int k = 0; k < 16; ++k)
      for (int n = 0; n < 8; ++n) S[row][n] += A[row][k] * B[k][n];
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int i = 0; i < 4; ++i) {
      const float f = static_cast<float>(S[g + 8 * (i >> 1)][2 * t + (i & 1)]);
      c.set(d[i], w, l, std::isnan(f) ? 0x7fffffffu : from_f32(f), Ty::B32);
    }
  }
  return true;
}

void mma(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active) {
  const ptx::MatrixMods& m = in.mod.mx;
  if (exec != active || active != 0xFFFFFFFFu)
    c.fail(EmuError::Kind::Unsupported, pc,
           fmt::format("mma.sync.aligned executed by lanes 0x{:08x} of warp {}: every lane of the "
                       "warp must execute it together",
                       exec, w));
  const Opnd* d = in.frag.data();
  if (mma_16816_f32(c, m, d, w)) return;
  double A[16][32] = {}, B[32][8] = {}, C[16][8] = {};
  const Opnd* a = d + m.nd;
  const Opnd* b = a + m.na;
  const Opnd* cc = b + m.nb;
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int i = 0; i < m.na; ++i) {
      const auto r = static_cast<std::uint32_t>(c.val(a[i], w, l));
      for (int j = 0; j < per_reg(m.a); ++j) {
        const Pos p = pos_a(m, i, j, g, t);
        A[p.row][p.col] = mma_input(m.a, r, j);
      }
    }
    for (int i = 0; i < m.nb; ++i) {
      const auto r = static_cast<std::uint32_t>(c.val(b[i], w, l));
      for (int j = 0; j < per_reg(m.b); ++j) {
        const Pos p = pos_b(m, i, j, g, t);
        B[p.row][p.col] = mma_input(m.b, r, j);
      }
    }
    for (int i = 0; i < m.nc; ++i) {
      const auto r = static_cast<std::uint32_t>(c.val(cc[i], w, l));
      for (int j = 0; j < per_reg(m.c); ++j) {
        const Pos p = pos_c(m.c, i, j, g, t);
        C[p.row][p.col] = mma_input(m.c, r, j);
      }
    }
  }
  const bool integer = m.d == MmaElem::S32;
  std::uint64_t out[32][4] = {};
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int i = 0; i < m.nd; ++i) {
      std::uint64_t reg = 0;
      for (int j = 0; j < per_reg(m.d); ++j) {
        const Pos p = pos_c(m.d, i, j, g, t);
        if (integer) {
          std::int64_t s = static_cast<std::int64_t>(C[p.row][p.col]);
          for (int k = 0; k < m.k; ++k)
            s += static_cast<std::int64_t>(A[p.row][k]) * static_cast<std::int64_t>(B[k][p.col]);
          if (m.satfinite) {
            s = std::min<std::int64_t>(std::max<std::int64_t>(s, INT32_MIN), INT32_MAX);
          }
          reg = static_cast<std::uint32_t>(s);
        } else {
          const std::uint32_t bits =
              mma_float_element(m.d, C[p.row][p.col], A[p.row], &B[0][p.col], 8, m.k);
          reg |= static_cast<std::uint64_t>(bits) << (m.d == MmaElem::F16 ? 16 * j : 0);
        }
      }
      out[l][i] = reg;
    }
  }
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < m.nd; ++i) c.set(d[i], w, l, out[l][i], Ty::B32);
}

// ldmatrix / stmatrix: lane 8m + r gives the address of row r of matrix m; lane l holds,
// in register m, elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1) of matrix m (the
// low half first), or with .trans elements (2 (l % 4), l / 4) and (2 (l % 4) + 1, l / 4).
void matrix_move(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active) {
  const bool load = in.op == Opc::Ldmatrix;
  const int n = in.mod.mx.matrices;
  const std::uint32_t need = n == 4 ? 0xFFFFFFFFu : ((1u << (8 * n)) - 1);
  if ((need & ~exec) || exec != active)
    c.fail(EmuError::Kind::Unsupported, pc,
           fmt::format("{}.sync.aligned executed by lanes 0x{:08x} of warp {}: every lane of the "
                       "warp must execute it, and lanes 0-{} give its row addresses",
                       load ? "ldmatrix" : "stmatrix", exec, w, 8 * n - 1));
  std::uint64_t addrs[32] = {};
  std::uint8_t* row[4][8];
  for (int l = 0; l < 8 * n; ++l) {
    const std::uint64_t a = c.address(in, w, l);
    Space actual;
    row[l / 8][l % 8] = c.resolve(in, pc, in.space, a, 16, w, l, actual);
    if (actual != Space::Shared)
      c.fail(EmuError::Kind::Unsupported, pc,
             fmt::format("{} row address of lane {} is not in shared memory",
                         load ? "ldmatrix" : "stmatrix", l));
    addrs[l] = in.space == Space::Generic ? a - ptx::kSharedWindow : a;
  }
  const auto at = [&](int mat, int r, int col) { return row[mat][r] + 2 * col; };
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const int g = l / 4, t = l % 4;
    for (int mat = 0; mat < n; ++mat) {
      std::uint8_t* e0 = in.mod.mx.trans ? at(mat, 2 * t, g) : at(mat, g, 2 * t);
      std::uint8_t* e1 = in.mod.mx.trans ? at(mat, 2 * t + 1, g) : at(mat, g, 2 * t + 1);
      if (load) {
        std::uint16_t lo, hi;
        std::memcpy(&lo, e0, 2);
        std::memcpy(&hi, e1, 2);
        c.set(in.frag[static_cast<std::size_t>(mat)], w, l,
              static_cast<std::uint64_t>(lo) | (static_cast<std::uint64_t>(hi) << 16), Ty::B32);
      } else {
        const auto v = static_cast<std::uint32_t>(c.val(in.frag[static_cast<std::size_t>(mat)], w, l));
        const std::uint16_t lo = static_cast<std::uint16_t>(v), hi = static_cast<std::uint16_t>(v >> 16);
        std::memcpy(e0, &lo, 2);
        std::memcpy(e1, &hi, 2);
      }
    }
  }
  AccessEvent proto;
  proto.kind = AccessKind::Matrix;
  proto.matrices = static_cast<std::uint8_t>(n);
  proto.trans = in.mod.mx.trans;
  c.emit_kind(in, in.site, w, need, Space::Shared, addrs, 16, proto);
}

}  // namespace

// movmatrix.m8n8.trans.b16: lane l holds elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1)
// of the matrix in its register (low half first), and receives those of the transpose:
// elements (2 (l % 4), l / 4) and (2 (l % 4) + 1, l / 4). Element (r, c) is in lane
// 4 r + c / 2, half c % 2.
static void movmatrix(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active) {
  if (exec != 0xFFFFFFFFu || active != exec)
    c.fail(EmuError::Kind::Unsupported, pc,
           fmt::format("movmatrix.sync.aligned executed by lanes 0x{:08x} of warp {}: every lane "
                       "of the warp must execute it",
                       exec, w));
  std::uint32_t a[32];
  for (int l = 0; l < 32; ++l) a[l] = static_cast<std::uint32_t>(c.val(in.src[0], w, l));
  const auto element = [&](int r, int col) -> std::uint32_t {
    return (a[4 * r + col / 2] >> (16 * (col % 2))) & 0xFFFFu;
  };
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    c.set(in.dst[0], w, l, element(2 * t, g) | (element(2 * t + 1, g) << 16), Ty::B32);
  }
}

void matrix_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active) {
  if (in.op == Opc::Movmatrix)
    movmatrix(c, in, pc, w, exec, active);
  else if (in.op == Opc::Mma)
    mma(c, in, pc, w, exec, active);
  else
    matrix_move(c, in, pc, w, exec, active);
}

}  // namespace bankcheck::emu::detail
