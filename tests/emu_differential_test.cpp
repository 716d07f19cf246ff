// The differential test over the examples: every kernel of every examples/*.cu,
// examples/tensor/*.cu and examples/tuned/*.cu (wmma, mma.sync, ldmatrix, cp.async, mbarrier
// and cp.async.bulk among them), run as `bankcheck check` runs it (launch comments, default
// CTA sample), with the emulator's fast tier on and off, leaves the same memory and sends the
// same access events
// (emu_differential.hpp). The emulator's own test kernels get the same check in
// tests/emu_test.cpp, on every launch. Needs nvcc; skips without.
#include "emu_differential.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "require_nvcc.hpp"

namespace drv = bankcheck::driver;
namespace emu = bankcheck::emu;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> examples() {
  std::vector<std::string> v;
  for (const char* dir : {"/examples", "/examples/tensor", "/examples/tuned"})
    for (const auto& e : fs::directory_iterator(std::string(BANKCHECK_SOURCE_DIR) + dir))
      if (e.path().extension() == ".cu") v.push_back(e.path().string());
  std::sort(v.begin(), v.end());
  return v;
}

class Example : public ::testing::TestWithParam<std::string> {};

// The memories of a file's kernels, in the order they ran.
struct Runs {
  std::vector<std::unique_ptr<emu::GlobalMemory>> memories;
  std::uint64_t events = 0;
};

TEST_P(Example, FastTierEqualsReference) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  drv::CheckOptions o;
  o.input = GetParam();
  o.arch = "sm_90";
  const drv::Loaded loaded = drv::load(o);
  const auto& arch = drv::find_arch(o);
  auto run = [&](const emu::Emulator::Options& eo) {
    Runs r;
    drv::CheckOptions tier = o;
    tier.emulator = eo;
    drv::run_selected(loaded, tier, arch, [&](const bankcheck::ptx::Kernel&, drv::KernelRun& k) {
      r.memories.push_back(std::move(k.memory));
      for (const auto& s : k.report.sites) r.events += s.stats.requests;
    });
    return r;
  };
  const Runs r = emu::testing::run_both_tiers_with<Runs>(GetParam(), run, [&](Runs& f, Runs& s) {
    ASSERT_EQ(f.memories.size(), s.memories.size());
    for (std::size_t i = 0; i < f.memories.size(); ++i)
      emu::testing::expect_same_memory(*f.memories[i], *s.memories[i],
                                       GetParam() + " kernel " + std::to_string(i));
  });
  // Something ran: an example whose kernels sent no event would compare nothing.
  EXPECT_FALSE(r.memories.empty());
  EXPECT_GT(r.events, 0u);
}

INSTANTIATE_TEST_SUITE_P(Examples, Example, ::testing::ValuesIn(examples()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           return fs::path(i.param).stem().string();
                         });

}  // namespace
