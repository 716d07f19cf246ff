// Replays every pattern measured on the H100 (bench/hardware) through the model and
// requires exact agreement with Nsight Compute's counters, launch by launch.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/model/analyze.hpp"
#include "ncu_raw.hpp"

namespace {

using namespace bankcheck::model;

struct Pattern {
  std::string id, op;
  int width = 0;
  WarpAccess access;
};

using Launch = bankcheck::test::NcuLaunch;

std::vector<Pattern> read_patterns(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::vector<Pattern> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    Pattern p;
    ss >> p.id >> p.op >> p.width;
    p.access.width = static_cast<std::uint8_t>(p.width);
    p.access.active = 0;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      std::string tok;
      ss >> tok;
      if (tok == "-") continue;
      p.access.active |= 1u << lane;
      p.access.addr[lane] = static_cast<std::uint32_t>(std::stoul(tok));
    }
    if (p.op == "ld")
      p.access.op = Op::Load;
    else if (p.op == "st")
      p.access.op = Op::Store;
    else if (p.op == "atom.cas")
      p.access.op = Op::AtomicCas;
    else
      p.access.op = Op::Atomic;  // atom (add), atom.exch, red (add)
    out.push_back(p);
  }
  return out;
}

std::string counter(const std::string& what, const std::string& op) {
  const std::string unit = op == "ld" ? "ld" : (op == "st" ? "st" : "atom");
  if (what == "wavefronts") return "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + unit + ".sum";
  if (what == "conflicts")
    return "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + unit + ".sum";
  return "smsp__inst_executed_op_shared_" + unit + ".sum";
}

void replay(const std::string& set, const std::string& results) {
  const std::string dir = std::string(BANKCHECK_SOURCE_DIR) + "/bench/hardware/";
  const auto patterns = read_patterns(dir + set);
  const auto launches = bankcheck::test::read_ncu_raw(dir + results + "/ncu_raw.csv.gz");
  ASSERT_EQ(patterns.size(), launches.size()) << "one launch per pattern";
  int agree = 0, unsupported = 0;
  for (size_t i = 0; i < patterns.size(); ++i) {
    const Pattern& p = patterns[i];
    const Launch& l = launches[i];
    SCOPED_TRACE(p.id + " " + p.op + " " + std::to_string(p.width));
    const Verdict v = analyze(p.access, kDefaultArch);
    if (p.op.rfind("atom", 0) == 0 && p.width == 8) {
      // A 64-bit shared atomic is a CAS loop in SASS (not one request): the model refuses.
      EXPECT_EQ(v.error, AccessError::Unsupported);
      ++unsupported;
      continue;
    }
    ASSERT_TRUE(v.ok()) << error_message(v.error);
    const double wavefronts = l.metrics.at(counter("wavefronts", p.op));
    const double conflicts = l.metrics.at(counter("conflicts", p.op));
    const double executed = l.metrics.at(counter("executed", p.op));
    // One instruction per launch. With no active lane, a predicated-off LDS still counts as
    // executed (0 wavefronts); kernels whose store or atomic is off exit before it.
    if (p.access.active)
      EXPECT_EQ(executed, 1) << "one instruction per launch";
    else
      EXPECT_LE(executed, 1);
    EXPECT_EQ(v.wavefronts, wavefronts) << l.kernel;
    if (p.access.op == Op::AtomicCas) {
      // ncu counts one conflict per extra round of a CAS, which takes two wavefronts.
      EXPECT_EQ(v.excess(), 2 * conflicts);
    } else {
      EXPECT_EQ(v.excess(), conflicts) << "excess is Nsight Compute's bank_conflicts counter";
    }
    if (v.wavefronts == wavefronts) ++agree;
  }
  std::printf("%s: %d of %zu patterns agree with the H100 (%d refused as not one request)\n",
              set.c_str(), agree, patterns.size() - unsupported, unsupported);
  EXPECT_EQ(static_cast<size_t>(agree + unsupported), patterns.size());
}

TEST(HardwareCorpus, BroadSetAgreesExactly) { replay("patterns.txt", "measured/patterns"); }
TEST(HardwareCorpus, MergeSetAgreesExactly) { replay("patterns_merge.txt", "measured/patterns_merge"); }

}  // namespace
