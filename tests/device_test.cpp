// The GPU backend's host side, without a GPU: the request costing the patches run on the
// device (device/warp_request.hpp), compiled for the host and replayed against the H100's
// measured patterns; the SASS forms given to the patches; and counters per instruction
// turned into the report (device/pc_report.hpp) on a real cubin.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "bankcheck/device/pc_report.hpp"
#include "bankcheck/device/warp_request.hpp"
#include "bankcheck/model/hopper.hpp"
#include "bankcheck/report/check_view.hpp"
#include "bankcheck/report/html_view.hpp"
#include "bankcheck/report/sarif_view.hpp"
#include "bankcheck/sass/decoder.hpp"
#include "bankcheck/sass/module.hpp"
#include "ncu_raw.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bankcheck;

std::vector<std::uint8_t> bytes_of(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  EXPECT_TRUE(f) << "cannot open " << p;
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

sass::Module module_of(const std::string& rel) {
  auto m = sass::read_module(bytes_of(fs::path(BANKCHECK_SOURCE_DIR) / rel),
                             sass::decoder_for(model::SassFamily::Hopper));
  EXPECT_TRUE(m.ok()) << rel;
  return m.ok() ? std::move(m.value()) : sass::Module{};
}

// bench/hardware's patterns: each is one warp request, measured by Nsight Compute in a launch
// of its own. The device-side costing equals the hardware on every one the model accepts.
void replay(const std::string& set, const std::string& results) {
  const std::string dir = std::string(BANKCHECK_SOURCE_DIR) + "/bench/hardware/";
  std::ifstream in(dir + set);
  ASSERT_TRUE(in);
  const auto launches = test::read_ncu_raw(dir + results + "/ncu_raw.csv.gz");
  std::size_t i = 0, compared = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    ASSERT_LT(i, launches.size());
    const test::NcuLaunch& l = launches[i++];
    std::istringstream ss(line);
    std::string id, op;
    int width = 0;
    ss >> id >> op >> width;
    std::uint32_t addr[32] = {}, active = 0;
    for (int lane = 0; lane < 32; ++lane) {
      std::string tok;
      ss >> tok;
      if (tok == "-") continue;
      active |= 1u << lane;
      addr[lane] = static_cast<std::uint32_t>(std::stoul(tok));
    }
    if (op.rfind("atom", 0) == 0 && width == 8) continue;  // a CAS loop in SASS
    const device::Access access = op == "ld"   ? device::Access::Load
                                  : op == "st" ? device::Access::Store
                                               : device::Access::Atomic;
    const device::Form form = op == "atom.cas" ? device::Form::Cas : device::Form::Plain;
    const device::RequestCost c =
        device::shared_request(addr, active, width, access, form, model::default_arch());
    const std::string unit = op == "ld" ? "ld" : (op == "st" ? "st" : "atom");
    SCOPED_TRACE(id + " " + op + " " + std::to_string(width));
    EXPECT_EQ(c.wavefronts,
              l.metrics.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + unit + ".sum"));
    EXPECT_GE(c.wavefronts, c.ideal);
    ++compared;
  }
  EXPECT_EQ(i, launches.size());
  EXPECT_GT(compared, 100u);
}

TEST(DeviceRequest, BroadHardwareSetAgrees) { replay("patterns.txt", "measured/patterns"); }
TEST(DeviceRequest, MergeHardwareSetAgrees) {
  replay("patterns_merge.txt", "measured/patterns_merge");
}

TEST(DeviceRequest, AtomicFormsCostTheLanesTheSassUpdates) {
  std::uint32_t addr[32];
  for (int l = 0; l < 32; ++l) addr[l] = 4u * (l % 4) * 32;  // 4 words, all in bank 0
  const auto plain = device::shared_request(addr, ~0u, 4, device::Access::Atomic,
                                            device::Form::Plain, model::default_arch());
  const auto popc = device::shared_request(addr, ~0u, 4, device::Access::Atomic,
                                           device::Form::PopcInc, model::default_arch());
  const auto one = device::shared_request(addr, ~0u, 4, device::Access::Atomic,
                                          device::Form::Aggregated, model::default_arch());
  // No broadcast for atomics: 32 lanes on one bank; POPC.INC: one lane per word (4 words on
  // one bank); aggregated: one lane.
  EXPECT_EQ(plain.wavefronts, 32u);
  EXPECT_EQ(popc.wavefronts, 4u);
  EXPECT_EQ(one.wavefronts, 1u);
  const auto none = device::shared_request(addr, 0u, 4, device::Access::Load, device::Form::Plain,
                                           model::default_arch());
  EXPECT_EQ(none.wavefronts, 0u);
}

// 64-bit atomics: one ATOMS.EXCH.64 costs as model::atomic64 (stride 16 bytes: 4); a pass of
// a CAS loop as one CAS of its lanes.
TEST(DeviceRequest, SixtyFourBitAtomicsAndCasLoopPasses) {
  std::uint32_t addr[32];
  for (int l = 0; l < 32; ++l) addr[l] = 16u * l;
  const auto exch = device::shared_request(addr, ~0u, 8, device::Access::Atomic,
                                           device::Form::Plain, model::default_arch());
  EXPECT_EQ(exch.wavefronts, 4u);
  EXPECT_EQ(exch.ideal, 2u);
  // A pass: lanes 0-15 on 8 words of one bank pair (two each), lanes 16-31 on distinct pairs.
  for (int l = 0; l < 16; ++l) addr[l] = 128u * (l / 2);
  for (int l = 16; l < 32; ++l) addr[l] = 8u * (l - 16);
  const auto pass = device::spin_pass(addr, ~0u);
  EXPECT_EQ(pass.wavefronts, 2u * 16 + 2u * 1);  // 16 lanes on one bank pair; one per pair
  EXPECT_EQ(pass.ideal, 4u);
  EXPECT_EQ(device::spin_pass(addr, 0u).wavefronts, 0u);
}

// The sanitizer gives the bytes a lane uses (12 for a float3 read by LDG.E.128): the request
// is the instruction's width, as the hardware counts its ideal.
TEST(DeviceRequest, AccessSizesRoundToTheInstructionWidth) {
  EXPECT_EQ(device::instruction_width(12), 16);
  EXPECT_EQ(device::instruction_width(6), 8);
  EXPECT_EQ(device::instruction_width(3), 4);
  EXPECT_EQ(device::instruction_width(4), 4);
  EXPECT_EQ(device::instruction_width(1), 1);
}

TEST(DeviceRequest, GlobalSectorsOfAStridedWarp) {
  std::uint64_t addr[32];
  for (int l = 0; l < 32; ++l) addr[l] = 0x10000 + 4ull * l;
  auto c = device::global_request(addr, ~0u, 4);
  EXPECT_EQ(c.sectors, 4u);  // 128 contiguous bytes
  EXPECT_EQ(c.ideal_sectors, 4u);
  for (int l = 0; l < 32; ++l) addr[l] = 0x10000 + 128ull * l;
  c = device::global_request(addr, ~0u, 4);
  EXPECT_EQ(c.sectors, 32u);  // one sector per lane
  EXPECT_EQ(c.ideal_sectors, 4u);
}

// The patches' fast paths (patches.cu: shared_words, global_sectors) compute two rules with
// warp intrinsics, each lane keeping its address: here the same rules, lane by lane as the
// intrinsics compute them, against the model on requests of every kind of pattern
// (broadcasts, strides, random words in narrow and wide ranges, partial masks). Should the
// model change for these requests, this fails and the fast paths must change with it.
namespace fast_path {

// shared_words: the phases (32 lanes up to 4 bytes, 16 for 8, 8 for 16; a load whose active
// pairs n, n^1 or n^2 share addresses pairs them); in a phase one lane speaks for each
// distinct block (its address over the width; its word below 4 bytes), a speaker counts the
// speakers of its bank group, and the phase costs the most.
model::Verdict shared_words(const std::uint32_t* addr, std::uint32_t mask, int width, bool load) {
  int phase = width <= 4 ? 32 : width == 8 ? 16 : 8;
  if (width >= 8 && load) {
    for (int d = 1; d <= 2; d *= 2) {
      bool all = true;
      for (int l = 0; l < 32; ++l)
        if (((mask >> l) & 1u) && ((mask >> (l ^ d)) & 1u) && addr[l] != addr[l ^ d]) all = false;
      if (all) {
        phase *= 2;
        break;
      }
    }
  }
  const auto block = [&](int l) {
    return width <= 4 ? addr[l] >> 2 : addr[l] / static_cast<std::uint32_t>(width);
  };
  const std::uint32_t groups = width <= 4 ? 32u : 128u / static_cast<std::uint32_t>(width);
  const auto speaks = [&](int l) {
    for (int o = l - l % phase; o < l; ++o)
      if (((mask >> o) & 1u) && block(o) == block(l)) return false;
    return true;
  };
  model::Verdict v;
  for (int first = 0; first < 32; first += phase) {
    std::uint32_t most = 0;
    bool any = false;
    for (int l = first; l < first + phase; ++l) {
      if (!((mask >> l) & 1u)) continue;
      any = true;
      if (!speaks(l)) continue;
      std::uint32_t n = 0;
      for (int o = first; o < first + phase; ++o)
        n += ((mask >> o) & 1u) && speaks(o) &&
             (block(o) & (groups - 1)) == (block(l) & (groups - 1));
      most = std::max(most, n);
    }
    if (!any) continue;
    v.wavefronts += most;
    v.ideal_wavefronts += 1;
    v.ways = std::max(v.ways, most);
  }
  return v;
}

// global_sectors: the distinct sectors (the lowest lane of each), the ideal the lanes' bytes
// packed but never more than the sectors.
std::pair<std::uint32_t, std::uint32_t> global_sectors(const std::uint64_t* addr,
                                                       std::uint32_t mask, int width) {
  std::set<std::uint64_t> sectors;
  for (int l = 0; l < 32; ++l)
    if ((mask >> l) & 1u) sectors.insert(addr[l] >> 5);
  const auto n = static_cast<std::uint32_t>(sectors.size());
  const std::uint32_t packed =
      (static_cast<std::uint32_t>(__builtin_popcount(mask)) * width + 31) / 32;
  return {n, std::min(n, packed)};
}

std::uint32_t random_mask(std::mt19937& rng) {
  switch (rng() % 4) {
    case 0:
      return ~0u;
    case 1:
      return static_cast<std::uint32_t>(rng()) | 1u;
    case 2:
      return (1u << (1 + rng() % 31)) - 1u;  // a tail
    default:
      return 1u << (rng() % 32);
  }
}

}  // namespace fast_path

TEST(DeviceFastPath, SharedWordsIsTheModelsRuleForLoadsAndStores) {
  std::mt19937 rng(7);
  const model::Arch arch = model::default_arch();
  int paired = 0;
  for (int i = 0; i < 300000; ++i) {
    const int width = 1 << (rng() % 5);  // 1 to 16
    const std::uint32_t mask = fast_path::random_mask(rng);
    std::uint32_t addr[32];
    const std::uint32_t base = (rng() % 4096) * 16;
    const std::uint32_t stride = (rng() % 65) * static_cast<std::uint32_t>(width);
    const std::uint32_t span = 1u << (4 + rng() % 14);
    const int pattern = static_cast<int>(rng() % 5);
    for (int l = 0; l < 32; ++l) {
      // Strides, random words, a broadcast, and lanes paired on one address (n and n^1, or
      // n and n^2), as 8- and 16-byte loads pair their phases.
      const std::uint32_t a =
          pattern == 0   ? base + stride * static_cast<std::uint32_t>(l)
          : pattern == 1 ? base + static_cast<std::uint32_t>(rng()) % span
          : pattern == 2 ? base
          : pattern == 3 ? base + stride * static_cast<std::uint32_t>(l >> 1)
                         : base + stride * static_cast<std::uint32_t>((l & 1) | ((l >> 2) << 1));
      addr[l] = a & ~static_cast<std::uint32_t>(width - 1);
    }
    const bool load = rng() % 2;
    const device::RequestCost c = device::shared_request(
        addr, mask, width, load ? device::Access::Load : device::Access::Store, device::Form::Plain,
        arch);
    const model::Verdict v = fast_path::shared_words(addr, mask, width, load);
    ASSERT_EQ(c.wavefronts, v.wavefronts) << "request " << i << " width " << width;
    ASSERT_EQ(c.ideal, v.ideal_wavefronts) << "request " << i << " width " << width;
    ASSERT_EQ(c.ways, v.ways) << "request " << i << " width " << width;
    paired += load && width >= 8 && v.ideal_wavefronts < static_cast<std::uint32_t>(width / 4);
  }
  EXPECT_GT(paired, 1000);  // the pairing rule was exercised
}

TEST(DeviceFastPath, GlobalSectorsIsTheModelsCountWithinOneSectorALane) {
  std::mt19937 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const int width = 1 << (rng() % 5);  // 1 to 16
    const std::uint32_t mask = fast_path::random_mask(rng);
    std::uint64_t addr[32];
    const std::uint64_t base = 0x7f0000000000ull + (rng() % 100000) * 16;
    const std::uint64_t stride = (rng() % 300) * static_cast<std::uint64_t>(width);
    const std::uint64_t span = 1ull << (4 + rng() % 20);
    const int pattern = static_cast<int>(rng() % 4);
    for (int l = 0; l < 32; ++l) {
      std::uint64_t a = pattern == 0   ? base + stride * static_cast<std::uint64_t>(l)
                        : pattern == 1 ? base + rng() % span
                        : pattern == 2 ? base + stride * static_cast<std::uint64_t>(31 - l)
                                       : base;
      addr[l] = a & ~static_cast<std::uint64_t>(width - 1);  // aligned: within one sector
    }
    const device::RequestCost c = device::global_request(addr, mask, width);
    const auto [sectors, ideal] = fast_path::global_sectors(addr, mask, width);
    ASSERT_EQ(c.sectors, sectors) << "request " << i;
    ASSERT_EQ(c.ideal_sectors, ideal) << "request " << i;
  }
}

// What the shared fast path leaves to one lane (atomics of every form and width, requests with
// a misaligned lane) costs what the model's full path costs: the patches' one-lane path
// (shared_request_left) has no bank tables, so it must not need them.
TEST(DeviceFastPath, WhatTheSharedFastPathLeavesCostsAsTheModelSays) {
  std::mt19937 rng(13);
  const model::Arch arch = model::default_arch();
  int costed = 0;
  for (int i = 0; i < 200000; ++i) {
    const bool atomic = rng() % 4 != 0;
    const int width = atomic ? (rng() % 3 ? 4 : 8) : 1 << (1 + rng() % 4);  // misaligned: 2 to 16
    const std::uint32_t mask = fast_path::random_mask(rng);
    const device::Form form = static_cast<device::Form>(rng() % 4);
    const device::Access access = atomic      ? device::Access::Atomic
                                  : rng() % 2 ? device::Access::Load
                                              : device::Access::Store;
    const std::uint32_t base = (rng() % 4096) * 16;
    const std::uint32_t stride = (rng() % 40) * 4;
    const int pattern = static_cast<int>(rng() % 3);
    std::uint32_t addr[32];
    for (int l = 0; l < 32; ++l) {
      const std::uint32_t a = pattern == 0   ? base + stride * static_cast<std::uint32_t>(l)
                              : pattern == 1 ? base + static_cast<std::uint32_t>(rng()) % 4096
                                             : base;
      addr[l] = atomic && rng() % 8 ? a & ~static_cast<std::uint32_t>(width - 1) : a;
    }
    if (!atomic) addr[31 - __builtin_clz(mask)] |= 1;  // a misaligned active lane
    const device::RequestCost full = device::shared_request(addr, mask, width, access, form, arch);
    const device::RequestCost left =
        device::shared_request_left(addr, mask, width, access, form, arch);
    ASSERT_EQ(left.wavefronts, full.wavefronts) << "request " << i << " width " << width;
    ASSERT_EQ(left.ideal, full.ideal) << "request " << i << " width " << width;
    ASSERT_EQ(left.ways, full.ways) << "request " << i << " width " << width;
    costed += full.wavefronts > 0;
  }
  EXPECT_GT(costed, 50000);  // not only errors
}

// ldmatrix/stmatrix on the GPU: the shared fast path over the rows of the instruction's
// matrices (lanes 0 to 8 x count - 1, a 16-byte store's rule: never paired) is
// model::analyze_matrix.
TEST(DeviceFastPath, MatrixRowsAreTheModelsMatrixRule) {
  std::mt19937 rng(17);
  const model::Arch arch = model::default_arch();
  for (int i = 0; i < 100000; ++i) {
    model::MatrixAccess m;
    m.matrices = static_cast<std::uint8_t>(1u << (rng() % 3));
    m.op = rng() % 2 ? model::MatrixOp::Load : model::MatrixOp::Store;
    const std::uint32_t base = (rng() % 1024) * 16;
    const std::uint32_t stride = (rng() % 17) * 16;
    const int pattern = static_cast<int>(rng() % 3);
    for (int l = 0; l < 32; ++l)
      m.addr[l] = pattern == 0   ? base + stride * static_cast<std::uint32_t>(l)
                  : pattern == 1 ? base + (static_cast<std::uint32_t>(rng()) % 256) * 16
                                 : base + stride * static_cast<std::uint32_t>(l % 8);
    const model::Verdict v = model::analyze_matrix(m, arch);
    const std::uint32_t rows = m.matrices == 4 ? ~0u : (1u << (8 * m.matrices)) - 1u;
    const model::Verdict f = fast_path::shared_words(m.addr, rows, 16, false);
    ASSERT_EQ(f.wavefronts, v.wavefronts) << "request " << i;
    ASSERT_EQ(f.ideal_wavefronts, v.ideal_wavefronts) << "request " << i;
    ASSERT_EQ(f.ways, v.ways) << "request " << i;
  }
}

// The forms table the patches read: POPC.INC and the elected-lane atomics of forms.cu.
TEST(DeviceForms, AtomicsAndAsyncCopiesGetTheirForms) {
  const sass::Module m = module_of("tests/data/sass/forms_ptxas.cubin");
  int popc = 0, aggregated = 0, cas = 0, plain_atoms = 0;
  for (const sass::Kernel& k : m.kernels) {
    const auto forms = device::instruction_forms(k);
    ASSERT_EQ(forms.size(), k.instructions.size());
    for (std::size_t i = 0; i < k.instructions.size(); ++i) {
      const sass::Instruction& in = k.instructions[i];
      const auto f = static_cast<device::Form>(forms[i] & 3u);
      if (in.shared != sass::SharedOp::ATOMS) {
        if (in.shared != sass::SharedOp::LDGSTS) {
          EXPECT_EQ(forms[i], 0) << k.name << " " << i;
        }
        continue;
      }
      popc += f == device::Form::PopcInc;
      aggregated += f == device::Form::Aggregated;
      cas += f == device::Form::Cas;
      plain_atoms += f == device::Form::Plain;
      if (in.aggregated) {
        EXPECT_EQ(f, device::Form::Aggregated);
      } else if (in.atom == sass::AtomOp::PopcInc) {
        EXPECT_EQ(f, device::Form::PopcInc);
      }
    }
  }
  EXPECT_GT(plain_atoms, 0);
  EXPECT_GT(aggregated + popc + cas, 0);
}

// Counters of every shared and global instruction of a real kernel (tuned/classic.cu, built
// with -lineinfo) become sites on the lines the cubin gives them, summed per line; counters
// of one pc over two launches add; a pc outside the kernel is counted as unplaced.
TEST(DevicePcReport, CountersBecomeSitesOnNsightLines) {
  const sass::Module m = module_of("bench/check/measured/h100_run_new/tuned/classic.sm_90.cubin");
  ASSERT_TRUE(m.has_line_info);
  const sass::Kernel* k = nullptr;
  for (const auto& kk : m.kernels)
    for (const auto& in : kk.instructions)
      if (in.shared == sass::SharedOp::LDS && !k) k = &kk;
  ASSERT_NE(k, nullptr);
  const unsigned long long base = 0x7f0000001000ull;
  device::KernelCounts one;
  one.mangled = k->name;
  one.base_pc = base;
  std::vector<std::uint32_t> offsets;
  for (const auto& in : k->instructions) {
    if (in.shared != sass::SharedOp::LDS && in.shared != sass::SharedOp::STS) continue;
    device::PcCounter c{};
    c.pc = base + in.offset;
    c.requests = 10;
    c.wavefronts = 40;
    c.ideal = 10;
    c.ways = 4;
    c.space = static_cast<unsigned char>(device::Space::Shared);
    c.access = static_cast<unsigned char>(in.shared == sass::SharedOp::LDS ? device::Access::Load
                                                                           : device::Access::Store);
    c.width = 4;
    one.counters.push_back(c);
    offsets.push_back(static_cast<std::uint32_t>(in.offset));
  }
  ASSERT_FALSE(offsets.empty());
  device::PcCounter outside{};
  outside.pc = base - 0x100;
  outside.requests = 7;
  one.counters.push_back(outside);

  device::KernelCounts total;
  device::merge_counts(total, one);
  device::merge_counts(total, one);  // a second launch
  std::uint64_t unplaced = 0;
  const analysis::KernelReport r =
      device::kernel_report(m, *k, total, model::kDefaultArch, &unplaced);
  EXPECT_EQ(unplaced, 14u);
  ASSERT_EQ(r.sites.size(), offsets.size());
  std::uint64_t requests = 0, wavefronts = 0;
  for (const auto& s : r.sites) {
    requests += s.stats.requests;
    wavefronts += s.stats.wavefronts;
    EXPECT_EQ(s.stats.requests, 20u);
    EXPECT_EQ(s.stats.ways, 4u);
    ASSERT_EQ(s.sass.size(), 1u);
    EXPECT_TRUE(s.sass[0].rfind("LDS", 0) == 0 || s.sass[0].rfind("STS", 0) == 0) << s.sass[0];
    EXPECT_FALSE(s.nsight_lines.empty());
    EXPECT_EQ(s.line, s.nsight_lines.front().line);
  }
  EXPECT_EQ(requests, 20u * offsets.size());
  EXPECT_EQ(wavefronts, 80u * offsets.size());
  // Every site's line is one of the report's per-line rows.
  std::set<int> lines;
  for (const auto& l : r.lines) lines.insert(l.line);
  for (const auto& s : r.sites) EXPECT_TRUE(lines.count(s.line)) << s.line;
  EXPECT_EQ(r.shared_wavefronts, 80u * offsets.size());
  EXPECT_EQ(r.shared_ideal_wavefronts, 20u * offsets.size());
}

TEST(DevicePcReport, AMisalignedOrForeignPcIsNotASite) {
  const sass::Module m = module_of("bench/check/measured/h100_run_new/tuned/classic.sm_90.cubin");
  ASSERT_FALSE(m.kernels.empty());
  const sass::Kernel& k = m.kernels.front();
  device::KernelCounts c;
  c.base_pc = 0x1000;
  device::PcCounter a{};
  a.pc = 0x1000 + 8;  // not an instruction boundary
  a.requests = 3;
  device::PcCounter b{};
  b.pc = 0x1000 + 16 * (k.instructions.size() + 4);  // past the kernel
  b.requests = 5;
  c.counters = {a, b};
  std::uint64_t unplaced = 0;
  const auto r = device::kernel_report(m, k, c, model::kDefaultArch, &unplaced);
  EXPECT_TRUE(r.sites.empty());
  EXPECT_EQ(unplaced, 8u);
}

// Triton's pipelined tile loads (examples/hopper/triton_dot.py's matmul_kernel, the cubin
// Nsight Compute measured): every LDGSTS is the .cg form with ptxas's zero-fill predicate
// (`LDGSTS.E.BYPASS.128 [R43+0x1000], desc[UR14][R22.64], P0`: BYPASS, no ZFILL), which the
// patch costs by model::analyze_ldgsts with the lanes the sanitizer gives no source as the
// ones that read nothing. Counters below their ideal (as that costing gave before, 3 of 4
// wavefronts a request) are named in a note on their line, and every view shows the line's
// excess as 0, never as a wrapped-around difference.
TEST(DevicePcReport, TritonPredicatedCopiesAndALineBelowItsIdeal) {
  const sass::Module m =
      module_of("bench/hardware/hopper_truth_results/cubins/matmul_kernel.cubin");
  ASSERT_FALSE(m.kernels.empty());
  const sass::Kernel& k = m.kernels.front();
  const auto forms = device::instruction_forms(k);
  const unsigned long long base = 0x7f39db7b0000ull;
  device::KernelCounts counts;
  counts.mangled = k.name;
  counts.base_pc = base;
  int copies = 0;
  for (std::size_t i = 0; i < k.instructions.size(); ++i) {
    const sass::Instruction& in = k.instructions[i];
    if (in.shared != sass::SharedOp::LDGSTS) continue;
    ++copies;
    EXPECT_TRUE(in.bypass) << i;
    EXPECT_FALSE(in.zfill) << i;
    EXPECT_EQ(in.width_bytes, 16) << i;
    EXPECT_EQ(forms[i], device::kBypass) << i;
    device::PcCounter c{};
    c.pc = base + in.offset;
    c.requests = 128;
    c.wavefronts = 384;  // below the ideal: the counting error this test names
    c.ideal = 512;
    c.ways = 1;
    c.sectors = c.ideal_sectors = 1536;
    c.space = static_cast<unsigned char>(device::Space::Shared);
    c.access = static_cast<unsigned char>(device::Access::Store);
    c.width = 16;
    c.form = forms[i];
    counts.counters.push_back(c);
  }
  EXPECT_EQ(copies, 24);  // 8 in the prologue and 4 in the loop, for A and for B
  analysis::CheckReport r;
  r.input = "triton_dot.py";
  r.level = analysis::CountLevel::Sass;
  r.kernels.push_back(device::kernel_report(m, k, counts, model::kDefaultArch, nullptr));
  const analysis::KernelReport& kr = r.kernels.back();
  r.files = m.source_files;
  int below = 0;
  for (const auto& l : kr.lines) {
    if (l.space != ptx::Space::Shared) continue;
    ASSERT_LT(l.wavefronts, l.ideal_wavefronts);
    ++below;
    const bool noted = std::any_of(kr.notes.begin(), kr.notes.end(), [&](const auto& n) {
      return n.line == l.line && n.message.find("below the ideal") != std::string::npos;
    });
    EXPECT_TRUE(noted) << "line " << l.line;
  }
  EXPECT_GT(below, 0);
  const nlohmann::json j = report::check_to_json(r);
  int lines = 0;
  for (const auto& kj : j.at("kernels"))
    for (const auto& lj : kj.at("lines"))
      if (lj.contains("excess")) {
        EXPECT_EQ(lj.at("excess").get<std::uint64_t>(), 0u) << lj.dump();
        ++lines;
      }
  EXPECT_EQ(lines, below);
  const std::string text = report::render_check_text(r);
  const std::string sarif = report::check_to_sarif(r).dump();
  const std::string html = report::render_check_html(r);
  for (const std::string* out : {&text, &sarif, &html}) {
    EXPECT_EQ(out->find("1844674407"), std::string::npos);  // 2^64 - 4096 and its like
    EXPECT_NE(out->find("below the ideal"), std::string::npos);
  }
}

// A bulk copy or a request to another CTA's shared memory is no site: it is named in a note,
// with its executions, as what Nsight Compute lists with no wavefront and no sector.
TEST(DevicePcReport, TmaCopiesAndRemoteRequestsAreNamedWithTheirExecutions) {
  const sass::Module m = module_of("bench/check/measured/h100_run_new/tuned/classic.sm_90.cubin");
  ASSERT_FALSE(m.kernels.empty());
  const sass::Kernel& k = m.kernels.front();
  ASSERT_GT(k.instructions.size(), 4u);
  device::KernelCounts c;
  c.base_pc = 0x2000;
  device::PcCounter w{};
  w.pc = 0x2000 + 16 * 3;
  w.requests = 12;
  w.space = static_cast<unsigned char>(device::Space::Other);
  w.access = static_cast<unsigned char>(device::OtherKind::BulkToShared);
  c.counters = {w};
  const auto r = device::kernel_report(m, k, c, model::kDefaultArch);
  EXPECT_TRUE(r.sites.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0].message.find("not counted"), std::string::npos);
  EXPECT_NE(r.notes[0].message.find("12 warp executions"), std::string::npos);
  EXPECT_NE(r.notes[0].message.find("TMA unit"), std::string::npos);
  EXPECT_NE(r.notes[0].message.find("bench/hardware/tma"), std::string::npos);
  // Two on one line make one note.
  device::PcCounter w2 = w;
  w2.pc += 16;
  c.counters.push_back(w2);
  const auto r2 = device::kernel_report(m, k, c, model::kDefaultArch);
  const bool same_line = !r2.notes.empty() && r2.notes.size() == 1;
  if (same_line) {
    EXPECT_NE(r2.notes[0].message.find("24 warp executions"), std::string::npos);
  }
  device::PcCounter remote = w;
  remote.access = static_cast<unsigned char>(device::OtherKind::RemoteShared);
  c.counters = {remote};
  const auto r3 = device::kernel_report(m, k, c, model::kDefaultArch);
  ASSERT_EQ(r3.notes.size(), 1u);
  EXPECT_NE(r3.notes[0].message.find("another CTA's shared memory"), std::string::npos);
  EXPECT_NE(r3.notes[0].message.find("bench/hardware/dsmem"), std::string::npos);
}

// A bulk copy the patches never saw (a TMA instruction) is named from the SASS.
TEST(DevicePcReport, TmaInstructionsAreNamedFromTheSass) {
  const sass::Module m =
      module_of("bench/check/measured/h100_run_new/tensor/bulk_stage.sm_90.cubin");
  const sass::Kernel* k = nullptr;
  for (const auto& kk : m.kernels)
    for (const auto& in : kk.instructions)
      if (std::string_view(in.mnemonic) == "UBLKCP") k = &kk;
  ASSERT_NE(k, nullptr) << "bulk_stage has a UBLKCP";
  device::KernelCounts c;
  c.base_pc = 0x4000;
  const auto r = device::kernel_report(m, *k, c, model::kDefaultArch);
  bool named = false;
  for (const auto& n : r.notes)
    named = named || (n.message.find("UBLKCP") == 0 &&
                      n.message.find("warp executions") == std::string::npos);
  EXPECT_TRUE(named);
}

// Triton's tensor-map matmul (bench/device/python/torch_triton.py, built by Triton 3.6 on the
// H100): its UTMALDG copies are named from the SASS (the sanitizer does not patch them), with no
// site of their own.
TEST(DevicePcReport, TritonTensorMapCopiesAreNamed) {
  const sass::Module m = module_of("tests/data/sass/triton_matmul_tma.cubin");
  ASSERT_EQ(m.kernels.size(), 1u);
  const sass::Kernel& k = m.kernels.front();
  int utmaldg = 0, hgmma = 0;
  for (const auto& in : k.instructions) {
    utmaldg += std::string_view(in.mnemonic) == "UTMALDG";
    hgmma += std::string_view(in.mnemonic) == "HGMMA";
  }
  EXPECT_EQ(utmaldg, 6);
  EXPECT_GT(hgmma, 0);
  device::KernelCounts c;
  c.base_pc = 0x8000;
  const auto r = device::kernel_report(m, k, c, model::kDefaultArch);
  bool named = false;
  for (const auto& n : r.notes)
    named = named || (n.message.find("UTMALDG") == 0 &&
                      n.message.find("no shared wavefront and no sector") != std::string::npos);
  EXPECT_TRUE(named);
  EXPECT_TRUE(r.sites.empty());
}

}  // namespace

namespace {

// The wgmma probe (bench/hardware/wgmma/probe_wgmma.cu) as ptxas 13.0 builds it with -lineinfo
// for sm_90a, gzip-compressed; the same code the H200 ran (checked below against the listing
// taken there).
sass::Module wgmma_probe() {
  const std::string path =
      std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/sass/wgmma_probe.cubin.gz";
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  std::vector<std::uint8_t> bytes;
  if (f) {
    char buf[65536];
    for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) bytes.insert(bytes.end(), buf, buf + n);
    gzclose(f);
  }
  auto m = sass::read_module(bytes, sass::decoder_for(model::SassFamily::Hopper));
  EXPECT_TRUE(m.ok());
  return m.ok() ? std::move(m.value()) : sass::Module{};
}

const sass::Kernel* probe_kernel(const sass::Module& m, const std::string& name) {
  const std::string mangled = "_Z" + std::to_string(name.size()) + name + "P";
  for (const auto& k : m.kernels)
    if (k.name.rfind(mangled, 0) == 0) return &k;
  return nullptr;
}

std::vector<std::map<std::string, std::string>> read_tsv(const std::string& rel) {
  std::ifstream in(std::string(BANKCHECK_SOURCE_DIR) + "/" + rel);
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::istringstream ss(line);
    for (std::string x; std::getline(ss, x, '\t');) f.push_back(x);
    if (header.empty()) {
      header = f;
      continue;
    }
    std::map<std::string, std::string> r;
    for (size_t i = 0; i < header.size(); ++i) r[header[i]] = i < f.size() ? f[i] : "";
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

// The committed cubin is the code the H200 ran: every instruction word of every probe kernel
// equals the cuobjdump listing taken on the GPU machine.
TEST(DeviceWgmma, TheProbeCubinIsTheMeasuredCode) {
  const sass::Module m = wgmma_probe();
  ASSERT_TRUE(m.has_line_info);
  std::map<std::string, std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>>> listed;
  const auto lines = bankcheck::test::read_gzip_lines(std::string(BANKCHECK_SOURCE_DIR) +
                                                      "/bench/hardware/wgmma/measured/sass.txt.gz");
  std::string function;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (const auto f = l.find("Function : "); f != std::string::npos) function = l.substr(f + 11);
    const auto open = l.find("/*");
    const auto enc = l.find("/* 0x");
    if (open == std::string::npos || enc == std::string::npos || enc == open ||
        i + 1 >= lines.size())
      continue;
    const std::uint64_t off = std::stoull(l.substr(open + 2, l.find("*/") - open - 2), nullptr, 16);
    const std::uint64_t lo = std::stoull(l.substr(enc + 3, 18), nullptr, 16);
    const auto enc2 = lines[i + 1].find("/* 0x");
    if (enc2 == std::string::npos) continue;
    listed[function][off] = {lo, std::stoull(lines[i + 1].substr(enc2 + 3, 18), nullptr, 16)};
  }
  int kernels = 0;
  for (const auto& k : m.kernels) {
    if (k.name.find("wg") == std::string::npos) continue;
    SCOPED_TRACE(k.name);
    ASSERT_TRUE(listed.count(k.name));
    for (const auto& in : k.instructions) {
      const auto it = listed[k.name].find(in.offset);
      ASSERT_NE(it, listed[k.name].end()) << in.offset;
      ASSERT_EQ(it->second.first, in.lo) << in.offset;
      ASSERT_EQ(it->second.second, in.hi) << in.offset;
    }
    ++kernels;
  }
  EXPECT_EQ(kernels, 148);
}

// Every wgmma of the probe gets its form: N as the listing prints it, A's source, for HGMMA,
// QGMMA and IGMMA; nothing else gets a wgmma form.
TEST(DeviceWgmma, EveryGmmaGetsItsNAndItsASource) {
  const sass::Module m = wgmma_probe();
  std::map<std::string, int> mnemonics;
  for (const auto& row : read_tsv("bench/hardware/wgmma/cases.tsv")) {
    SCOPED_TRACE(row.at("id"));
    const sass::Kernel* k = probe_kernel(m, row.at("kernel"));
    ASSERT_NE(k, nullptr);
    const auto forms = device::instruction_forms(*k);
    int gmma = 0;
    for (std::size_t i = 0; i < k->instructions.size(); ++i) {
      const sass::Instruction& in = k->instructions[i];
      const std::string_view mn = in.mnemonic;
      if (!mn.ends_with("GMMA")) {
        EXPECT_FALSE(forms[i] & device::kGmma) << i;
        continue;
      }
      ++gmma;
      ++mnemonics[in.mnemonic];
      ASSERT_TRUE(forms[i] & device::kGmma);
      EXPECT_EQ(device::gmma_form_n(forms[i]), std::stoi(row.at("n")));
      EXPECT_EQ(bool(forms[i] & device::kGmmaARegisters), row.at("a_src") == "reg");
    }
    EXPECT_EQ(gmma, static_cast<int>(std::count(row.at("wgmma_lines").begin(),
                                                row.at("wgmma_lines").end(), ',')) +
                        1);
  }
  EXPECT_EQ(mnemonics.size(), 3u);  // HGMMA, QGMMA, IGMMA
  for (int n = 8; n <= 256; n += 8)
    for (const bool a : {false, true}) {
      const unsigned char f = device::gmma_form(n, a);
      EXPECT_EQ(device::gmma_form_n(f), n);
      EXPECT_EQ(bool(f & device::kGmmaARegisters), a);
      EXPECT_TRUE(f & device::kGmma);
    }
}

// The patches' costing of every probe kernel (the model's request per warpgroup, on the GMMA's
// pc, four warp executions each) turned into the report: the shared wavefronts and executions
// of every line equal what Nsight Compute listed on the H200, lines included (the B
// descriptor's line for a wgmma whose descriptors come from memory, the wgmma's own in the
// loops: the cubin's line table, read as Nsight Compute reads it).
TEST(DeviceWgmma, CountersLandOnTheLinesNsightListsThem) {
  const sass::Module m = wgmma_probe();
  int cases = 0;
  for (const auto& row : read_tsv("bench/hardware/wgmma/measured/results.tsv")) {
    SCOPED_TRACE(row.at("id"));
    const sass::Kernel* k = probe_kernel(m, row.at("kernel"));
    ASSERT_NE(k, nullptr);
    const auto forms = device::instruction_forms(*k);
    device::KernelCounts c;
    c.base_pc = 0x10000;
    for (std::size_t i = 0; i < k->instructions.size(); ++i) {
      if (!(forms[i] & device::kGmma)) continue;
      const model::Verdict v = model::wgmma_request(model::wgmma_operands(
          device::gmma_form_n(forms[i]), !(forms[i] & device::kGmmaARegisters)));
      device::PcCounter p{};
      p.pc = c.base_pc + k->instructions[i].offset;
      p.requests = model::kWgmmaWarps;
      p.wavefronts = v.wavefronts;
      p.ideal = v.ideal_wavefronts;
      p.ways = v.ways;
      p.space = static_cast<unsigned char>(device::Space::Shared);
      p.access = static_cast<unsigned char>(device::Access::Load);
      p.width = 16;
      p.form = forms[i];
      c.counters.push_back(p);
    }
    const auto r = device::kernel_report(m, *k, c, model::kDefaultArch);
    std::map<int, std::pair<std::uint64_t, std::uint64_t>> ours;
    for (const auto& s : r.sites)
      for (const auto& l : s.nsight_lines) {
        ours[l.line].first += s.stats.wavefronts;
        ours[l.line].second += s.stats.ideal_wavefronts;
      }
    std::string where;
    for (const auto& [line, wi] : ours) {
      std::ostringstream w;
      w << (where.empty() ? "" : ",") << line << ':' << wi.first << '/' << wi.second;
      where += w.str();
    }
    EXPECT_EQ(where, row.at("where"));
    ++cases;
  }
  EXPECT_EQ(cases, 148);
}
