// What SASS issues where ptxas merged or removed PTX shared accesses, from real nvcc and
// ptxas compiles of tests/data/sass/*.cu: the counts are the SASS instructions' executions
// (what the H100's per-instruction counters count), not the PTX's. Needs nvcc; skips without.
#include <gtest/gtest.h>

#include <string>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/driver/check.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/model/access.hpp"
#include "require_nvcc.hpp"

namespace drv = bankcheck::driver;
namespace an = bankcheck::analysis;
namespace ptx = bankcheck::ptx;
using bankcheck::model::Op;

namespace {

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

// cp.async.cg is costed in the form ptxas gave its LDGSTS, not by whether its PTX has a
// src-size: a clean 512-byte tile per warp, 2 CTAs of 2 warps, each form on its own line.
//   `16, 16` (line 14): ptxas drops the src-size, plain LDGSTS.E.BYPASS.128: 4 a warp
//     (bench/hardware/cpasync zfill_cg16z16_c8_p128_plain: 4 for an ideal of 4);
//   `selp.b32 z, 16, 0, p; ..., 0x10, z` (line 18, n = 40): the zero-fill predicate form,
//     the lanes that read by the bypass rule and the others by the .ca rule: 4 a warp, the
//     second warp too (8 lanes read: 1 + 3 rows of zeros), as the H200 counts Triton's
//     (bench/hardware/hopper_truth_results/triton_dot: 4 every execution);
//   a src-size from an argument (line 20, 16 at run time): .ZFILL, the bypass part plus the
//     .ca part: 8 a warp (tile_cg16_c8_p128_plain_all 4 + tile_ca16_c8_p128_plain_all 4).
// Taking every PTX src-size for .ZFILL gives 8 on each line (what counts at PTX level get).
TEST(SassCompiled, AsyncCopyCostsTheFormPtxasGaveItsLdgsts) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  const an::CheckReport r = check("cpasync_forms.cu");
  ASSERT_EQ(r.kernels.size(), 1u);
  const an::KernelReport& k = r.kernels[0];
  struct Want {
    int line;
    const char* sass;
    std::uint64_t wavefronts, sectors;
  };
  const Want want[] = {{14, "LDGSTS.E.BYPASS.128", 4 * 4, 4 * 16},
                       {18, "LDGSTS.E.BYPASS.128", 4 * 4, 2 * (16 + 4)},
                       {20, "LDGSTS.E.BYPASS.128.ZFILL", 4 * 8, 4 * 16}};
  for (const Want& w : want) {
    SCOPED_TRACE("line " + std::to_string(w.line));
    int shared = 0, global = 0;
    for (const an::LineReport& l : k.lines) {
      if (l.line != w.line) continue;
      if (l.space == ptx::Space::Shared) {
        ++shared;
        EXPECT_EQ(l.sass, w.sass);
        EXPECT_EQ(l.requests, 4u);  // one per warp
        EXPECT_EQ(l.wavefronts, w.wavefronts);
        EXPECT_EQ(l.ideal_wavefronts, 4u * 4u);
      } else if (l.space == ptx::Space::Global) {
        ++global;
        EXPECT_EQ(l.sectors, w.sectors);
      }
    }
    EXPECT_EQ(shared, 1);
    EXPECT_EQ(global, 1);
  }
  EXPECT_TRUE(k.faults.empty());
}
