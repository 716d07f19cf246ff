// The decoder's forms of the tensor cores: ldmatrix/stmatrix, mma, wmma (load, store and
// multiply); wgmma's is in decode_wgmma.cpp.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

#include "decode_form.hpp"

namespace bankcheck::ptx::detail {

// ldmatrix/stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans][.shared].b16: a list of 1, 2 or 4
// registers (one per 8x8 matrix) and the address of the lane's row.
void Form::form_Matrix() {
  const bool load = opc == Opc::Ldmatrix;
  ins.op = opc;
  ins.type = Ty::B16;
  ins.space = space_of(in);
  if (!has(in, ".m8n8"))
    fail(in, op + " shapes other than .m8n8 (.m16n16, .m8n16: 8-bit and 4-bit sources) are not "
                  "supported");
  if (!has(in, ".b16")) fail(in, op + " needs .b16");
  ins.mod.mx.matrices = has(in, ".x4") ? 4 : has(in, ".x2") ? 2 : has(in, ".x1") ? 1 : 0;
  if (!ins.mod.mx.matrices) fail(in, op + " needs .x1, .x2 or .x4");
  ins.mod.mx.trans = has(in, ".trans");
  need(2);
  const auto& regs = in.operands[load ? 0 : 1];
  frag_list(regs, Ty::B32, "the matrix registers");
  if (ins.frag.size() != ins.mod.mx.matrices)
    fail(in,
         fmt::format("{} .x{} takes {} registers", op, ins.mod.mx.matrices, ins.mod.mx.matrices));
  ins.frag_defs = load ? ins.mod.mx.matrices : 0;
  ins.mem = memref(in, in.operands[load ? 1 : 0], ins.space);
}

// movmatrix.sync.aligned.m8n8.trans.b16 d, a: the warp's 8x8 matrix of b16 in ldmatrix's
// fragment layout (one register per lane), transposed.
void Form::form_Movmatrix() {
  ins.op = Opc::Movmatrix;
  ins.type = Ty::B16;
  if (!has(in, ".sync") || !has(in, ".aligned")) fail(in, "movmatrix needs .sync.aligned");
  if (!has(in, ".m8n8") || !has(in, ".trans") || !has(in, ".b16"))
    fail(in, "movmatrix is .m8n8.trans.b16 only");
  need(2);
  dst(0, Ty::B32);
  src(1, Ty::B32);
}

namespace {
std::optional<MmaElem> mma_elem(std::string_view m) {
  static const std::pair<const char*, MmaElem> kElems[] = {
      {".f16", MmaElem::F16}, {".bf16", MmaElem::BF16}, {".tf32", MmaElem::TF32},
      {".f32", MmaElem::F32}, {".s8", MmaElem::S8},     {".u8", MmaElem::U8},
      {".s32", MmaElem::S32}};
  for (const auto& [n, e] : kElems)
    if (m == n) return e;
  return std::nullopt;
}
}  // namespace

// mma.sync.aligned.mMnNkK.row.col[.satfinite].dtype.atype.btype.ctype d, a, b, c: the
// shapes and types of the table below, each with the fragment sizes the ISA gives.
void Form::form_Mma() {
  ins.op = Opc::Mma;
  auto& mx = ins.mod.mx;
  if (!has(in, ".sync") || !has(in, ".aligned")) fail(in, "mma needs .sync.aligned");
  std::vector<MmaElem> el;
  for (const auto& m : in.modifiers) {
    if (auto e = mma_elem(m)) el.push_back(*e);
    if (m.size() > 2 && m[1] == 'm' && m.find('n') != std::string::npos) {
      unsigned M = 0, N = 0, K = 0;
      if (std::sscanf(m.c_str(), ".m%un%uk%u", &M, &N, &K) == 3) {
        mx.m = static_cast<std::uint8_t>(M);
        mx.n = static_cast<std::uint8_t>(N);
        mx.k = static_cast<std::uint8_t>(K);
      }
    }
  }
  mx.satfinite = has(in, ".satfinite");
  // Types as written: d, a, b, c (all four), or d and c alone for tf32/bf16 (the ISA's
  // .f32.bf16.bf16.f32 form always names four here).
  if (el.size() != 4) fail(in, "mma needs the d, a, b and c types");
  mx.d = el[0];
  mx.a = el[1];
  mx.b = el[2];
  mx.c = el[3];
  if (!has(in, ".row") || !has(in, ".col"))
    fail(in,
         "mma supports the .row.col operand layout only (the one the ISA defines for "
         "these shapes)");
  const bool f16in = (mx.a == MmaElem::F16 || mx.a == MmaElem::BF16) && mx.b == mx.a;
  const bool i8in =
      (mx.a == MmaElem::S8 || mx.a == MmaElem::U8) && (mx.b == MmaElem::S8 || mx.b == MmaElem::U8);
  const bool accf32 = mx.c == MmaElem::F32 && mx.d == MmaElem::F32;
  const bool accf16 = mx.c == MmaElem::F16 && mx.d == MmaElem::F16;
  const bool acci32 = mx.c == MmaElem::S32 && mx.d == MmaElem::S32;
  const auto shape = [&](int m, int n, int k) { return mx.m == m && mx.n == n && mx.k == k; };
  if (f16in && (shape(16, 8, 16) || shape(16, 8, 8)) &&
      (accf32 || (accf16 && mx.a == MmaElem::F16))) {
    mx.na = mx.k == 16 ? 4 : 2;
    mx.nb = mx.k == 16 ? 2 : 1;
    mx.nc = mx.nd = accf32 ? 4 : 2;
  } else if (mx.a == MmaElem::TF32 && mx.b == MmaElem::TF32 && accf32 &&
             (shape(16, 8, 8) || shape(16, 8, 4))) {
    mx.na = mx.k == 8 ? 4 : 2;
    mx.nb = mx.k == 8 ? 2 : 1;
    mx.nc = mx.nd = 4;
  } else if (i8in && acci32 && shape(16, 8, 32)) {
    mx.na = 4;
    mx.nb = 2;
    mx.nc = mx.nd = 4;
  } else {
    fail(in, fmt::format("mma.m{}n{}k{} with these types is not emulated (supported: m16n8k16 "
                         "and m16n8k8 f16/bf16 with f32 accumulators or f16 with f16, m16n8k8 "
                         "and m16n8k4 tf32, m16n8k32 s8/u8 with s32)",
                         mx.m, mx.n, mx.k));
  }
  need(4);
  const int counts[4] = {mx.nd, mx.na, mx.nb, mx.nc};
  const Ty tys[4] = {accf16 ? Ty::B32 : (acci32 ? Ty::S32 : Ty::F32), Ty::B32, Ty::B32,
                     accf16 ? Ty::B32 : (acci32 ? Ty::S32 : Ty::F32)};
  for (int i = 0; i < 4; ++i) {
    const std::size_t before = ins.frag.size();
    frag_list(in.operands[static_cast<std::size_t>(i)], tys[i], "an mma operand");
    if (ins.frag.size() - before != static_cast<std::size_t>(counts[i]))
      fail(in, fmt::format("mma operand {} takes {} registers", i + 1, counts[i]));
  }
  ins.frag_defs = mx.nd;
}

// wmma.load.{a,b,c}.sync.aligned.layout.m16n16k16[.ss].type r, [p][, stride];
// wmma.store.d.sync.aligned.layout.m16n16k16[.ss].type [p], r[, stride];
// wmma.mma.sync.aligned.alayout.blayout.m16n16k16.dtype.ctype d, a, b, c (f16 inputs) and
// wmma.mma.sync.aligned.alayout.blayout.m16n16k16.f32.bf16.bf16.f32 d, a, b, c.
// The fragments (registers per thread): a and b 8 for f16 (the PTX ISA's .f16x2 vectors),
// 4 for bf16; c and d 8 for f32, 4 for f16. Every other shape and type is refused with the
// form it names.
void Form::form_Wmma() {
  if (in.modifiers.empty()) fail(in, "wmma needs .load, .store or .mma");
  const std::string& what = in.modifiers[0];
  std::string shape, types;  // types: the element types as written, for the refusals
  std::vector<MmaElem> el;
  std::vector<bool> cols;  // the layouts, in order
  auto& mx = ins.mod.mx;
  static const char* const kRefused[] = {".s4", ".u4", ".b1", ".e4m3", ".e5m2"};
  const auto refused_type = [](const std::string& m) {
    return std::find(std::begin(kRefused), std::end(kRefused), m) != std::end(kRefused);
  };
  for (std::size_t i = 1; i < in.modifiers.size(); ++i) {
    const std::string& m = in.modifiers[i];
    if (parse_ty(m) || refused_type(m)) types += m;
    if (m == ".row" || m == ".col") {
      cols.push_back(m == ".col");
    } else if (m.size() > 2 && m[1] == 'm' && std::isdigit(static_cast<unsigned char>(m[2]))) {
      shape = m;
    } else if (auto e = mma_elem(m)) {
      el.push_back(*e);
    } else if (i == 1 && (m == ".a" || m == ".b" || m == ".c" || m == ".d")) {
      mx.frag = m == ".a"   ? WmmaFrag::A
                : m == ".b" ? WmmaFrag::B
                : m == ".c" ? WmmaFrag::C
                            : WmmaFrag::D;
    } else if (refused_type(m) || m == ".f64") {
      el.push_back(MmaElem::None);  // named in the refusal
    }
  }
  const std::string form =
      "wmma" + what + (mx.frag != WmmaFrag::None ? in.modifiers[1] : std::string());
  if (!has(in, ".sync") || !has(in, ".aligned")) fail(in, form + " needs .sync.aligned");
  if (shape != ".m16n16k16")
    fail(in, fmt::format("{} with shape {} is not emulated (only .m16n16k16 with f16 or bf16 "
                         "inputs is)",
                         form, shape.empty() ? "(none)" : shape));
  mx.m = mx.n = mx.k = 16;
  const std::function<void()> refuse = [&] {
    fail(in, fmt::format("{}{} is not emulated (only .m16n16k16 with f16 inputs and f16 or f32 "
                         "accumulators, or bf16 inputs and f32 accumulators, is)",
                         form, types));
  };
  if (has(in, ".satfinite")) refuse();
  if (what == ".load" || what == ".store") {
    if (cols.size() != 1) fail(in, form + " needs one layout, .row or .col");
    wmma_move(form, el, cols[0], refuse);
  } else if (what == ".mma") {
    if (cols.size() != 2) fail(in, "wmma.mma needs the layouts of a and b (.row or .col each)");
    wmma_mma(el, refuse);
  } else {
    fail(in, "unsupported instruction 'wmma" + what + "'");
  }
}

// wmma.load / wmma.store: the fragment's registers, the address, the optional stride.
void Form::wmma_move(const std::string& form, const std::vector<MmaElem>& el, bool col,
                     const std::function<void()>& refuse) {
  auto& mx = ins.mod.mx;
  const bool load = in.modifiers[0] == ".load";
  if (mx.frag == WmmaFrag::None || load == (mx.frag == WmmaFrag::D))
    fail(in, "wmma.load takes .a, .b or .c, wmma.store takes .d");
  if (el.size() != 1) refuse();
  const MmaElem e = el[0];
  const bool ab = mx.frag == WmmaFrag::A || mx.frag == WmmaFrag::B;
  if (ab ? (e != MmaElem::F16 && e != MmaElem::BF16) : (e != MmaElem::F16 && e != MmaElem::F32))
    refuse();
  ins.op = load ? Opc::WmmaLoad : Opc::WmmaStore;
  ins.space = space_of(in);
  if (ins.space != Space::Shared && ins.space != Space::Global && ins.space != Space::Generic)
    fail(in, form + " reads and writes .shared, .global or generic addresses only");
  mx.col = col;
  (mx.frag == WmmaFrag::A   ? mx.a
   : mx.frag == WmmaFrag::B ? mx.b
   : mx.frag == WmmaFrag::C ? mx.c
                            : mx.d) = e;
  ins.type = e == MmaElem::F32 ? Ty::F32 : e == MmaElem::BF16 ? Ty::BF16 : Ty::F16;
  const int regs = e == MmaElem::F32 ? 8 : (ab && e == MmaElem::F16 ? 8 : 4);
  if (in.operands.size() != 2 && in.operands.size() != 3)
    fail(in, form + " takes a register list, an address and an optional stride");
  frag_list(in.operands[load ? 0 : 1], e == MmaElem::F32 ? Ty::F32 : Ty::B32, "the fragment");
  if (ins.frag.size() != static_cast<std::size_t>(regs))
    fail(in, fmt::format("{}{} takes {} registers", form,
                         e == MmaElem::F32 ? ".f32" : e == MmaElem::F16 ? ".f16" : ".bf16", regs));
  ins.frag_defs = load ? static_cast<std::uint8_t>(regs) : 0;
  ins.mem = memref(in, in.operands[load ? 1 : 0], ins.space);
  if (in.operands.size() == 3) src(2, Ty::U32);
}

// wmma.mma: .dtype.ctype (each .f16 or .f32) for f16 inputs, .f32.bf16.bf16.f32 for bf16.
void Form::wmma_mma(const std::vector<MmaElem>& el, const std::function<void()>& refuse) {
  auto& mx = ins.mod.mx;
  const auto acc = [](MmaElem e) { return e == MmaElem::F16 || e == MmaElem::F32; };
  if (el.size() == 2 && acc(el[0]) && acc(el[1])) {
    mx.d = el[0];
    mx.c = el[1];
    mx.a = mx.b = MmaElem::F16;
  } else if (el.size() == 4 && el[0] == MmaElem::F32 && el[1] == MmaElem::BF16 &&
             el[2] == MmaElem::BF16 && el[3] == MmaElem::F32) {
    mx.d = mx.c = MmaElem::F32;
    mx.a = mx.b = MmaElem::BF16;
  } else {
    refuse();
  }
  ins.op = Opc::WmmaMma;
  ins.type = Ty::F32;
  mx.nd = mx.d == MmaElem::F32 ? 8 : 4;
  mx.na = mx.nb = mx.a == MmaElem::F16 ? 8 : 4;
  mx.nc = mx.c == MmaElem::F32 ? 8 : 4;
  need(4);
  const int counts[4] = {mx.nd, mx.na, mx.nb, mx.nc};
  const Ty kinds[4] = {mx.d == MmaElem::F32 ? Ty::F32 : Ty::B32, Ty::B32, Ty::B32,
                       mx.c == MmaElem::F32 ? Ty::F32 : Ty::B32};
  for (int i = 0; i < 4; ++i) {
    const std::size_t before = ins.frag.size();
    frag_list(in.operands[static_cast<std::size_t>(i)], kinds[i], "a wmma.mma operand");
    if (ins.frag.size() - before != static_cast<std::size_t>(counts[i]))
      fail(in, fmt::format("wmma.mma operand {} takes {} registers", i + 1, counts[i]));
  }
  ins.frag_defs = mx.nd;
}

}  // namespace bankcheck::ptx::detail
