// mbarrier and cp.async.bulk against CPU references: the kernels of
// tests/data/emu/mbarrier.cu (cuda::barrier with cuda::memcpy_async, the transaction
// helpers with a bulk copy back to global memory, double buffering on phase parity, arrival
// counts from several warps, cp.async arriving on an mbarrier), the requests a bulk copy
// sends, and the errors: a misaligned bulk copy and a phase nobody completes, each located
// at its source line. Every launch runs with the fast tier on and off
// (emu_differential.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
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

const std::string kFile = std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/emu/mbarrier.cu";

drv::CheckOptions options() {
  drv::CheckOptions o;
  o.input = kFile;
  o.arch = "sm_90";
  o.threads = 1;
  return o;
}
const drv::Loaded& loaded() {
  static std::unique_ptr<drv::Loaded> l;
  if (!l) l = std::make_unique<drv::Loaded>(drv::load(options()));
  return *l;
}

// A buffer argument from raw bytes, in a temporary file named by the process id (CTest
// runs tests in parallel processes).
template <typename T>
std::string file_arg(const std::vector<T>& v) {
  static int n = 0;
  const std::string p = ::testing::TempDir() + "/bankcheck-mbarrier-" + std::to_string(::getpid()) +
                        "-" + std::to_string(n++) + ".bin";
  FILE* f = std::fopen(p.c_str(), "wb");
  std::fwrite(v.data(), sizeof(T), v.size(), f);
  std::fclose(f);
  return "@" + p;
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(-1000, 1000);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(d(g)) / 8.f;  // exact in float sums
  return v;
}

struct Launch {
  unsigned grid = 1, block = 256;
  std::vector<std::pair<std::string, std::string>> args;
};

// Runs `kernel` (both tiers) and returns the run: buffers in r.memory, counts in r.report.
drv::KernelRun run(const std::string& kernel, const Launch& L) {
  const drv::Loaded& l = loaded();
  const bankcheck::ptx::Kernel* k = nullptr;
  for (const auto& x : l.program.kernels)
    if (drv::kernel_matches(x.name, kernel)) k = &x;
  if (!k) throw std::runtime_error("no kernel " + kernel);
  drv::LaunchSettings s;
  s.grid = drv::Dim3{L.grid, 1, 1};
  s.block = drv::Dim3{L.block, 1, 1};
  s.args = L.args;
  s.blocks = "all";
  return emu::testing::run_both_tiers<drv::KernelRun>(
      "mbarrier.cu " + kernel,
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

std::string zeros(std::size_t bytes) { return "zeros:" + std::to_string(bytes); }

// The message of the EmulationError that running `kernel` throws.
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

int line_of(const std::string& marker) {
  std::ifstream f(kFile);
  std::string line;
  for (int n = 1; std::getline(f, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  ADD_FAILURE() << "marker " << marker << " not in mbarrier.cu";
  return -1;
}

}  // namespace

TEST(EmuMbarrier, MemcpyAsyncWithABarrier) {
  REQUIRE_NVCC();
  const unsigned grid = 3;
  const std::vector<float> in = random_floats(grid * 256, 1);
  Launch L{grid, 256, {{"out", zeros(grid * 256 * 4)}, {"in", file_arg(in)}}};
  drv::KernelRun r = run("stage_barrier", L);
  const std::vector<float> out = buffer<float>(r, 0, grid * 256);
  for (unsigned b = 0; b < grid; ++b)
    for (unsigned t = 0; t < 256; ++t)
      ASSERT_EQ(out[b * 256 + t], 2.f * in[b * 256 + (t * 7) % 256]) << "block " << b << " t " << t;
  // Every element was read after the copy wrote it: no read of unwritten shared memory.
  EXPECT_TRUE(r.report.unwritten_shared_reads.empty());
}

TEST(EmuMbarrier, TransactionHelpersAndABulkCopyToGlobal) {
  REQUIRE_NVCC();
  const unsigned grid = 2;
  const std::vector<float> in = random_floats(grid * 256, 2);
  Launch L{grid, 256, {{"out", zeros(grid * 256 * 4)}, {"in", file_arg(in)}}};
  drv::KernelRun r = run("stage_tx", L);
  const std::vector<float> out = buffer<float>(r, 0, grid * 256);
  for (unsigned i = 0; i < grid * 256; ++i) ASSERT_EQ(out[i], in[i] + 1.f) << i;
}

TEST(EmuMbarrier, DoubleBufferingOnPhaseParity) {
  REQUIRE_NVCC();
  for (int tiles : {1, 2, 5, 8}) {
    const std::vector<float> in = random_floats(static_cast<std::size_t>(tiles) * 128, 3 + tiles);
    Launch L{
        1, 128, {{"out", zeros(128 * 4)}, {"in", file_arg(in)}, {"tiles", std::to_string(tiles)}}};
    drv::KernelRun r = run("double_buffer", L);
    const std::vector<float> out = buffer<float>(r, 0, 128);
    for (unsigned t = 0; t < 128; ++t) {
      float want = 0.f;
      for (int k = 0; k < tiles; ++k)
        want += static_cast<float>(k + 1) * in[static_cast<std::size_t>(k) * 128 + (t + k) % 128];
      ASSERT_EQ(out[t], want) << tiles << " tiles, thread " << t;
    }
  }
}

TEST(EmuMbarrier, ArrivalCountsFromSeveralWarps) {
  REQUIRE_NVCC();
  for (unsigned warps : {2u, 5u, 8u}) {
    const unsigned n = warps * 32;
    Launch L{1, n, {{"out", zeros(2 * n * 4)}, {"pending", zeros(4)}}};
    drv::KernelRun r = run("arrive_counts", L);
    const std::vector<std::uint32_t> out = buffer<std::uint32_t>(r, 0, 2 * n);
    std::uint32_t phase0 = 0, phase1 = 0, pending = 0;
    for (unsigned t = 0; t < n; ++t) {
      phase0 += t * 3;
      phase1 += t / 32 + 1 < warps ? t * 3 + 1 : t * 3;  // the last warp's slots stay
    }
    for (unsigned w = 0; w < warps; ++w) pending += 2 * (warps - w);  // in any order
    for (unsigned t = 0; t < n; ++t) {
      ASSERT_EQ(out[t], phase0) << warps << " warps, thread " << t;
      ASSERT_EQ(out[n + t], phase1) << warps << " warps, thread " << t;
    }
    EXPECT_EQ(buffer<std::uint32_t>(r, 1, 1)[0], pending) << warps << " warps";
  }
}

TEST(EmuMbarrier, CpAsyncArrivesOnAnMbarrier) {
  REQUIRE_NVCC();
  const std::vector<float> in = random_floats(192, 4);
  Launch L{1, 192, {{"out", zeros(192 * 4)}, {"in", file_arg(in)}}};
  drv::KernelRun r = run("cp_async_arrive", L);
  const std::vector<float> out = buffer<float>(r, 0, 192);
  for (unsigned t = 0; t < 192; ++t) ASSERT_EQ(out[t], in[(t + 1) % 192]) << t;
}

// Every warp's early test_wait finds the phase incomplete: the emulator yields it, and
// once no warp can run, lets the test return false (as the GPU's would), so the warps go
// on to arrive.
TEST(EmuMbarrier, TestWaitBeforeArrivingReturnsFalse) {
  REQUIRE_NVCC();
  const std::vector<float> in = random_floats(160, 5);
  Launch L{1, 160, {{"out", zeros(2 * 160 * 4)}, {"in", file_arg(in)}}};
  drv::KernelRun r = run("test_before_arrive", L);
  const std::vector<float> out = buffer<float>(r, 0, 2 * 160);
  for (unsigned t = 0; t < 160; ++t) {
    ASSERT_EQ(out[t], 0.f) << t;
    ASSERT_EQ(out[160 + t], in[159 - t]) << t;
  }
}

// A bulk copy of 1024 bytes, issued by one thread, is counted as the H200 counts UBLKCP
// (model::tma_copy, bench/hardware/tma): one execution on each side, no sector on the global
// side and no wavefront on the shared side, whatever its size.
TEST(EmuMbarrier, BulkCopyRequests) {
  REQUIRE_NVCC();
  Launch L{1, 256, {{"out", zeros(256 * 4)}, {"in", file_arg(random_floats(256, 9))}}};
  drv::KernelRun r = run("stage_barrier", L);
  bool global_side = false, shared_side = false;
  for (const auto& s : r.report.sites) {
    if (s.stats.requests == 0 || s.ptx.find("cp.async.bulk") == std::string::npos) continue;
    EXPECT_EQ(s.stats.requests, 1u) << s.ptx;
    if (s.stats.space == bankcheck::ptx::Space::Global) {
      global_side = true;
      EXPECT_EQ(s.stats.sectors, 0u);
      EXPECT_EQ(s.stats.ideal_sectors, 0u);
    } else {
      shared_side = true;
      EXPECT_EQ(s.stats.wavefronts, 0u);
      EXPECT_EQ(s.stats.ideal_wavefronts, 0u);
    }
  }
  EXPECT_TRUE(global_side && shared_side);
}

TEST(EmuMbarrier, MisalignedBulkCopyIsAFault) {
  REQUIRE_NVCC();
  Launch L{1, 64, {{"out", zeros(64 * 4)}, {"in", zeros(1024)}}};
  const std::string msg = error_of("misaligned_bulk", L);
  const std::string where =
      "mbarrier.cu:" + std::to_string(line_of("ERROR: misaligned_bulk")) + ":";
  EXPECT_NE(msg.find(where), std::string::npos) << msg;
  EXPECT_NE(msg.find("16-byte aligned"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lane 0 of warp 0"), std::string::npos) << msg;
}

TEST(EmuMbarrier, APhaseNobodyCompletesIsADeadlockAtTheWait) {
  REQUIRE_NVCC();
  Launch L{1, 96, {{"out", zeros(96 * 4)}}};
  const std::string msg = error_of("deadlock", L);
  const std::string where = "mbarrier.cu:" + std::to_string(line_of("ERROR: deadlock")) + ":";
  EXPECT_NE(msg.find(where), std::string::npos) << msg;
  EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 of 97 arrivals pending"), std::string::npos) << msg;
}
