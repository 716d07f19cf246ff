// The decoder's form of wgmma: the warpgroup's matrix multiply-accumulate
// (wgmma.mma_async, every dense shape and type family of sm_90a) and its fence,
// commit_group and wait_group, as the PTX ISA writes them:
//
//   wgmma.mma_async.sync.aligned.m64nNk16.dtype.{f16,bf16}.{f16,bf16}
//       d, a-desc|{a}, b-desc, scale-d, imm-scale-a, imm-scale-b{, imm-trans-a}, imm-trans-b;
//   wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32 d, a-desc|{a}, b-desc, scale-d,
//       imm-scale-a, imm-scale-b;
//   wgmma.mma_async.sync.aligned.m64nNk32.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2} (the same);
//   wgmma.mma_async.sync.aligned.m64nNk32{.satfinite}.s32.{s8,u8}.{s8,u8}
//       d, a-desc|{a}, b-desc, scale-d;
//   wgmma.fence.sync.aligned; wgmma.commit_group.sync.aligned;
//   wgmma.wait_group.sync.aligned N;
//
// imm-trans-a is written only when A comes from shared memory. The sparse form (.sp) and
// the single-bit one (.b1) are refused by name.
#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>

#include "decode_form.hpp"

namespace bankcheck::ptx::detail {

namespace {

std::optional<MmaElem> wgmma_elem(std::string_view m) {
  static const std::pair<const char*, MmaElem> kElems[] = {
      {".f16", MmaElem::F16}, {".bf16", MmaElem::BF16}, {".tf32", MmaElem::TF32},
      {".f32", MmaElem::F32}, {".s8", MmaElem::S8},     {".u8", MmaElem::U8},
      {".s32", MmaElem::S32}, {".e4m3", MmaElem::E4M3}, {".e5m2", MmaElem::E5M2}};
  for (const auto& [n, e] : kElems)
    if (m == n) return e;
  return std::nullopt;
}

bool eight_bit_float(MmaElem e) { return e == MmaElem::E4M3 || e == MmaElem::E5M2; }
bool eight_bit_int(MmaElem e) { return e == MmaElem::S8 || e == MmaElem::U8; }

}  // namespace

void Form::form_Wgmma() {
  ins.op = Opc::Wgmma;
  WgmmaMods& wg = ins.mod.wg;
  if (!has(in, ".sync") || !has(in, ".aligned")) fail(in, "wgmma needs .sync.aligned");
  if (has(in, ".fence")) {
    wg.op = WgmmaOp::Fence;
    need(0);
    return;
  }
  if (has(in, ".commit_group")) {
    wg.op = WgmmaOp::Commit;
    need(0);
    return;
  }
  if (has(in, ".wait_group")) {
    wg.op = WgmmaOp::Wait;
    need(1);
    const Opnd n = operand(in, in.operands[0], Ty::U32);
    if (n.kind != Opnd::Kind::Imm || n.imm > 255)
      fail(in, "wgmma.wait_group takes an integer constant");
    wg.wait_n = static_cast<std::uint8_t>(n.imm);
    return;
  }
  if (!has(in, ".mma_async"))
    fail(in,
         "unsupported wgmma operation (mma_async, fence, "
         "commit_group and wait_group are emulated)");
  if (has(in, ".sp")) fail(in, "wgmma.mma_async.sp (structured sparsity) is not emulated");
  if (has(in, ".b1")) fail(in, "wgmma.mma_async with .b1 operands is not emulated");
  unsigned M = 0, N = 0, K = 0;
  std::vector<MmaElem> el;
  for (const auto& m : in.modifiers) {
    if (auto e = wgmma_elem(m)) el.push_back(*e);
    if (m.size() > 2 && m[1] == 'm') std::sscanf(m.c_str(), ".m%un%uk%u", &M, &N, &K);
  }
  wg.satfinite = has(in, ".satfinite");
  if (el.size() != 3) fail(in, "wgmma.mma_async needs the types of d, a and b");
  wg.d = el[0];
  wg.a = el[1];
  wg.b = el[2];
  const bool f16 = (wg.a == MmaElem::F16 || wg.a == MmaElem::BF16) && wg.b == wg.a &&
                   (wg.d == MmaElem::F32 || (wg.d == MmaElem::F16 && wg.a == MmaElem::F16));
  const bool tf32 = wg.a == MmaElem::TF32 && wg.b == MmaElem::TF32 && wg.d == MmaElem::F32;
  const bool fp8 = eight_bit_float(wg.a) && eight_bit_float(wg.b) &&
                   (wg.d == MmaElem::F32 || wg.d == MmaElem::F16);
  const bool i8 = eight_bit_int(wg.a) && eight_bit_int(wg.b) && wg.d == MmaElem::S32;
  if (!f16 && !tf32 && !fp8 && !i8)
    fail(in,
         "wgmma.mma_async with these types is not a form the PTX ISA defines (f16/bf16 "
         "with f32 or f16 accumulators, tf32, e4m3/e5m2 with f32 or f16, s8/u8 with s32)");
  const unsigned want_k = tf32 ? 8 : f16 ? 16 : 32;
  // N: multiples of 8 from 8 to 256; for the integer forms above 24, multiples of 16.
  const bool n_ok = N >= 8 && N <= 256 && N % 8 == 0 && (!i8 || N <= 24 || N % 16 == 0);
  if (M != 64 || K != want_k || !n_ok)
    fail(in, fmt::format("wgmma.mma_async shape .m{}n{}k{} is not defined for these types (m64, "
                         "k{}, n from 8 to 256 in steps of 8{})",
                         M, N, K, want_k, i8 ? ", of 16 above 24" : ""));
  if (wg.satfinite && !i8) fail(in, "wgmma .satfinite applies to the integer forms only");
  wg.n = static_cast<std::uint16_t>(N);
  wg.k = static_cast<std::uint8_t>(K);
  const bool pairs = wg.d == MmaElem::F16;
  wg.nd = static_cast<std::uint8_t>(pairs ? N / 4 : N / 2);
  if (in.operands.size() < 4) fail(in, "wgmma.mma_async takes d, a, b and scale-d at least");
  wg.a_regs = in.operands[1].kind == Operand::Kind::Vector;
  // The immediates after scale-d: scale-a and scale-b (not for the integer forms), then
  // trans-a (A from shared memory) and trans-b (16-bit types only).
  const std::size_t imms = i8 ? 0 : f16 ? (wg.a_regs ? 3 : 4) : 2;
  need(4 + imms);
  const Ty dty = pairs ? Ty::B32 : i8 ? Ty::S32 : Ty::F32;
  frag_list(in.operands[0], dty, "wgmma's d");
  if (ins.frag.size() != wg.nd)
    fail(in, fmt::format("wgmma.mma_async .m64n{}k{} with {} accumulators takes {} d registers, "
                         "got {}",
                         N, K,
                         pairs ? ".f16"
                         : i8  ? ".s32"
                               : ".f32",
                         wg.nd, ins.frag.size()));
  // D is read and written: its registers again as sources keep them live before the
  // instruction (the emulator's register slots are assigned from liveness).
  ins.frag_defs = wg.nd;
  for (std::size_t i = 0; i < wg.nd; ++i) ins.frag.push_back(ins.frag[i]);
  if (wg.a_regs) {
    const std::size_t before = ins.frag.size();
    frag_list(in.operands[1], Ty::B32, "wgmma's a");
    if (ins.frag.size() - before != 4) fail(in, "wgmma's a from registers takes 4 registers");
  } else {
    src(1, Ty::B64);
  }
  ins.src[1] = operand(in, in.operands[2], Ty::B64);
  if (wg.a_regs) ins.src[0] = Opnd{};
  ins.nsrc = 3;
  // scale-d: a predicate (the decoder knows predicate registers by name) or a constant.
  ins.src[2] = operand(in, in.operands[3], Ty::U32);
  const auto imm = [&](std::size_t i, const char* what) {
    const Opnd o = operand(in, in.operands[i], Ty::S32);
    if (o.kind != Opnd::Kind::Imm) fail(in, fmt::format("wgmma's {} must be a constant", what));
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(o.imm));
  };
  if (!i8) {
    const int sa = imm(4, "imm-scale-a"), sb = imm(5, "imm-scale-b");
    if ((sa != 1 && sa != -1) || (sb != 1 && sb != -1))
      fail(in, "wgmma's imm-scale-a and imm-scale-b are 1 or -1");
    wg.neg_a = sa == -1;
    wg.neg_b = sb == -1;
  }
  if (f16) {
    std::size_t at = 6;
    if (!wg.a_regs) {
      const int ta = imm(at++, "imm-trans-a");
      if (ta != 0 && ta != 1) fail(in, "wgmma's imm-trans-a is 0 or 1");
      wg.trans_a = ta == 1;
    }
    const int tb = imm(at, "imm-trans-b");
    if (tb != 0 && tb != 1) fail(in, "wgmma's imm-trans-b is 0 or 1");
    wg.trans_b = tb == 1;
  }
}

}  // namespace bankcheck::ptx::detail
