// The shared-atomics corpus replayed: for each of the H100's measured patterns
// (bench/hardware/measured/corpora/summary.txt.gz, lanes from bench/hardware/atomics/
// patterns.txt) the atom wavefronts bankcheck predicts for the SASS form ptxas produced
// (decoded from the committed cuobjdump listing, atomics_sass.txt.gz) equal the measured ones.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/sass/module.hpp"
#include "ncu_raw.hpp"

using namespace bankcheck;
using model::Op;
using model::Verdict;
using model::WarpAccess;

namespace {

const std::string kDir = std::string(BANKCHECK_SOURCE_DIR) + "/bench/hardware/";

struct Pattern {
  std::string kernel;
  std::uint32_t active = 0;
  std::uint32_t addr[32] = {};
  std::int64_t val[32] = {};  // the operand: default 1, cast to the kernel's type
};

// "ID KERNEL LANE0 ... LANE31", a lane "-" or "ADDR[:VAL[:CMP]]".
std::map<std::string, Pattern> read_patterns() {
  std::map<std::string, Pattern> out;
  std::ifstream in(kDir + "atomics/patterns.txt");
  EXPECT_TRUE(in.good());
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string id;
    Pattern p;
    ss >> id >> p.kernel;
    std::string lane;
    for (int l = 0; l < 32 && ss >> lane; ++l) {
      if (lane == "-") continue;
      p.active |= 1u << l;
      p.addr[l] = static_cast<std::uint32_t>(std::stoul(lane.substr(0, lane.find(':'))));
      const auto colon = lane.find(':');
      p.val[l] = colon == std::string::npos ? 1 : std::stoll(lane.substr(colon + 1));
    }
    out[id] = p;
  }
  return out;
}

struct Measured {
  std::string id, kernel, form;
  std::uint32_t wavefronts = 0;  // l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
  std::uint32_t conflicts = 0;   // l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
  std::uint32_t executed = 0;    // smsp__inst_executed_op_shared_atom.sum
  std::uint32_t shared_wavefronts = 0;  // l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
};

// The "## atomics" section of summary.txt.gz: id kernel form wavefronts conflicts
// inst_executed shared_wavefronts.
std::vector<Measured> read_summary() {
  std::vector<Measured> out;
  gzFile f = gzopen((kDir + "measured/corpora/summary.txt.gz").c_str(), "rb");
  EXPECT_NE(f, nullptr);
  if (!f) return out;
  char buf[4096];
  bool atomics = false;
  while (gzgets(f, buf, sizeof buf)) {
    std::string line(buf);
    if (line.rfind("## ", 0) == 0) atomics = line.rfind("## atomics", 0) == 0;
    if (!atomics || line[0] == '#') continue;
    std::istringstream ss(line);
    Measured m;
    ss >> m.id >> m.kernel >> m.form >> m.wavefronts >> m.conflicts >> m.executed >>
        m.shared_wavefronts;
    out.push_back(m);
  }
  gzclose(f);
  return out;
}

// Each kernel's one atomic ATOMS, decoded from the listing, aggregation marked.
std::map<std::string, sass::Instruction> read_atoms() {
  std::istringstream in([] {
    std::string text;
    for (const std::string& l :
         bankcheck::test::read_gzip_lines(kDir + "measured/corpora/atomics_sass.txt.gz"))
      text += l + "\n";
    return text;
  }());
  std::map<std::string, sass::Kernel> kernels;
  std::string name;
  for (std::string line; std::getline(in, line);) {
    if (auto at = line.find("Function : "); at != std::string::npos) {
      name = line.substr(at + 11);
      continue;
    }
    auto lo_at = line.find("/* 0x");
    if (name.empty() || line.find("*/", 0) == std::string::npos || lo_at == std::string::npos ||
        line.find(';') == std::string::npos)
      continue;
    std::string next;
    if (!std::getline(in, next)) break;
    auto hi_at = next.find("/* 0x");
    if (hi_at == std::string::npos) continue;
    kernels[name].instructions.push_back(
        sass::decode_hopper(std::stoull(line.substr(lo_at + 5, 16), nullptr, 16),
                            std::stoull(next.substr(hi_at + 5, 16), nullptr, 16)));
  }
  std::map<std::string, sass::Instruction> out;
  for (auto& [mangled, k] : kernels) {
    sass::mark_aggregated(k);
    // "_Z12inc_wrap_u325Lanes" -> "inc_wrap_u32": the length prefix says where it ends.
    std::size_t digits = 2;
    while (digits < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[digits])))
      ++digits;
    const std::string plain = mangled.substr(digits, std::stoul(mangled.substr(2, digits - 2)));
    for (const sass::Instruction& i : k.instructions)
      if (i.shared == sass::SharedOp::ATOMS && !i.guard.never()) out[plain] = i;
  }
  return out;
}

// The update each 64-bit CAS-loop kernel of probe_atomics.cu applies (the SASS form does
// not say: every loop ends in the same ATOMS.CAST.SPIN.64).
model::SpinOp spin_op(const std::string& kernel) {
  if (kernel == "min_u64") return model::SpinOp::MinU;
  EXPECT_EQ(kernel, "add_u64_used");
  return model::SpinOp::Add;
}

// What bankcheck predicts for one pattern under the SASS form of its kernel's ATOMS; for a
// 64-bit CAS loop also the lanes of each pass's LDS.64.
Verdict predict(const std::string& kernel, const sass::Instruction& atoms, const Pattern& p,
                model::SpinLoads& loads) {
  WarpAccess a;
  a.active = p.active;
  for (int l = 0; l < 32; ++l) a.addr[l] = p.addr[l];
  const bool cas = atoms.atom == sass::AtomOp::Cas || atoms.atom == sass::AtomOp::CasT ||
                   atoms.atom == sass::AtomOp::CasTSpin;
  // A CAST.SPIN loop: each pass one lane per bank (pair) stores, the rest spin; every
  // pass costs what one conflict-free CAS round does, so the 32-bit loop costs as one CAS
  // of all lanes (add_f32_*: 126 of 126 patterns). The 64-bit loop's high half-warp can
  // lose to its low half, so it is counted pass by pass with the values: each word starts
  // at 1000 + its offset (probe_atomics.cu: init64). Its LDS is counted as a load, not here.
  a.op = cas ? Op::AtomicCas : Op::Atomic;
  if (atoms.aggregated) a.active = model::aggregated_lane(a.active);
  if (atoms.atom == sass::AtomOp::PopcInc) a.active = model::popc_inc_lanes(a);
  a.width = atoms.width_bytes;
  if (atoms.atom == sass::AtomOp::CasTSpin && a.width == 8) {
    model::SpinAccess s;
    s.op = spin_op(kernel);
    s.active = a.active;
    for (int l = 0; l < 32; ++l) {
      s.addr[l] = p.addr[l];
      s.operand[l] = static_cast<std::uint64_t>(p.val[l]);
      s.word[l] = 1000u + p.addr[l];
    }
    return model::atomic64_spin(s, &loads);
  }
  return a.width == 8 ? model::atomic64(a) : model::analyze(a);
}

}  // namespace

TEST(AtomicsCorpus, EveryMeasuredPatternReplaysExactly) {
  const auto patterns = read_patterns();
  const auto measured = read_summary();
  const auto atoms = read_atoms();
  ASSERT_EQ(measured.size(), 1400u);
  std::map<std::string, int> exact;
  for (const Measured& m : measured) {
    SCOPED_TRACE(m.id + " " + m.kernel + " " + m.form);
    ASSERT_TRUE(patterns.count(m.id));
    ASSERT_TRUE(atoms.count(m.kernel));
    const sass::Instruction& i = atoms.at(m.kernel);
    EXPECT_EQ(m.form.substr(m.form.rfind('+') + 1), sass::opcode_text(i));
    const Pattern& p = patterns.at(m.id);
    model::SpinLoads loads;
    const Verdict v = predict(m.kernel, i, p, loads);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v.wavefronts, m.wavefronts);
    if (i.atom == sass::AtomOp::CasTSpin) {
      // A spin loop executes its ATOMS once per pass, and ncu sees each pass as one
      // conflict-free request; the verdict's ways are the passes.
      EXPECT_EQ(v.ways, m.executed);
      EXPECT_EQ(m.conflicts, 0u);
    }
    if (i.atom == sass::AtomOp::CasTSpin && i.width_bytes == 8) {
      // The passes' loads confirm which lanes stay in the loop: all shared wavefronts of
      // the launch are the initial STS.64, each pass's LDS.64, the ATOMS, and the one
      // wavefront every launch of the corpus shows beside its instructions.
      WarpAccess a;
      a.width = 8;
      a.op = Op::Store;
      a.active = p.active;
      for (int l = 0; l < 32; ++l) a.addr[l] = p.addr[l];
      std::uint32_t shared = model::analyze(a).wavefronts + v.wavefronts + 1;
      a.op = Op::Load;
      for (int pass = 0; pass < loads.count; ++pass) {
        a.active = loads.lanes[pass];
        shared += model::analyze(a).wavefronts;
      }
      EXPECT_EQ(shared, m.shared_wavefronts);
    }
    if (v.wavefronts == m.wavefronts) ++exact[m.kernel];
  }
  int total = 0;
  for (auto& [k, n] : exact) total += n;
  std::printf("atomics corpus: %d of %zu patterns exact\n", total, measured.size());
  EXPECT_EQ(total, 1400);
  EXPECT_EQ(exact["add_uniform_param_val"], 28);  // aggregated: one lane
  EXPECT_EQ(exact["inc_unused"], 58);             // POPC.INC
  EXPECT_EQ(exact["exch_b64"], 63);               // 64-bit: half-warp phases
  EXPECT_EQ(exact["add_u64_used"], 28);           // 64-bit CAS loop, pass by pass
  EXPECT_EQ(exact["min_u64"], 62);                // the same, with early exits
}
