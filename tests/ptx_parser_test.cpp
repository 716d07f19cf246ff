// Tests of the PTX parser (bankcheck::ptx::parse): structure of nvcc-generated PTX under
// tests/data/ptx (regenerate with tests/data/ptx/README.md), hand-written fragments for
// syntax nvcc rarely emits, and properties that must hold for every input (errors and
// robustness: ptx_parser_errors_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "bankcheck/ptx/ast.hpp"

namespace {

using namespace bankcheck::ptx;
using Kind = Operand::Kind;

const char* const kDataFiles[] = {
    "transpose_sm90.ptx", "transpose_G_sm90.ptx", "transpose_O0_sm80.ptx", "misc_sm90.ptx",
    "indirect_sm90.ptx",  "scoped_sm80.ptx",      "cluster_sm90a.ptx",     "attrs_rdc_sm90.ptx",
};

std::string data_path(const std::string& name) {
  return std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/ptx/" + name;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Module load(const std::string& name) { return parse(read_file(data_path(name)), name); }

const Function& fn(const Module& m, const std::string& name) {
  for (const auto& f : m.functions) {
    if (f.name == name) return f;
  }
  throw std::runtime_error("no function " + name);
}

std::vector<const Instruction*> instructions(const Function& f) {
  std::vector<const Instruction*> out;
  for (const auto& s : f.body) {
    if (!s.is_label) out.push_back(&s.instruction);
  }
  return out;
}

// The first instruction whose text contains `needle`.
const Instruction& instr(const Function& f, const std::string& needle) {
  for (const auto* i : instructions(f)) {
    if (i->text.find(needle) != std::string::npos) return *i;
  }
  throw std::runtime_error("no instruction with " + needle);
}

std::vector<std::string> labels(const Function& f) {
  std::vector<std::string> out;
  for (const auto& s : f.body) {
    if (s.is_label) out.push_back(s.label);
  }
  return out;
}

const RegisterDecl* reg_decl(const Function& f, const std::string& name) {
  for (const auto& r : f.registers) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

const Variable& var(const std::vector<Variable>& vs, const std::string& name) {
  for (const auto& v : vs) {
    if (v.name == name) return v;
  }
  throw std::runtime_error("no variable " + name);
}

// A register name is declared: exactly, or as prefix+index of a `%r<N>` declaration.
bool declared(const Function& f, const std::string& name) {
  for (const auto& r : f.registers) {
    if (r.count == 0) {
      if (r.name == name) return true;
      continue;
    }
    if (name.size() <= r.name.size() || name.compare(0, r.name.size(), r.name) != 0) continue;
    const std::string digits = name.substr(r.name.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (digits.size() > 1 && digits[0] == '0') continue;
    if (std::stoll(digits) < r.count) return true;
  }
  return false;
}

bool is_special_register(const std::string& name) {
  static const char* const kPrefixes[] = {
      "%tid.",        "%ntid.",          "%ctaid.",          "%nctaid.",   "%clusterid.",
      "%nclusterid.", "%cluster_ctaid.", "%cluster_nctaid.", "%lanemask_", "%envreg"};
  static const std::set<std::string> kNames = {"%laneid",
                                               "%warpid",
                                               "%nwarpid",
                                               "%smid",
                                               "%nsmid",
                                               "%gridid",
                                               "%clock",
                                               "%clock64",
                                               "%globaltimer",
                                               "%globaltimer_lo",
                                               "%globaltimer_hi",
                                               "%cluster_ctarank",
                                               "%cluster_nctarank",
                                               "%is_explicit_cluster",
                                               "%dynamic_smem_size",
                                               "%total_smem_size"};
  if (kNames.count(name)) return true;
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](const char* p) { return name.rfind(p, 0) == 0; });
}

// SourceLoc has no operator==: compare loc chains as tuples.
using Locs = std::vector<std::tuple<int, int, int>>;
Locs chain(const Instruction& i) {
  Locs out;
  for (const auto& l : i.loc_chain) out.emplace_back(l.file, l.line, l.col);
  return out;
}

Module parse_str(const std::string& text) { return parse(text, "frag.ptx"); }

// Wraps body lines in a module with one kernel.
std::string kernel(const std::string& body, const std::string& decls = "") {
  return ".version 9.0\n.target sm_90\n.address_size 64\n" + decls + ".visible .entry k()\n{\n" +
         body + "}\n";
}

ParseError parse_error(const std::string& text) {
  try {
    parse(text, "bad.ptx");
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "no ParseError for:\n" << text;
  return ParseError("none", "", {}, "");
}

// ---- nvcc output ---------------------------------------------------------------------

TEST(PtxParserFiles, TransposeModuleAndKernel) {
  const Module m = load("transpose_sm90.ptx");
  EXPECT_EQ(m.version, "9.0");
  EXPECT_EQ(m.target, "sm_90");
  EXPECT_EQ(m.address_size, 64);
  EXPECT_TRUE(m.variables.empty());
  ASSERT_EQ(m.functions.size(), 1u);
  const Function& f = m.functions[0];
  EXPECT_EQ(f.name, "_Z9transposePfPKfi");
  EXPECT_TRUE(f.is_entry);
  EXPECT_TRUE(f.is_visible);
  EXPECT_FALSE(f.is_extern);
  EXPECT_EQ(f.pos.line, 16);
  EXPECT_EQ(f.pos.col, 17);
  ASSERT_EQ(f.params.size(), 3u);
  EXPECT_EQ(f.params[0].type, ".u64");
  EXPECT_EQ(f.params[0].name, "_Z9transposePfPKfi_param_0");
  EXPECT_EQ(f.params[2].type, ".u32");
  EXPECT_TRUE(f.returns.empty());
  using Dir = std::pair<std::string, std::vector<std::int64_t>>;
  EXPECT_EQ(f.directives, (std::vector<Dir>{{".maxntid", {256, 1, 1}}, {".minnctapersm", {2}}}));
  ASSERT_EQ(f.registers.size(), 3u);
  EXPECT_EQ(f.registers[0].type, ".f32");
  EXPECT_EQ(f.registers[0].name, "%f");
  EXPECT_EQ(f.registers[0].count, 21);
  EXPECT_EQ(f.registers[1].name, "%r");
  EXPECT_EQ(f.registers[1].count, 42);
  EXPECT_EQ(f.registers[2].type, ".b64");
  EXPECT_EQ(f.registers[2].count, 16);
  ASSERT_EQ(f.variables.size(), 1u);
  const Variable& tile = f.variables[0];
  EXPECT_EQ(tile.space, StateSpace::Shared);
  EXPECT_EQ(tile.name, "_ZZ9transposePfPKfiE4tile");
  EXPECT_EQ(tile.type, ".b8");
  EXPECT_EQ(tile.align, 4);
  EXPECT_EQ(tile.dims, std::vector<std::int64_t>{4224});
  EXPECT_TRUE(tile.init.empty());
  EXPECT_EQ(tile.pos.line, 29);
  EXPECT_EQ(instructions(f).size(), 86u);
  EXPECT_TRUE(labels(f).empty());
  // .file lines at the end of the module fill the table.
  ASSERT_EQ(m.files.size(), 3u);
  EXPECT_EQ(m.files[0], "");
  EXPECT_TRUE(m.files[1].ends_with("/src/transpose.cu")) << m.files[1];
  EXPECT_TRUE(m.files[2].ends_with("/src/helpers.cuh")) << m.files[2];
}

TEST(PtxParserFiles, TransposeInstructions) {
  const Module m = load("transpose_sm90.ptx");
  const Function& f = m.functions[0];
  const auto all = instructions(f);
  const Instruction& first = *all.front();
  EXPECT_EQ(first.opcode, "ld");
  EXPECT_EQ(first.modifiers, (std::vector<std::string>{".param", ".u64"}));
  EXPECT_EQ(first.pos.line, 31);
  EXPECT_EQ(first.pos.col, 2);
  ASSERT_EQ(first.operands.size(), 2u);
  EXPECT_EQ(first.operands[0].kind, Kind::Register);
  EXPECT_EQ(first.operands[0].name, "%rd1");
  EXPECT_EQ(first.operands[1].kind, Kind::Address);
  EXPECT_EQ(first.operands[1].name, "_Z9transposePfPKfi_param_0");
  EXPECT_FALSE(first.operands[1].base_is_reg);
  EXPECT_EQ(first.operands[1].imm, 0);
  EXPECT_EQ(chain(first), (Locs{{1, 4, 0}}));
  EXPECT_EQ(all.back()->opcode, "ret");
  EXPECT_TRUE(all.back()->operands.empty());

  const Instruction& tid = instr(f, "%tid.y");
  EXPECT_EQ(tid.operands[1].kind, Kind::Register);
  EXPECT_EQ(tid.operands[1].name, "%tid.y");

  const Instruction& st = instr(f, "[%r14+1056]");
  EXPECT_EQ(st.opcode, "st");
  EXPECT_EQ(st.modifiers, (std::vector<std::string>{".shared", ".f32"}));
  EXPECT_EQ(st.operands[0].kind, Kind::Address);
  EXPECT_EQ(st.operands[0].name, "%r14");
  EXPECT_TRUE(st.operands[0].base_is_reg);
  EXPECT_EQ(st.operands[0].imm, 1056);

  const Instruction& bar = instr(f, "bar.sync");
  ASSERT_EQ(bar.operands.size(), 1u);
  EXPECT_EQ(bar.operands[0].kind, Kind::Immediate);
  EXPECT_EQ(bar.operands[0].imm, 0);
  EXPECT_EQ(chain(bar), (Locs{{1, 8, 3}}));

  // Inlined twice: load_tile inside twice inside the kernel. The chain is the .loc written
  // last (innermost first, then its inlined_at), and above that call site the frames of the
  // .loc that set its line: twice's call in the kernel.
  const Instruction& ld = instr(f, "ld.shared.f32 \t%f5");
  EXPECT_EQ(chain(ld), (Locs{{2, 3, 73}, {2, 4, 73}, {1, 10, 3}}));
  const Instruction& add = instr(f, "add.f32 \t%f7");
  EXPECT_EQ(chain(add), (Locs{{2, 4, 73}, {1, 10, 3}}));

  const Instruction& fma = instr(f, "fma.rn.f32 \t%f8");
  ASSERT_EQ(fma.operands.size(), 4u);
  EXPECT_EQ(fma.operands[2].kind, Kind::FloatImm);
  EXPECT_EQ(fma.operands[2].fbits, 32);
  EXPECT_EQ(fma.operands[2].bits, 0x3F000000u);
  EXPECT_EQ(fma.operands[2].fvalue, 0.5);
  EXPECT_EQ(fma.operands[3].fvalue, 1.0);
  EXPECT_EQ(chain(fma), (Locs{{1, 10, 3}}));
}

TEST(PtxParserFiles, MiscModuleVariables) {
  const Module m = load("misc_sm90.ptx");
  const Variable& coeffs = var(m.variables, "coeffs");
  EXPECT_EQ(coeffs.space, StateSpace::Const);
  EXPECT_EQ(coeffs.dims, std::vector<std::int64_t>{16});
  ASSERT_EQ(coeffs.init.size(), 16u);
  float c[4];
  std::memcpy(c, coeffs.init.data(), 16);
  EXPECT_EQ(c[0], 1.0f);
  EXPECT_EQ(c[1], 2.5f);
  EXPECT_EQ(c[2], -3.0f);
  EXPECT_EQ(c[3], 0.125f);
  // Trailing zeros are left out by nvcc; the bytes are what is written.
  EXPECT_EQ(var(m.variables, "counters").init,
            (std::vector<std::uint8_t>{1, 0, 0, 0, 2, 0, 0, 0, 3}));
  const Variable& dval = var(m.variables, "dval");
  EXPECT_EQ(dval.type, ".f64");
  EXPECT_TRUE(dval.dims.empty());
  EXPECT_EQ(dval.align, 8);
  ASSERT_EQ(dval.init.size(), 8u);
  double d = 0;
  std::memcpy(&d, dval.init.data(), 8);
  EXPECT_EQ(d, 3.25);
  const Variable& dyn = var(m.variables, "dyn");
  EXPECT_EQ(dyn.space, StateSpace::Shared);
  EXPECT_TRUE(dyn.is_extern);
  EXPECT_EQ(dyn.align, 16);
  EXPECT_EQ(dyn.dims, std::vector<std::int64_t>{-1});
  const Variable& str = var(m.variables, "$str");
  EXPECT_EQ(str.dims, std::vector<std::int64_t>{9});
  EXPECT_EQ(std::string(str.init.begin(), str.init.end()), "x=%d %f\n");
}

TEST(PtxParserFiles, MiscFunctions) {
  const Module m = load("misc_sm90.ptx");
  ASSERT_EQ(m.functions.size(), 4u);
  const Function& vprintf = fn(m, "vprintf");
  EXPECT_TRUE(vprintf.is_extern);
  EXPECT_FALSE(vprintf.is_entry);
  EXPECT_TRUE(vprintf.body.empty());
  ASSERT_EQ(vprintf.returns.size(), 1u);
  EXPECT_EQ(vprintf.returns[0].name, "func_retval0");
  EXPECT_EQ(vprintf.returns[0].type, ".b32");
  EXPECT_EQ(vprintf.params.size(), 2u);
  const Function& helper = fn(m, "_Z6helperi1S");
  EXPECT_FALSE(helper.is_entry);
  EXPECT_FALSE(helper.is_visible);
  ASSERT_EQ(helper.params.size(), 2u);
  EXPECT_EQ(helper.params[1].type, ".b8");
  EXPECT_EQ(helper.params[1].align, 8);
  EXPECT_EQ(helper.params[1].dims, std::vector<std::int64_t>{16});
  const Instruction& ldp = instr(helper, "[_Z6helperi1S_param_1+8]");
  EXPECT_EQ(ldp.operands[1].imm, 8);
  const Function& k = fn(m, "_Z6kernel1SPiP6__halfPfPd");
  EXPECT_EQ(instructions(k).size(), 121u);
  EXPECT_EQ(labels(k), (std::vector<std::string>{"$L__BB2_2", "$L__BB2_4"}));
  EXPECT_EQ(var(k.variables, "__local_depot2").space, StateSpace::Local);
  EXPECT_NE(reg_decl(k, "%SP"), nullptr);
  EXPECT_EQ(reg_decl(k, "%SP")->count, 0);
}

TEST(PtxParserFiles, MiscOperands) {
  const Module m = load("misc_sm90.ptx");
  const Function& k = fn(m, "_Z6kernel1SPiP6__halfPfPd");

  const Instruction& v4 = instr(k, "ld.shared.v4.f32");
  EXPECT_EQ(v4.modifiers, (std::vector<std::string>{".shared", ".v4", ".f32"}));
  ASSERT_EQ(v4.operands[0].kind, Kind::Vector);
  ASSERT_EQ(v4.operands[0].elems.size(), 4u);
  EXPECT_EQ(v4.operands[0].elems[3].name, "%f6");
  EXPECT_EQ(v4.operands[0].elems[3].kind, Kind::Register);

  const Instruction& shfl = instr(k, "shfl.sync.idx.b32");
  ASSERT_EQ(shfl.operands.size(), 5u);
  ASSERT_EQ(shfl.operands[0].kind, Kind::Pair);
  EXPECT_EQ(shfl.operands[0].elems[0].name, "%r2");
  EXPECT_EQ(shfl.operands[0].elems[1].name, "%p1");
  EXPECT_EQ(chain(shfl), (Locs{{2, 373, 9}, {1, 24, 3}}));

  EXPECT_EQ(instr(k, "mov.u32 \t%r24, -1").operands[1].imm, -1);
  for (const char* special : {"%laneid", "%clock64", "%lanemask_lt", "%tid.x"}) {
    const Instruction& i = instr(k, std::string(", ") + special + ";");
    EXPECT_EQ(i.operands[1].kind, Kind::Register) << special;
    EXPECT_EQ(i.operands[1].name, special);
  }
  const Instruction& atomf = instr(k, "atom.global.add.f32");
  EXPECT_EQ(atomf.operands[2].kind, Kind::FloatImm);
  EXPECT_EQ(atomf.operands[2].fvalue, 1.5);
  const Instruction& fma = instr(k, "fma.rn.f64");
  EXPECT_EQ(fma.operands[2].fbits, 64);
  EXPECT_EQ(fma.operands[2].bits, 0x3FF000010C6F7A0Bull);

  const Instruction& bra = instr(k, "bra \t$L__BB2_2");
  ASSERT_TRUE(bra.guard.has_value());
  EXPECT_EQ(*bra.guard, "%p4");
  EXPECT_FALSE(bra.guard_negated);
  EXPECT_EQ(bra.operands[0].kind, Kind::Symbol);
  EXPECT_EQ(bra.operands[0].name, "$L__BB2_2");
}

TEST(PtxParserFiles, MiscCallsAndScopedParams) {
  const Module m = load("misc_sm90.ptx");
  const Function& k = fn(m, "_Z6kernel1SPiP6__halfPfPd");
  // call.uni (retval0), _Z6helperi1S, (param0, param1); written over six lines.
  const Instruction& call = instr(k, "_Z6helperi1S");
  EXPECT_EQ(call.opcode, "call");
  EXPECT_EQ(call.modifiers, std::vector<std::string>{".uni"});
  EXPECT_EQ(call.text, "call.uni (retval0), _Z6helperi1S, ( param0, param1 );");
  ASSERT_EQ(call.operands.size(), 3u);
  ASSERT_EQ(call.operands[0].kind, Kind::Vector);
  ASSERT_EQ(call.operands[0].elems.size(), 1u);
  const std::string retval = call.operands[0].elems[0].name;
  EXPECT_EQ(call.operands[1].kind, Kind::Symbol);
  EXPECT_EQ(call.operands[1].name, "_Z6helperi1S");
  ASSERT_EQ(call.operands[2].elems.size(), 2u);
  const std::string param0 = call.operands[2].elems[0].name;
  // .param declarations of a callseq block are scoped: renamed, and their uses with them.
  EXPECT_NE(param0, "param0");
  EXPECT_EQ(param0.rfind("param0$s", 0), 0u) << param0;
  EXPECT_EQ(var(k.variables, param0).space, StateSpace::Param);
  EXPECT_EQ(var(k.variables, param0).type, ".b32");
  EXPECT_EQ(var(k.variables, call.operands[2].elems[1].name).dims, std::vector<std::int64_t>{16});
  EXPECT_EQ(instr(k, "st.param.b32 \t[param0+0], %r6").operands[0].name, param0);
  EXPECT_EQ(instr(k, "%r12, [retval0+0]").operands[1].name, retval);

  // The printf call: a different callseq block, so different names.
  const Instruction& printf_call = instr(k, "vprintf");
  EXPECT_NE(printf_call.operands[2].elems[0].name, param0);
  // A call without a return value: callee, then the (empty) argument list.
  const Instruction& dies = instr(k, "_Z4diesv");
  ASSERT_EQ(dies.operands.size(), 2u);
  EXPECT_EQ(dies.operands[0].kind, Kind::Symbol);
  EXPECT_EQ(dies.operands[1].kind, Kind::Vector);
  EXPECT_TRUE(dies.operands[1].elems.empty());
}

TEST(PtxParserFiles, MiscInlineAsmScopes) {
  const Module m = load("misc_sm90.ptx");
  const Function& k = fn(m, "_Z6kernel1SPiP6__halfPfPd");
  // { .reg .pred p; .reg .b32 q; setp.eq.u32 p, %r6, 0; selp.b32 %r3, 1, 0, p; }
  const Instruction& setp1 = instr(k, "setp.eq.u32 p,");
  const std::string p1 = setp1.operands[0].name;
  EXPECT_EQ(setp1.operands[0].kind, Kind::Register);
  EXPECT_EQ(p1.rfind("p$s", 0), 0u) << p1;
  EXPECT_EQ(instr(k, "selp.b32 %r3").operands[3].name, p1);
  ASSERT_NE(reg_decl(k, p1), nullptr);
  EXPECT_EQ(reg_decl(k, p1)->type, ".pred");
  EXPECT_EQ(reg_decl(k, p1)->count, 0);
  // { .reg .pred p; setp.ne.u32 p, %r6, 0; @p mov.u32 %r5, 7; @!p mov.u32 %r5, 9; }
  const Instruction& setp2 = instr(k, "setp.ne.u32 p,");
  const std::string p2 = setp2.operands[0].name;
  EXPECT_NE(p1, p2);
  const Instruction& g1 = instr(k, "@p mov.u32");
  EXPECT_EQ(*g1.guard, p2);
  EXPECT_FALSE(g1.guard_negated);
  const Instruction& g2 = instr(k, "@!p mov.u32");
  EXPECT_EQ(*g2.guard, p2);
  EXPECT_TRUE(g2.guard_negated);
  // Several instructions on one line: each its own position and text.
  EXPECT_EQ(setp1.pos.line, instr(k, "selp.b32 %r3").pos.line);
  EXPECT_LT(setp1.pos.col, instr(k, "selp.b32 %r3").pos.col);
  EXPECT_EQ(setp1.text, "setp.eq.u32 p, %r6, 0;");
}

TEST(PtxParserFiles, NestedScopesShadow) {
  const Module m = load("scoped_sm80.ptx");
  const Function& k = fn(m, "_Z6scopedPiPKfy");
  // Outer block: p and t<3>; inner block: p again (shadows); sibling block: t<3> again.
  const Instruction& outer_setp = instr(k, "setp.lt.s32 p");
  const Instruction& inner_setp = instr(k, "setp.gt.s32 p");
  const std::string outer_p = outer_setp.operands[0].name;
  const std::string inner_p = inner_setp.operands[0].name;
  EXPECT_NE(outer_p, inner_p);
  EXPECT_EQ(outer_p, "p$s1");
  EXPECT_EQ(inner_p, "p$s2");
  const Instruction& inner_add = instr(k, "@p add.s32 t1");
  EXPECT_EQ(*inner_add.guard, inner_p);
  EXPECT_EQ(inner_add.operands[0].name, "t$s1$1");  // t<3> from the outer block
  EXPECT_EQ(inner_add.operands[0].kind, Kind::Register);
  ASSERT_NE(reg_decl(k, "t$s1$"), nullptr);
  EXPECT_EQ(reg_decl(k, "t$s1$")->count, 3);
  // After the inner block closes, p is the outer one again.
  const Instruction& after = instr(k, "@p add.s32 %r8");
  EXPECT_EQ(*after.guard, outer_p);
  EXPECT_EQ(after.operands[2].name, "t$s1$1");
  // The sibling asm block's t<3> is a different set of registers.
  EXPECT_EQ(instr(k, "mov.b32 t2").operands[0].name, "t$s3$2");
  EXPECT_EQ(instr(k, "add.s32 %r10, t2, -1").operands[1].name, "t$s3$2");
  EXPECT_EQ(instr(k, "add.s32 %r10, t2, -1").operands[2].imm, -1);
}

TEST(PtxParserFiles, ScopedFileOperands) {
  const Module m = load("scoped_sm80.ptx");
  const Function& k = fn(m, "_Z6scopedPiPKfy");
  const Instruction& movv = instr(k, "mov.b64 {%r12, %r13}");
  EXPECT_EQ(movv.operands[0].kind, Kind::Vector);
  EXPECT_EQ(movv.operands[0].elems.size(), 2u);
  const Instruction& st = instr(k, "[%r14+-8]");
  EXPECT_EQ(st.operands[0].imm, -8);
  EXPECT_EQ(st.operands[1].kind, Kind::Vector);
  EXPECT_EQ(instr(k, "[%rd14+-4]").operands[1].imm, -4);
  EXPECT_EQ(instr(k, "[%rd14+-12]").operands[1].imm, -12);
  const Instruction& tex = instr(k, "tex.2d.v4.f32.f32");
  ASSERT_EQ(tex.operands.size(), 2u);
  EXPECT_EQ(tex.operands[1].kind, Kind::Address);
  EXPECT_TRUE(tex.operands[1].base_is_reg);
  ASSERT_EQ(tex.operands[1].elems.size(), 1u);  // the coordinates: [tex, {x, y}]
  EXPECT_EQ(tex.operands[1].elems[0].kind, Kind::Vector);
  EXPECT_EQ(tex.operands[1].elems[0].elems.size(), 2u);
  // tex2D's body (file 2 line 145), inlined into the header's wrapper (line 152), inlined
  // into the kernel's line 10: the whole chain.
  ASSERT_EQ(tex.loc_chain.size(), 3u);
  EXPECT_EQ(tex.loc_chain[2].file, 1);
  EXPECT_EQ(tex.loc_chain[2].line, 10);
  EXPECT_EQ(instr(k, "%globaltimer").operands[1].name, "%globaltimer");
  // `.pragma "nounroll";` is not an instruction.
  for (const auto* i : instructions(k)) EXPECT_NE(i->opcode, "pragma");
  EXPECT_EQ(instructions(k).size(), 71u);
  EXPECT_EQ(fn(m, "_Z6scopedPiPKfy").registers.size(), 9u);
}

TEST(PtxParserFiles, IndirectCallAndForwardDeclarations) {
  const Module m = load("indirect_sm90.ptx");
  // _Z2f1i and _Z2f2i are declared first, defined later: one Function each, with body,
  // where the declaration was.
  ASSERT_EQ(m.functions.size(), 4u);
  EXPECT_EQ(m.functions[0].name, "_Z2f1i");
  EXPECT_EQ(m.functions[1].name, "_Z2f2i");
  EXPECT_FALSE(m.functions[0].is_extern);
  EXPECT_EQ(instructions(m.functions[0]).size(), 4u);
  const Variable& table = var(m.variables, "table");
  EXPECT_EQ(table.type, ".u64");
  EXPECT_EQ(table.dims, std::vector<std::int64_t>{2});
  EXPECT_EQ(table.init, std::vector<std::uint8_t>(16, 0));  // addresses: not known here
  ASSERT_EQ(table.relocations.size(), 2u);                  // but where they go
  EXPECT_EQ(table.relocations[0].symbol, "_Z2f1i");
  EXPECT_EQ(table.relocations[1].offset, 8u);
  EXPECT_EQ(table.relocations[1].symbol, "_Z2f2i");
  const Function& k = fn(m, "_Z3indPii");
  EXPECT_EQ(k.directives.at(0).first, ".maxntid");
  // call (retval0), %rd8, (param0), prototype_0;
  const Instruction& call = instr(k, "prototype_0");
  ASSERT_EQ(call.operands.size(), 4u);
  EXPECT_EQ(call.operands[0].kind, Kind::Vector);
  EXPECT_EQ(call.operands[1].kind, Kind::Register);
  EXPECT_EQ(call.operands[1].name, "%rd8");
  EXPECT_EQ(call.operands[2].kind, Kind::Vector);
  EXPECT_EQ(call.operands[3].kind, Kind::Symbol);
  EXPECT_EQ(call.operands[3].name, "prototype_0");
  EXPECT_TRUE(call.modifiers.empty());
  // The `prototype_0 : .callprototype ...;` declaration is neither label nor instruction.
  EXPECT_TRUE(labels(k).empty());
  EXPECT_EQ(instructions(k).size(), 16u);
  EXPECT_EQ(instr(fn(m, "_Z3negPi"), "add.s32 \t%r2").operands[2].imm, -2);
}

TEST(PtxParserFiles, LinkageAndDirectives) {
  const Module m = load("attrs_rdc_sm90.ptx");
  EXPECT_TRUE(fn(m, "ident_alias").is_extern);
  EXPECT_TRUE(fn(m, "ident").is_visible);
  EXPECT_TRUE(fn(m, "_Z4tmaxIiET_S0_S0_").is_visible);  // .weak
  EXPECT_FALSE(fn(m, "_Z4tmaxIiET_S0_S0_").is_extern);
  const Variable& gcommon = var(m.variables, "gcommon");
  EXPECT_TRUE(gcommon.is_visible);
  EXPECT_EQ(gcommon.type, ".u32");
  const Variable& vals = var(m.variables, "vals");
  EXPECT_TRUE(vals.is_extern);
  EXPECT_EQ(vals.space, StateSpace::Global);
  EXPECT_EQ(vals.dims, std::vector<std::int64_t>{-1});
  using Dir = std::pair<std::string, std::vector<std::int64_t>>;
  EXPECT_EQ(fn(m, "_Z2k1Pi").directives, (std::vector<Dir>{{".maxnreg", {32}}}));
  EXPECT_EQ(fn(m, "_Z2k2Pf").directives,
            (std::vector<Dir>{
                {".maxntid", {64, 1, 1}}, {".minnctapersm", {4}}, {".maxclusterrank", {2}}}));
  EXPECT_EQ(fn(m, "_Z2k3Pi").directives,
            (std::vector<Dir>{{".explicitcluster", {}}, {".reqnctapercluster", {2, 1, 1}}}));
}

TEST(PtxParserFiles, ClusterAndSharedClusterModifiers) {
  const Module m = load("cluster_sm90a.ptx");
  EXPECT_EQ(m.target, "sm_90a");
  const Function& k = m.functions.at(0);
  const Instruction& mapa = instr(k, "mapa.shared::cluster.u32");
  EXPECT_EQ(mapa.opcode, "mapa");
  EXPECT_EQ(mapa.modifiers, (std::vector<std::string>{".shared::cluster", ".u32"}));
  EXPECT_EQ(instr(k, "%cluster_ctarank").operands[1].name, "%cluster_ctarank");
  // A label inside an inline asm block is the block's, and so is the branch to it.
  EXPECT_NE(std::find(labels(k).begin(), labels(k).end(), "LAB_WAIT$s1"), labels(k).end());
  const Instruction& wait = instr(k, "@!done bra LAB_WAIT");
  EXPECT_TRUE(wait.guard_negated);
  EXPECT_EQ(*wait.guard, "done$s1");
  EXPECT_EQ(wait.operands.at(0).name, "LAB_WAIT$s1");
  const Instruction& elect = instr(k, "elect.sync");
  ASSERT_EQ(elect.operands[0].kind, Kind::Pair);
  EXPECT_EQ(elect.operands[0].elems[0].name, "l$s2");
  EXPECT_EQ(elect.operands[0].elems[1].name, "e$s2");
  EXPECT_EQ(elect.operands[1].imm, 0xffffffff);
}

TEST(PtxParserFiles, DebugBuildSectionsAndLabels) {
  const Module m = load("transpose_G_sm90.ptx");
  ASSERT_EQ(m.functions.size(), 1u);
  const Function& f = m.functions[0];
  EXPECT_EQ(instructions(f).size(), 108u);
  EXPECT_EQ(labels(f).size(), 40u);
  EXPECT_EQ(labels(f).front(), "$L__func_begin0");
  EXPECT_EQ(m.files.size(), 3u);
  // -G: `{ .reg .b64 %tmp; ... }` blocks from cvta sequences, each renamed.
  EXPECT_NE(reg_decl(f, "%tmp$s1"), nullptr);
  EXPECT_NE(reg_decl(f, "%tmp$s2"), nullptr);
}

TEST(PtxParserFiles, UnoptimizedSm80) {
  const Module m = load("transpose_O0_sm80.ptx");
  EXPECT_EQ(m.target, "sm_80");
  EXPECT_EQ(instructions(m.functions.at(0)).size(), 91u);
  EXPECT_EQ(labels(m.functions.at(0)).size(), 8u);
}

// ---- properties of every checked-in file -------------------------------------------

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t b = 0;
  for (;;) {
    const std::size_t e = text.find('\n', b);
    lines.push_back(text.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return lines;
}

void check_operand_names(const Function& f, const Operand& o, const std::string& where) {
  if (o.kind == Kind::Register) {
    EXPECT_TRUE(declared(f, o.name) || is_special_register(o.name))
        << where << ": register " << o.name << " not declared";
  }
  for (const auto& e : o.elems) check_operand_names(f, e, where);
}

TEST(PtxParserProperties, EveryFile) {
  for (const char* name : kDataFiles) {
    SCOPED_TRACE(name);
    const std::string text = read_file(data_path(name));
    const Module m = parse(text, name);
    const auto lines = split_lines(text);
    EXPECT_FALSE(m.functions.empty());
    for (const auto& f : m.functions) {
      std::set<std::string> reg_names;
      for (const auto& r : f.registers) {
        EXPECT_TRUE(reg_names.insert(r.name).second) << "register declared twice: " << r.name;
      }
      std::set<std::string> var_names;
      for (const auto& v : f.variables) {
        EXPECT_TRUE(var_names.insert(v.name).second) << "variable declared twice: " << v.name;
      }
      for (const auto& s : f.body) {
        if (s.is_label) {
          EXPECT_FALSE(s.label.empty());
          continue;
        }
        const Instruction& i = s.instruction;
        ASSERT_GE(i.pos.line, 1);
        ASSERT_LE(static_cast<std::size_t>(i.pos.line), lines.size());
        ASSERT_GE(i.pos.col, 1);
        const std::string& line = lines[i.pos.line - 1];
        ASSERT_LE(static_cast<std::size_t>(i.pos.col), line.size());
        const std::string rest = line.substr(i.pos.col - 1);
        EXPECT_EQ(i.text.find('\n'), std::string::npos);
        if (rest.compare(0, i.text.size(), i.text) != 0) {
          // Written over several lines: the first line is where the text starts.
          std::string first = rest.substr(0, rest.find("//"));
          while (!first.empty() && (first.back() == ' ' || first.back() == '\t')) first.pop_back();
          EXPECT_EQ(i.text.compare(0, first.size(), first), 0) << i.text << " | " << rest;
          EXPECT_EQ(i.opcode, "call") << "only calls span lines in nvcc output: " << i.text;
        }
        // The opcode and modifiers spell the written opcode word.
        std::string word = i.opcode;
        for (const auto& md : i.modifiers) {
          EXPECT_EQ(md.front(), '.');
          word += md;
        }
        const std::size_t at = i.text.find(word);
        EXPECT_NE(at, std::string::npos) << word << " in " << i.text;
        for (const auto& l : i.loc_chain) {
          EXPECT_GE(l.file, 1);
          EXPECT_LT(static_cast<std::size_t>(l.file), m.files.size());
        }
        EXPECT_LE(i.loc_chain.size(), 16u);  // the parser keeps at most 16 frames
        if (i.guard) {
          EXPECT_TRUE(declared(f, *i.guard)) << "guard " << *i.guard;
        }
        for (const auto& o : i.operands) check_operand_names(f, o, i.text);
      }
    }
  }
}

// ---- fragments -----------------------------------------------------------------------

TEST(PtxParserFragments, RegisterDeclarations) {
  const Module m =
      parse_str(kernel("  .reg .pred p;\n  .reg .b32 a, b<4>, %c<2>;\n  .reg .v2 .f32 vv;\n"
                       "  setp.eq.u32 p, a, b3;\n  ret;\n"));
  const Function& k = m.functions.at(0);
  ASSERT_EQ(k.registers.size(), 5u);
  EXPECT_EQ(k.registers[0].name, "p");
  EXPECT_EQ(k.registers[0].count, 0);
  EXPECT_EQ(k.registers[0].pos.line, 6);
  EXPECT_EQ(k.registers[0].pos.col, 14);
  EXPECT_EQ(k.registers[2].name, "b");
  EXPECT_EQ(k.registers[2].count, 4);
  EXPECT_EQ(k.registers[3].name, "%c");
  EXPECT_EQ(k.registers[4].type, ".v2.f32");
  // Names without '%' declared with .reg are registers where used.
  const Instruction& setp = instr(k, "setp");
  EXPECT_EQ(setp.operands[0].kind, Kind::Register);
  EXPECT_EQ(setp.operands[1].kind, Kind::Register);
  EXPECT_EQ(setp.operands[2].kind, Kind::Register);
  EXPECT_EQ(setp.operands[2].name, "b3");
}

TEST(PtxParserFragments, ScopedRenamingRules) {
  const Module m =
      parse_str(kernel("  .reg .b32 %r<3>;\n"
                       "  .reg .pred p;\n"
                       "  { .reg .pred p; setp.eq.u32 p, %r1, 0; }\n"
                       "  { .reg .pred p; .reg .b32 %r<2>; setp.ne.u32 p, %r1, %r2; }\n"
                       "  { .reg .b32 x; { .reg .b32 x; mov.u32 x, 1; } mov.u32 x, 2; }\n"
                       "  @p bra L;\n"
                       "L:\n  ret;\n"));
  const Function& k = m.functions.at(0);
  const auto all = instructions(k);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0]->operands[0].name, "p$s1");
  EXPECT_EQ(all[0]->operands[1].name, "%r1");  // outer %r<3>
  EXPECT_EQ(all[1]->operands[0].name, "p$s2");
  EXPECT_EQ(all[1]->operands[1].name, "%r$s2$1");  // shadowed by the block's %r<2>
  EXPECT_EQ(all[1]->operands[2].name, "%r2");      // %r2 is outside %r<2>: the outer one
  EXPECT_EQ(all[2]->operands[0].name, "x$s4");
  EXPECT_EQ(all[3]->operands[0].name, "x$s3");
  EXPECT_EQ(*all[4]->guard, "p");  // the function's own p, not renamed
  EXPECT_EQ(labels(k), std::vector<std::string>{"L"});
  std::vector<std::string> names;
  for (const auto& r : k.registers) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"%r", "p", "p$s1", "p$s2", "%r$s2$", "x$s3", "x$s4"}));
}

// Inline PTX inlined twice declares its labels twice, each in its own block: a branch
// goes to the label of its innermost enclosing block that has one, declared before or
// after it; a label of the function's own scope is not renamed.
TEST(PtxParserFragments, ScopedLabels) {
  const Module m =
      parse_str(kernel("  .reg .pred p;\n"
                       "  { W: @p bra D; bra W; D: }\n"
                       "  { W: @p bra D; { bra W; } bra D; D: }\n"
                       "  bra E;\n"
                       "E:\n  ret;\n"));
  const Function& k = m.functions.at(0);
  EXPECT_EQ(labels(k), (std::vector<std::string>{"W$s1", "D$s1", "W$s2", "D$s2", "E"}));
  std::vector<std::string> targets;
  for (const Instruction* in : instructions(k))
    if (in->opcode == "bra") targets.push_back(in->operands.at(0).name);
  EXPECT_EQ(targets, (std::vector<std::string>{"D$s1", "W$s1", "D$s2", "W$s2", "D$s2", "E"}));
}

// Kernels ParseOptions::keep_entry turns down keep their names and parameters; their bodies
// (nested blocks, and braces in strings and comments) are skipped unread, and what follows is
// read at its own lines; a .func is always read.
TEST(PtxParserFragments, SkippedBodies) {
  const std::string text =
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry a(.param .u64 p)\n{\n  .pragma \"}\";\n  // }\n  /* } { */\n  { \x01 ret; "
      "}\n"
      "  ret;\n}\n"
      ".func f()\n{\n  ret;\n}\n"
      ".visible .entry b()\n{\n  ret;\n}\n"
      ".visible .entry c()\n{\n  ret;\n}\n";
  ParseOptions options;
  options.keep_entry = [](std::string_view name) { return name == "b"; };
  const Module m = parse(text, "skip.ptx", options);
  ASSERT_EQ(m.functions.size(), 4u);
  const Function& a = m.functions[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_TRUE(a.body_skipped);
  EXPECT_TRUE(a.body.empty());
  ASSERT_EQ(a.params.size(), 1u);
  EXPECT_EQ(text[a.body_begin], '{');
  EXPECT_EQ(text.substr(a.body_end - 2, 2), "\n}");
  EXPECT_FALSE(m.functions[1].body_skipped);  // the .func
  EXPECT_EQ(m.functions[1].body.size(), 1u);
  const Function& b = m.functions[2];
  EXPECT_FALSE(b.body_skipped);
  ASSERT_EQ(b.body.size(), 1u);
  EXPECT_EQ(b.body[0].instruction.pos.line, 18);  // lines counted through a's body
  EXPECT_EQ(text.substr(b.body_begin, 1), "{");
  EXPECT_EQ(text.substr(b.body_end - 1, 1), "}");
  EXPECT_TRUE(m.functions[3].body_skipped);
  // Unread, but closed: a skipped body that never ends is the same error as a read one.
  const std::string open =
      ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry a()\n{\n  ret;\n";
  try {
    parse(open, "open.ptx", options);
    ADD_FAILURE() << "no error";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("to close the function body opened at line 5"),
              std::string::npos)
        << e.what();
  }
  // Without keep_entry every body is read, and a's byte 0x01 is an error.
  EXPECT_THROW(parse(text, "all.ptx"), ParseError);
}

TEST(PtxParserFragments, LocChains) {
  const Module m =
      parse_str(kernel("  mov.u32 %r1, 1;\n"
                       "  .loc 1 2 3\n"
                       "  mov.u32 %r1, 2;\n"
                       "  .loc 2 10 5, function_name $L__info_string0, inlined_at 1 20 7\n"
                       "  mov.u32 %r1, 3;\n"
                       "  .loc 2 11 6, inlined_at 1 21 8\n"
                       "  { mov.u32 %r1, 4; }\n"
                       "  mov.u32 %r1, 5;\n",
                       "") +
                ".file 1 \"a.cu\", 1700000000, 1234\n.file 3 \"b.h\"\n");
  const auto all = instructions(m.functions.at(0));
  ASSERT_EQ(all.size(), 5u);
  EXPECT_TRUE(all[0]->loc_chain.empty());
  EXPECT_EQ(chain(*all[1]), (Locs{{1, 2, 3}}));
  EXPECT_EQ(chain(*all[2]), (Locs{{2, 10, 5}, {1, 20, 7}}));
  EXPECT_EQ(chain(*all[3]), (Locs{{2, 11, 6}, {1, 21, 8}}));
  EXPECT_EQ(chain(*all[4]), chain(*all[3]));  // a closing block does not reset .loc
  EXPECT_EQ(m.files, (std::vector<std::string>{"", "a.cu", "", "b.h"}));
  // .file is accepted inside a body as well.
  EXPECT_EQ(parse_str(kernel("  .file 2 \"c.cu\"\n  ret;\n")).files.at(2), "c.cu");
}

TEST(PtxParserFragments, LocDoesNotLeakIntoNextFunction) {
  const Module m = parse_str(
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".entry a()\n{\n.loc 1 2 3\nret;\n}\n.entry b()\n{\nret;\n}\n");
  EXPECT_EQ(m.functions.at(0).body.at(0).instruction.loc_chain.size(), 1u);
  EXPECT_TRUE(m.functions.at(1).body.at(0).instruction.loc_chain.empty());
}

TEST(PtxParserFragments, Operands) {
  const Module m =
      parse_str(kernel("  ld.shared.u32 %r1, [0x100];\n"
                       "  ld.global.u32 %r1, [sym+8];\n"
                       "  ld.global.u32 %r1, [%rd1+-4];\n"
                       "  ld.global.u32 %r1, [%rd1-16];\n"
                       "  ld.shared.v2.u32 {%r1, _}, [%r2];\n"
                       "  selp.b32 %r1, 1, 0, !%p1;\n"
                       "  mov.f32 %f1, 0.5;\n"
                       "  mov.f64 %fd1, 1.5e2;\n"
                       "  mov.f32 %f1, -0f3F800000;\n"
                       "  mov.b32 %r1, 0x10;\n"
                       "  mov.b32 %r1, 010;\n"
                       "  mov.b32 %r1, 0b101;\n"
                       "  mov.b32 %r1, 7U;\n"
                       "  mov.b64 %rd1, 0xFFFFFFFFFFFFFFFF;\n"
                       "  mov.b64 %rd1, -9223372036854775808;\n"
                       "  mov.u64 %rd1, $str+4;\n"
                       "  mov.u32 %r1, %ctaid.z;\n"
                       "  mov.u32 %r1, %nctaid.x;\n"
                       "  mov.u32 %r1, %warpid;\n"
                       "  mov.u32 %r1, %clock;\n"));
  const auto all = instructions(m.functions.at(0));
  ASSERT_EQ(all.size(), 20u);
  const Operand& abs = all[0]->operands[1];
  EXPECT_EQ(abs.kind, Kind::Address);
  EXPECT_EQ(abs.name, "");
  EXPECT_EQ(abs.imm, 0x100);
  EXPECT_EQ(all[1]->operands[1].name, "sym");
  EXPECT_FALSE(all[1]->operands[1].base_is_reg);
  EXPECT_EQ(all[1]->operands[1].imm, 8);
  EXPECT_EQ(all[2]->operands[1].imm, -4);
  EXPECT_EQ(all[3]->operands[1].imm, -16);
  const Operand& vec = all[4]->operands[0];
  ASSERT_EQ(vec.elems.size(), 2u);
  EXPECT_EQ(vec.elems[1].kind, Kind::Symbol);
  EXPECT_EQ(vec.elems[1].name, "_");
  EXPECT_TRUE(all[5]->operands[3].negated);
  EXPECT_EQ(all[5]->operands[3].name, "%p1");
  EXPECT_EQ(all[6]->operands[1].kind, Kind::FloatImm);
  EXPECT_EQ(all[6]->operands[1].fvalue, 0.5);
  EXPECT_EQ(all[6]->operands[1].fbits, 64);
  EXPECT_EQ(all[7]->operands[1].fvalue, 150.0);
  EXPECT_EQ(all[8]->operands[1].fvalue, -1.0);
  EXPECT_EQ(all[8]->operands[1].bits, 0xBF800000u);
  EXPECT_EQ(all[9]->operands[1].imm, 16);
  EXPECT_EQ(all[10]->operands[1].imm, 8);
  EXPECT_EQ(all[11]->operands[1].imm, 5);
  EXPECT_EQ(all[12]->operands[1].imm, 7);
  EXPECT_EQ(all[13]->operands[1].imm, -1);
  EXPECT_EQ(all[14]->operands[1].imm, INT64_MIN);
  EXPECT_EQ(all[15]->operands[1].kind, Kind::Symbol);
  EXPECT_EQ(all[15]->operands[1].name, "$str");
  EXPECT_EQ(all[15]->operands[1].imm, 4);
  EXPECT_EQ(all[16]->operands[1].name, "%ctaid.z");
  EXPECT_EQ(all[19]->operands[1].name, "%clock");
  // Operand positions.
  EXPECT_EQ(all[0]->operands[1].pos.line, 6);
  EXPECT_EQ(all[0]->operands[1].pos.col, 22);
}

TEST(PtxParserFragments, CallForms) {
  const Module m =
      parse_str(kernel("  { .param .b64 param0; .param .b32 retval0;\n"
                       "  prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);\n"
                       "  call.uni (retval0), vprintf, (param0, param1);\n"
                       "  call (%r1), %rd5, (%r2, 3), prototype_0;\n"
                       "  call.uni f, (param0);\n"
                       "  call g;\n  }\n"));
  const auto all = instructions(m.functions.at(0));
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0]->operands.size(), 3u);
  EXPECT_EQ(all[0]->operands[0].elems.at(0).name, "retval0$s1");
  EXPECT_EQ(all[0]->operands[2].elems.at(0).name, "param0$s1");
  EXPECT_EQ(all[0]->operands[2].elems.at(1).name, "param1");  // not declared: as written
  EXPECT_EQ(all[1]->operands.size(), 4u);
  EXPECT_EQ(all[1]->operands[2].elems.at(1).imm, 3);
  EXPECT_EQ(all[1]->operands[3].name, "prototype_0");
  EXPECT_EQ(all[2]->operands.size(), 2u);
  EXPECT_EQ(all[3]->operands.size(), 1u);
  EXPECT_TRUE(labels(m.functions.at(0)).empty());
}

TEST(PtxParserFragments, Initializers) {
  const Module m = parse_str(
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".global .f32 one = 0f3F800000;\n"
      ".global .u16 shorts[3] = {1, 2, 0xFFFF};\n"
      ".global .s32 grid[2][2] = {{1, -1}, {2, 3}};\n"
      ".global .f64 dd = 0d3FF0000000000000;\n"
      ".global .f32 half_ = 0.5;\n"
      ".global .f32 conv = 2;\n"
      ".global .b8 minus = -1;\n"
      ".global .f16 h = 0f3F800000;\n"
      ".global .u64 ptr = generic(grid)+4;\n"
      ".global .u64 ptrs[2] = {one, shorts};\n"
      ".const .align 16 .v4 .f32 vec = {1.0, 2.0, 3.0, 4.0};\n"
      ".global .b32 a = 1, b = 2;\n"
      ".global .b8 unsized[] = {1, 2, 3};\n"
      ".global .attribute(.managed) .align 4 .u32 managed;\n"
      ".global .align 1 .b8 bytes[3] = {0xFF(generic(one)), 0xFF00(generic(one)+4), 7};\n");
  auto bytes = [&](const std::string& name) { return var(m.variables, name).init; };
  using B = std::vector<std::uint8_t>;
  EXPECT_EQ(bytes("one"), (B{0x00, 0x00, 0x80, 0x3F}));
  EXPECT_EQ(bytes("shorts"), (B{1, 0, 2, 0, 0xFF, 0xFF}));
  EXPECT_EQ(bytes("grid"), (B{1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 2, 0, 0, 0, 3, 0, 0, 0}));
  EXPECT_EQ(var(m.variables, "grid").dims, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(bytes("dd"), (B{0, 0, 0, 0, 0, 0, 0xF0, 0x3F}));
  EXPECT_EQ(bytes("half_"), (B{0, 0, 0, 0x3F}));
  EXPECT_EQ(bytes("conv"), (B{0, 0, 0, 0x40}));
  EXPECT_EQ(bytes("minus"), (B{0xFF}));
  EXPECT_EQ(bytes("h"), (B{0x00, 0x3C}));
  EXPECT_EQ(bytes("ptr"), B(8, 0));
  EXPECT_EQ(bytes("ptrs"), B(16, 0));
  const Variable& vec = var(m.variables, "vec");
  EXPECT_EQ(vec.space, StateSpace::Const);
  EXPECT_EQ(vec.vector, 4);
  EXPECT_EQ(vec.align, 16);
  EXPECT_EQ(vec.init.size(), 16u);
  EXPECT_EQ(bytes("a"), (B{1, 0, 0, 0}));
  EXPECT_EQ(bytes("b"), (B{2, 0, 0, 0}));
  EXPECT_EQ(var(m.variables, "unsized").dims, std::vector<std::int64_t>{-1});
  EXPECT_EQ(bytes("unsized"), (B{1, 2, 3}));
  EXPECT_TRUE(bytes("managed").empty());
  EXPECT_EQ(bytes("bytes"), (B{0, 0, 7}));
}

TEST(PtxParserFragments, ModuleDirectives) {
  const Module m = parse_str(
      "// comment\n/* block\n comment */\n"
      ".version 8.5\n.target sm_80, debug\n.address_size 32\n"
      ".pragma \"nounroll\";\n"
      ".weak .func (.param .b32 r) w(.param .u64 .ptr .global .align 16 p, .reg .b32 q)\n"
      ".noreturn\n{\n ret;\n}\n"
      ".common .global .align 4 .u32 c;\n"
      ".alias wa, w;\n"
      ".visible .entry e(.param .align 8 .b8 s[16], .param .u32 n[2])\n"
      ".reqntid 32, 4\n.maxnreg 64\n.pragma \"abc\";\n{\n ret;\n}\n"
      ".extern .func x;\n.func x()\n{\n ret;\n}\n"
      ".section .debug_info\n{\n.b32 12\n.b8 1,2\n.b64 $L__tmp0+4\n{ nested }\n}\n");
  EXPECT_EQ(m.version, "8.5");
  EXPECT_EQ(m.target, "sm_80");
  EXPECT_EQ(m.address_size, 32);
  ASSERT_EQ(m.functions.size(), 3u);
  const Function& w = m.functions[0];
  EXPECT_TRUE(w.is_visible);
  EXPECT_EQ(w.returns.at(0).name, "r");
  ASSERT_EQ(w.params.size(), 2u);
  EXPECT_TRUE(w.params[0].is_ptr);
  EXPECT_EQ(w.params[0].align, 16);
  EXPECT_EQ(w.params[0].type, ".u64");
  EXPECT_EQ(w.params[1].name, "q");
  using Dir = std::pair<std::string, std::vector<std::int64_t>>;
  EXPECT_EQ(w.directives, (std::vector<Dir>{{".noreturn", {}}}));
  const Function& e = m.functions[1];
  EXPECT_EQ(e.params[0].dims, std::vector<std::int64_t>{16});
  EXPECT_EQ(e.params[0].align, 8);
  EXPECT_EQ(e.params[1].dims, std::vector<std::int64_t>{2});
  EXPECT_EQ(e.directives, (std::vector<Dir>{{".reqntid", {32, 4}}, {".maxnreg", {64}}}));
  EXPECT_EQ(m.functions[2].name, "x");
  EXPECT_FALSE(m.functions[2].is_extern);  // defined after its .extern declaration
  EXPECT_TRUE(var(m.variables, "c").is_visible);
}

TEST(PtxParserFragments, EmptyAndCrlf) {
  EXPECT_TRUE(parse_str("").functions.empty());
  EXPECT_TRUE(parse_str("  // nothing\n").functions.empty());
  const Module m = parse_str(".version 9.0\r\n.target sm_90\r\n.entry k()\r\n{\r\n\tret;\r\n}\r\n");
  const Instruction& ret = m.functions.at(0).body.at(0).instruction;
  EXPECT_EQ(ret.pos.line, 5);
  EXPECT_EQ(ret.pos.col, 2);
  EXPECT_EQ(ret.text, "ret;");
  const ParseError e =
      parse_error(".version 9.0\r\n.target sm_90\r\n.entry k()\r\n{\r\n\tret\r\n}\r\n");
  EXPECT_EQ(e.pos.line, 6);
  EXPECT_EQ(e.line_text, "}");
}

TEST(PtxParserFragments, MultiLineInstructionText) {
  const Module m = parse_str(kernel("  add.s32 %r1, // first\n    %r2, /* x */ 3;\n"));
  EXPECT_EQ(m.functions.at(0).body.at(0).instruction.text, "add.s32 %r1, %r2, /* x */ 3;");
}

}  // namespace
