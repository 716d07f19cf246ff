// CTAs that run together, against CPU references: the kernels of tests/data/emu/cluster.cu
// (thread-block clusters with distributed shared memory, the cluster barrier and its
// special registers, an mbarrier a neighbour completes, a multicast bulk copy; cooperative
// groups' grid synchronization and a flag one CTA spins on), run through check's engine
// (its scheduler hands each cluster, or a cooperative grid, to one emulator) with the fast
// tier on and off; and their errors: a grid synchronization in a launch that is not
// cooperative, a spin nobody ends.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/model/arch.hpp"
#include "emu_differential.hpp"
#include "require_nvcc.hpp"

namespace drv = bankcheck::driver;
namespace emu = bankcheck::emu;

namespace {

const std::string kFile = std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/emu/cluster.cu";

drv::CheckOptions options() {
  drv::CheckOptions o;
  o.input = kFile;
  o.arch = "sm_90";
  o.threads = 2;  // clusters on two threads: each cluster on one
  return o;
}
const drv::Loaded& loaded() {
  static std::unique_ptr<drv::Loaded> l;
  if (!l) l = std::make_unique<drv::Loaded>(drv::load(options()));
  return *l;
}

template <typename T>
std::string file_arg(const std::vector<T>& v) {
  static int n = 0;
  const std::string p = ::testing::TempDir() + "/bankcheck-cluster-" + std::to_string(::getpid()) +
                        "-" + std::to_string(n++) + ".bin";
  FILE* f = std::fopen(p.c_str(), "wb");
  std::fwrite(v.data(), sizeof(T), v.size(), f);
  std::fclose(f);
  return "@" + p;
}
std::string zeros(std::size_t bytes) { return "zeros:" + std::to_string(bytes); }

struct Launch {
  drv::Dim3 grid{1, 1, 1}, block{32, 1, 1};
  std::vector<std::pair<std::string, std::string>> args;
  std::optional<drv::Dim3> cluster;
  bool cooperative = false;
};

drv::KernelRun run(const std::string& kernel, const Launch& L) {
  const drv::Loaded& l = loaded();
  const bankcheck::ptx::Kernel* k = nullptr;
  for (const auto& x : l.program.kernels)
    if (drv::kernel_matches(x.name, kernel)) k = &x;
  if (!k) throw std::runtime_error("no kernel " + kernel);
  drv::LaunchSettings s;
  s.grid = L.grid;
  s.block = L.block;
  s.args = L.args;
  s.blocks = "all";
  s.cluster = L.cluster;
  if (L.cooperative) s.cooperative = true;
  return emu::testing::run_both_tiers<drv::KernelRun>(
      "cluster.cu " + kernel,
      [&](const emu::Emulator::Options& eo) {
        drv::CheckOptions o = options();
        o.emulator = eo;
        return drv::run_kernel(l, *k, s, *bankcheck::model::find_arch("sm_90"), o);
      },
      [](drv::KernelRun& x) -> emu::GlobalMemory& { return *x.memory; });
}

template <typename T>
std::vector<T> buffer(drv::KernelRun& r, std::size_t arg, std::size_t n) {
  std::vector<T> v(n);
  std::memcpy(v.data(), r.memory->find(r.arg_buffers[arg], 1)->data(), n * sizeof(T));
  return v;
}

int line_of(const std::string& marker) {
  std::ifstream f(kFile);
  std::string line;
  for (int n = 1; std::getline(f, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  ADD_FAILURE() << "marker " << marker << " not in cluster.cu";
  return -1;
}

std::string error_of(const std::string& kernel, const Launch& L) {
  try {
    run(kernel, L);
  } catch (const drv::EmulationError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("(not an EmulationError) ") + e.what();
  }
  ADD_FAILURE() << kernel << ": no error";
  return "";
}

}  // namespace

TEST(EmuCluster, DistributedSharedMemoryRing) {
  REQUIRE_NVCC();
  Launch L;
  L.grid = {8, 1, 1};
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(8 * 64 * 4)}};
  drv::KernelRun r = run("ring", L);
  const std::vector<int> out = buffer<int>(r, 0, 8 * 64);
  for (unsigned b = 0; b < 8; ++b)
    for (unsigned t = 0; t < 64; ++t) {
      const unsigned rank = b % 4, right = (rank + 1) % 4;
      const unsigned right_block = b - rank + right;
      const int want = static_cast<int>(1000 * right + (t + 1) % 64 + 100000 * right_block);
      ASSERT_EQ(out[b * 64 + t], want) << "block " << b << " thread " << t;
    }
  // The remote reads are shared requests of the reading CTA's line that cost nothing, as
  // the H200 counts requests to another CTA (model::cluster_request_counted).
  bool remote = false;
  for (const auto& s : r.report.sites)
    remote = remote || (s.stats.space == bankcheck::ptx::Space::Shared &&
                        s.line == line_of("right[(threadIdx") && s.stats.requests == 8 * 2 &&
                        s.stats.wavefronts == 0 && s.stats.ideal_wavefronts == 0);
  EXPECT_TRUE(remote);
}

TEST(EmuCluster, SpecialRegistersOfA2x2Cluster) {
  REQUIRE_NVCC();
  Launch L;
  L.grid = {4, 2, 1};
  L.cluster = drv::Dim3{2, 2, 1};
  L.args = {{"out", zeros(8 * 8 * 4)}};
  drv::KernelRun r = run("specials", L);
  const std::vector<unsigned> out = buffer<unsigned>(r, 0, 64);
  for (unsigned y = 0; y < 2; ++y)
    for (unsigned x = 0; x < 4; ++x) {
      const unsigned* o = &out[8 * (y * 4 + x)];
      EXPECT_EQ(o[0], (x % 2) + 2 * (y % 2)) << x << "," << y;  // rank
      EXPECT_EQ(o[1], 4u);
      EXPECT_EQ(o[2], x % 2);
      EXPECT_EQ(o[3], y % 2);
      EXPECT_EQ(o[4], x / 2);
      EXPECT_EQ(o[5], y / 2);
      EXPECT_EQ(o[6], 2u);
    }
}

TEST(EmuCluster, AtomicsOnAnotherCtasSharedMemory) {
  REQUIRE_NVCC();
  std::vector<int> in(4 * 128);
  std::iota(in.begin(), in.end(), -100);
  Launch L;
  L.grid = {4, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(2 * 4)}, {"in", file_arg(in)}};
  drv::KernelRun r = run("cluster_sum", L);
  const std::vector<int> out = buffer<int>(r, 0, 2);
  for (unsigned c = 0; c < 2; ++c)
    EXPECT_EQ(out[c], std::accumulate(in.begin() + c * 256, in.begin() + (c + 1) * 256, 0)) << c;
}

TEST(EmuCluster, AnMbarrierCompletedByTheNeighbour) {
  REQUIRE_NVCC();
  Launch L;
  L.grid = {2, 1, 1};
  L.args = {{"out", zeros(32 * 4)}};
  drv::KernelRun r = run("remote_arrive", L);
  const std::vector<int> out = buffer<int>(r, 0, 32);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[static_cast<std::size_t>(t)], 7 * t + 1) << t;
}

TEST(EmuCluster, MulticastBulkCopyLandsInEveryCta) {
  REQUIRE_NVCC();
  std::vector<float> in(2 * 64);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f;
  Launch L;
  L.grid = {4, 1, 1};
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(4 * 64 * 4)}, {"in", file_arg(in)}};
  drv::KernelRun r = run("multicast", L);
  const std::vector<float> out = buffer<float>(r, 0, 4 * 64);
  for (unsigned b = 0; b < 4; ++b)
    for (unsigned t = 0; t < 64; ++t)
      ASSERT_EQ(out[b * 64 + t], in[(b / 2) * 64 + t] * static_cast<float>(b % 2 + 1))
          << b << " " << t;
}

TEST(EmuCluster, GridSyncInACooperativeLaunch) {
  REQUIRE_NVCC();
  const unsigned grid = 6;
  std::vector<int> in(grid * 128);
  std::mt19937 g(3);
  for (int& x : in) x = static_cast<int>(g() % 2000) - 1000;
  Launch L;
  L.grid = {grid, 1, 1};
  L.block = {128, 1, 1};
  L.cooperative = true;
  L.args = {{"partial", zeros(grid * 4)}, {"total", zeros(4)}, {"in", file_arg(in)}};
  drv::KernelRun r = run("grid_reduce", L);
  EXPECT_EQ(buffer<int>(r, 1, 1)[0], std::accumulate(in.begin(), in.end(), 0));
  EXPECT_EQ(r.report.ctas_analysed, grid);
}

TEST(EmuCluster, GridSyncWithoutACooperativeLaunchIsNamed) {
  REQUIRE_NVCC();
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"partial", zeros(8)}, {"total", zeros(4)}, {"in", zeros(2 * 128 * 4)}};
  const std::string msg = error_of("grid_reduce", L);
  EXPECT_NE(msg.find("grid synchronization"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cudaLaunchCooperativeKernel"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--cooperative"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("the kernel executed trap"), std::string::npos) << msg;
}

TEST(EmuCluster, AFlagSetByAnotherCtaEndsTheSpin) {
  REQUIRE_NVCC();
  // The setter is the last CTA: every other spins first, then waits while it runs.
  Launch L;
  L.grid = {4, 1, 1};
  L.cooperative = true;
  L.args = {{"flag", zeros(4)}, {"out", zeros(16)}, {"setter", "3"}};
  drv::KernelRun r = run("spin_flag", L);
  EXPECT_EQ(buffer<int>(r, 1, 4), (std::vector<int>{2, 2, 2, 1}));
}

TEST(EmuCluster, ASpinNobodyEndsIsADeadlock) {
  REQUIRE_NVCC();
  Launch L;
  L.grid = {2, 1, 1};
  L.cooperative = true;
  L.args = {{"flag", zeros(4)}, {"out", zeros(8)}, {"setter", "7"}};
  const std::string msg = error_of("spin_flag", L);
  EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
  EXPECT_NE(msg.find("spins on global memory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cluster.cu:"), std::string::npos) << msg;
}
