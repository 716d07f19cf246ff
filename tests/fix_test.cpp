// The fix advisor: remaps are bijections inside the array, the source helpers read the
// examples' declarations, the replayed "before" equals what check counted, and every
// suggestion with a complete code change, written into the source and checked again,
// costs exactly the wavefronts the advisor predicted. Needs nvcc (skips without).
#include "bankcheck/analysis/fix.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "../src/analysis/fix_steps.hpp"  // the replay, private to the analysis library
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/fix.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/driver/shared_source.hpp"
#include "bankcheck/report/fix_view.hpp"
#include "bankcheck/report/fix_wording.hpp"
#include "ncu_raw.hpp"
#include "require_nvcc.hpp"

namespace an = bankcheck::analysis;
namespace drv = bankcheck::driver;

namespace {

// An example by name, or a test input by its path from the repository root ("tests/...").
std::string example(const std::string& f) {
  if (f.rfind("tests/", 0) == 0) return std::string(BANKCHECK_SOURCE_DIR) + "/" + f;
  return std::string(BANKCHECK_SOURCE_DIR) + "/examples/" + f;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) v.push_back(l);
  return v;
}

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

drv::FixOptions fix_options(const std::string& file, const std::string& kernel,
                            const std::string& blocks) {
  drv::FixOptions o;
  o.check.input = example(file);
  o.check.flags.kernel = kernel;
  o.check.flags.blocks = blocks;
  o.check.threads = 2;
  o.top = 8;
  return o;
}

// The arguments' texts joined: fmt_line("line ", 42) == "line 42".
template <typename... T>
std::string fmt_line(const T&... parts) {
  std::ostringstream o;
  (o << ... << parts);
  return o.str();
}

// Whether the site's shared requests touch the shared variable `symbol` (by its worst
// request's first active lane; an extern array reaches to the end of the window).
bool touches(const an::KernelReport& k, const an::SiteReport& st, const std::string& symbol) {
  if (st.stats.space != bankcheck::ptx::Space::Shared || !st.stats.has_worst) return false;
  const auto& w = st.stats.worst;
  for (int l = 0; l < 32; ++l) {
    if (!w.lane_active(l)) continue;
    for (const auto& v : k.shared_vars)
      if (w.addr[l] >= v.offset && (v.is_extern || w.addr[l] < v.offset + v.bytes))
        return v.name == symbol;
    return false;
  }
  return false;
}

}  // namespace

TEST(Remap, EveryRemapIsABijectionInsideItsLayout) {
  for (int elem : {1, 2, 4, 8, 16})
    for (std::uint64_t cols : {8u, 16u, 32u, 64u, 33u})
      for (std::uint64_t rows : {1u, 7u, 32u}) {
        an::Geometry g;
        g.elem_bytes = elem;
        g.row_bytes = cols * static_cast<std::uint64_t>(elem);
        g.rows = rows;
        const std::uint64_t bytes = rows * g.row_bytes;
        std::vector<an::Remap> remaps;
        for (int pad : {1, 2, 4}) {
          an::Remap r;
          r.kind = an::FixKind::Pad;
          r.pad = pad;
          remaps.push_back(r);
        }
        if ((cols & (cols - 1)) == 0) {
          const int log_cols = std::countr_zero(cols);
          for (int m = 0; m <= 1; ++m) {
            // Row bits into the column (Swizzle<B,M,log_cols-M>)...
            for (int b = 1; b <= log_cols - m; ++b) {
              an::Remap r;
              r.kind = an::FixKind::Swizzle;
              r.bits = b;
              r.base = m;
              r.shift = log_cols - m;
              remaps.push_back(r);
            }
            // ...and a swizzle within the row (a tile inside a wide row: Swizzle<3,3,3>).
            for (int b = 1; b <= 3; ++b)
              for (int sh = b; m + sh + b <= log_cols; ++sh) {
                an::Remap r;
                r.kind = an::FixKind::Swizzle;
                r.bits = b;
                r.base = m;
                r.shift = sh;
                remaps.push_back(r);
              }
          }
        }
        for (int unit : {1, 2}) {
          an::Remap r;
          r.kind = an::FixKind::Rotate;
          r.unit = unit;
          remaps.push_back(r);
        }
        for (const auto& r : remaps) {
          std::set<std::uint32_t> seen;
          const std::uint64_t limit =
              r.kind == an::FixKind::Pad
                  ? rows * (g.row_bytes + static_cast<std::uint64_t>(r.pad * elem))
                  : bytes;
          for (std::uint32_t off = 0; off < bytes; ++off) {
            const std::uint32_t to = an::remap_offset(r, g, off);
            ASSERT_LT(to, limit) << an::fix_kind_name(r.kind) << " elem " << elem << " cols "
                                 << cols << " off " << off;
            ASSERT_EQ(to % static_cast<std::uint32_t>(elem), off % static_cast<std::uint32_t>(elem))
                << "an element is split";
            ASSERT_TRUE(seen.insert(to).second)
                << an::fix_kind_name(r.kind) << ": two offsets meet";
          }
        }
      }
}

// Dropping a row padding for a swizzle: a bijection inside the array, elements whole,
// each row's data swizzled into the first bytes, the padding after all of it.
TEST(Remap, UnpaddedSwizzleIsABijection) {
  for (int elem : {2, 4})
    for (std::uint64_t width : {128u, 256u})
      for (int pad : {16, 32, 64}) {
        const std::uint64_t rows = 8, stride = width + static_cast<std::uint64_t>(pad);
        an::Geometry g;  // viewed as 128-byte bank rows, as a 1-D declaration is
        g.elem_bytes = elem;
        g.row_bytes = 128;
        g.rows = rows * stride / 128;
        ASSERT_EQ(g.rows * 128, rows * stride);
        const int log_cols = std::countr_zero(width / static_cast<std::uint64_t>(elem));
        for (int b = 1; b <= 3; ++b) {
          an::Remap r;
          r.kind = an::FixKind::Swizzle;
          r.bits = b;
          r.base = 3 - (elem == 4);  // 16-byte units
          r.shift = log_cols - r.base;
          r.unpad = pad;
          r.stride = static_cast<int>(stride);
          std::set<std::uint32_t> seen;
          for (std::uint32_t off = 0; off < rows * stride; ++off) {
            const std::uint32_t to = an::remap_offset(r, g, off);
            ASSERT_LT(to, rows * stride);
            ASSERT_EQ(to % static_cast<std::uint32_t>(elem),
                      off % static_cast<std::uint32_t>(elem));
            ASSERT_TRUE(seen.insert(to).second) << "two offsets meet at " << to;
            const std::uint64_t row = off / stride, col = off % stride;
            if (col < width) {
              ASSERT_LT(to, rows * width);
              EXPECT_EQ(to / width, row);  // a row's data stays in its unpadded row
            } else {
              EXPECT_GE(to, rows * width);
            }
          }
        }
      }
}

// The replay issues a request ptxas widened as SASS would under the remap: one LDS.128 while
// every window stays 16-byte aligned and adjacent, else the widest width all its windows
// allow (LDS.64 pairs, or the PTX's own 4-byte loads); through a rewritten subscript, the
// PTX's loads. A vector access of the PTX itself cannot be unaligned: such a remap fails.
TEST(Replay, WidenedLoadsAreIssuedAsSassWould) {
  // 32 lanes, each reading 16 bytes at the start of its own row of a float[32][32].
  an::RecordedRequest req;
  req.site = 0;
  req.access.op = bankcheck::model::Op::Load;
  req.access.width = 16;
  req.access.active = 0xffffffffu;
  for (int l = 0; l < 32; ++l) req.access.addr[l] = static_cast<std::uint32_t>(l * 128);
  req.count = 3;
  const an::Requests reqs = {&req};
  const an::ArrayRange tile{"tile", 0, 4096, false};
  an::Geometry g;
  g.elem_bytes = 4;
  g.row_bytes = 128;
  g.rows = 32;
  g.unit = 4;
  g.source = an::Geometry::Source::Declaration;
  const auto& arch = bankcheck::model::kDefaultArch;
  const an::PtxWidths scalar = {4}, vector = {16};
  auto pad = [](int p, int split = 0) {
    an::Remap r;
    r.kind = an::FixKind::Pad;
    r.pad = p;
    r.split = split;
    return r;
  };
  const an::Eval before = an::evaluate(reqs, tile, g, nullptr, scalar, arch);
  ASSERT_TRUE(before.ok);
  EXPECT_EQ(before.requests, 3u);
  EXPECT_GT(before.wavefronts, before.ideal);
  struct Want {
    an::Remap remap;
    int width;  // SASS width after: 16 = kept
    bool ideal;
  };
  an::Remap swizzle;
  swizzle.kind = an::FixKind::Swizzle;
  swizzle.bits = 3;
  swizzle.base = 2;
  swizzle.shift = 3;
  // Padding by 8 floats keeps the LDS.128 but puts lanes 0 and 4 in one bank; the swizzle
  // would suit the LDS.128's quarter-warp phases, but as four 4-byte loads it is 4-way.
  for (const Want& w : {Want{pad(1), 4, true}, Want{pad(2), 8, true}, Want{pad(4), 16, true},
                        Want{pad(8), 16, false}, Want{swizzle, 4, false}}) {
    SCOPED_TRACE(std::string(an::fix_kind_name(w.remap.kind)) + " " + std::to_string(w.remap.pad));
    const an::Eval e = an::evaluate(reqs, tile, g, &w.remap, scalar, arch);
    ASSERT_TRUE(e.ok);
    EXPECT_EQ(e.requests, 3u * static_cast<std::uint64_t>(16 / w.width));
    if (w.width == 16)
      EXPECT_TRUE(e.resplit.empty());
    else
      EXPECT_EQ(e.resplit.at(0), w.width);
    EXPECT_EQ(e.wavefronts == e.ideal, w.ideal) << e.wavefronts << " for an ideal of " << e.ideal;
  }
  // The same request as the PTX's own ld.shared.v4: padding by 1 unaligns it (the GPU would
  // fault), so the candidate fails; with the vectors split into floats it is legal.
  const an::Remap p1 = pad(1), p1_split = pad(1, 4);
  EXPECT_FALSE(an::evaluate(reqs, tile, g, &p1, vector, arch).ok);
  const an::Eval split = an::evaluate(reqs, tile, g, &p1_split, vector, arch);
  ASSERT_TRUE(split.ok);
  EXPECT_EQ(split.requests, 12u);
  EXPECT_TRUE(split.resplit.empty());  // the code's own change, not ptxas's
}

// A load ptxas widened, whose padding by one float would otherwise rank first: the padding
// that keeps the LDS.128 ranks first (same wavefronts, a quarter of the instructions), and
// a remap that breaks it says so.
TEST(Fix, RanksByWhatSassIssues) {
  REQUIRE_NVCC();
  const auto r = drv::fix(fix_options("tests/data/fix_widened.cu", "row_quads", "1"));
  ASSERT_EQ(r.kernels.size(), 1u);
  ASSERT_EQ(r.kernels[0].arrays.size(), 1u);
  const auto& a = r.kernels[0].arrays[0];
  ASSERT_GE(a.suggestions.size(), 2u);
  const auto& best = a.suggestions[0];
  EXPECT_EQ(best.remap.kind, an::FixKind::Pad);
  EXPECT_EQ(best.remap.pad, 4);
  EXPECT_EQ(best.remap.split, 0);
  EXPECT_EQ(best.wavefronts_after, best.ideal_wavefronts);
  EXPECT_EQ(best.requests_after, best.requests_before);
  bool broken = false;
  for (const auto& s : a.suggestions) {
    EXPECT_EQ(s.wavefronts_after, best.wavefronts_after);
    for (const auto& c : s.sites)
      if (c.sass_width_after) {
        broken = true;
        EXPECT_EQ(c.width, 16);
        EXPECT_EQ(c.sass_width_after, 4);
        EXPECT_GT(s.requests_after, best.requests_after);
        EXPECT_NE(
            bankcheck::report::suggestion_change(a, s).find("(breaks LDS.128 on line 12: 4 x LDS)"),
            std::string::npos)
            << bankcheck::report::suggestion_change(a, s);
      }
  }
  EXPECT_TRUE(broken);
}

// A site's pattern varies when its requests differ in lanes or in the lanes' offsets from
// the first active lane; a uniform shift of the whole request is the same pattern.
TEST(DataDependence, PatternVaries) {
  an::RecordedRequest a, b, c;
  for (auto* r : {&a, &b, &c}) {
    r->site = 2;
    r->access.width = 4;
    r->access.active = 0xffffffffu;
    r->count = 1;
  }
  for (int l = 0; l < 32; ++l) {
    a.access.addr[l] = static_cast<std::uint32_t>(l * 128);
    b.access.addr[l] = static_cast<std::uint32_t>(l * 128 + 8);  // shifted: the same pattern
    c.access.addr[l] = static_cast<std::uint32_t>((l * 37 % 32) * 4);
  }
  EXPECT_FALSE(an::pattern_varies({&a, &b}, 2));
  EXPECT_TRUE(an::pattern_varies({&a, &b, &c}, 2));
  EXPECT_FALSE(an::pattern_varies({&a, &b, &c}, 3));  // another site's
  b.access.active = 0x0000ffffu;
  EXPECT_TRUE(an::pattern_varies({&a, &b}, 2));
}

// A candidate that saves under 1% of the array's wavefronts is not suggested.
TEST(Rank, SavingsUnderOnePercentAreNotSuggested) {
  // Site 0: conflict-free rows; site 1: one 2-way request (lanes 0 and 16 a row apart).
  an::RecordedRequest free_req, conflict;
  free_req.site = 0;
  conflict.site = 1;
  for (auto* r : {&free_req, &conflict}) {
    r->access.width = 4;
    r->access.active = 0xffffffffu;
  }
  for (int l = 0; l < 32; ++l) {
    free_req.access.addr[l] = static_cast<std::uint32_t>(l * 4);
    conflict.access.addr[l] = static_cast<std::uint32_t>((l % 16) * 4 + (l / 16) * 128);
  }
  const an::Requests reqs = {&free_req, &conflict};
  const an::ArrayRange ar{"s", 0, 4096, false};
  an::Geometry g;
  g.elem_bytes = 4;
  g.row_bytes = 128;
  g.rows = 32;
  g.source = an::Geometry::Source::BankRows;
  const auto& arch = bankcheck::model::kDefaultArch;
  an::ArrayFix af;
  af.sites = {0, 1};
  const an::KernelFix kf;
  const an::PtxWidths ptx = {4, 4};
  auto suggested = [&](std::uint64_t free_count, std::uint64_t conflict_count) {
    free_req.count = free_count;
    conflict.count = conflict_count;
    const an::Eval before = an::evaluate(reqs, ar, g, nullptr, ptx, arch);
    an::Widths w;
    w.min = w.code_max = w.max = 4;
    return an::rank(
               an::candidates(g, w, af.sites, reqs, ptx, arch), reqs, ar, g, before, af, kf,
               [](int) { return 1; }, ptx, arch, 4)
        .size();
  };
  EXPECT_GT(suggested(10, 10), 0u);    // saves 10 of 30 wavefronts
  EXPECT_EQ(suggested(1000, 5), 0u);   // saves 5 of 1010: 0.5%
  EXPECT_GT(suggested(1000, 20), 0u);  // saves 20 of 1040: 1.9%
}

// The histogram's bins are indexed by the bytes it counts: fix says that the conflicts follow
// the data, where the index is loaded, and what does help, instead of a padding that saves
// a fraction of a percent. A column whose position is loaded but the same for the whole
// block is not data-dependent: its conflict gets the usual layouts.
TEST(Fix, DataDependentConflictsAreSaidNotPadded) {
  REQUIRE_NVCC();
  drv::FixOptions o;
  o.check.input = example("histogram.cu");
  o.check.threads = 2;
  o.check.flags.blocks = "8";
  const auto h = drv::fix(o);
  ASSERT_EQ(h.kernels.size(), 3u);
  using Merged = an::DataDependence::Merged;
  const std::pair<int, Merged> want[] = {
      {42, Merged::PopcInc}, {54, Merged::PopcInc}, {70, Merged::Match}};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(h.kernels[i].kernel);
    ASSERT_EQ(h.kernels[i].arrays.size(), 1u);
    const auto& a = h.kernels[i].arrays[0];
    ASSERT_TRUE(a.data_dependent);
    EXPECT_TRUE(a.suggestions.empty());
    EXPECT_EQ(a.data_dependent->load_line, want[i].first);
    EXPECT_TRUE(a.data_dependent->load_global);
    EXPECT_EQ(a.data_dependent->merged, want[i].second);
    EXPECT_EQ(a.data_dependent->op, bankcheck::model::Op::Atomic);
    EXPECT_EQ(a.data_dependent->excess, a.wavefronts - a.ideal_wavefronts);
    const std::string text = bankcheck::report::data_dependence_text(a, "k.cu");
    EXPECT_NE(text.find(fmt_line("the input data (the index on line ", a.data_dependent->line,
                                 " comes from a global load at k.cu:", want[i].first, ")")),
              std::string::npos)
        << text;
  }
  o.check.input = example("tests/data/fix_data_dependent.cu");
  o.check.flags.blocks.reset();
  const auto d = drv::fix(o);
  ASSERT_EQ(d.kernels.size(), 2u);
  const auto& scatter = d.kernels[0].arrays.at(0);
  ASSERT_TRUE(scatter.data_dependent);
  EXPECT_EQ(scatter.data_dependent->op, bankcheck::model::Op::Store);
  EXPECT_EQ(scatter.data_dependent->merged, Merged::None);
  EXPECT_EQ(scatter.data_dependent->load_line, 8);
  const auto& column = d.kernels[1].arrays.at(0);
  EXPECT_FALSE(column.data_dependent);
  ASSERT_FALSE(column.suggestions.empty());
  EXPECT_EQ(column.suggestions[0].wavefronts_after, column.suggestions[0].ideal_wavefronts);
  // ... although its load's address does come from the loaded column.
  drv::CheckOptions co;
  co.input = o.check.input;
  const drv::Loaded l = drv::load(co);
  bool seen = false;
  for (const auto& k : l.program.kernels) {
    if (k.name.find("column_at") == std::string::npos) continue;
    const auto origins = an::address_origins(k);
    for (size_t s = 0; s < k.sites.size(); ++s)
      if (k.sites[s].line == 20 &&
          k.code[k.sites[s].instr].space == bankcheck::ptx::Space::Shared) {
        ASSERT_GE(origins[s], 0);
        EXPECT_EQ(k.sites[static_cast<size_t>(origins[s])].line, 17);
        seen = true;
      }
    for (size_t s = 0; s < k.sites.size(); ++s) {  // the store's index is the thread's own
      if (k.sites[s].line == 18 &&
          k.code[k.sites[s].instr].space == bankcheck::ptx::Space::Shared) {
        EXPECT_EQ(origins[s], -1);
      }
    }
  }
  EXPECT_TRUE(seen);
}

TEST(FixSource, DeclarationsAndConstants) {
  const auto src = lines_of(read(example("transpose.cu")));
  auto d = drv::find_shared_decl(src, "transposeSharedNobankconf", "tile");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 58);
  EXPECT_EQ(d->type, "float");
  ASSERT_EQ(d->dims.size(), 2u);
  EXPECT_EQ(d->dims[1], "BS + 1");
  EXPECT_EQ(d->dim_values[0], 32);
  EXPECT_EQ(d->dim_values[1], 33);
  EXPECT_EQ(d->text.substr(d->last_dim_begin, d->last_dim_end - d->last_dim_begin), "BS + 1");
  // The first kernel's own declaration, not the first in the file.
  d = drv::find_shared_decl(src, "transposeSharedNobankconf_nopading", "tile");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 72);
  const std::vector<std::string> defs = {"#define TILE 64", "constexpr int kBlock = 256;",
                                         "const int a = 3, b = a * 2;",
                                         "enum { kRows = 16, kCols = kRows * 2 };"};
  EXPECT_EQ(drv::eval_constant("TILE * 2 + 1", defs), 129);
  EXPECT_EQ(drv::eval_constant("4 * kBlock", defs), 1024);
  EXPECT_EQ(drv::eval_constant("b << 2", defs), 24);
  EXPECT_EQ(drv::eval_constant("kRows + kCols", defs), 48);
  EXPECT_EQ(drv::eval_constant("(0x10 - 1) % 4", defs), 3);
  EXPECT_FALSE(drv::eval_constant("n + 1", defs));
  EXPECT_FALSE(drv::eval_constant("1 / 0", defs));
  EXPECT_FALSE(drv::eval_constant("TILE +", defs));
  // A dimension nested past the evaluator's depth (256) is not a constant it knows, at any
  // depth, and never a deep recursion: parentheses, prefix operators, operator chains.
  const std::string parens = std::string(100000, '(') + "32" + std::string(100000, ')');
  const std::string negs(100000, '-');
  std::string chain = "32";
  for (int i = 0; i < 100000; ++i) chain += " + 0";
  EXPECT_FALSE(drv::eval_constant(parens, defs));
  EXPECT_FALSE(drv::eval_constant(chain, defs));
  EXPECT_FALSE(drv::eval_constant(negs + "32", defs));
  EXPECT_EQ(drv::eval_constant(std::string(100, '(') + "32" + std::string(100, ')'), defs), 32);
  const std::vector<std::string> deep = {"__global__ void k(float* out) {",
                                         "  __shared__ float t[" + parens + "][" + chain + "];",
                                         "  out[0] = t[0][threadIdx.x];", "}"};
  const auto t = drv::find_shared_decl(deep, "k", "t");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->dim_values, (std::vector<long long>{-1, -1}));  // not evaluated: no value
}

// The declaration reader goes through the CUDA source reader: `//` inside a string literal
// does not cut the line, a declaration inside a /* */ comment is not taken, and comments in
// a dimension or a #define are not part of its text's value.
TEST(FixSource, CommentsAndStringsDoNotBreakDeclarations) {
  const std::vector<std::string> src = {
      "#define TILE 32 /* the tile side */",
      "#define PAD (1) // one column",
      "__global__ void k(float* out) {",
      "  /* an older version:",
      "  __shared__ float tile[8][8];",
      "  */",
      "  const char* url = \"http://example.com\"; __shared__ float tile[TILE][TILE + PAD];",
      "  out[0] = tile[0][0];",
      "}",
  };
  const auto d = drv::find_shared_decl(src, "k", "tile");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 7);
  EXPECT_EQ(d->type, "float");
  ASSERT_EQ(d->dims.size(), 2u);
  EXPECT_EQ(d->dims[0], "TILE");
  EXPECT_EQ(d->dims[1], "TILE + PAD");
  EXPECT_EQ(d->dim_values[0], 32);
  EXPECT_EQ(d->dim_values[1], 33);
  EXPECT_EQ(d->text.substr(d->last_dim_begin, d->last_dim_end - d->last_dim_begin), "TILE + PAD");
  // A dimension with a comment inside it evaluates without the comment.
  const std::vector<std::string> inner = {
      "__global__ void k() { __shared__ int s[64 /* rows */][2 * 16]; }"};
  const auto e = drv::find_shared_decl(inner, "k", "s");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->dim_values[0], 64);
  EXPECT_EQ(e->dim_values[1], 32);
}

// A dimension's names as nvcc reads them: the command line's macros over the file's
// `#ifndef` default, then the file, then the included headers' #define and constexpr.
TEST(FixSource, MacrosFromCommandLineAndHeaders) {
  const std::vector<std::string> src = {
      "#ifndef TILE",
      "#define TILE 16",
      "#endif",
      "__global__ void k(float* out) {",
      "  __shared__ float a[TILE][TILE + 1];",
      "  __shared__ float b[SIDE][SIDE];",
      "  out[0] = a[0][0] + b[0][0];",
      "}",
  };
  auto decl = [](const an::SharedSource& s, const std::string& name) {
    for (const auto& d : s.declarations)
      if (d.name == name) return d;
    return an::SharedDecl{};
  };
  // Nothing besides the file: its default, and SIDE unknown.
  auto s = drv::read_shared_source(src, "k");
  EXPECT_EQ(decl(s, "a").dim_values, (std::vector<long long>{16, 17}));
  EXPECT_EQ(decl(s, "b").dim_values, (std::vector<long long>{-1, -1}));
  // -D TILE=32 and a header whose SIDE uses a macro of the command line.
  drv::SourceMacros m;
  m.defines = {{"TILE", "32"}, {"BASE", "8"}};
  m.headers = "#pragma once\nconstexpr int SIDE = BASE * 4;\n";
  s = drv::read_shared_source(src, "k", m);
  EXPECT_EQ(decl(s, "a").dim_values, (std::vector<long long>{32, 33}));
  EXPECT_EQ(decl(s, "b").dim_values, (std::vector<long long>{32, 32}));
  // The macros nvcc's command line defines: -D, then the flags after -- in order (-U drops).
  drv::NvccOptions n;
  n.defines = {"TILE=32", "FLAG"};
  n.extra = {"-D", "BASE=8", "--define-macro=X=1", "-UFLAG"};
  const auto defs = drv::command_line_defines(n);
  EXPECT_EQ(defs, (std::map<std::string, std::string>{{"TILE", "32"}, {"BASE", "8"}, {"X", "1"}}));
}

// `__shared__ struct { ... } s;` gives each member as `s.NAME`, with its own dimensions and
// the bracket of its last one; a subscript `s.x[i][j]` goes by the same name. An array of a
// struct the file defines names the type and where its definition closes.
TEST(FixSource, StructMembersAndArraysOfStructs) {
  const std::vector<std::string> src = {
      "struct Particle {",
      "  float x, y;",
      "};",
      "__global__ void k(float* out) {",
      "  __shared__ struct { float x[32][32]; int n; double y[8]; } s;",
      "  __shared__ Particle p[64];",
      "  out[0] = s.x[threadIdx.x][1] + p[threadIdx.x].y;",
      "}",
  };
  const auto src_of = drv::read_shared_source(src, "k");
  std::vector<std::string> names;
  for (const auto& d : src_of.declarations) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"s.x", "s.n", "s.y", "p"}));
  const auto& x = src_of.declarations[0];
  EXPECT_EQ(x.member_of, "s");
  EXPECT_EQ(x.type, "float");
  EXPECT_EQ(x.dim_values, (std::vector<long long>{32, 32}));
  EXPECT_EQ(x.text.substr(x.last_dim_begin, x.last_dim_end - x.last_dim_begin), "32");
  EXPECT_TRUE(src_of.declarations[1].dims.empty());
  const auto& p = src_of.declarations[3];
  EXPECT_EQ(p.record, "Particle");
  EXPECT_EQ(p.record_close_line, 3);
  EXPECT_EQ(p.record_close_text.substr(p.record_close_col, 1), "}");
  bool member_subscript = false;
  for (const auto& l : src_of.subscripts)
    if (l.name == "s.x" && l.line == 7) {
      member_subscript = true;
      ASSERT_EQ(l.subscripts.size(), 1u);
      EXPECT_EQ(l.text.substr(l.subscripts[0].begin, 4), "s.x[");
    }
  EXPECT_TRUE(member_subscript);
  // The member every request touches is the array, at its offset in the struct: x at 0 (4096
  // B), n at 4096, y aligned to 8 at 4104.
  an::ArrayRange ar{"s", 1024, 4096 + 8 + 64, false};
  an::RecordedRequest r;
  r.access.width = 8;
  r.access.active = 1;
  r.access.addr[0] = 1024 + 4104 + 8;
  const auto m = an::member_for(src_of.declarations, "s", ar, {&r});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->decl->name, "s.y");
  EXPECT_EQ(m->range.offset, 1024u + 4104u);
  EXPECT_EQ(m->range.bytes, 64u);
  // A request across two members is no one member's.
  r.access.active = 3;
  r.access.addr[1] = 1024;
  EXPECT_FALSE(an::member_for(src_of.declarations, "s", ar, {&r}));
}

// `extern __shared__ int __smem[];` in each of a helper's conversion operators (the CUDA
// samples' SharedMemory<T>) declares the array again: its empty brackets are no subscript, so
// no fix rewrites them into `__smem[() ^ ...]`. Subscripts with indices are still read.
TEST(FixSource, UnsizedDeclarationsAreNoSubscripts) {
  const std::vector<std::string> src = {
      "template <class T> struct SharedMemory {",
      "  __device__ operator T*() { extern __shared__ int __smem[]; return (T*)__smem; }",
      "  __device__ operator const T*() const { extern __shared__ int __smem[]; return (T*)__smem; }",
      "};",
      "__global__ void k(float* out) {",
      "  float* sdata = SharedMemory<float>();",
      "  extern __shared__ float more[];",
      "  sdata[2 * threadIdx.x] += more[threadIdx.x + 1];",
      "}",
  };
  const auto src_of = drv::read_shared_source(src, "k");
  std::vector<std::pair<std::string, int>> subscripted;
  for (const auto& l : src_of.subscripts) {
    subscripted.emplace_back(l.name, l.line);
    for (const auto& s : l.subscripts)
      for (const auto& e : s.index) EXPECT_FALSE(e.empty()) << l.name << " on line " << l.line;
  }
  EXPECT_EQ(subscripted, (std::vector<std::pair<std::string, int>>{{"sdata", 8}, {"more", 8}}));
}

// A declaration wrapped over lines (as clang-format leaves a long one; NVIDIA's
// convolutionSeparable): its dimensions are read across the lines, one line each; the padding
// of a last dimension broken over two lines is described, never written into one line.
TEST(FixSource, WrappedDeclarations) {
  const std::vector<std::string> src = {
      "#define RX 16",
      "__global__ void k(float* out) {",
      "  __shared__ float",
      "      s_Data[4][(8 + 2 * 1) *",
      "                RX];",
      "  __shared__ float t[32]",
      "                   [33], u[8];",
      "  out[0] = s_Data[threadIdx.y][threadIdx.x] + t[0][threadIdx.x] + u[1];",
      "}",
  };
  const auto src_of = drv::read_shared_source(src, "k");
  ASSERT_EQ(src_of.declarations.size(), 3u);
  const auto& d = src_of.declarations[0];
  EXPECT_EQ(d.name, "s_Data");
  EXPECT_EQ(d.line, 4);
  EXPECT_EQ(d.dims, (std::vector<std::string>{"4", "(8 + 2 * 1) * RX"}));
  EXPECT_EQ(d.dim_values, (std::vector<long long>{4, 160}));
  EXPECT_FALSE(d.last_dim_on_line);
  const auto& t = src_of.declarations[1];
  EXPECT_EQ(t.name, "t");
  EXPECT_EQ(t.dim_values, (std::vector<long long>{32, 33}));
  EXPECT_FALSE(t.last_dim_on_line);
  const auto& u = src_of.declarations[2];
  EXPECT_EQ(u.name, "u");
  EXPECT_EQ(u.line, 7);
  EXPECT_TRUE(u.last_dim_on_line);
  EXPECT_EQ(u.text.substr(u.last_dim_begin, u.last_dim_end - u.last_dim_begin), "8");
}

// Names in a kernel's dimensions mean the kernel's own constants first (two kernels each
// with their own `constexpr int BM`), and a template kernel's parameters are bound to the
// arguments of the instantiation checked; type parameters and defaults are skipped over.
TEST(FixSource, KernelConstantsAndTemplateArguments) {
  const std::vector<std::string> src = {
      "__global__ void a(float* out) {",     "  constexpr int BM = 64, BK = 8;",
      "  __shared__ float As[BM * BK];",     "}",
      "__global__ void b(float* out) {",     "  constexpr int BM = 128, BK = 8;",
      "  __shared__ float As[BM * BK];",     "}",
      "template <typename T, int BM,",       "          unsigned BK = 8>",
      "__global__ void t(T* out) {",         "  constexpr int kRows = BM / 2;",
      "  __shared__ T tile[kRows][BK + 1];", "}",
  };
  auto d = drv::find_shared_decl(src, "a", "As");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->dim_values[0], 512);
  d = drv::find_shared_decl(src, "b", "As");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 7);
  EXPECT_EQ(d->dim_values[0], 1024);
  d = drv::find_shared_decl(src, "t<float, 64, 8u>", "tile");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 13);
  EXPECT_EQ(d->dim_values, (std::vector<long long>{32, 9}));
  d = drv::find_shared_decl(src, "ns::t<double, 16, 4u>", "tile");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->dim_values, (std::vector<long long>{8, 5}));
  // Without the instantiation's arguments the parameters stay unknown.
  d = drv::find_shared_decl(src, "t", "tile");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->dim_values, (std::vector<long long>{-1, -1}));
}

// A tile declared in a __device__ function template that the kernel calls with explicit
// arguments (an epilogue helper `mma_tile<kPad>`): its parameters take the call's values,
// through the kernel's own parameters too; calls that disagree, or none, leave them unknown.
TEST(FixSource, HelperTemplateArgumentsFromTheKernelsCall) {
  const std::vector<std::string> src = {
      "template <int kPad, typename T>",
      "__device__ void tile_op(T* out) {",
      "  __shared__ float Cs[16][64 + kPad];",
      "  out[0] = Cs[0][threadIdx.x];",
      "}",
      "__global__ void plain(float* out) { tile_op<4, float>(out); }",
      "template <int P>",
      "__global__ void through(float* out) {",
      "  tile_op<P * 2>(out);",
      "}",
      "__global__ void mixed(float* out) { tile_op<0>(out); tile_op<8>(out); }",
      "__global__ void deduced(float* out) { tile_op(out); }",
  };
  auto d = drv::find_shared_decl(src, "plain", "Cs");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 3);
  EXPECT_EQ(d->dim_values, (std::vector<long long>{16, 68}));
  d = drv::find_shared_decl(src, "through<3>", "Cs");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->dim_values, (std::vector<long long>{16, 70}));
  d = drv::find_shared_decl(src, "mixed", "Cs");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->dim_values, (std::vector<long long>{16, -1}));
  d = drv::find_shared_decl(src, "deduced", "Cs");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->dim_values, (std::vector<long long>{16, -1}));
}

// A template kernel instantiated twice: each instantiation's tile has its own geometry from
// its own arguments, and the code written for it stays in the template's terms.
TEST(Fix, TemplateInstantiationsHaveTheirOwnGeometry) {
  REQUIRE_NVCC();
  drv::FixOptions o;
  o.check.input = std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/fix_template.cu";
  o.check.threads = 2;
  const auto r = drv::fix(o);
  ASSERT_EQ(r.kernels.size(), 2u);
  std::map<std::string, std::uint64_t> rows;
  for (const auto& kf : r.kernels) {
    ASSERT_EQ(kf.arrays.size(), 1u) << kf.kernel;
    const auto& a = kf.arrays[0];
    ASSERT_TRUE(a.geometry) << kf.kernel << ": " << a.error;
    EXPECT_EQ(a.geometry->source, an::Geometry::Source::Declaration);
    rows[kf.kernel] = a.geometry->row_bytes;
    ASSERT_FALSE(a.suggestions.empty()) << kf.kernel;
    EXPECT_EQ(a.suggestions[0].wavefronts_after, a.suggestions[0].ideal_wavefronts);
    for (const auto& s : a.suggestions) {
      if (s.remap.kind == an::FixKind::Pad) {
        EXPECT_NE(s.declaration.find("tile[W][W + PAD + "), std::string::npos) << s.declaration;
      }
      if (s.remap.kind == an::FixKind::Rotate) {
        EXPECT_NE(s.subscript.find("% (W + PAD)"), std::string::npos) << s.subscript;
      }
    }
  }
  EXPECT_EQ(rows, (std::map<std::string, std::uint64_t>{{"transpose_t<16, 0>", 64},
                                                        {"transpose_t<32, 0>", 128}}));
}

TEST(Fix, TransposeSuggestionsAndTheirCode) {
  REQUIRE_NVCC();
  const auto r = drv::fix(fix_options("transpose.cu", "transposeShared", "6"));
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& kf = r.kernels[0];
  ASSERT_EQ(kf.arrays.size(), 1u);
  const auto& a = kf.arrays[0];
  EXPECT_EQ(a.name, "tile");
  ASSERT_TRUE(a.geometry);
  EXPECT_EQ(a.geometry->row_bytes, 128u);
  EXPECT_EQ(a.geometry->rows, 32u);
  EXPECT_EQ(a.geometry->describe(), "4096 B, 32 rows of 128 B");
  // 6 CTAs x 32 warps: one store (1 wavefront) and one load (32) each.
  EXPECT_EQ(a.requests, 6u * 32 * 2);
  EXPECT_EQ(a.wavefronts, 6u * 32 * (1 + 32));
  ASSERT_GE(a.suggestions.size(), 3u);
  EXPECT_EQ(a.suggestions[0].remap.kind, an::FixKind::Swizzle);
  EXPECT_EQ(bankcheck::report::suggestion_change(a, a.suggestions[0]),
            "XOR the column with the row (Swizzle<5,0,5>): tile[threadIdx.y][threadIdx.x ^ "
            "threadIdx.y]");
  for (const auto& s : a.suggestions) {
    EXPECT_EQ(s.wavefronts_after, s.ideal_wavefronts) << bankcheck::report::suggestion_change(a, s);
    EXPECT_EQ(s.wavefronts_after, 6u * 32 * 2) << bankcheck::report::suggestion_change(a, s);
  }
  const an::Suggestion* pad = nullptr;
  for (const auto& s : a.suggestions)
    if (s.remap.kind == an::FixKind::Pad) pad = &s;
  ASSERT_TRUE(pad);
  EXPECT_EQ(pad->remap.pad, 1);
  EXPECT_EQ(pad->declaration, "    __shared__ float tile[BS][BS + 1];");
  EXPECT_EQ(pad->bytes_after, 4224u);
  EXPECT_TRUE(pad->applicable);
  ASSERT_TRUE(pad->occupancy_known);
  EXPECT_EQ(pad->occupancy_before.blocks_per_sm, pad->occupancy_after.blocks_per_sm);
}

// Seed 004's warning: padding a 16 KB tile beside 512 B to 16.25 KB costs a resident block on
// sm_90; the padding-free fixes rank first and the padding says what it costs.
TEST(Fix, PaddingThatCostsOccupancyRanksBelowTheFreeFixes) {
  REQUIRE_NVCC();
  const auto r = drv::fix(fix_options("occupancy.cu", "transposeTile64", "4"));
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& kf = r.kernels[0];
  ASSERT_TRUE(kf.occupancy_known) << kf.occupancy_note;
  EXPECT_LE(kf.registers, 32);
  EXPECT_EQ(kf.occupancy.blocks_per_sm, 13);
  const an::ArrayFix* tile = nullptr;
  for (const auto& a : kf.arrays)
    if (a.name == "tile") tile = &a;
  ASSERT_TRUE(tile);
  ASSERT_GE(tile->suggestions.size(), 3u);
  EXPECT_NE(tile->suggestions[0].remap.kind, an::FixKind::Pad);
  EXPECT_EQ(tile->suggestions[0].occupancy_after.blocks_per_sm, 13);
  EXPECT_EQ(tile->suggestions.back().remap.kind, an::FixKind::Pad);
  EXPECT_EQ(tile->suggestions.back().bytes_after, 16640u);
  EXPECT_EQ(tile->suggestions.back().occupancy_after.blocks_per_sm, 12);
  EXPECT_EQ(tile->suggestions.back().occupancy_after.limiter,
            bankcheck::model::Limiter::SharedMemory);
  for (const auto& a : kf.arrays)
    if (a.name == "factor") {
      EXPECT_TRUE(a.suggestions.empty());
    }
}

// The replayed "before" of each array is what check counted for its sites, and each
// suggestion written into the source costs, when checked, what the advisor predicted.
TEST(Fix, PredictionsMatchTheRewrittenSourceChecked) {
  REQUIRE_NVCC();
  struct Case {
    const char* file;
    const char* kernel;
  };
  const Case cases[] = {
      {"transpose.cu", "transposeShared"},
      {"occupancy.cu", "transposeTile64"},
      {"matmul.cu", "matmul_tiled_transposed"},
      {"seed001.cu", "bank_conflict_test"},
      {"reduction.cu", "reduce_interleaved_strided"},
      {"wide.cu", "float4_column"},
      {"stride.cu", "stride32"},
      {"scan.cu", "prescan"},
      {"structs.cu", "read_struct2"},
      {"wide.cu", "double_column"},
      {"wide.cu", "float4_stride2"},
      // ptxas widens their scalar loads to LDS.128; some remaps unalign those windows.
      {"sgemm.cu", "sgemm_2d_blocktiling"},
      {"sgemm.cu", "sgemm_vectorized"},
      {"tests/data/fix_widened.cu", "row_quads"},
      {"app/matmul_launchkernel.cu", "matmul"},  // its padding by 2 makes 2 x LDS.64
      // Tensor-core tiles (cp.async in, ldmatrix out) addressed through a layout function:
      // a swizzle within each 128-byte tile row (Swizzle<3,3,3>).
      {"tensor/hgemm.cu", "hgemm_rowmajor"},
  };
  int compared = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.file) + " " + c.kernel);
    drv::FixReport r;
    try {
      r = drv::fix(fix_options(c.file, c.kernel, "3"));
    } catch (const drv::DriverError& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    ASSERT_EQ(r.kernels.size(), 1u);
    const auto& kr = r.check.kernels[0];
    for (const auto& a : r.kernels[0].arrays) {
      std::uint64_t counted = 0;
      for (const auto& s : kr.sites)
        for (int id : a.sites)
          if (s.site == id) counted += s.stats.wavefronts;
      EXPECT_EQ(a.wavefronts, counted) << a.name;
      for (const auto& s : a.suggestions) {
        if (s.remap.kind == an::FixKind::Width) continue;
        if (s.remap.split > 0) continue;  // the vector accesses' split into elements is not written
        const bool needs_edits = !(s.remap.kind == an::FixKind::Pad && s.applicable);
        if (needs_edits && s.edits.empty()) continue;
        if (!needs_edits && s.declaration.empty()) continue;
        SCOPED_TRACE(bankcheck::report::suggestion_change(a, s));
        auto src = lines_of(read(example(c.file)));
        if (!s.declaration.empty()) src[static_cast<size_t>(a.decl->line) - 1] = s.declaration;
        for (const auto& e : s.edits) src[static_cast<size_t>(e.line) - 1] = e.after;
        const auto dir = std::filesystem::temp_directory_path() /
                         ("bankcheck_fix_test_" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        const auto path = (dir / std::filesystem::path(c.file).filename()).string();
        {
          std::ofstream f(path);
          for (const auto& l : src) f << l << "\n";
        }
        drv::CheckOptions co = fix_options(c.file, c.kernel, "3").check;
        co.input = path;
        if (a.is_extern) co.flags.smem = kr.dynamic_smem + s.bytes_after - s.bytes_before;
        const auto again = drv::check(co);
        ASSERT_EQ(again.kernels.size(), 1u);
        // This array now costs the prediction, in wavefronts and in the requests SASS issues
        // (a widened load kept or broken). Its sites are found by the array their requests
        // touch: ptxas may schedule another array's loads differently in the changed code
        // (sgemm_2d_blocktiling's As loads are widened once Bs is swizzled), so the rest of
        // the kernel need not be unchanged.
        std::uint64_t wavefronts = 0, requests = 0, requests_before = 0;
        for (const auto& st : again.kernels[0].sites)
          if (touches(again.kernels[0], st, a.symbol)) {
            wavefronts += st.stats.wavefronts;
            requests += st.stats.requests;
          }
        for (const auto& st : kr.sites)
          if (touches(kr, st, a.symbol)) requests_before += st.stats.requests;
        EXPECT_EQ(wavefronts, s.wavefronts_after);
        EXPECT_EQ(requests, requests_before - s.requests_before + s.requests_after);
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 39);
  std::filesystem::remove_all(std::filesystem::temp_directory_path() /
                              ("bankcheck_fix_test_" + std::to_string(::getpid())));
}

TEST(Fix, ApplyWritesThePaddedCopyAndChecksIt) {
  REQUIRE_NVCC();
  auto o = fix_options("transpose.cu", "transposeShared", "2");
  o.apply = true;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("bankcheck_fix_apply_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  o.apply_to = (dir / "transpose.fixed.cu").string();
  o.force = true;  // an earlier run's copy is there
  const auto r = drv::fix(o);
  ASSERT_TRUE(r.applied);
  ASSERT_TRUE(r.recheck);
  const auto patched = lines_of(read(o.apply_to));
  EXPECT_EQ(patched[43], "    __shared__ float tile[BS][BS + 1];");
  const auto original = lines_of(read(example("transpose.cu")));
  ASSERT_EQ(patched.size(), original.size());
  int differ = 0;
  for (size_t i = 0; i < patched.size(); ++i) differ += patched[i] != original[i];
  EXPECT_EQ(differ, 1);
  const auto& k = r.recheck->kernels.at(0);
  EXPECT_EQ(k.shared_wavefronts, k.shared_ideal_wavefronts);
  EXPECT_GT(r.check.kernels[0].shared_wavefronts, k.shared_wavefronts);
  // The re-check ran on a temporary copy beside it; the report names the path the user
  // gets, in every view (the temporary file is gone).
  EXPECT_EQ(r.recheck->input, o.apply_to);
  const std::string json = bankcheck::report::fix_to_json(r).dump();
  EXPECT_EQ(json.find(".tmp-"), std::string::npos) << json;
  EXPECT_NE(json.find("\"input\":\"" + o.apply_to + "\""), std::string::npos);
  const std::string text = bankcheck::report::render_fix_text(r);
  EXPECT_EQ(text.find(".tmp-"), std::string::npos) << text;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
  std::filesystem::remove_all(dir);
}

// Without --blocks the check samples CTAs until an instruction budget; the padded copy
// runs other instructions, so a budget would stop it at another CTA. The re-check runs
// the CTAs the prediction counted, and costs exactly what the applied suggestion predicted.
TEST(Fix, ApplyRechecksTheCtasThePredictionCounted) {
  REQUIRE_NVCC();
  drv::FixOptions o;
  o.check.input = example("transpose.cu");
  o.check.flags.kernel = "transposeShared";
  o.check.threads = 2;
  o.top = 8;
  o.apply = true;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("bankcheck_fix_apply_sampled_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  o.apply_to = (dir / "transpose.fixed.cu").string();
  o.force = true;
  const auto r = drv::fix(o);
  ASSERT_TRUE(r.applied);
  ASSERT_TRUE(r.recheck);
  const auto& before = r.check.kernels.at(0);
  const auto& after = r.recheck->kernels.at(0);
  EXPECT_LT(before.ctas_analysed, before.ctas_total);  // sampled, not the whole grid
  EXPECT_EQ(after.ctas_analysed, before.ctas_analysed);
  const an::Suggestion* applied = nullptr;
  for (const auto& a : r.kernels.at(0).arrays)
    for (const auto& s : a.suggestions)
      if (s.applicable && !applied) applied = &s;
  ASSERT_NE(applied, nullptr);
  EXPECT_EQ(after.shared_wavefronts, applied->wavefronts_after);
  std::filesystem::remove_all(dir);
}

// The example's flash-attention tiles are padded to 144-byte rows: ldmatrix is
// conflict-free, but each row's cp.async.cg straddles two 128-byte lines. fix suggests
// dropping the padding for Swizzle<3,3,3>; bench/fix/attention/attention_swizzle.cu is the
// kernel with that layout written by hand, and each tile there costs what fix predicted.
TEST(Fix, AttentionUnpaddedSwizzleCostsThePrediction) {
  REQUIRE_NVCC();
  const auto r = drv::fix(fix_options("tensor/attention.cu", "flash_attention_fwd", "all"));
  ASSERT_EQ(r.kernels.size(), 1u);
  drv::CheckOptions co;
  co.input = std::string(BANKCHECK_SOURCE_DIR) + "/bench/fix/attention/attention_swizzle.cu";
  co.flags.kernel = "attention_swizzled";
  co.flags.blocks = "all";
  co.threads = 2;
  const auto again = drv::check(co);
  ASSERT_EQ(again.kernels.size(), 1u);
  const auto& k = again.kernels[0];
  int compared = 0;
  for (const auto& a : r.kernels[0].arrays) {
    if (a.name != "Qs" && a.name != "Ks" && a.name != "Vs") continue;
    SCOPED_TRACE(a.name);
    ASSERT_FALSE(a.suggestions.empty());
    const auto& s = a.suggestions[0];
    EXPECT_EQ(s.remap.kind, an::FixKind::Swizzle);
    EXPECT_EQ(s.remap.unpad, 16);
    EXPECT_EQ(s.remap.stride, 144);
    EXPECT_EQ(std::make_tuple(s.remap.bits, s.remap.base, s.remap.shift), std::make_tuple(3, 3, 3));
    EXPECT_EQ(s.bytes_after, 8192u);
    EXPECT_EQ(s.wavefronts_after, s.ideal_wavefronts);
    // The same array in the swizzled kernel: its PTX name ends in E<length><name>.
    const std::string tail = "E" + std::to_string(a.name.size()) + a.name;
    std::string symbol;
    for (const auto& v : k.shared_vars)
      if (v.name.size() > tail.size() &&
          v.name.compare(v.name.size() - tail.size(), tail.size(), tail) == 0)
        symbol = v.name;
    ASSERT_FALSE(symbol.empty());
    std::uint64_t wavefronts = 0;
    for (const auto& st : k.sites)
      if (touches(k, st, symbol)) wavefronts += st.stats.wavefronts;
    EXPECT_EQ(wavefronts, s.wavefronts_after);
    ++compared;
  }
  EXPECT_EQ(compared, 3);

  // On the H100 (bench/fix/attention/measured/source.csv.gz, Nsight Compute's Source
  // Counters of one launch of each): every shared SASS instruction of each kernel, counted
  // once (the listing repeats an inlined one under each of its lines), totals what check
  // counts for the kernel.
  std::map<std::string, std::map<std::string, std::pair<double, double>>> by_address;
  std::string function;
  std::vector<std::string> header;
  for (const auto& line : bankcheck::test::read_gzip_lines(
           std::string(BANKCHECK_SOURCE_DIR) + "/bench/fix/attention/measured/source.csv.gz")) {
    const auto f = bankcheck::test::split_csv(line);
    if (f.size() == 2 && f[0] == "Function Name") function = f[1].substr(0, f[1].find('('));
    if (!f.empty() && f[0] == "Line No") header = f;
    if (header.empty() || f.size() != header.size() || f[2] == "-" || f[2] == "Address") continue;
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < f.size(); ++i) row[header[i]] = f[i];
    const auto number = [](const std::string& v) {  // "-": not a memory instruction
      return v.empty() || v == "-" ? 0.0 : std::stod(v);
    };
    if (!row.count("L1 Wavefronts Shared")) continue;  // UBLKCP-like rows: no memory column
    by_address[function][f[2]] = {number(row["L1 Wavefronts Shared"]),
                                  number(row["L1 Wavefronts Shared Ideal"])};
  }
  co.flags.kernel.reset();
  const auto both = drv::check(co);
  ASSERT_EQ(both.kernels.size(), 2u);
  for (const auto& kr : both.kernels) {
    SCOPED_TRACE(kr.name);
    ASSERT_TRUE(by_address.count(kr.name));
    double wf = 0, ideal = 0;
    for (const auto& [address, counts] : by_address[kr.name]) {
      wf += counts.first;
      ideal += counts.second;
    }
    EXPECT_EQ(wf, static_cast<double>(kr.shared_wavefronts));
    EXPECT_EQ(ideal, static_cast<double>(kr.shared_ideal_wavefronts));
  }
}

// A tile that cp.async.bulk fills is written in its linear layout: padding or a swizzle of
// its declaration would break the copy (--apply must not pad it), so nothing is suggested
// and the reason names the copy's line.
TEST(Fix, ArraysFilledByBulkCopiesAreNotRemapped) {
  REQUIRE_NVCC();
  const auto r = drv::fix(fix_options("tensor/bulk_stage.cu", "row_sums_conflicted", "2"));
  ASSERT_EQ(r.kernels.size(), 1u);
  ASSERT_EQ(r.kernels[0].arrays.size(), 1u);
  const auto& a = r.kernels[0].arrays[0];
  EXPECT_GT(a.wavefronts, a.ideal_wavefronts);  // the conflicts are there
  EXPECT_TRUE(a.suggestions.empty());
  int copy_line = 0;  // the line check reports the copy's shared side on
  for (const auto& st : r.check.kernels[0].sites)
    if (st.ptx.find("cp.async.bulk") != std::string::npos &&
        st.stats.space == bankcheck::ptx::Space::Shared)
      copy_line = st.line;
  ASSERT_GT(copy_line, 0);
  EXPECT_NE(a.error.find(fmt_line("filled by cp.async.bulk (line ", copy_line, ")")),
            std::string::npos)
      << a.error;
}
