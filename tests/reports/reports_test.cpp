// The report views of `bankcheck check` over a real run (examples/seed001.cu: one 8-way
// conflict on line 38, its shared array stored on line 32): the findings, the gate, the
// text colours, SARIF (rules, related locations, the fix hook, schema-valid with a fix),
// the HTML page's escaping and the SVG bank picture against the schedule it draws; the
// table of views (every format's name, needs and refusals, and the same counts in each).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/driver/fix.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/model/arch.hpp"
#include "bankcheck/model/matrix.hpp"
#include "bankcheck/report/check_view.hpp"
#include "bankcheck/report/diff.hpp"
#include "bankcheck/report/explain_view.hpp"
#include "bankcheck/report/findings.hpp"
#include "bankcheck/report/fix_view.hpp"
#include "bankcheck/report/gate.hpp"
#include "bankcheck/report/html_view.hpp"
#include "bankcheck/report/sarif_view.hpp"
#include "bankcheck/report/suppressions.hpp"
#include "bankcheck/report/views.hpp"

namespace rep = bankcheck::report;
namespace drv = bankcheck::driver;
using nlohmann::json;

namespace {

drv::CheckOptions seed001_options() {
  drv::CheckOptions o;
  o.input = "examples/seed001.cu";
  o.flags.kernel = "bank_conflict_test";
  return o;
}

// One run of seed001's conflicting kernel, shared by the tests (nvcc takes a moment).
const bankcheck::analysis::CheckReport* seed001() {
  static const bankcheck::analysis::CheckReport* report = [] {
    try {
      drv::find_nvcc("");
    } catch (const drv::DriverError&) {
      return static_cast<bankcheck::analysis::CheckReport*>(nullptr);
    }
    return new bankcheck::analysis::CheckReport(drv::check(seed001_options()));
  }();
  return report;
}

// `bankcheck fix`'s run of the same kernel: the analyses of the views that need fix's.
const bankcheck::analysis::FixReport* seed001_fix() {
  static const bankcheck::analysis::FixReport* report = [] {
    if (!seed001()) return static_cast<bankcheck::analysis::FixReport*>(nullptr);  // no nvcc
    drv::FixOptions o;
    o.check = seed001_options();
    return new bankcheck::analysis::FixReport(drv::fix(o));
  }();
  return report;
}

#define NEED_REPORT()                            \
  const auto* report = seed001();                \
  if (!report) GTEST_SKIP() << "nvcc not found"; \
  const bankcheck::analysis::CheckReport& r = *report

std::string strip_ansi(const std::string& s) {
  return std::regex_replace(s, std::regex("\033\\[[0-9;]*m"), "");
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

class Reports : public ::testing::Test {
 protected:
  void SetUp() override {
    if (chdir(BANKCHECK_SOURCE_DIR) != 0) FAIL() << "cannot enter " << BANKCHECK_SOURCE_DIR;
  }
};

TEST_F(Reports, FindingsNameTheConflictingLineOnce) {
  NEED_REPORT();
  const auto f = rep::findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, rep::FindingKind::BankConflict);
  EXPECT_EQ(f[0].line, 38);
  EXPECT_EQ(f[0].ways, 8u);
  EXPECT_EQ(f[0].excess(), 56u);
  EXPECT_DOUBLE_EQ(f[0].share, 56.0 / 72.0);
  EXPECT_EQ(f[0].severity, rep::Severity::Error);
  EXPECT_STREQ(rep::rule_id(f[0].kind), "bank-conflict");
}

TEST_F(Reports, ColourIsTheSameTextWithEscapes) {
  NEED_REPORT();
  const std::string plain = rep::render_check_text(r);
  const std::string colour = rep::render_check_text(r, {.color = true});
  EXPECT_EQ(plain.find('\033'), std::string::npos);
  EXPECT_EQ(strip_ansi(colour), plain);
  EXPECT_NE(colour.find("\033[01;31merror:\033[0m"), std::string::npos);
  EXPECT_NE(colour.find("\033[01mexamples/seed001.cu:38:18:\033[0m"), std::string::npos);
  // Every conflicting cell of the picture ('!') is red.
  EXPECT_EQ(count(colour, "!\033[0m"), count(plain, "!") - count(plain, "! the bank"));
}

// `run` analyses a kernel in every configuration the program launched it with (a reduction's
// passes over ever smaller grids): the text names each analysed configuration's settings, so
// that the CTAs counted after them add up; one analysed configuration reads as `check`'s.
TEST_F(Reports, EveryAnalysedConfigurationIsNamed) {
  NEED_REPORT();
  bankcheck::analysis::CheckReport two = r;
  auto& k = two.kernels.at(0);
  const auto header = [&] {
    const std::string t = rep::render_check_text(two);
    const auto at = t.find("kernel " + k.name + ":");
    return at == std::string::npos ? std::string() : t.substr(at, t.find('\n', at) - at);
  };
  bankcheck::analysis::LaunchSummary big, small, unanalysed;
  big.grid = {4096, 1, 1};
  big.block = small.block = unanalysed.block = {256, 1, 1};
  big.dynamic_smem = small.dynamic_smem = 1024;
  big.launches = big.analysed = 1;
  small.grid = {16, 1, 1};
  small.launches = small.analysed = 1;
  unanalysed.grid = {1, 1, 1};
  unanalysed.launches = 300;  // every one a repeat, none analysed
  k.grid = big.grid;
  k.block = big.block;
  k.dynamic_smem = 1024;
  k.ctas_total = k.ctas_analysed = 4112;
  k.launches = {big, small, unanalysed};
  EXPECT_EQ(header(),
            "kernel " + k.name +
                ": 2 launch configurations analysed: grids 4096x1x1 and 16x1x1, block "
                "256x1x1, 1024 bytes of dynamic shared memory; 4112 of 4112 CTAs analysed "
                "in 2 of its 302 launches");  // the repeats are not in the counts
  k.launches[1].block = {128, 1, 1};
  k.launches[1].dynamic_smem = 0;
  k.launches[2].analysed = 1;
  EXPECT_EQ(header(), "kernel " + k.name +
                          ": 3 launch configurations analysed (grid 4096x1x1, block 256x1x1, "
                          "1024 bytes of dynamic shared memory; grid 16x1x1, block 128x1x1; grid "
                          "1x1x1, block 256x1x1); 4112 of 4112 CTAs analysed in 3 of its 302 "
                          "launches");
  k.launches.resize(1);
  EXPECT_EQ(header(), "kernel " + k.name +
                          ": grid 4096x1x1, block 256x1x1, 1024 bytes of dynamic shared memory; "
                          "4112 of 4112 CTAs analysed");
}

// Overloads of one kernel name read apart in the text by their signatures; a name no other
// kernel of the report has reads as it is.
TEST_F(Reports, OverloadsAreNamedByTheirSignatures) {
  NEED_REPORT();
  bankcheck::analysis::CheckReport two = r;
  two.kernels.push_back(two.kernels.at(0));
  two.kernels[0].signature = "simple_kernel(int const*, int*, int)";
  two.kernels[1].signature = "simple_kernel(int2 const*, int*, int)";
  for (auto& k : two.kernels) k.name = "simple_kernel";
  const std::string t = rep::render_check_text(two);
  EXPECT_NE(t.find("kernel simple_kernel(int const*, int*, int): grid"), std::string::npos) << t;
  EXPECT_NE(t.find("kernel simple_kernel(int2 const*, int*, int): grid"), std::string::npos) << t;
  EXPECT_NE(t.find("[simple_kernel(int2 const*, int*, int)]"), std::string::npos) << t;
  two.kernels.pop_back();
  EXPECT_NE(rep::render_check_text(two).find("kernel simple_kernel: grid"), std::string::npos);
}

// A finding on a line of another file than the main one (a header's kernel, an inlined helper)
// is quoted as one in the main file, from the file as it was when the report was made.
TEST_F(Reports, FindingsInOtherFilesAreQuoted) {
  NEED_REPORT();
  bankcheck::analysis::CheckReport other = r;
  const std::string header =
      (std::filesystem::temp_directory_path() / "bankcheck_quoted_header.cuh").string();
  std::ofstream(header) << "// a header\r\n  tile[threadIdx.x * 8] = v;  // the line\n";
  other.files.push_back(header);
  const int file = static_cast<int>(other.files.size()) - 1;
  for (auto& k : other.kernels) {
    for (auto& s : k.sites)
      if (s.line == 38) s.file = file, s.line = 2;
    for (auto& l : k.lines)
      if (l.line == 38) l.file = file, l.line = 2;
  }
  drv::quote_other_files(other);
  std::filesystem::remove(header);
  ASSERT_EQ(other.quoted_lines.size(), 1u);
  const std::string t = rep::render_check_text(other);
  EXPECT_NE(t.find("bankcheck_quoted_header.cuh:2:"), std::string::npos) << t;
  EXPECT_NE(t.find("    2 |   tile[threadIdx.x * 8] = v;  // the line\n"), std::string::npos) << t;
}

// An instruction the line table gives no line (a header's code on line 0) is placed by its
// file alone, not at a line 0.
TEST_F(Reports, ALineZeroFindingIsPlacedByItsFile) {
  NEED_REPORT();
  bankcheck::analysis::CheckReport zero = r;
  for (auto& k : zero.kernels) {
    for (auto& s : k.sites)
      if (s.line == 38) s.line = 0;
    for (auto& l : k.lines)
      if (l.line == 38) l.line = 0;
  }
  const std::string t = rep::render_check_text(zero);
  EXPECT_NE(t.find("seed001.cu: error: 8-way bank conflict"), std::string::npos) << t;
  EXPECT_EQ(t.find("seed001.cu:0:"), std::string::npos) << t;
}

// A finding's fix line shows the rewrite of the finding's own line: seed001's conflicting load
// (line 38), not the store that stages the array first (line 32).
TEST_F(Reports, AFixLineRewritesTheFindingsOwnLine) {
  if (!seed001_fix()) GTEST_SKIP() << "nvcc not found";
  const bankcheck::analysis::FixReport& fr = *seed001_fix();
  const std::string t = rep::render_check_text(fr.check, {}, &fr);
  const auto fix = t.find("  fix: ");
  ASSERT_NE(fix, std::string::npos) << t;
  const std::string line = t.substr(fix, t.find('\n', fix) - fix);
  EXPECT_NE(line.find("shared_data[conflict_idx"), std::string::npos) << line;
  EXPECT_EQ(line.find("shared_data[tid"), std::string::npos) << line;
}

TEST(Gate, ParsesWhatItDocuments) {
  EXPECT_EQ(rep::parse_gate("ways>1").metric, rep::Gate::Metric::Ways);
  EXPECT_EQ(rep::parse_gate(" ways > 4 ").limit, 4);
  EXPECT_EQ(rep::parse_gate("excess>10%").metric, rep::Gate::Metric::ExcessPercent);
  EXPECT_EQ(rep::parse_gate("excess>12.5").limit, 12.5);
  EXPECT_EQ(rep::parse_gate("excess>0%").limit, 0);
  EXPECT_EQ(rep::parse_gate("global-waste>10%").metric, rep::Gate::Metric::GlobalWastePercent);
  EXPECT_EQ(rep::parse_gate("global-waste > 17.5").limit, 17.5);
  const rep::Gate warn = rep::parse_gate("severity>=warning");
  EXPECT_EQ(warn.metric, rep::Gate::Metric::Severity);
  EXPECT_EQ(warn.level, rep::Severity::Warning);
  EXPECT_EQ(rep::parse_gate("error").level, rep::Severity::Error);
  EXPECT_EQ(rep::parse_gate(" note ").level, rep::Severity::Note);
  EXPECT_EQ(rep::parse_gate("severity>note").level, rep::Severity::Warning);
  for (const char* bad :
       {"", "ways", "ways>", "ways>=4", "ways<4", "ways>x", "ways>-1", "ways>1.5", "excess>",
        "excess>%", "excess>101%", "excess>1e3", "conflicts>1", ">3", "excess>10%%",
        "global-waste>", "global-waste>=5%", "global-waste>200", "severity>=fatal",
        "severity>error", "severity", "severity>=", "warnings", "excess>=10%"})
    EXPECT_THROW(rep::parse_gate(bad), std::invalid_argument) << bad;
  try {
    rep::parse_gate("ways>=4");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected 'ways>N'"), std::string::npos) << e.what();
  }
}

TEST_F(Reports, GateCrossesExactlyAboveTheLimit) {
  NEED_REPORT();
  const auto ways7 = rep::gate_crossed(r, rep::parse_gate("ways>7"));
  ASSERT_TRUE(ways7);
  EXPECT_EQ(*ways7,
            "--fail-on 'ways>7' crossed: 8-way bank conflict at examples/seed001.cu:38:18 in "
            "bank_conflict_test");
  EXPECT_FALSE(rep::gate_crossed(r, rep::parse_gate("ways>8")));
  // 56 of 72 wavefronts are excess: 77.8%.
  const auto excess = rep::gate_crossed(r, rep::parse_gate("excess>77%"));
  ASSERT_TRUE(excess);
  EXPECT_NE(excess->find("77.8% of kernel bank_conflict_test's shared wavefronts"),
            std::string::npos)
      << *excess;
  EXPECT_FALSE(rep::gate_crossed(r, rep::parse_gate("excess>78%")));
}

TEST_F(Reports, SarifRulesLevelsAndRelatedLocations) {
  NEED_REPORT();
  const json s = rep::check_to_sarif(r);
  EXPECT_EQ(s["version"], "2.1.0");
  const json& run = s["runs"][0];
  const json& rules = run["tool"]["driver"]["rules"];
  ASSERT_EQ(run["results"].size(), 1u);
  for (const json& res : run["results"]) {
    EXPECT_EQ(rules[res["ruleIndex"].get<size_t>()]["id"], res["ruleId"]);
    EXPECT_FALSE(res.contains("fixes"));
  }
  const json& res = run["results"][0];
  EXPECT_EQ(res["ruleId"], "bank-conflict");
  EXPECT_EQ(res["level"], "error");
  const json& loc = res["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "examples/seed001.cu");
  EXPECT_EQ(loc["region"]["startLine"], 38);
  // The column of the access that conflicts (`shared_data`), not of the statement (`a`).
  EXPECT_EQ(loc["region"]["startColumn"], 18);
  EXPECT_NE(res["message"]["text"].get<std::string>().find("8-way bank conflict"),
            std::string::npos);
  // Line 32 stores the same array (shared_data).
  ASSERT_EQ(res["relatedLocations"].size(), 1u);
  const json& rel = res["relatedLocations"][0];
  EXPECT_EQ(rel["physicalLocation"]["region"]["startLine"], 32);
  EXPECT_EQ(rel["message"]["text"], "this line also stores shared_data (no bank conflict)");
  EXPECT_EQ(res["properties"]["arrays"], json::array({"shared_data"}));
}

// The hook `bankcheck fix` fills: a fix given for the conflicting line becomes that
// result's `fixes`, and the log stays valid SARIF 2.1.0.
TEST_F(Reports, SarifFixHookAndSchema) {
  NEED_REPORT();
  std::vector<rep::SarifFix> fixes(2);
  fixes[0].kernel = "bank_conflict_test";
  fixes[0].finding_file = "examples/seed001.cu";
  fixes[0].finding_line = 38;
  fixes[0].description = "Pad shared_data: one float every 32";
  fixes[0].file = "examples/seed001.cu";
  fixes[0].replacements.push_back({28, 22, 28, 38, "shared_data[256 + 256 / 32]"});
  fixes[1] = fixes[0];
  fixes[1].finding_line = 40;  // names no result: dropped
  const json s = rep::check_to_sarif(r, &fixes);
  const json& res = s["runs"][0]["results"][0];
  ASSERT_TRUE(res.contains("fixes"));
  ASSERT_EQ(res["fixes"].size(), 1u);
  const json& change = res["fixes"][0]["artifactChanges"][0];
  EXPECT_EQ(change["artifactLocation"]["uri"], "examples/seed001.cu");
  EXPECT_EQ(change["replacements"][0]["deletedRegion"]["startLine"], 28);
  EXPECT_EQ(change["replacements"][0]["deletedRegion"]["endColumn"], 38);
  EXPECT_EQ(change["replacements"][0]["insertedContent"]["text"], "shared_data[256 + 256 / 32]");

  const std::string path = std::string(REPORTS_OUT_DIR) + "/seed001_with_fix.sarif";
  std::ofstream(path) << s.dump(2);
  const std::string cmd = std::string("'") + NODE_EXECUTABLE + "' '" + BANKCHECK_SOURCE_DIR +
                          "/tests/reports/validate.js' '" + BANKCHECK_SOURCE_DIR +
                          "/tests/reports/schema/sarif-schema-2.1.0.json' '" + path + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// An inlined access keeps its inline stack: each other frame as a related location with
// what it is, and the whole stack, innermost first, as the result's `stacks`.
TEST_F(Reports, SarifInlineStack) {
  NEED_REPORT();
  auto sarif_of = [](const std::string& input, const std::string& kernel) {
    drv::CheckOptions o;
    o.input = input;
    o.flags.kernel = kernel;
    return rep::check_to_sarif(drv::check(o));
  };
  auto related_texts = [](const json& res) {
    std::vector<std::pair<int, std::string>> out;
    for (const json& l : res.value("relatedLocations", json::array()))
      out.emplace_back(l["physicalLocation"]["region"]["startLine"].get<int>(),
                       l["message"]["text"].get<std::string>());
    return out;
  };
  // A helper of the same file: the result is on the helper's line, called from line 11.
  const json helper = sarif_of("tests/reports/inline_helper.cu", "column_sum");
  // One bank conflict (besides it, a note: the helper reads rows of the tile only the
  // diagonal's store wrote).
  std::vector<json> results;
  for (const json& x : helper["runs"][0]["results"])
    if (x["ruleId"] == "bank-conflict") results.push_back(x);
  ASSERT_EQ(results.size(), 1u);
  const json& res = results[0];
  EXPECT_EQ(res["locations"][0]["physicalLocation"]["region"]["startLine"], 5);
  const auto rel = related_texts(res);
  ASSERT_EQ(rel.size(), 2u);  // the store of line 9 (same array), the call of line 11
  EXPECT_EQ(rel[1], std::make_pair(11, std::string("called from here (inlines line 5)")));
  ASSERT_EQ(res["stacks"].size(), 1u);
  const json& frames = res["stacks"][0]["frames"];
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0]["location"]["physicalLocation"]["region"]["startLine"], 5);
  EXPECT_EQ(frames[0]["location"]["message"]["text"], "the access");
  EXPECT_EQ(frames[1]["location"]["physicalLocation"]["region"]["startLine"], 11);
  std::set<int> ids;
  for (const json& l : res["relatedLocations"]) EXPECT_TRUE(ids.insert(l["id"].get<int>()).second);
  // atomicAdd, inlined from CUDA's header: the result stays on the user's line, the header's
  // line is where the access was inlined from.
  const json hist = sarif_of("examples/histogram.cu", "histogram_shared");
  bool found = false;
  for (const json& h : hist["runs"][0]["results"]) {
    if (h["locations"][0]["physicalLocation"]["region"]["startLine"] != 42) continue;
    found = true;
    const auto hr = related_texts(h);
    ASSERT_FALSE(hr.empty());
    EXPECT_EQ(hr.back().second, "inlined from here into line 42");
    const json& hf = h["stacks"][0]["frames"];
    ASSERT_EQ(hf.size(), 2u);
    EXPECT_NE(
        hf[0]["location"]["physicalLocation"]["artifactLocation"]["uri"].get<std::string>().find(
            "device_atomic_functions.hpp"),
        std::string::npos);
    EXPECT_EQ(hf[1]["location"]["physicalLocation"]["region"]["startLine"], 42);
  }
  EXPECT_TRUE(found);
  // A not inlined access has neither.
  const json plain = rep::check_to_sarif(r);  // kept: a range over a temporary's member dangles
  for (const json& s : plain["runs"][0]["results"]) EXPECT_FALSE(s.contains("stacks"));

  const std::string path = std::string(REPORTS_OUT_DIR) + "/inline_helper.sarif";
  std::ofstream(path) << helper.dump(2);
  const std::string cmd = std::string("'") + NODE_EXECUTABLE + "' '" + BANKCHECK_SOURCE_DIR +
                          "/tests/reports/validate.js' '" + BANKCHECK_SOURCE_DIR +
                          "/tests/reports/schema/sarif-schema-2.1.0.json' '" + path + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

TEST(Sarif, UrisAreUriReferences) {
  EXPECT_EQ(rep::path_to_uri("examples/seed001.cu"), "examples/seed001.cu");
  EXPECT_EQ(rep::path_to_uri("my kernels/a#1.cu"), "my%20kernels/a%231.cu");
  EXPECT_EQ(rep::path_to_uri("/abs/x.cu"), "file:///abs/x.cu");
  EXPECT_EQ(rep::path_to_uri("c:d.cu"), "c%3Ad.cu");  // not a scheme
}

TEST(Findings, SharedVariableNames) {
  EXPECT_EQ(rep::shared_var_display_name("_ZZ15transposeSharedvE4tile"), "tile");
  EXPECT_EQ(rep::shared_var_display_name("_ZZ18bank_conflict_testPfS_S_iE11shared_data"),
            "shared_data");
  EXPECT_EQ(rep::shared_var_display_name("_ZZ4kernE4TILE"), "TILE");
  EXPECT_EQ(rep::shared_var_display_name("_ZZN2ns4kernEvE5tile2_0"), "tile2");
  EXPECT_EQ(rep::shared_var_display_name("smem"), "smem");
  EXPECT_EQ(rep::shared_var_display_name("_ZZ4kernE"), "_ZZ4kernE");
}

TEST_F(Reports, HtmlEscapesUserText) {
  NEED_REPORT();
  bankcheck::analysis::CheckReport x = r;
  const std::string evil = "// </script><img src=x onerror=alert(1)> & \"'";
  x.source_lines[37] += evil;  // line 38, the conflicting one: quoted twice
  x.source_lines[0] = evil;
  x.kernels[0].name = "<b>k</b>";
  x.input = "<i>input</i>.cu";
  const std::string html = rep::render_check_html(x);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_EQ(html.find("<i>"), std::string::npos);
  EXPECT_GE(count(html, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &quot;&#39;"), 3u);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  for (const char* fetch : {" src=\"", "url(", "href=\"http", "@import"})  // nothing to fetch
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  EXPECT_EQ(count(html, "<svg"), 1u);
  EXPECT_EQ(rep::html_escape("<a href='x'>&</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;");
}

// The SVG draws one cell per slot of the schedule: conflicting slots (round > 0) red.
TEST_F(Reports, SvgCellsAreTheSchedule) {
  NEED_REPORT();
  const auto f = rep::findings(r);
  const auto& site = r.kernels[0].sites[static_cast<size_t>(f[0].worst_site)];
  const auto& sched = site.worst_schedule;
  const std::string svg =
      rep::render_bank_svg(site.stats.worst, site.stats.worst_verdict, sched, *r.arch);
  int conflicts = 0;
  for (int i = 0; i < sched.slot_count; ++i) conflicts += sched.slots[i].round > 0;
  EXPECT_GT(conflicts, 0);
  EXPECT_EQ(count(svg, "<g class=\"conflict\">"), static_cast<size_t>(conflicts));
  EXPECT_EQ(count(svg, "<g class=\"word\">") + count(svg, "<g class=\"broadcast\">"),
            static_cast<size_t>(sched.slot_count - conflicts));
  EXPECT_EQ(count(svg, ">wf "), static_cast<size_t>(std::min(sched.wavefront_count, 32)));
}

// ---- the table of views (report/views.hpp)

constexpr rep::ReportKind kKinds[] = {rep::ReportKind::Check, rep::ReportKind::Fix,
                                      rep::ReportKind::Explain, rep::ReportKind::Occupancy};

std::string parse_error(std::string_view name, rep::ReportKind kind) {
  try {
    rep::parse_format(name, kind);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(parsed)";
}

TEST(Views, EveryFormatParsesAndRoundTripsToItsName) {
  const std::vector<rep::Format> all = {rep::Format::Text, rep::Format::Json, rep::Format::Sarif,
                                        rep::Format::Html};
  ASSERT_EQ(rep::views().size(), all.size());
  for (const rep::Format f : all) {
    const rep::View& v = rep::view(f);
    EXPECT_EQ(v.format, f);
    EXPECT_EQ(rep::format_name(f), v.name);
    // Every format renders a check report; a kind parses exactly the formats it renders.
    EXPECT_TRUE(rep::renders(v, rep::ReportKind::Check)) << v.name;
    for (const rep::ReportKind kind : kKinds) {
      if (rep::renders(v, kind))
        EXPECT_EQ(rep::parse_format(v.name, kind), f) << v.name;
      else
        EXPECT_EQ(parse_error(v.name, kind),
                  std::string(v.name) + " not in " + rep::format_choices(kind));
    }
  }
  // The names are distinct, and each is its own format's.
  std::set<std::string_view> names;
  for (const rep::View& v : rep::views()) names.insert(v.name);
  EXPECT_EQ(names.size(), all.size());
}

TEST(Views, UnknownFormatGivesTheChoices) {
  EXPECT_EQ(parse_error("xml", rep::ReportKind::Check), "xml not in {text,json,sarif,html}");
  EXPECT_EQ(parse_error("html", rep::ReportKind::Fix), "html not in {text,json,sarif}");
  EXPECT_EQ(parse_error("sarif", rep::ReportKind::Explain), "sarif not in {text,json}");
  EXPECT_EQ(parse_error("JSON", rep::ReportKind::Occupancy), "JSON not in {text,json}");
  EXPECT_EQ(parse_error("", rep::ReportKind::Check), " not in {text,json,sarif,html}");
  EXPECT_EQ(parse_error("text ", rep::ReportKind::Check), "text  not in {text,json,sarif,html}");
}

TEST(Views, NeedsAndRefusalsAreData) {
  for (const rep::View& v : rep::views()) {
    // SARIF carries fix's suggestions; no other view needs more than the check.
    EXPECT_EQ(v.needs.fix, v.format == rep::Format::Sarif) << v.name;
    // A view either renders several files or says why not.
    EXPECT_NE(v.files == nullptr, v.refuses_files.empty()) << v.name;
    EXPECT_EQ(rep::refuse_files(v, 3).empty(), v.files != nullptr) << v.name;
  }
  EXPECT_EQ(rep::refuse_files(rep::view(rep::Format::Html), 3),
            "one page per file; check the 3 files one at a time (or use text, json or sarif)");
}

// A setting's provenance and the count level are enums that every view writes as one word.
TEST(Views, ProvenanceAndLevelWords) {
  namespace an = bankcheck::analysis;
  const std::string_view words[] = {"flag", "comment", "host", "default"};
  ASSERT_EQ(std::size(an::kSettingFroms), std::size(words));
  for (std::size_t i = 0; i < std::size(words); ++i) {
    EXPECT_EQ(an::setting_from_name(an::kSettingFroms[i]), words[i]);
    EXPECT_EQ(an::setting_from(words[i]), an::kSettingFroms[i]);
  }
  EXPECT_THROW(an::setting_from("flags"), std::logic_error);
  EXPECT_EQ(an::SettingSource("grid", "host", "launch 1").from, an::SettingFrom::Host);
  EXPECT_EQ(an::count_level_name(an::CountLevel::Ptx), "ptx");
  EXPECT_EQ(an::count_level_name(an::CountLevel::Sass), "sass");
}

// The kernel's shared wavefronts and their ideal as view `f` states them in `text`.
std::pair<std::uint64_t, std::uint64_t> shown_wavefronts(rep::Format f, const std::string& text,
                                                         const std::string& kernel) {
  std::smatch m;
  switch (f) {
    case rep::Format::Text:
      if (!std::regex_search(text, m,
                             std::regex("shared memory: (\\d+) wavefronts for an ideal "
                                        "of (\\d+)")))
        return {0, 0};
      return {std::stoull(m[1]), std::stoull(m[2])};
    case rep::Format::Json: {
      const json j = json::parse(text);
      for (const json& k : j["files"][0]["kernels"])
        if (k["name"] == kernel)
          return {k["shared_wavefronts"].get<std::uint64_t>(),
                  k["shared_ideal_wavefronts"].get<std::uint64_t>()};
      return {0, 0};
    }
    case rep::Format::Sarif: {
      // Findings only: their wavefronts and ideal, which hold the kernel's whole excess.
      std::uint64_t wavefronts = 0, ideal = 0;
      const json log = json::parse(text);
      for (const json& res : log["runs"][0]["results"])
        if (res["properties"]["kernel"] == kernel && res["ruleId"] == "bank-conflict") {
          wavefronts += res["properties"]["wavefronts"].get<std::uint64_t>();
          ideal += res["properties"]["ideal_wavefronts"].get<std::uint64_t>();
        }
      return {wavefronts, ideal};
    }
    case rep::Format::Html:
      if (!std::regex_search(text, m,
                             std::regex(">" + kernel +
                                        "</td>(?:<td>[^<]*</td>){3}<td>(\\d+)</td>"
                                        "<td>(\\d+)</td>")))
        return {0, 0};
      return {std::stoull(m[1]), std::stoull(m[2])};
  }
  return {0, 0};
}

// What each view renders, from the analyses it declares, states the check's counts; fix's
// run (for the views that need it) counts what the check counts; rendering leaves every
// report as it was.
TEST_F(Reports, NoViewChangesACount) {
  NEED_REPORT();
  const bankcheck::analysis::FixReport& fr = *seed001_fix();
  const auto& k = r.kernels[0];
  const std::uint64_t excess = k.shared_wavefronts - k.shared_ideal_wavefronts;
  ASSERT_GT(excess, 0u);

  // The same findings, and the same report, whichever of the two runs a view reads.
  EXPECT_EQ(rep::check_to_json(fr.check), rep::check_to_json(r));
  const auto a = rep::findings(r), b = rep::findings(fr.check);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].line, b[i].line);
    EXPECT_EQ(a[i].cost, b[i].cost);
    EXPECT_EQ(a[i].ideal, b[i].ideal);
    EXPECT_EQ(a[i].ways, b[i].ways);
    EXPECT_EQ(a[i].requests, b[i].requests);
  }

  const json check_before = rep::check_to_json(r), fix_before = rep::fix_to_json(fr);
  for (const rep::View& v : rep::views()) {
    const bankcheck::analysis::FixReport* fix = v.needs.fix ? &fr : nullptr;
    const bankcheck::analysis::CheckReport& shown = fix ? fix->check : r;
    const std::string one = v.check(shown, fix, {});
    const auto [wavefronts, ideal] = shown_wavefronts(v.format, one, k.name);
    if (v.format == rep::Format::Sarif) {  // findings only: the excess is the kernel's
      EXPECT_EQ(wavefronts - ideal, excess) << v.name;
    } else {
      EXPECT_EQ(wavefronts, k.shared_wavefronts) << v.name;
      EXPECT_EQ(ideal, k.shared_ideal_wavefronts) << v.name;
    }
    EXPECT_EQ(v.check(shown, fix, {}), one) << v.name << ": a second rendering differs";
    if (v.files) {
      // Two files with this report: each file's counts as its own report shows them.
      const std::vector<rep::FileResult> files = {{r.input, &shown, "", "", fix},
                                                  {r.input, &shown, "", "", fix}};
      const std::string both = v.files(files, {});
      if (v.format == rep::Format::Json) {
        const json all = json::parse(both);
        for (const json& f : all["files"]) EXPECT_EQ(f, json::parse(one)["files"][0]);
      } else if (v.format == rep::Format::Sarif) {
        EXPECT_EQ(json::parse(both)["runs"][0]["results"].size(),
                  2 * json::parse(one)["runs"][0]["results"].size());
      } else {
        EXPECT_EQ(count(both, one), 2u) << v.name;
      }
    }
    if (v.fix) {
      EXPECT_FALSE(v.fix(fr, {}).empty()) << v.name;
    }
  }
  EXPECT_EQ(rep::check_to_json(r), check_before);
  EXPECT_EQ(rep::fix_to_json(fr), fix_before);
}

// tests/data/gates/severities.cu: one error, one warning and one note in one kernel. Each
// view states the same severity for each line: text's label, JSON's `severity`, SARIF's
// `level`, HTML's badge and the source row's colour class.
const bankcheck::analysis::CheckReport* severities() {
  static const bankcheck::analysis::CheckReport* report = [] {
    if (!seed001()) return static_cast<bankcheck::analysis::CheckReport*>(nullptr);  // no nvcc
    drv::CheckOptions o;
    o.input = "tests/data/gates/severities.cu";
    return new bankcheck::analysis::CheckReport(drv::check(o));
  }();
  return report;
}

TEST_F(Reports, EveryFormatStatesTheSameSeverities) {
  const auto* report = severities();
  if (!report) GTEST_SKIP() << "nvcc not found";
  const auto& r = *report;
  const std::map<int, std::string> expected = {{12, "error"}, {13, "warning"}, {14, "note"}};
  // The rule itself, at its edges.
  EXPECT_EQ(rep::severity_of(0.25), rep::Severity::Error);
  EXPECT_EQ(rep::severity_of(0.2499), rep::Severity::Warning);
  EXPECT_EQ(rep::severity_of(0.05), rep::Severity::Warning);
  EXPECT_EQ(rep::severity_of(0.0499), rep::Severity::Note);

  std::map<int, std::string> findings, text, jsonv, sarif, html_list, html_rows;
  for (const auto& f : rep::findings(r)) findings[f.line] = rep::severity_name(f.severity);
  EXPECT_EQ(findings, expected);

  const std::string t = rep::render_check_text(r);
  std::smatch m;
  for (auto it = t.cbegin();
       std::regex_search(it, t.cend(), m, std::regex(R"(severities\.cu:(\d+):\d+: (\w+): )"));
       it = m.suffix().first)
    text[std::stoi(m[1])] = m[2];
  EXPECT_EQ(text, expected) << t;

  const json j = json::parse(rep::view(rep::Format::Json).check(r, nullptr, {}));
  for (const json& k : j["files"][0]["kernels"])
    for (const json& f : k["findings"]) jsonv[f["line"].get<int>()] = f["severity"];
  EXPECT_EQ(jsonv, expected);

  const json log = rep::check_to_sarif(r);
  for (const json& res : log["runs"][0]["results"])
    sarif[res["locations"][0]["physicalLocation"]["region"]["startLine"].get<int>()] =
        res["level"];
  EXPECT_EQ(sarif, expected);

  const std::string h = rep::render_check_html(r);
  for (auto it = h.cbegin();
       std::regex_search(it, h.cend(), m,
                         std::regex(R"re(<li><span class="sev (\w+)">\w+</span> <a href="#[^"]*">[^<]*:(\d+):\d+</a>)re"));
       it = m.suffix().first)
    html_list[std::stoi(m[2])] = m[1];
  EXPECT_EQ(html_list, expected);
  for (auto it = h.cbegin();
       std::regex_search(it, h.cend(), m, std::regex(R"re(<tr id="L(\d+)" class="(\w+)")re"));
       it = m.suffix().first)
    html_rows[std::stoi(m[1])] = m[2];
  EXPECT_EQ(html_rows, expected);  // the 2% note is not painted as an error
}

TEST(Suppressions, ParsedWithRulesReasonsAndProblems) {
  const std::vector<std::string> lines = {
      "x = t[i];  // bankcheck: ignore[bank-conflict] a table",
      "  // bankcheck: ignore-next-line",
      "y = t[j];",
      "// bankcheck: ignore[bank-conflict, misaligned-global-access] two rules */",
      "// bankcheck: ignored typo",
      "// bankcheck: ignore[nope] x",
      "// bankcheck: kernel=k grid=1 block=32",
      "/* bankcheck: ignore not a line comment */"};
  std::vector<rep::Suppression> s;
  std::vector<rep::SuppressionNote> notes;
  rep::parse_suppressions(lines, 1, s, notes);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].line, 1);
  EXPECT_EQ(s[0].target, 1);
  EXPECT_EQ(s[0].col, 12);
  EXPECT_EQ(s[0].rules, std::vector<std::string>{"bank-conflict"});
  EXPECT_EQ(s[0].reason, "a table");
  EXPECT_EQ(s[1].target, 3);
  EXPECT_EQ(s[1].reason, "");
  EXPECT_EQ(s[2].rules,
            (std::vector<std::string>{"bank-conflict", "misaligned-global-access"}));
  EXPECT_EQ(s[2].reason, "two rules");
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0].line, 2);  // no reason
  EXPECT_EQ(notes[0].severity, rep::Severity::Warning);
  EXPECT_NE(notes[1].message.find("unknown suppression 'ignored'"), std::string::npos);
  EXPECT_NE(notes[2].message.find("unknown rule 'nope'"), std::string::npos);
  EXPECT_TRUE(rep::is_suppression(" ignore-next-line x"));
  EXPECT_FALSE(rep::is_suppression(" kernel=k"));
}

// Two reports as JSON compared: matched by text when the code moved, by line when the line
// changed; worse, better, new and fixed with their numbers.
TEST(Diff, MatchesMovedAndEditedLines) {
  auto finding = [](int line, const char* source, int excess, int ways) {
    return json{{"rule", "bank-conflict"}, {"severity", "warning"}, {"file", "k.cu"},
                {"line", line},          {"col", 5},              {"message", "m"},
                {"source", source},      {"suppressed", false},   {"requests", 8},
                {"cost", 8 + excess},    {"ideal", 8},            {"excess", excess},
                {"share", 0.1},          {"ways", ways}};
  };
  auto report = [](json findings) {
    return json{{"schema_version", 2},
                {"files", json::array({{{"input", "k.cu"},
                                        {"kernels", json::array({{{"name", "k"},
                                                                  {"shared_wavefronts", 100},
                                                                  {"lines", json::array()},
                                                                  {"findings", findings}}})}}})}};
  };
  const json before = report(json::array({finding(10, "a = t[x * 2];", 8, 2),
                                          finding(20, "b = t[x * 4];", 24, 4),
                                          finding(30, "c = t[x * 8];", 56, 8),
                                          finding(40, "d = t[x * 16];", 120, 16)}));
  const json after = report(json::array({finding(12, "a = t[x * 2];", 8, 2),     // moved
                                         finding(20, "b = t[x * 4 + 1];", 8, 2),  // edited
                                         finding(32, "c = t[x * 8];", 120, 16),   // worse
                                         finding(50, "e = t[x * 32];", 248, 32)}));
  const rep::DiffReport a = rep::diff_report(before, "before.json");
  const rep::DiffReport b = rep::diff_report(after, "after.json");
  const rep::Diff d = rep::diff(a, b);
  EXPECT_EQ(d.count(rep::Change::Same), 1);
  EXPECT_EQ(d.count(rep::Change::Better), 1);
  EXPECT_EQ(d.count(rep::Change::Worse), 1);
  EXPECT_EQ(d.count(rep::Change::New), 1);
  EXPECT_EQ(d.count(rep::Change::Fixed), 1);
  const std::string text = rep::render_diff_text(d, "before.json", "after.json");
  EXPECT_NE(text.find("k.cu:32:5: worse: bank-conflict in k: excess 56 wavefronts, 8-way "
                      "(warning) -> excess 120 wavefronts, 16-way (warning) (was line 30)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("k.cu:40:5: fixed:"), std::string::npos) << text;
  EXPECT_NE(text.find("k.cu:20:5: better:"), std::string::npos) << text;
  EXPECT_EQ(rep::new_or_worse(a, b), (std::vector<bool>{false, false, true, true}));
  const rep::GateInput in = rep::gate_input(d);
  ASSERT_EQ(in.items.size(), 2u);
  EXPECT_TRUE(rep::gate_crossed(in, rep::parse_gate("ways>8")));
  EXPECT_FALSE(rep::gate_crossed(in, rep::parse_gate("ways>32")));
  // 120 + 248 of 100 wavefronts... the kernel's excess is that of its counted findings.
  EXPECT_TRUE(rep::gate_crossed(in, rep::parse_gate("excess>99%")));
  const json dj = rep::diff_to_json(d, "before.json", "after.json");
  EXPECT_EQ(dj["summary"]["new"], 1);
  EXPECT_EQ(dj["changes"].size(), 5u);
  // Version 1's single-file shape is read too; anything else is refused with its name.
  json v1 = before["files"][0];
  v1["schema_version"] = 1;
  EXPECT_EQ(rep::diff_report(v1, "v1.json").findings.size(), 4u);
  for (const json& bad : {json::array(), json{{"schema_version", 2}}, json{{"files", 3}},
                          json{{"schema_version", 9}, {"files", json::array()}}}) {
    try {
      rep::diff_report(bad, "bad.json");
      ADD_FAILURE() << bad.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("bad.json: ", 0), 0u) << e.what();
    }
  }
}

}  // namespace

// ldmatrix's and wmma's rows are costed as stores (the phase rule without load pairing); the
// sentence still says what the lanes do: a load reads.
TEST(WhySentence, AMatrixLoadsRowsRead) {
  namespace m = bankcheck::model;
  m::MatrixAccess x;
  x.op = m::MatrixOp::Load;
  x.matrices = 1;
  for (int l = 0; l < 8; ++l) x.addr[l] = static_cast<std::uint32_t>(l * 128);  // 8-way
  const m::Arch& arch = *m::find_arch("sm_90");
  const m::WarpAccess rows = m::detail::matrix_rows(x);
  m::Schedule s;
  const m::Verdict v = m::analyze(rows, arch, &s);
  const std::string read = bankcheck::report::why(rows, v, s, arch, m::Op::Load);
  EXPECT_NE(read.find("read 8 different words of bank 0"), std::string::npos) << read;
  EXPECT_NE(bankcheck::report::why(rows, v, s, arch).find("write"), std::string::npos);
}
