// The SASS layer against ground truth: every instruction of the repository's
// `cuobjdump -sass` listings (bench/) decoded to what cuobjdump printed; cubins built here
// by ptxas read back with the right kernels, register counts and PTX lines; hostile
// bytes rejected as error values.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>

#include "bankcheck/model/arch.hpp"
#include "bankcheck/sass/decoder.hpp"
#include "bankcheck/sass/elf.hpp"
#include "bankcheck/sass/line_table.hpp"
#include "bankcheck/sass/module.hpp"
#include "ncu_raw.hpp"

using namespace bankcheck::sass;
namespace fs = std::filesystem;

// The decoder of the cubins here (all built for sm_90).
constexpr Decoder kHopper = decoder_for(bankcheck::model::SassFamily::Hopper);

namespace {

const fs::path kSource = BANKCHECK_SOURCE_DIR;

// The bytes of a file; a .gz one (the listings kept under bench/) decompressed.
std::string slurp(const fs::path& p) {
  if (p.extension() == ".gz") {
    std::string out;
    for (const std::string& l : bankcheck::test::read_gzip_lines(p.string())) out += l + "\n";
    return out;
  }
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::uint8_t> bytes_of(const fs::path& p) {
  std::string s = slurp(p);
  return {s.begin(), s.end()};
}

// One instruction of a cuobjdump listing: its text and its two words.
struct Listed {
  std::string file, function, text;
  std::uint64_t offset = 0, lo = 0, hi = 0;
};

std::vector<Listed> read_listing(const fs::path& p) {
  std::vector<Listed> out;
  std::istringstream in(slurp(p));
  static const std::regex inst(
      R"(^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* 0x([0-9a-f]{16}) \*/)");
  static const std::regex high(R"(^\s+/\* 0x([0-9a-f]{16}) \*/)");
  static const std::regex func(R"(Function : (\S+))");
  std::string line, function;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, func)) function = m[1];
    if (!std::regex_search(line, m, inst)) continue;
    std::string file = p.filename().string();
    if (file.ends_with(".gz")) file.resize(file.size() - 3);
    Listed l{file, function, m[2], std::stoull(m[1], nullptr, 16), std::stoull(m[3], nullptr, 16)};
    std::string next;
    std::getline(in, next);
    if (std::regex_search(next, m, high)) l.hi = std::stoull(m[1], nullptr, 16);
    out.push_back(l);
  }
  return out;
}

// A cuobjdump listing under bench/ (the large ones gzip-compressed).
bool is_listing(const fs::path& p) {
  return p.string().ends_with(".sass.txt") || p.string().ends_with(".sass.txt.gz");
}

std::vector<fs::path> listings() {
  std::vector<fs::path> out;
  for (auto& e : fs::directory_iterator(kSource / "bench/check/measured/h100"))
    if (is_listing(e.path())) out.push_back(e.path());
  out.push_back(kSource / "bench/hardware/measured/patterns/sass.txt.gz");
  out.push_back(kSource / "bench/hardware/measured/patterns_merge/sass.txt.gz");
  for (auto& e : fs::directory_iterator(kSource / "bench/sass/measured"))
    if (is_listing(e.path())) out.push_back(e.path());
  out.push_back(kSource / "bench/hardware/measured/corpora/atomics_sass.txt.gz");
  out.push_back(kSource / "bench/hardware/measured/corpora/matrix_sass.txt.gz");
  out.push_back(kSource / "bench/hardware/measured/corpora/cg_from_sass.txt.gz");
  out.push_back(kSource / "bench/hardware/measured/corpora/ca_from_sass.txt.gz");
  for (auto& e : fs::recursive_directory_iterator(kSource / "bench/check/measured/h100_run_new"))
    if (is_listing(e.path())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// "[R2+UR4+-0x4]" -> register, uniform register, offset as cuobjdump writes them.
struct Address {
  int reg = kRZ, ur = kURZ;
  long imm = 0;
};
Address parse_address(const std::string& text) {
  Address a;
  static const std::regex part(R"((UR\d+|URZ|R\d+|RZ|-?0x[0-9a-f]+))");
  std::string inner = text.substr(text.find('[') + 1, text.find(']') - text.find('[') - 1);
  for (std::sregex_iterator it(inner.begin(), inner.end(), part), end; it != end; ++it) {
    std::string t = it->str();
    if (t.starts_with("UR"))
      a.ur = t == "URZ" ? kURZ : std::stoi(t.substr(2));
    else if (t.starts_with("R"))
      a.reg = t == "RZ" ? kRZ : std::stoi(t.substr(1));
    else
      a.imm = std::stol(t, nullptr, 16);
  }
  return a;
}

// A register operand's number; -1 for anything else (so a mismatch fails, never throws).
int reg_number(const std::string& t) {
  if (t == "RZ") return kRZ;
  if (t.size() < 2 || t[0] != 'R' || t.find_first_not_of("0123456789", 1) != std::string::npos)
    return -1;
  return std::stoi(t.substr(1));
}

// Operand n of the list, or "" past its end: listings with fewer operands than a form
// usually has must fail an expectation, not read past the vector.
std::string operand(const std::vector<std::string>& ops, std::size_t n) {
  return n < ops.size() ? ops[n] : std::string();
}

// "desc[UR4][R2.64]" -> the descriptor's UR and the address register pair.
std::pair<int, int> parse_desc(const std::string& t) {
  static const std::regex d(R"(desc\[UR(\d+)\]\[R(\d+)\.64\])");
  std::smatch m;
  if (!std::regex_match(t, m, d)) return {-1, -1};
  return {std::stoi(m[1]), std::stoi(m[2])};
}

std::vector<std::string> split_operands(std::string s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else if (c != ' ')
      cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool is_shared_mnemonic(const std::string& base) {
  return base == "LDS" || base == "STS" || base == "ATOMS" || base == "LDSM" || base == "STSM" ||
         base == "LDGSTS";
}

}  // namespace

// For every instruction of every listing: the opcode names the same operation as
// cuobjdump, shared-memory instructions are exactly the LDS/STS/ATOMS lines, and their
// full opcode, guard, registers and address equal the text.
TEST(SassListing, EveryInstructionDecodesAsCuobjdumpPrintsIt) {
  std::size_t total = 0, shared = 0;
  std::map<std::string, int> by_form;
  for (const fs::path& p : listings()) {
    for (const Listed& l : read_listing(p)) {
      SCOPED_TRACE(l.file + " " + l.function + " " + l.text);
      ++total;
      Instruction i = decode_hopper(l.lo, l.hi, l.offset);
      std::string text = l.text;
      Guard want;
      if (text.starts_with("@")) {
        std::string g = text.substr(1, text.find(' ') - 1);
        want.negated = g.starts_with("!");
        if (want.negated) g = g.substr(1);
        // Uniform-datapath instructions (UBLKCP, SYNCS) are guarded by a uniform predicate
        // (UP0..UP6, UPT), held in the same field.
        if (g.starts_with("U")) g = g.substr(1);
        want.predicate = g == "PT" ? kPT : std::uint8_t(std::stoi(g.substr(1)));
        text = text.substr(text.find(' ') + 1);
        while (text.starts_with(" ")) text = text.substr(1);
      }
      std::string op = text.substr(0, text.find(' '));
      std::string base = op.substr(0, op.find('.'));
      EXPECT_EQ(i.mnemonic, base);
      EXPECT_EQ(i.guard.predicate, want.predicate);
      EXPECT_EQ(i.guard.negated, want.negated);
      EXPECT_EQ(i.shared != SharedOp::None, is_shared_mnemonic(base));
      if (i.shared == SharedOp::None) continue;
      ++shared;
      EXPECT_EQ(opcode_text(i), op);
      auto ops = split_operands(text.substr(op.size()));
      std::size_t at = 0;
      while (at < ops.size() && !ops[at].starts_with("[")) ++at;
      ASSERT_LT(at, ops.size());
      Address a = parse_address(ops[at]);
      EXPECT_EQ(i.addr, a.reg);
      EXPECT_EQ(i.uniform, a.ur);
      EXPECT_EQ(i.imm, a.imm);
      if (at == 1) {
        EXPECT_EQ(i.dst, reg_number(ops[0]));  // LDS / LDSM / ATOMS destination
      }
      if (i.shared == SharedOp::STS || i.shared == SharedOp::STSM) {
        EXPECT_EQ(i.src, reg_number(operand(ops, at + 1)));
      }
      if (i.shared == SharedOp::ATOMS) {
        // ATOMS.POPC.INC has no source operand: the decoder says RZ.
        EXPECT_EQ(i.src, ops.size() > at + 1 ? reg_number(ops[at + 1]) : kRZ);
        if (ops.size() > at + 2) {
          EXPECT_EQ(i.src2, reg_number(ops[at + 2]));
        }
      }
      if (i.shared == SharedOp::LDGSTS) {
        auto [ur, reg] = parse_desc(operand(ops, at + 1));
        EXPECT_EQ(i.global_desc, ur);
        EXPECT_EQ(i.global_addr, reg);
        const std::string pred = operand(ops, at + 2);  // .ZFILL's predicate, "P<n>"
        const bool numbered = pred.size() > 1 && std::isdigit(static_cast<unsigned char>(pred[1]));
        EXPECT_EQ(i.zfill_predicate, pred.empty() ? kPT : numbered ? std::stoi(pred.substr(1)) : 0);
      }
      ++by_form[op];
    }
  }
  // Each form cuobjdump printed, so that a listing dropped from listings() shows.
  for (const char* form : {"LDS",
                           "LDS.U8",
                           "LDS.S8",
                           "LDS.U16",
                           "LDS.S16",
                           "LDS.64",
                           "LDS.128",
                           "STS",
                           "STS.U8",
                           "STS.U16",
                           "STS.64",
                           "STS.128",
                           "ATOMS.ADD",
                           "ATOMS.POPC.INC.32",
                           "ATOMS.MIN.S32",
                           "ATOMS.MAX.S32",
                           "ATOMS.INC",
                           "ATOMS.DEC",
                           "ATOMS.CAS",
                           "ATOMS.CAS.64",
                           "ATOMS.CAST.SPIN",
                           "ATOMS.CAST.SPIN.64",
                           "ATOMS.EXCH.64",
                           "LDSM.16.M88",
                           "LDSM.16.M88.2",
                           "LDSM.16.M88.4",
                           "LDSM.16.MT88",
                           "LDSM.16.MT88.2",
                           "LDSM.16.MT88.4",
                           "STSM.16.M88",
                           "STSM.16.M88.2",
                           "STSM.16.M88.4",
                           "STSM.16.MT88",
                           "STSM.16.MT88.2",
                           "STSM.16.MT88.4",
                           "LDGSTS.E",
                           "LDGSTS.E.64",
                           "LDGSTS.E.128",
                           "LDGSTS.E.BYPASS.128",
                           "LDGSTS.E.ZFILL",
                           "LDGSTS.E.64.ZFILL",
                           "LDGSTS.E.128.ZFILL",
                           "LDGSTS.E.BYPASS.128.ZFILL"})
    EXPECT_GT(by_form[form], 0) << form;
  EXPECT_EQ(total, 30184u);  // the listings were all read
  EXPECT_EQ(shared, 2703u);  // LDS, STS, ATOMS, LDSM, STSM and LDGSTS
}

// Warp-aggregated atomics: ptxas elects one lane (VOTEU.ANY, UFLO, ISETP against
// SR_LANEID) and that lane's ATOMS does the warp's update. The listings say which kernels
// do that: exactly the ATOMS whose guard comes from such an election.
TEST(SassListing, AggregatedAtomicsAreTheElectedOnes) {
  std::map<std::string, std::vector<Instruction>> kernels;
  for (const fs::path& p : {kSource / "bench/hardware/measured/corpora/atomics_sass.txt.gz",
                            kSource / "bench/sass/measured/forms.sass.txt.gz",
                            kSource / "bench/sass/measured/histogram.sass.txt.gz",
                            kSource / "bench/sass/measured/tensor_warp_reduce.sass.txt.gz"})
    for (const Listed& l : read_listing(p))
      kernels[l.file + " " + l.function].push_back(decode_hopper(l.lo, l.hi, l.offset));
  std::map<std::string, int> aggregated;
  int atoms = 0;
  for (auto& [name, code] : kernels) {
    Kernel k;
    k.instructions = code;
    mark_aggregated(k);
    for (const Instruction& i : k.instructions) {
      atoms += i.shared == SharedOp::ATOMS;
      if (i.aggregated) ++aggregated[name];
    }
  }
  EXPECT_GT(atoms, 40);
  // add_uniform_param_val: REDUX.SUM of the lanes' values, one ATOMS.ADD; forms.cu's
  // atoms_uniform: UPOPC of the vote times the operand. The inc_uniform_* kernels compile
  // to ATOMS.POPC.INC (not aggregated), and the histogram's hand-written aggregation
  // (VOTE.ANY, FLO, POPC) is one lane already in the PTX.
  EXPECT_EQ(aggregated,
            (std::map<std::string, int>{{"atomics_sass.txt _Z21add_uniform_param_val5Lanes", 1},
                                        {"forms.sass.txt _Z13atoms_uniformPjj", 1}}));
}

namespace {

fs::path data(const char* name) { return kSource / "tests/data/sass" / name; }

const Kernel& kernel(const Module& m, const char* name) {
  const Kernel* k = m.find(name);
  if (!k) throw std::runtime_error(std::string("no kernel ") + name);
  return *k;
}

std::vector<const Instruction*> shared_of(const Kernel& k) {
  std::vector<const Instruction*> out;
  for (auto& g : shared_by_ptx_line(k))
    for (auto* i : g.instructions) out.push_back(i);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out{""};  // 1-based
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

// bench/sass/forms.cu compiled here (nvcc -ptx, then ptxas -lineinfo on that PTX, as the
// analysis will): each shared instruction lands on a PTX line that does that access.
TEST(SassForms, SharedInstructionsMapToSharedPtxLines) {
  auto cubin = bytes_of(data("forms_ptxas.cubin"));
  auto ptx = lines_of(slurp(data("forms.ptx")));
  auto m = read_module(cubin, kHopper);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m.value().sm, 90u);
  EXPECT_TRUE(m.value().has_line_info);
  EXPECT_EQ(m.value().kernels.size(), 11u);
  std::size_t checked = 0;
  for (const Kernel& k : m.value().kernels) {
    for (const LineAccesses& g : shared_by_ptx_line(k)) {
      ASSERT_GT(g.ptx_line, 0u) << k.name;
      ASSERT_LT(g.ptx_line, ptx.size());
      const std::string& src = ptx[g.ptx_line];
      for (const Instruction* i : g.instructions) {
        SCOPED_TRACE(k.name + ": " + opcode_text(*i) + " on PTX line " + src);
        ++checked;
        switch (i->shared) {
          case SharedOp::LDSM:
            EXPECT_NE(src.find("ldmatrix"), std::string::npos);
            break;
          case SharedOp::STSM:
            EXPECT_NE(src.find("stmatrix"), std::string::npos);
            break;
          case SharedOp::LDGSTS:
            EXPECT_NE(src.find("cp.async"), std::string::npos);
            break;
          default:
            EXPECT_NE(src.find(".shared"), std::string::npos);
        }
      }
    }
  }
  EXPECT_GT(checked, 60u);
}

// What the PTX of each forms.cu kernel says ptxas must emit, instruction by instruction.
TEST(SassForms, DecodedFormsMatchTheirPtx) {
  auto m = read_module(bytes_of(data("forms_ptxas.cubin")), kHopper);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Module& mod = m.value();

  auto ldsm = shared_of(kernel(mod, "_Z10ldsm_formsPj"));
  std::vector<std::pair<int, bool>> got;
  for (auto* i : ldsm)
    if (i->shared == SharedOp::LDSM) got.push_back({i->matrices, i->transpose});
  EXPECT_EQ(got, (std::vector<std::pair<int, bool>>{
                     {1, false}, {2, false}, {4, false}, {1, true}, {2, true}, {4, true}}));
  EXPECT_EQ(ldsm.back()->imm, 512);

  got.clear();
  for (auto* i : shared_of(kernel(mod, "_Z10stsm_formsPjj")))
    if (i->shared == SharedOp::STSM) got.push_back({i->matrices, i->transpose});
  EXPECT_EQ(got,
            (std::vector<std::pair<int, bool>>{{1, false}, {2, false}, {4, false}, {4, true}}));

  std::vector<AtomOp> ops;
  std::vector<bool> signs;
  for (auto* i : shared_of(kernel(mod, "_Z8atoms_32Pjj"))) {
    ops.push_back(i->atom);
    signs.push_back(i->atom_signed);
  }
  using A = AtomOp;
  EXPECT_EQ(ops, (std::vector<AtomOp>{A::Add, A::Min, A::Max, A::Min, A::Max, A::Inc, A::Dec,
                                      A::And, A::Or, A::Xor, A::Exch, A::Cas, A::Add}));
  EXPECT_EQ(signs, (std::vector<bool>{0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}));

  // 64-bit: exch and cas are single ATOMS.*.64; add/min/max/and/or become CAS loops.
  std::map<std::string, int> count64;
  for (auto* i : shared_of(kernel(mod, "_Z8atoms_64Pyy"))) ++count64[opcode_text(*i)];
  EXPECT_EQ(count64["ATOMS.EXCH.64"], 1);
  EXPECT_EQ(count64["ATOMS.CAS.64"], 1);
  EXPECT_EQ(count64["ATOMS.CAST.SPIN.64"], 5);

  auto popc = shared_of(kernel(mod, "_Z14atoms_popc_incPjPKj"));
  ASSERT_EQ(
      std::count_if(popc.begin(), popc.end(), [](auto* i) { return i->shared == SharedOp::ATOMS; }),
      1);
  for (auto* i : popc)
    if (i->shared == SharedOp::ATOMS) {
      EXPECT_EQ(i->atom, AtomOp::PopcInc);
      EXPECT_EQ(i->dst, kRZ);  // result unused
    }

  // Warp-uniform address: one predicated lane adds at [UR], no per-lane address.
  for (auto* i : shared_of(kernel(mod, "_Z13atoms_uniformPjj")))
    if (i->shared == SharedOp::ATOMS) {
      EXPECT_EQ(i->atom, AtomOp::Add);
      EXPECT_EQ(i->addr, kRZ);
      EXPECT_NE(i->uniform, kURZ);
      EXPECT_FALSE(i->guard.always());
    }

  std::vector<int> sts, lds;
  for (auto* i : shared_of(kernel(mod, "_Z12ld_st_widthsPii")))
    (i->shared == SharedOp::STS ? sts : lds).push_back(i->width_bytes * (i->sign_extend ? -1 : 1));
  std::sort(sts.begin(), sts.end());
  EXPECT_EQ(sts, (std::vector<int>{1, 2, 4, 8, 16}));
  // The u64 load keeps only its low word, so ptxas reads 4 bytes.
  EXPECT_EQ(lds, (std::vector<int>{1, -1, 2, -2, 4, 4, 16}));

  auto pred = shared_of(kernel(mod, "_Z16ld_st_predicatedPii"));
  ASSERT_EQ(pred.size(), 2u);
  for (auto* i : pred) EXPECT_FALSE(i->guard.always());

  std::vector<std::tuple<int, bool, int>> cp;
  for (auto* i : shared_of(kernel(mod, "_Z12ldgsts_formsPiPK4int4i")))
    if (i->shared == SharedOp::LDGSTS) cp.push_back({i->width_bytes, i->bypass, i->imm});
  EXPECT_EQ(cp, (std::vector<std::tuple<int, bool, int>>{{4, false, 0},
                                                         {8, false, 4096},
                                                         {16, false, 8192},
                                                         {16, true, 12288},
                                                         {4, false, 4},
                                                         {16, true, 12304}}));
  // ptxas's @!PT LDS fillers exist in the kernel but are never listed as accesses.
  const Kernel& cpk = kernel(mod, "_Z12ldgsts_formsPiPK4int4i");
  EXPECT_GE(std::count_if(cpk.instructions.begin(), cpk.instructions.end(),
                          [](auto& i) { return i.shared == SharedOp::LDS && i.guard.never(); }),
            1);
}

namespace {

bool have_nvcc() { return std::system("nvcc --version > /dev/null 2>&1") == 0; }

}  // namespace

// A cubin compiled here from each example holds exactly the instruction words of the
// listing taken on the GPU machine with the same toolkit, and each kernel's register
// count is what `ptxas -v` says.
TEST(SassCubin, ExamplesMatchListingsAndPtxasRegisterCounts) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  fs::path dir = fs::temp_directory_path() / ("sass_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  int compared = 0;
  for (const char* ex : {"matmul", "transpose", "reduction", "scan"}) {
    fs::path cubin = dir / (std::string(ex) + ".cubin"), log = dir / (std::string(ex) + ".log");
    std::string cmd = "nvcc -arch=sm_90 -cubin -lineinfo -Xptxas -v " +
                      (kSource / "examples" / (std::string(ex) + ".cu")).string() + " -o " +
                      cubin.string() + " > " + log.string() + " 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto m = read_module(bytes_of(cubin), kHopper);
    ASSERT_TRUE(m.ok()) << m.error().message;
    // ptxas -v: "Compiling entry function 'NAME'" then "Used N registers".
    std::map<std::string, unsigned> regs;
    std::string current;
    std::istringstream in(slurp(log));
    static const std::regex entry(R"(entry function '([^']+)')"), used(R"(Used (\d+) registers)");
    std::smatch mm;
    for (std::string l; std::getline(in, l);) {
      if (std::regex_search(l, mm, entry))
        current = mm[1];
      else if (std::regex_search(l, mm, used))
        regs[current] = std::stoul(mm[1]);
    }
    auto listed =
        read_listing(kSource / "bench/check/measured/h100" / (std::string(ex) + ".sass.txt.gz"));
    for (const Kernel& k : m.value().kernels) {
      SCOPED_TRACE(std::string(ex) + " " + k.name);
      ASSERT_TRUE(regs.count(k.name));
      EXPECT_EQ(k.registers, regs[k.name]);
      std::vector<std::pair<std::uint64_t, std::uint64_t>> want, have;
      for (const Listed& l : listed)
        if (l.function == k.name) want.push_back({l.lo, l.hi});
      for (const Instruction& i : k.instructions) have.push_back({i.lo, i.hi});
      EXPECT_EQ(have, want);
      ++compared;
    }
  }
  fs::remove_all(dir);
  EXPECT_GE(compared, 6);
}

// Every form ptxas gives a global atomic is a memory instruction at the atomic's PTX line:
// REDG, ATOMG (its old value read, an exchange), ATOMG's compare-and-swap, a float
// reduction; so that the emulator places the atomic's requests on the lines Nsight Compute
// lists (NVIDIA's simpleAtomicIntrinsics and threadFenceReduction).
TEST(SassCubin, GlobalAtomicsAreMemoryInstructionsAtTheirPtxLines) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  fs::path dir = fs::temp_directory_path() / ("sass_atomics_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "k.cu") << R"(
__global__ void t(int* g, int* out) {
  const unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
  atomicCAS(&g[7], tid - 1, tid);
  out[tid] = atomicInc((unsigned int*)&g[5], 17);
  atomicSub(&g[1], 10);
  atomicCAS((unsigned long long*)(g + 8), 1ull, (unsigned long long)tid);
  out[tid + 128] = atomicExch(&g[2], tid);
  atomicExch(&g[3], tid);
  atomicAdd((float*)&g[4], 1.0f);
  atomicMax(&g[6], (int)tid);
})";
  const std::string ptx = (dir / "k.ptx").string(), cubin = (dir / "k.cubin").string();
  const std::string cmd = "nvcc -arch=sm_90 -lineinfo --ptx " + (dir / "k.cu").string() +
                          " -o " + ptx + " && nvcc -arch=sm_90 -cubin -lineinfo " + ptx + " -o " +
                          cubin + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  auto m = read_module(bytes_of(cubin), kHopper);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m.value().kernels.size(), 1u);
  std::istringstream in(slurp(ptx));
  int atomics = 0;
  std::uint32_t n = 0;
  for (std::string l; std::getline(in, l);) {
    ++n;
    if (l.find("atom.global") == std::string::npos && l.find("red.global") == std::string::npos)
      continue;
    ++atomics;
    EXPECT_FALSE(memory_instructions_at(m.value().kernels[0], n).empty())
        << "PTX line " << n << ": " << l;
  }
  EXPECT_EQ(atomics, 8);
  fs::remove_all(dir);
}

// Hostile input: every truncation and thousands of bit flips of a real cubin either
// parse or give an error with a message; none crashes (run under the sanitizer build too).
// The cubin's .debug_line rows per instruction, where Nsight Compute lists it: the H100
// runs' cubins (bench/check/measured/h100_run_new/tuned), against the per-line source counters
// there.
TEST(SassCubin, SourceLinesAreTheDebugLineRowsAtTheAddress) {
  const auto lines_at = [](const std::string& cubin, const std::string& kernel,
                           std::uint64_t offset) {
    std::set<std::string> out;
    auto m =
        read_module(bytes_of(kSource / "bench/check/measured/h100_run_new/tuned" / cubin), kHopper);
    EXPECT_TRUE(m.ok());
    if (!m.ok()) return out;
    for (const auto& k : m.value().kernels)
      if (k.name == kernel)
        for (const auto& [f, line] : k.source_lines.at(offset / 16)) {
          const std::string& path = m.value().source_files.at(f);
          out.insert(path.substr(path.rfind('/') + 1) + ":" + std::to_string(line));
        }
    return out;
  };
  // CUB's BlockReduce: an LDS.128 at 0x240 under two lines, the LDS at 0x230 under the
  // rows at 0x200; Nsight lists them so (cub.source.csv).
  EXPECT_EQ(lines_at("cub.sm_90.cubin", "_Z9block_sumPKfPf", 0x240),
            (std::set<std::string>{"block_reduce_warp_reductions.cuh:143",
                                   "block_reduce_warp_reductions.cuh:146"}));
  EXPECT_EQ(lines_at("cub.sm_90.cubin", "_Z9block_sumPKfPf", 0x230),
            (std::set<std::string>{"block_reduce_warp_reductions.cuh:143",
                                   "block_reduce_warp_reductions.cuh:192"}));
  // cg::reduce's executed LDS: one row, though its inline chain reaches the kernel's line.
  EXPECT_EQ(lines_at("classic.sm_90.cubin", "_Z11cg_tile_sumPKiPi", 0x5d0),
            (std::set<std::string>{"reduce.h:194"}));
}

TEST(SassRobustness, TruncatedAndBitFlippedCubinsGiveErrors) {
  auto good = bytes_of(data("forms_ptxas.cubin"));
  ASSERT_TRUE(read_module(good, kHopper).ok());
  int errors = 0;
  for (std::size_t n = 0; n < good.size(); n += (n < 256 ? 1 : 97)) {
    auto r = read_module(std::span(good.data(), n), kHopper);
    if (!r.ok()) {
      ++errors;
      EXPECT_FALSE(r.error().message.empty());
    }
  }
  EXPECT_GT(errors, 100);
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 3000; ++trial) {
    auto bad = good;
    int flips = 1 + int(rng() % 8);
    for (int f = 0; f < flips; ++f) {
      // Aim half the flips at the headers and line tables, where the structure is.
      std::size_t at = rng() % 2 ? rng() % 1024 : rng() % bad.size();
      if (rng() % 4 == 0) at = bad.size() - 1 - rng() % std::min<std::size_t>(bad.size(), 2048);
      bad[at] ^= std::uint8_t(1u << (rng() % 8));
    }
    auto r = read_module(bad, kHopper);
    if (!r.ok()) {
      EXPECT_FALSE(r.error().message.empty());
    }
  }
  EXPECT_FALSE(read_module({}, kHopper).ok());
  std::vector<std::uint8_t> noise(4096);
  for (auto& b : noise) b = std::uint8_t(rng());
  EXPECT_FALSE(read_module(noise, kHopper).ok());
}

// The decoder comes from the architecture: Hopper's for sm_90 and sm_90a, none for the
// others; without one, a cubin still gives its kernels' names and registers (fix's
// occupancy on every architecture).
TEST(SassDecoder, ChosenByTheArchitecturesFamily) {
  using bankcheck::model::SassFamily;
  EXPECT_EQ(decoder_for(SassFamily::Hopper), &decode_hopper);
  EXPECT_EQ(decoder_for(SassFamily::None), nullptr);
  EXPECT_EQ(bankcheck::model::find_arch("sm_90")->sass, SassFamily::Hopper);
  EXPECT_EQ(bankcheck::model::find_arch("sm_90a")->sass, SassFamily::Hopper);
  EXPECT_EQ(bankcheck::model::kDefaultArch.sass, SassFamily::Hopper);
  for (const bankcheck::model::Arch& a : bankcheck::model::kArchs) {
    if (a.cc != 90) {
      EXPECT_EQ(a.sass, SassFamily::None) << a.name;
    }
  }

  const auto cubin = bytes_of(data("forms_ptxas.cubin"));
  auto decoded = read_module(cubin, kHopper);
  auto undecoded = read_module(cubin, nullptr);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  ASSERT_TRUE(undecoded.ok()) << undecoded.error().message;
  const auto& a = decoded.value().kernels;
  const auto& b = undecoded.value().kernels;
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].registers, b[i].registers) << a[i].name;
    EXPECT_FALSE(a[i].instructions.empty()) << a[i].name;
    EXPECT_TRUE(b[i].instructions.empty()) << b[i].name;
  }
}
