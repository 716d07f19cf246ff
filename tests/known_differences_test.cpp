// The known differences from Nsight Compute are printed on their lines in every report
// format: tests/data/known/differences.cu has a line of each that a compiled kernel shows;
// the check of it must put each note (its name, its reason, its measurement) on that line
// in the text, JSON, SARIF and HTML reports; and the plan's rule for a cp.async.cg that
// ptxas predicates on P0 (which no compile here can be made to produce on demand) from a
// hand-made SASS instruction.
#include "bankcheck/analysis/known_differences.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/report/views.hpp"
#include "require_nvcc.hpp"

namespace drv = bankcheck::driver;
namespace an = bankcheck::analysis;
namespace rp = bankcheck::report;

namespace {

const std::string kFile = std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/known/differences.cu";

int line_of(const std::string& marker) {
  std::ifstream f(kFile);
  std::string line;
  for (int n = 1; std::getline(f, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  ADD_FAILURE() << marker;
  return -1;
}

const an::CheckReport& report() {
  static an::CheckReport r = [] {
    drv::CheckOptions o;
    o.input = kFile;
    o.flags.blocks = "all";
    return drv::check(o);
  }();
  return r;
}

// The note of `known` on `line`, or null.
const an::NoteReport* note(const std::string& known, int line) {
  for (const auto& k : report().kernels)
    for (const auto& n : k.notes)
      if (n.known == known && n.line == line) return &n;
  return nullptr;
}

}  // namespace

TEST(KnownDifferences, EachIsNotedOnItsLine) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  const std::pair<const char*, const char*> cases[] = {
      {"masked-wide-ideal", "KNOWN: masked-wide-ideal"},
      {"evict-first-sectors", "KNOWN: evict-first-sectors load"},
      {"evict-first-sectors", "KNOWN: evict-first-sectors store"},
      {"shared-atomic-retries", "KNOWN: shared-atomic-retries"},
      {"wmma-global-lines", "KNOWN: wmma-global-lines"},
      {"wmma-global-lines", "KNOWN: wmma-global-lines b"},
      {"wmma-global-lines", "KNOWN: wmma-global-lines store"},
  };
  for (const auto& [known, marker] : cases) {
    const an::NoteReport* n = note(known, line_of(marker));
    ASSERT_NE(n, nullptr) << known << " on line " << line_of(marker);
    EXPECT_NE(n->message.find("known difference from Nsight Compute"), std::string::npos);
    EXPECT_NE(n->message.find("measured"), std::string::npos) << n->message;
  }
  // The ideal Nsight lists is the packed one: 16 lanes of 8 bytes, one wavefront each.
  const an::NoteReport* masked = note("masked-wide-ideal", line_of("KNOWN: masked-wide-ideal"));
  ASSERT_NE(masked, nullptr);
  EXPECT_NE(masked->message.find("3,396,745"), std::string::npos);
  // No other line has one.
  std::size_t notes = 0;
  for (const auto& k : report().kernels)
    for (const auto& n : k.notes) notes += n.known.empty() ? 0 : 1;
  EXPECT_EQ(notes, 7u);
}

TEST(KnownDifferences, EveryFormatPrintsThem) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  const an::CheckReport& r = report();
  const int line = line_of("KNOWN: shared-atomic-retries");
  const rp::TextOptions o{};
  const std::string text = rp::view(rp::Format::Text).check(r, nullptr, o);
  EXPECT_NE(text.find(fmt::format("differences.cu:{}:", line)), std::string::npos);
  EXPECT_NE(text.find("ATOMS.CAST.SPIN"), std::string::npos);
  const auto json = nlohmann::json::parse(rp::view(rp::Format::Json).check(r, nullptr, o));
  int in_json = 0;
  for (const auto& f : json["files"])
    for (const auto& k : f["kernels"])
      for (const auto& n : k["notes"])
        if (n.value("known_difference", "") == "shared-atomic-retries" && n["line"] == line)
          ++in_json;
  EXPECT_EQ(in_json, 1);
  an::FixReport fix;
  fix.check = r;
  const auto sarif = nlohmann::json::parse(rp::view(rp::Format::Sarif).check(r, &fix, o));
  int in_sarif = 0;
  for (const auto& res : sarif["runs"][0]["results"])
    if (res.contains("properties") &&
        res["properties"].value("knownDifference", "") == "shared-atomic-retries")
      ++in_sarif;
  EXPECT_EQ(in_sarif, 1);
  const std::string html = rp::view(rp::Format::Html).check(r, nullptr, o);
  EXPECT_NE(html.find("ATOMS.CAST.SPIN"), std::string::npos);
}

// The rule of masked-wide-ideal is the H100's: on examples/tuned/classic.cu's bitonic sort,
// line 57's 8-byte stores (STS.64) at the packed ideal plus its 4-byte stores at theirs are
// the ideal Nsight Compute lists for the line
// (bench/check/measured/h100_run_new/tuned/classic.lines.tsv).
TEST(KnownDifferences, TheMaskedIdealIsNsightsOnTheBitonicSort) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  drv::CheckOptions o;
  o.input = std::string(BANKCHECK_SOURCE_DIR) + "/examples/tuned/classic.cu";
  o.flags.kernel = "bitonic_sort";
  o.flags.blocks = "all";
  const an::CheckReport r = drv::check(o);
  ASSERT_EQ(r.kernels.size(), 1u);
  std::uint64_t wavefronts = 0, ideal = 0, nsight = 0;
  for (const an::SiteReport& s : r.kernels[0].sites)
    if (s.line == 57 && s.stats.space == bankcheck::ptx::Space::Shared) {
      wavefronts += s.stats.wavefronts;
      ideal += s.stats.ideal_wavefronts;
      nsight += s.stats.nsight_ideal_wavefronts;
    }
  EXPECT_EQ(wavefronts, 5619975u);  // the H100's, as before
  EXPECT_EQ(nsight, 3396745u);      // the H100's per-line ideal
  EXPECT_EQ(ideal, 3973581u);       // bankcheck's: one per phase with an active lane
}

// A cp.async.cg whose LDGSTS.E.BYPASS.128 ptxas guards by @P0: the plan marks its site, and
// the note says Nsight reads 0.
TEST(KnownDifferences, PredicatedBypassCopyIsNamed) {
  an::SiteStats s;
  s.requests = 12;
  const std::string n = an::known_difference_note(an::KnownDifference::PredicatedBypassCopy, s);
  EXPECT_NE(n.find("LDGSTS.E.BYPASS.128 predicated on P0"), std::string::npos);
  EXPECT_NE(n.find("12 requests"), std::string::npos);
  EXPECT_NE(n.find("bench/hardware/cpasync"), std::string::npos);
  EXPECT_STREQ(an::known_difference_id(an::KnownDifference::PredicatedBypassCopy),
               "predicated-bypass-copy");
}
