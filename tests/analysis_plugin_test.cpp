// A registered analysis runs beside the built-in ones: the toy requests_per_warp
// (requests_per_warp.cpp) counts each warp's shared requests, and over the CTAs a run counts
// those add up to the per-site statistics' shared requests, on any number of threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "require_nvcc.hpp"

namespace drv = bankcheck::driver;

namespace {

bankcheck::analysis::CheckReport checked(const std::string& file, unsigned threads) {
  drv::CheckOptions o;
  o.input = std::string(BANKCHECK_SOURCE_DIR) + "/examples/" + file;
  o.threads = threads;
  o.analyses = {"requests_per_warp"};
  return drv::check(o);
}

TEST(AnalysisPlugin, RequestsPerWarpAddUpToTheSitesSharedRequests) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  for (const char* file : {"transpose.cu", "histogram.cu"}) {
    std::uint64_t by_warp_one_thread = 0;
    for (const unsigned threads : {1u, 2u}) {
      const auto r = checked(file, threads);
      ASSERT_FALSE(r.kernels.empty()) << file;
      for (const auto& k : r.kernels) {
        std::uint64_t sites = 0, warps = 0;
        for (const auto& s : k.sites)
          if (s.stats.space == bankcheck::ptx::Space::Shared) sites += s.stats.requests;
        ASSERT_EQ(k.analyses.size(), 1u) << file;
        EXPECT_EQ(k.analyses[0].analysis, "requests_per_warp");
        for (const auto& [name, n] : k.analyses[0].counts) warps += n;
        EXPECT_EQ(warps, sites) << file << " " << k.name << " on " << threads << " threads";
        if (threads == 1) {
          by_warp_one_thread += warps;
        } else if (&k == &r.kernels.back()) {
          EXPECT_GT(by_warp_one_thread, 0u) << file;
        }
      }
    }
  }
}

TEST(AnalysisPlugin, AnUnknownAnalysisIsAnErrorNamingTheRegisteredOnes) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  drv::CheckOptions o;
  o.input = std::string(BANKCHECK_SOURCE_DIR) + "/examples/transpose.cu";
  o.analyses = {"no_such_analysis"};
  try {
    drv::check(o);
    FAIL() << "no error";
  } catch (const drv::DriverError& e) {
    EXPECT_NE(std::string(e.what()).find("no analysis named 'no_such_analysis'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("requests_per_warp"), std::string::npos);
  }
}

}  // namespace
