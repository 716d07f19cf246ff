// What SASS issues where ptxas merged or removed PTX shared accesses, from real nvcc and
// ptxas compiles of tests/data/sass/*.cu: the counts are the SASS instructions' executions
// (what the H100's per-instruction counters count), not the PTX's. Needs nvcc; skips without.
#include <gtest/gtest.h>

#include <string>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/driver/check.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/model/access.hpp"

namespace drv = bankcheck::driver;
namespace an = bankcheck::analysis;
namespace ptx = bankcheck::ptx;
using bankcheck::model::Op;

namespace {

bool have_nvcc() {
  try {
    drv::find_nvcc("");
    return true;
  } catch (const drv::DriverError&) {
    return false;
  }
}

an::CheckReport check(const std::string& file) {
  drv::CheckOptions o;
  o.input = std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/sass/" + file;
  o.flags.blocks = "all";
  o.nvcc.cache = false;
  return drv::check(o);
}

}  // namespace

// s[i] = 0; if (i < n) s[i] = in[i];  ptxas: one unpredicated STS. The H100 counts one
// request per warp on the STS's line; the two PTX stores are not both counted.
TEST(SassCompiled, StoresPtxasMergedAreOneRequestOnTheStsLine) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  const an::CheckReport r = check("merged_store.cu");
  ASSERT_EQ(r.kernels.size(), 1u);
  const an::KernelReport& k = r.kernels[0];
  const std::uint64_t warps = 2;  // block=64
  std::uint64_t store_requests = 0;
  int store_sites = 0;
  for (const an::SiteReport& s : k.sites) {
    if (s.stats.space != ptx::Space::Shared || s.stats.op != Op::Store) continue;
    ++store_sites;
    store_requests += s.stats.requests;
    EXPECT_EQ(s.sass, std::vector<std::string>{"STS"});
    // On the line the cubin's line table gives the STS, where Nsight Compute lists it.
    ASSERT_FALSE(s.nsight_lines.empty());
    EXPECT_EQ(s.line, s.nsight_lines.front().line);
  }
  EXPECT_EQ(store_sites, 1);
  EXPECT_EQ(store_requests, warps);  // one STS executed once per warp
  int store_lines = 0;
  for (const an::LineReport& l : k.lines)
    if (l.space == ptx::Space::Shared && l.op == Op::Store) {
      ++store_lines;
      EXPECT_EQ(l.requests, warps);
    }
  EXPECT_EQ(store_lines, 1);
  EXPECT_TRUE(k.removed_sites.empty());
}

// Five ldmatrix in the PTX, four LDSM in the SASS: the fifth is removed, not counted, and
// named in a note.
TEST(SassCompiled, AnLdmatrixPtxasRemovedIsNotCounted) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  const an::CheckReport r = check("removed_ldmatrix.cu");
  ASSERT_EQ(r.kernels.size(), 1u);
  const an::KernelReport& k = r.kernels[0];
  ASSERT_EQ(k.removed_sites.size(), 1u);
  const an::SiteReport& gone = k.removed_sites[0];
  EXPECT_GT(gone.ptx_stats.requests, 0u);  // the emulator ran it
  std::uint64_t ldsm_requests = 0, ldsm_sites = 0;
  for (const an::SiteReport& s : k.sites)
    if (s.stats.space == ptx::Space::Shared && s.stats.op == Op::Load) {
      EXPECT_EQ(s.sass.size(), 1u) << "PTX line " << s.ptx_line;  // each its own LDSM
      EXPECT_NE(s.ptx_line, gone.ptx_line);
      ldsm_requests += s.stats.requests;
      ++ldsm_sites;
    }
  EXPECT_EQ(ldsm_sites, 4u);
  // Each executed LDSM costs what each kept ldmatrix costs: 4 of the 5 PTX executions.
  EXPECT_EQ(ldsm_requests, 4 * gone.ptx_stats.requests);
  bool noted = false;
  for (const an::NoteReport& n : k.notes)
    noted = noted || (n.line == gone.line && n.message.find("ptxas removed") != std::string::npos);
  EXPECT_TRUE(noted);
}

// `if (i < 256) s[i] += s[i + k]` unrolled: the two LDS of each step are both on the first
// load's PTX line in the cubin's line table, so the second load has no SASS line of its
// own; it is not removed (the first load's line has a second LDS it can be), and the line
// counts what the H100 counts: 8,512 wavefronts for 64 CTAs.
TEST(SassCompiled, ALoadWhoseLdsIsOnItsNeighboursLineStaysCounted) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  const an::CheckReport r = check("interleaved_reduction.cu");
  ASSERT_EQ(r.kernels.size(), 1u);
  const an::KernelReport& k = r.kernels[0];
  EXPECT_TRUE(k.removed_sites.empty());
  std::uint64_t loop_wavefronts = 0;
  for (const an::LineReport& l : k.lines)
    if (l.space == ptx::Space::Shared && l.line == 11) loop_wavefronts += l.wavefronts;
  EXPECT_EQ(loop_wavefronts, 8512u);
}
