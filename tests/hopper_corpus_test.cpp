// wgmma, TMA copies and distributed shared memory against the H200: every measured case of
// bench/hardware/{wgmma,tma,dsmem} (Nsight Compute's Source Counters, one instruction or
// request pattern per line) replayed through model/hopper.hpp, then the rules' properties
// over all their inputs.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/model/hopper.hpp"

namespace {

using namespace bankcheck::model;

using Row = std::map<std::string, std::string>;

// A TSV with a header line, as rows of named fields.
std::vector<Row> read_tsv(const std::string& path) {
  std::ifstream in(path);
  std::vector<Row> rows;
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream ss(line);
    for (std::string x; std::getline(ss, x, '\t');) f.push_back(x);
    if (header.empty()) {
      header = f;
      continue;
    }
    Row r;
    for (size_t i = 0; i < header.size(); ++i) r[header[i]] = i < f.size() ? f[i] : "";
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string bench(const std::string& rel) {
  return std::string(BANKCHECK_SOURCE_DIR) + "/bench/hardware/" + rel;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::istringstream ss(s);
  for (std::string x; std::getline(ss, x, sep);) out.push_back(x);
  return out;
}

// Every wgmma case: the GMMA rows' executions, wavefronts and ideal (HGMMA rows in the
// `wavefronts` columns; QGMMA and IGMMA rows, which parse.py lists as others, in the
// kernel's totals: no other row of a probe kernel has shared wavefronts) equal one
// warpgroup request per wgmma of the case, each listed on one line of its own.
TEST(WgmmaCorpus, EveryCaseEqualsTheSourceCounters) {
  const auto rows = read_tsv(bench("wgmma/measured/results.tsv"));
  ASSERT_EQ(rows.size(), 148u);
  std::map<std::string, int> types;
  int registers = 0, transposed = 0;
  std::set<std::string> swizzles;
  for (const Row& r : rows) {
    SCOPED_TRACE(r.at("id"));
    const int n = std::stoi(r.at("n"));
    const bool a_shared = r.at("a_src") == "smem";
    const auto lines = split(r.at("wgmma_lines"), ',');
    const Verdict one = wgmma_request(wgmma_operands(n, a_shared));
    const auto count = static_cast<std::uint32_t>(lines.size());
    EXPECT_EQ(one.wavefronts, one.ideal_wavefronts);
    EXPECT_EQ(std::stoul(r.at("kernel_wavefronts")), count * one.wavefronts);
    EXPECT_EQ(std::stoul(r.at("kernel_ideal")), count * one.ideal_wavefronts);
    const std::string gmma = r.at("hgmma") != "none" ? r.at("hgmma") : r.at("others");
    ASSERT_NE(gmma.find("GMMA.64x" + std::to_string(n) + "x"), std::string::npos) << gmma;
    if (r.at("hgmma") != "none") {  // HGMMA: its executions are listed too
      EXPECT_EQ(std::stoul(r.at("executed")), count * kWgmmaWarps);
      EXPECT_EQ(std::stoul(r.at("wavefronts")), count * one.wavefronts);
    }
    // Where: one line per wgmma, one request each, nothing elsewhere. Which line is the
    // cubin's line table's (the B descriptor's line when the descriptors come from memory, the
    // wgmma's own in the loops): device_test's DeviceWgmma replays that on the probe's cubin.
    const auto where = split(r.at("where"), ',');
    ASSERT_EQ(where.size(), lines.size());
    for (size_t i = 0; i < where.size(); ++i) {
      std::string expected = ":";
      expected.append(std::to_string(one.wavefronts)).append("/");
      expected.append(std::to_string(one.ideal_wavefronts));
      EXPECT_EQ(where[i].substr(where[i].find(':')), expected);
    }
    ++types[r.at("type")];
    registers += !a_shared;
    transposed += r.at("trans_a") == "1" || r.at("trans_b") == "1";
    swizzles.insert(r.at("swz_a"));
  }
  EXPECT_EQ(types.size(), 9u);     // f16 (two accumulators), bf16, tf32, e4m3, e5m2, mixed, s8, u8
  EXPECT_EQ(registers, 14);        // A from registers
  EXPECT_GE(transposed, 30);       // MN-major A or B
  EXPECT_EQ(swizzles.size(), 4u);  // none, 32, 64, 128 bytes
}

// The rule over all its inputs: every valid N, A in shared memory or registers.
TEST(WgmmaModel, OneWavefrontPerOperandLineOfEveryShape) {
  for (int n = 8; n <= 256; n += 8)
    for (const bool a : {true, false}) {
      const WgmmaOperands o = wgmma_operands(n, a);
      EXPECT_EQ(o.b_bytes, static_cast<std::uint32_t>(n) * 32);
      EXPECT_EQ(o.a_bytes, a ? 2048u : 0u);
      const Verdict v = wgmma_request(o);
      EXPECT_EQ(v.wavefronts, (a ? 16u : 0u) + static_cast<std::uint32_t>(n) / 4);
      EXPECT_EQ(v.wavefronts, v.ideal_wavefronts);
      EXPECT_EQ(v.excess(), 0u);
      EXPECT_EQ(v.ways, 1u);
      EXPECT_TRUE(v.ok());
    }
  EXPECT_FALSE(wgmma_n_valid(0));
  EXPECT_FALSE(wgmma_n_valid(12));
  EXPECT_FALSE(wgmma_n_valid(264));
  EXPECT_EQ(wgmma_request(WgmmaOperands{}).wavefronts, 0u);
  EXPECT_EQ(wgmma_request(WgmmaOperands{}).ways, 0u);
  static_assert(wgmma_request(wgmma_operands(128, true)).wavefronts == 48,
                "m64n128 with A in shared memory: (2 KiB + 4 KiB) / 128");
}

// Descriptors: decode(encode(d)) == d for every field value, and the probe's own descriptors
// (cases.tsv) decode to the fields it wrote.
TEST(WgmmaModel, DescriptorFieldsRoundTrip) {
  std::mt19937 rng(30);
  for (int i = 0; i < 20000; ++i) {
    MatrixDescriptor m;
    m.start = (rng() & 0x3FFF) << 4;
    m.lbo = (rng() & 0x3FFF) << 4;
    m.sbo = (rng() & 0x3FFF) << 4;
    m.base_offset = static_cast<std::uint8_t>(rng() & 7);
    m.swizzle = static_cast<WgmmaSwizzle>(rng() & 3);
    const MatrixDescriptor d = decode_descriptor(encode_descriptor(m));
    ASSERT_EQ(d.start, m.start);
    ASSERT_EQ(d.lbo, m.lbo);
    ASSERT_EQ(d.sbo, m.sbo);
    ASSERT_EQ(d.base_offset, m.base_offset);
    ASSERT_EQ(d.swizzle, m.swizzle);
  }
  const std::map<std::string, WgmmaSwizzle> modes = {{"0", WgmmaSwizzle::None},
                                                     {"32", WgmmaSwizzle::B32},
                                                     {"64", WgmmaSwizzle::B64},
                                                     {"128", WgmmaSwizzle::B128}};
  for (const Row& r : read_tsv(bench("wgmma/cases.tsv"))) {
    if (r.at("desc_a") == "0x0000000000000000") continue;  // built in the kernel (loop_*)
    SCOPED_TRACE(r.at("id"));
    const MatrixDescriptor a = decode_descriptor(std::stoull(r.at("desc_a"), nullptr, 16));
    const MatrixDescriptor b = decode_descriptor(std::stoull(r.at("desc_b"), nullptr, 16));
    EXPECT_EQ(a.start, std::stoul(r.at("a_start")));
    EXPECT_EQ(b.start, std::stoul(r.at("b_start")));
    EXPECT_EQ(a.lbo, std::stoul(r.at("lbo_a")));
    EXPECT_EQ(b.sbo, std::stoul(r.at("sbo_b")));
    EXPECT_EQ(a.base_offset, std::stoul(r.at("base_a")));
    EXPECT_EQ(a.swizzle, modes.at(r.at("swz_a")));
    EXPECT_EQ(swizzle_bytes(b.swizzle), std::stoul(r.at("swz_b")));
  }
}

// Every TMA copy: its row on its line, 0 wavefronts, 0 ideal, 0 sectors, 0 ideal sectors,
// in the space Global,Shared (the L2 prefetches: no space), as the model says.
TEST(TmaCorpus, EveryCopyListsNothing) {
  const auto rows = read_tsv(bench("tma/measured/results.tsv"));
  ASSERT_EQ(rows.size(), 81u);
  int measured = 0;
  std::set<std::string> opcodes;
  for (const Row& r : rows) {
    SCOPED_TRACE(r.at("id"));
    if (r.at("executed") == "-") {
      // load_1d_f32_b64_c3: a box starting 12 bytes into a line, an illegal instruction
      // (the probe skipped it).
      EXPECT_EQ(r.at("id"), "load_1d_f32_b64_c3");
      continue;
    }
    ++measured;
    const std::string sass = r.at("sass");
    ASSERT_TRUE(sass.starts_with("UTMA") || sass.starts_with("UBLK")) << sass;
    opcodes.insert(sass.substr(0, sass.find('.')));
    EXPECT_EQ(r.at("space"), sass.find("PF") != std::string::npos ? "-" : "Global,Shared");
    const Verdict v = tma_copy();
    const SectorCount s = tma_copy_sectors();
    EXPECT_EQ(std::stoul(r.at("wavefronts")), v.wavefronts);
    EXPECT_EQ(std::stoul(r.at("ideal")), v.ideal_wavefronts);
    EXPECT_EQ(std::stoul(r.at("sectors")), s.sectors);
    EXPECT_EQ(std::stoul(r.at("ideal_sectors")), s.ideal);
    EXPECT_EQ(std::stoul(r.at("kernel_wavefronts")), 0u);
    // Thread 0 issues (a multicast: CTA 0's only); ptxas guards the prefetches by a uniform
    // predicate instead of a branch, so the CTA's four warps execute them.
    EXPECT_EQ(std::stoul(r.at("executed")), sass.find("PF") != std::string::npos ? 4u : 1u);
  }
  EXPECT_EQ(measured, 80);
  EXPECT_EQ(opcodes, (std::set<std::string>{"UBLKCP", "UBLKPF", "UTMALDG", "UTMAPF", "UTMAREDG",
                                            "UTMASTG"}));
}

// Distributed shared memory: requests to the other CTA of the cluster list 0 everywhere;
// requests to the CTA itself through the cluster window cost what analyze() says of the same
// lanes, as plain LDS requests do.
TEST(DsmemCorpus, RemoteRequestsListNothingOwnOnesAreSharedRequests) {
  const auto pats = read_tsv(bench("dsmem/patterns.tsv"));
  const auto rows = read_tsv(bench("dsmem/measured/results.tsv"));
  ASSERT_EQ(pats.size(), rows.size());
  int remote = 0, own = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& p = pats[i];
    const Row& r = rows[i];
    SCOPED_TRACE(r.at("id"));
    ASSERT_EQ(p.at("id"), r.at("id"));
    ASSERT_EQ(std::stoul(r.at("executed")), 1u);
    if (p.at("target") == "remote") {
      EXPECT_FALSE(cluster_request_counted(0, 1));
      EXPECT_EQ(r.at("space"), "Global,Shared");
      EXPECT_EQ(r.at("wavefronts") + r.at("ideal") + r.at("sectors") + r.at("ideal_sectors"),
                "0000");
      ++remote;
      continue;
    }
    EXPECT_TRUE(cluster_request_counted(0, 0));
    EXPECT_EQ(r.at("space"), "Shared");
    WarpAccess a;
    a.op = Op::Load;
    a.width = static_cast<std::uint8_t>(std::stoi(p.at("width")));
    a.active = 0;
    const auto lanes = split(p.at("lanes"), ' ');
    ASSERT_EQ(lanes.size(), 32u);
    for (int l = 0; l < kWarpSize; ++l) {
      if (lanes[l] == "-") continue;
      a.active |= 1u << l;
      a.addr[l] = static_cast<std::uint32_t>(std::stoul(lanes[l]));
    }
    const Verdict v = analyze(a, kDefaultArch);
    EXPECT_EQ(std::stoul(r.at("wavefronts")), v.wavefronts);
    EXPECT_EQ(std::stoul(r.at("ideal")), v.ideal_wavefronts);
    ++own;
  }
  EXPECT_EQ(remote, 102);
  EXPECT_EQ(own, 44);
  std::printf(
      "distributed shared memory: %d remote requests list nothing, %d own requests "
      "equal analyze()\n",
      remote, own);
}

}  // namespace
