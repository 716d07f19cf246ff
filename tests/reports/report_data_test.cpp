// A report as data and back (report/report_data.hpp), the way `bankcheck run` hands a
// program's reports to bankcheck: for real reports of `check` (shared conflicts with their
// worst requests, global sectors, notes, suppressions) and one with everything `run` adds
// (launches, incomplete launches, the process), the report read back renders exactly as the
// original in every view and format option, and its data is the same again.
#include "bankcheck/report/report_data.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/driver/fix.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/report/views.hpp"

namespace rep = bankcheck::report;
namespace drv = bankcheck::driver;
namespace ana = bankcheck::analysis;
using nlohmann::json;

namespace {

std::vector<ana::CheckReport>* checked() {
  static std::vector<ana::CheckReport>* reports = [] {
    auto* out = new std::vector<ana::CheckReport>;
    try {
      drv::find_nvcc("");
    } catch (const drv::DriverError&) {
      return out;  // no nvcc: the synthetic report only
    }
    for (const char* input : {"examples/seed001.cu", "tests/data/gates/severities.cu",
                              "examples/stride.cu", "examples/transpose.cu"}) {
      drv::CheckOptions o;
      o.input = std::string(BANKCHECK_SOURCE_DIR) + "/" + input;
      out->push_back(drv::check(o));
    }
    return out;
  }();
  return reports;
}

// A report with what `bankcheck run` adds, on top of the first checked one (or an empty one).
ana::CheckReport with_run_fields() {
  ana::CheckReport r = checked()->empty() ? ana::CheckReport{} : checked()->front();
  ana::KernelReport k;
  k.name = "late";
  k.mangled = "_Z4latev";
  k.signature = "late()";
  ana::LaunchSummary s;
  s.grid = {4, 2, 1};
  s.block = {128, 1, 1};
  s.dynamic_smem = 512;
  s.launches = 9;
  s.analysed = 3;
  s.skipped = 2;
  s.analysed_ids = {3, 5, 8};
  k.launches = {s};
  k.incomplete = {{8, "it had not ended when the program was killed by SIGKILL"}};
  r.kernels.push_back(k);
  ana::ProcessInfo p;
  p.pid = 4242;
  p.ppid = 4000;
  p.command = {"./app", "--rank", "1"};
  p.rank = "1";
  p.rank_variable = "RANK";
  p.local_rank = "1";
  p.ending = "killed by SIGKILL";
  p.signal = 9;
  p.incomplete = {"the process was killed by SIGKILL (Killed)"};
  r.process = p;
  r.unsupported.push_back({"refused", "an instruction", 0, 12, 40, "bar.arrive", true, 3, {}});
  r.not_run.push_back({"libcublasLt.so.13", "sm90_gemm", "_Z9sm90_gemmv",
                       "its module has SASS for sm_90 and no PTX", 3, "gemm.cu:42 (main)",
                       "CUDA_ERROR_NO_BINARY_FOR_GPU"});
  return r;
}

// How many times `needle` occurs in `text`.
std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

// Every rendering of `r` a user can ask for.
std::vector<std::string> renderings(const ana::CheckReport& r) {
  std::vector<std::string> out;
  for (const rep::View& v : rep::views()) {
    for (const bool color : {false, true})
      for (const int columns : {0, 60})
        for (const bool quiet : {false, true}) {
          const rep::TextOptions o{
              .color = color, .columns = columns, .quiet = quiet, .source_root = {}};
          out.push_back(std::string(v.name) + ":\n" + v.check(r, nullptr, o));
        }
    if (v.files) {
      const std::vector<rep::FileResult> files = {{r.input, &r, "", "", nullptr},
                                                  {r.input + "2", &r, "", "", nullptr}};
      out.push_back(std::string(v.name) + " files:\n" + v.files(files, {}));
    }
  }
  return out;
}

void expect_round_trip(const ana::CheckReport& r) {
  const json data = rep::report_to_data(r);
  // Through text, as it travels between processes.
  const ana::CheckReport back = rep::report_from_data(json::parse(data.dump()), "the report");
  EXPECT_EQ(rep::report_to_data(back), data);
  const auto a = renderings(r), b = renderings(back);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "rendering " << i;
}

}  // namespace

TEST(ReportData, CheckedReportsRenderTheSameReadBack) {
  if (checked()->empty()) GTEST_SKIP() << "nvcc not found";
  for (const auto& r : *checked()) {
    SCOPED_TRACE(r.input);
    EXPECT_FALSE(r.kernels.empty());
    expect_round_trip(r);
  }
}

TEST(ReportData, RunFieldsRenderTheSameReadBack) {
  const ana::CheckReport r = with_run_fields();
  EXPECT_FALSE(ana::complete(r));
  expect_round_trip(r);
  const ana::CheckReport back = rep::report_from_data(rep::report_to_data(r), "r");
  ASSERT_TRUE(back.process);
  EXPECT_EQ(back.process->command, r.process->command);
  EXPECT_EQ(back.kernels.back().incomplete.at(0).reason, r.kernels.back().incomplete.at(0).reason);
  EXPECT_EQ(back.kernels.back().launches.at(0).analysed_ids, (std::vector<std::uint64_t>{3, 5, 8}));
  ASSERT_EQ(back.not_run.size(), 1u);
  EXPECT_EQ(back.not_run[0].call_site, "gemm.cu:42 (main)");
  EXPECT_EQ(back.not_run[0].launches, 3u);
}

// Launches that did not run make a report incomplete, and each view says so once: among the
// text's and the HTML's incompleteness, as the JSON's `incomplete` sentence beside its
// `not_run` data, as one SARIF notification with the same data.
TEST(ReportData, LaunchesThatDidNotRunAreSaidOnceInEveryView) {
  ana::CheckReport r;
  r.input = "app";
  r.not_run.push_back({"libcublasLt.so.13", "sm90_gemm", "_Z9sm90_gemmv",
                       "its module has SASS for sm_90 and no PTX", 2, "gemm.cu:42 (main)",
                       "CUDA_ERROR_NO_BINARY_FOR_GPU"});
  r.not_run.push_back({"app", "", "",
                       "it called cuLaunchGrid, which bankcheck's CUDA driver does not implement",
                       1, "", "CUDA_ERROR_NOT_SUPPORTED"});
  EXPECT_FALSE(ana::complete(r));
  const std::string gemm = ana::not_run_text(r.not_run[0]);
  EXPECT_EQ(gemm,
            "libcublasLt.so.13: kernel sm90_gemm did not run (2 launches, called from gemm.cu:42 "
            "(main)): its module has SASS for sm_90 and no PTX; each launch returned "
            "CUDA_ERROR_NO_BINARY_FOR_GPU and the program went on");
  const std::string grid = ana::not_run_text(r.not_run[1]);
  EXPECT_EQ(grid.substr(0, grid.find(':', 5)), "app: a launch did not run (1 launch)");
  for (const rep::Format f : {rep::Format::Text, rep::Format::Html}) {
    const std::string out = rep::view(f).check(r, nullptr, {});
    EXPECT_EQ(occurrences(out, "kernel sm90_gemm did not run"), 1u) << rep::format_name(f);
    EXPECT_EQ(occurrences(out, "a launch did not run"), 1u) << rep::format_name(f);
  }
  r.process = ana::ProcessInfo{};
  const json doc = json::parse(rep::view(rep::Format::Json).check(r, nullptr, {}));
  EXPECT_FALSE(doc["complete"]);
  const json& j = doc["files"][0];
  EXPECT_FALSE(j["complete"]);
  EXPECT_EQ(j["incomplete"], json::array({gemm, grid}));
  ASSERT_EQ(j["not_run"].size(), 2u);
  EXPECT_EQ(j["not_run"][0]["call_site"], "gemm.cu:42 (main)");
  const json sarif = json::parse(rep::view(rep::Format::Sarif).check(r, nullptr, {}));
  const json& notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"];
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0]["message"]["text"], "incomplete: " + gemm);
  EXPECT_EQ(notes[0]["descriptor"]["id"], "not-run");
  EXPECT_EQ(notes[0]["properties"]["callSite"], "gemm.cu:42 (main)");
  EXPECT_EQ(notes[1]["properties"]["error"], "CUDA_ERROR_NOT_SUPPORTED");
}

TEST(ReportData, WorstRequestsSchedulesAreTheModels) {
  if (checked()->empty()) GTEST_SKIP() << "nvcc not found";
  const ana::CheckReport& r = checked()->front();
  const ana::CheckReport back = rep::report_from_data(rep::report_to_data(r), "r");
  bool some = false;
  for (std::size_t k = 0; k < r.kernels.size(); ++k)
    for (std::size_t s = 0; s < r.kernels[k].sites.size(); ++s) {
      const auto& x = r.kernels[k].sites[s].worst_schedule;
      const auto& y = back.kernels[k].sites[s].worst_schedule;
      some = some || x.wavefront_count > 0;
      EXPECT_EQ(x.phase_count, y.phase_count);
      EXPECT_EQ(x.wavefront_count, y.wavefront_count);
      EXPECT_EQ(x.slot_count, y.slot_count);
    }
  EXPECT_TRUE(some);
}

TEST(ReportData, SaysWhatIsWrongWithBadData) {
  json data = rep::report_to_data(with_run_fields());
  auto error = [](const json& d) {
    try {
      rep::report_from_data(d, "part.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(data), "");
  json wrong = data;
  wrong["kernels"].back()["launches"][0]["analysed"] = "three";
  EXPECT_EQ(error(wrong), "part.json.kernels[" + std::to_string(data["kernels"].size() - 1) +
                              "].launches[0].analysed: not an integer");
  wrong = data;
  wrong["arch"] = "sm_1";
  EXPECT_EQ(error(wrong), "part.json.arch: not an architecture bankcheck knows");
  wrong = data;
  wrong.erase("kernels");
  EXPECT_EQ(error(wrong), "part.json.kernels: not there");
  wrong = data;
  wrong["version"] = 0;
  EXPECT_NE(error(wrong).find("not a report of this bankcheck"), std::string::npos);
  EXPECT_NE(error(json::array()).find("not a report of this bankcheck"), std::string::npos);
}

// fix's advice as data and back (the last part of a program under `bankcheck fix PROGRAM` or
// `run`): for real advice (examples/transpose.cu's padded and swizzled tile, a naive
// transpose's staging with its code), the advice read back renders exactly as the original in
// every view of fix and of check with suggestions, and its data is the same again.
TEST(ReportData, FixAdviceRoundTrips) {
  bankcheck::driver::FixOptions o;
  try {
    drv::find_nvcc("");
  } catch (const drv::DriverError&) {
    GTEST_SKIP() << "no nvcc";
  }
  for (const char* input : {"examples/transpose.cu", "tests/data/fix_global.cu"}) {
    o.check.input = std::string(BANKCHECK_SOURCE_DIR) + "/" + input;
    if (std::string(input).ends_with("fix_global.cu")) o.check.flags.kernel = "transpose_naive";
    const ana::FixReport fr = bankcheck::driver::fix(o);
    ASSERT_FALSE(fr.kernels.empty()) << input;
    const json data = rep::fixes_to_data(fr.kernels);
    ana::FixReport back;
    back.check = fr.check;
    back.kernels = rep::fixes_from_data(data, "fixes");
    EXPECT_EQ(rep::fixes_to_data(back.kernels), data) << input;
    bool advice = false;
    for (const auto& k : back.kernels) advice = advice || !k.arrays.empty() || !k.globals.empty();
    EXPECT_TRUE(advice) << input;
    for (const rep::View& v : rep::views()) {
      if (v.fix) {
        EXPECT_EQ(v.fix(back, {}), v.fix(fr, {})) << input << " " << v.name;
      }
      if (v.check) {
        EXPECT_EQ(v.check(back.check, &back, {}), v.check(fr.check, &fr, {})) << v.name;
      }
    }
  }
  EXPECT_THROW(rep::fixes_from_data(json::object({{"version", 0}}), "x"), std::invalid_argument);
}
