// The launch ledger both backends of `bankcheck run` call (the emulator's executor and the GPU
// tool): the selection rules as Nsight Compute's --kernel-name, --launch-skip, --launch-count,
// --filter-mode and NVTX filters define them, bankcheck's --launches, completeness, and the
// order of the report.
#include "bankcheck/runtime/launch_ledger.hpp"

#include <gtest/gtest.h>

#include <random>

#include "bankcheck/runtime/nvtx_ranges.hpp"

using namespace bankcheck;
using namespace bankcheck::runtime;

namespace {

const LaunchConfig kSmall{{1, 1, 1}, {32, 1, 1}, 0};
const LaunchConfig kLarge{{8, 1, 1}, {256, 1, 1}, 0};
const LaunchConfig kShared{{8, 1, 1}, {256, 1, 1}, 1024};  // only the shared bytes differ

// Which of `launches` (kernel, config) the ledger analyses.
std::vector<bool> analysed(LaunchSelection s,
                           const std::vector<std::pair<int, LaunchConfig>>& launches,
                           const std::vector<std::string>& mangled = {"_Z1av", "_Z1bv"}) {
  LaunchLedger ledger(std::move(s));
  std::vector<LaunchLedger::Kernel> ks;
  for (const auto& m : mangled) ks.push_back(ledger.kernel(&m, m, 0));
  std::vector<bool> out;
  for (const auto& [k, c] : launches)
    out.push_back(ledger.launch(ks[static_cast<std::size_t>(k)], c).analyse);
  return out;
}

// The rules written out plainly over a whole sequence: the reference the ledger must equal.
std::vector<bool> reference(const LaunchSelection& s,
                            const std::vector<std::pair<int, LaunchConfig>>& launches,
                            const std::vector<bool>& selected, const std::vector<bool>& in_range) {
  std::vector<bool> out(launches.size(), false);
  const bool global = s.mode == FilterMode::Global;
  const std::uint64_t per_config = global    ? s.launches.value_or(0)
                                   : s.count ? *s.count
                                             : s.launches.value_or(1);
  const std::uint64_t in_all = global ? s.count.value_or(0) : 0;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const auto& [k, c] = launches[i];
    if (!selected[static_cast<std::size_t>(k)] || !in_range[i]) continue;
    // The matched launches before this one (of its configuration, or all), and those analysed.
    std::uint64_t seen = 0, of_config = 0;
    for (std::size_t j = 0; j < i; ++j) {
      const bool same = launches[j].first == k && launches[j].second == c;
      const bool matched = selected[static_cast<std::size_t>(launches[j].first)] && in_range[j];
      if (matched && (global || same)) ++seen;
      if (out[j] && same) ++of_config;
    }
    if (seen < s.skip) continue;
    if (per_config && of_config >= per_config) continue;
    if (in_all && total >= in_all) continue;
    out[i] = true;
    ++total;
  }
  return out;
}

using V = std::vector<bool>;

}  // namespace

TEST(LaunchLedger, DefaultIsTheFirstLaunchOfEachConfiguration) {
  EXPECT_EQ(
      analysed({}, {{0, kSmall}, {0, kSmall}, {0, kLarge}, {1, kSmall}, {0, kShared}, {0, kLarge}}),
      (V{true, false, true, true, true, false}));
}

TEST(LaunchLedger, LaunchesAllAndN) {
  LaunchSelection s;
  s.launches = 0;
  EXPECT_EQ(analysed(s, {{0, kSmall}, {0, kSmall}, {0, kSmall}}), (V{true, true, true}));
  s.launches = 2;
  EXPECT_EQ(analysed(s, {{0, kSmall}, {0, kSmall}, {0, kSmall}, {0, kLarge}}),
            (V{true, true, false, true}));
}

// ncu --filter-mode per-launch-config --launch-skip 1 --launch-count 2: per configuration.
TEST(LaunchLedger, PerLaunchConfigSkipAndCount) {
  LaunchSelection s;
  s.skip = 1;
  s.count = 2;
  EXPECT_EQ(analysed(s, {{0, kSmall},
                         {0, kLarge},
                         {0, kSmall},
                         {0, kSmall},
                         {0, kSmall},
                         {0, kLarge},
                         {1, kSmall},
                         {1, kSmall}}),
            (V{false, false, true, true, false, true, false, true}));
}

// ncu --launch-skip 2 --launch-count 3 (global): over every matched launch in program order.
TEST(LaunchLedger, GlobalSkipAndCount) {
  LaunchSelection s;
  s.mode = FilterMode::Global;
  s.skip = 2;
  s.count = 3;
  EXPECT_EQ(
      analysed(s, {{0, kSmall}, {1, kSmall}, {0, kSmall}, {1, kLarge}, {0, kSmall}, {0, kSmall}}),
      (V{false, false, true, true, true, false}));
  // --launches still caps each configuration when given.
  s.launches = 1;
  EXPECT_EQ(
      analysed(s, {{0, kSmall}, {1, kSmall}, {0, kSmall}, {1, kLarge}, {0, kSmall}, {1, kSmall}}),
      (V{false, false, true, true, false, true}));
}

// The skip counts only launches the filters match (ncu's --launch-skip, not
// --launch-skip-before-match).
TEST(LaunchLedger, SkipCountsMatchedLaunchesOnly) {
  LaunchSelection s;
  s.mode = FilterMode::Global;
  s.kernels = {"b"};
  s.skip = 1;
  EXPECT_EQ(analysed(s, {{0, kSmall}, {1, kSmall}, {0, kSmall}, {1, kSmall}, {1, kLarge}}),
            (V{false, false, false, true, true}));
}

TEST(LaunchLedger, KernelNamesAndRegularExpressions) {
  const std::string m = "_ZN2ns6kernelILi4EEEvPfi";  // void ns::kernel<4>(float*, int)
  auto picks = [&](std::vector<std::string> kernels,
                   KernelNameBase base = KernelNameBase::Function) {
    LaunchSelection s;
    s.kernels = std::move(kernels);
    s.name_base = base;
    LaunchLedger l(s);
    return l.selected(l.kernel(&m, m, 0));
  };
  EXPECT_TRUE(picks({}));
  EXPECT_TRUE(picks({"kernel"}));
  EXPECT_TRUE(picks({"ns::kernel<4>"}));
  EXPECT_TRUE(picks({"other", "kernel"}));
  EXPECT_FALSE(picks({"kern"}));  // a name matches whole
  EXPECT_TRUE(picks({"regex:^ker"}));
  EXPECT_TRUE(picks({"regex:nel"}));    // anywhere in the name
  EXPECT_FALSE(picks({"regex:ns::"}));  // the function's name has no namespace
  EXPECT_TRUE(picks({"regex:ns::kernel<4>"}, KernelNameBase::Demangled));
  EXPECT_TRUE(picks({"void ns::kernel<4>(float*, int)"}, KernelNameBase::Demangled));
  EXPECT_FALSE(picks({"kernel"}, KernelNameBase::Demangled));
  EXPECT_TRUE(picks({m}, KernelNameBase::Mangled));
  EXPECT_TRUE(picks({"regex:^_ZN2ns"}, KernelNameBase::Mangled));
  EXPECT_FALSE(picks({"kernel"}, KernelNameBase::Mangled));
  EXPECT_THROW(parse_kernel_filter("regex:("), std::invalid_argument);
  EXPECT_THROW(parse_kernel_filter("regex:"), std::invalid_argument);
  EXPECT_THROW(parse_kernel_filter(""), std::invalid_argument);
}

TEST(LaunchLedger, NvtxRangesScopeTheMatchedLaunches) {
  LaunchSelection s;
  s.nvtx_include = {"step/"};
  s.mode = FilterMode::Global;
  s.skip = 1;
  LaunchLedger l(s);
  bool inside = false;
  int asked = 0;
  l.set_nvtx_question([&](const LaunchSelection& sel) {
    ++asked;
    EXPECT_EQ(sel.nvtx_include, std::vector<std::string>{"step/"});
    return inside;
  });
  const std::string m = "_Z1av";
  const auto k = l.kernel(&m, m, 0);
  EXPECT_FALSE(l.launch(k, kSmall).analyse);  // outside
  inside = true;
  EXPECT_FALSE(l.launch(k, kSmall).analyse);  // inside, skipped
  EXPECT_TRUE(l.launch(k, kSmall).analyse);
  EXPECT_EQ(asked, 3);
  // Without NVTX filters the question is never asked.
  LaunchLedger plain({});
  plain.set_nvtx_question([&](const LaunchSelection&) {
    ADD_FAILURE() << "asked without filters";
    return false;
  });
  EXPECT_TRUE(plain.launch(plain.kernel(&m, m, 0), kSmall).analyse);
}

// By default the ledger asks the process's ranges, as the NVTX injection library feeds them.
TEST(LaunchLedger, AsksTheProcesssNvtxRanges) {
  LaunchSelection s;
  s.nvtx_include = {"step/"};
  s.nvtx_exclude = {"warmup/"};
  s.launches = 0;
  LaunchLedger l(s);
  const std::string m = "_Z1av";
  const auto k = l.kernel(&m, m, 0);
  NvtxRanges& ranges = nvtx_process_ranges();
  EXPECT_FALSE(l.launch(k, kSmall).analyse);
  ranges.push("", "step");
  EXPECT_TRUE(l.launch(k, kSmall).analyse);
  ranges.push("", "warmup");
  EXPECT_FALSE(l.launch(k, kSmall).analyse);
  ranges.pop("");
  ranges.pop("");
  EXPECT_FALSE(l.launch(k, kSmall).analyse);
  s.nvtx_include = {"a//b"};
  EXPECT_THROW(LaunchLedger{s}, std::invalid_argument);
}

// For random programs and selections, the ledger decides as the rules written out plainly.
TEST(LaunchLedger, EqualsTheRulesOnRandomPrograms) {
  std::mt19937 rng(31);
  const LaunchConfig configs[] = {kSmall, kLarge, kShared};
  for (int trial = 0; trial < 500; ++trial) {
    LaunchSelection s;
    s.mode = rng() % 2 ? FilterMode::Global : FilterMode::PerLaunchConfig;
    s.skip = rng() % 4;
    if (rng() % 2) s.count = 1 + rng() % 4;
    if (rng() % 2) s.launches = rng() % 4;  // 0: all
    const std::vector<bool> selected = {rng() % 4 != 0, rng() % 4 != 0, true};
    if (!selected[0] || !selected[1]) {
      if (selected[0]) s.kernels.push_back("a");
      if (selected[1]) s.kernels.push_back("b");
      s.kernels.push_back("c");
    }
    std::vector<std::pair<int, LaunchConfig>> launches;
    std::vector<bool> in_range;
    const int n = static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      launches.push_back({static_cast<int>(rng() % 3), configs[rng() % 3]});
      in_range.push_back(rng() % 3 != 0);
    }
    const bool nvtx = rng() % 2;
    if (nvtx) s.nvtx_include = {"r/"};
    LaunchLedger l(s);
    const std::string names[] = {"_Z1av", "_Z1bv", "_Z1cv"};
    std::vector<LaunchLedger::Kernel> ks;
    for (const auto& m : names) ks.push_back(l.kernel(&m, m, 0));
    std::size_t at = 0;
    l.set_nvtx_question([&](const LaunchSelection&) { return in_range[at]; });
    std::vector<bool> got;
    for (at = 0; at < launches.size(); ++at)
      got.push_back(
          l.launch(ks[static_cast<std::size_t>(launches[at].first)], launches[at].second).analyse);
    const std::vector<bool> want = reference(
        s, launches, selected, nvtx ? in_range : std::vector<bool>(launches.size(), true));
    ASSERT_EQ(got, want) << "trial " << trial;
  }
}

TEST(LaunchLedger, CompletenessOfAnalysedLaunches) {
  LaunchSelection s;
  s.launches = 0;
  LaunchLedger l(s);
  const std::string m = "_Z1av";
  const auto k = l.kernel(&m, m, 0);
  const auto a = l.launch(k, kSmall), b = l.launch(k, kSmall), c = l.launch(k, kSmall);
  EXPECT_EQ(l.pending(), 3u);
  l.counted(a.id);
  l.lost(b.id, "the kernel faulted");
  EXPECT_EQ(l.pending(), 1u);
  const auto inc = l.incomplete(k, "it had not ended when the program exited");
  ASSERT_EQ(inc.size(), 2u);
  EXPECT_EQ(inc[0].id, b.id);
  EXPECT_EQ(inc[0].reason, "the kernel faulted");
  EXPECT_EQ(inc[1].id, c.id);
  EXPECT_EQ(inc[1].reason, "it had not ended when the program exited");
  l.counted(c.id);
  EXPECT_EQ(l.incomplete(k, "x").size(), 1u);
  l.counted(b.id);  // already lost: stays lost
  EXPECT_EQ(l.incomplete(k, "x").size(), 1u);
  EXPECT_EQ(l.entry(k).configurations[0].analysed_ids, (std::vector<std::uint64_t>{0, 1, 2}));
}

TEST(LaunchLedger, ReportOrderAndRetiredHandles) {
  LaunchLedger l({});
  int keys[4];
  const auto a = l.kernel(&keys[0], "_Z1av", 1);
  const auto b = l.kernel(&keys[1], "_Z1bv", 2);
  const auto c = l.kernel(&keys[2], "_Z1cv", 1);
  l.launch(b, kSmall);
  l.launch(c, kSmall);
  l.launch(a, kSmall);
  const auto unlaunched = l.kernel(&keys[3], "_Z1dv", 1);
  static_cast<void>(unlaunched);
  // Module 2 first (b's launch came first), then module 1 with c before a.
  EXPECT_EQ(l.report_order(), (std::vector<std::vector<LaunchLedger::Kernel>>{{b}, {c, a}}));
  // The key of an unloaded module's kernel names a new kernel from then on.
  l.retire(&keys[0]);
  const auto again = l.kernel(&keys[0], "_Z1ev", 3);
  EXPECT_NE(again, a);
  EXPECT_EQ(l.entry(a).mangled, "_Z1av");
  EXPECT_EQ(l.kernel(&keys[1], "_Z1bv", 2), b);
  EXPECT_EQ(l.launch_unknown(), 3u);
  l.skipped(b, 0);
  EXPECT_EQ(l.entry(b).configurations[0].skipped, 1u);
  // A forked child starts afresh.
  l.reset();
  EXPECT_EQ(l.launches(), 0u);
  EXPECT_TRUE(l.report_order().empty());
}

TEST(LaunchLedger, NamesOfModes) {
  EXPECT_EQ(parse_filter_mode("global"), FilterMode::Global);
  EXPECT_EQ(parse_filter_mode("per-launch-config"), FilterMode::PerLaunchConfig);
  EXPECT_FALSE(parse_filter_mode("per-gpu"));
  EXPECT_EQ(parse_kernel_name_base("demangled"), KernelNameBase::Demangled);
  EXPECT_FALSE(parse_kernel_name_base("short"));
}
