// The command line: bad input gets a message that says what and where, exit 2, never a
// crash; JSON carries the contract's fields.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using bankcheck::testing::run_tool;

std::string addrs(int n, int stride = 4) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i) s += ',';
    s += std::to_string(i * stride);
  }
  return s;
}

void expect_error(const std::vector<std::string>& args, const std::string& needle) {
  const auto r = run_tool(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("bankcheck: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "wanted '" << needle << "' in:\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Cli, RawAddressErrorsNameTheColumn) {
  expect_error({"explain", "--addrs", addrs(31)}, "--addrs:1:");
  expect_error({"explain", "--addrs", addrs(31)}, "expected 32 lane addresses, got 31");
  expect_error({"explain", "--addrs", addrs(33)}, "more than 32 lane addresses");
  expect_error({"explain", "--addrs", "0,4,x8" + addrs(30).substr(1)},
               "--addrs:1:5: lane 2: 'x8' is not a byte address");
  expect_error({"explain", "--addrs", "0,6" + std::string(",8").append(addrs(30).substr(1))},
               "lane 1: address 6 is not a multiple of the access width (4 bytes)");
  expect_error({"explain", "--addrs", ",4" + addrs(31).substr(1)}, "missing address for lane 0");
  expect_error({"explain", "--addrs", "99999999999" + addrs(32).substr(1)}, "not a byte address");
}

TEST(Cli, CaretUnderTheOffendingCharacter) {
  const auto r =
      run_tool({"explain", "--decl", "float tile[32][32]", "--expr", "tile[threadIdx.w][0]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--expr:1:6: unknown identifier 'threadIdx.w'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  tile[threadIdx.w][0]\n       ^"), std::string::npos) << r.err;
}

TEST(Cli, BadInputOfEveryKind) {
  expect_error({"explain", "--arch", "sm_91", "--addrs", addrs(32)},
               "--arch: unknown architecture 'sm_91'");
  expect_error({"explain", "--width", "3", "--addrs", addrs(32)},
               "--width: 3 is not an access width");
  expect_error({"explain", "--op", "xor", "--addrs", addrs(32)},
               "--op:1:1: unknown operation 'xor'");
  expect_error({"explain", "--op", "atom", "--width", "8", "--addrs", addrs(32, 8)},
               "no bank rule");
  expect_error({"explain", "--op", "atom", "--arch", "sm_35", "--addrs", addrs(32)},
               "no bank rule");
  expect_error({"explain", "--decl", "flaot tile[32]", "--expr", "tile[tid]"},
               "--decl:1:1: unknown type 'flaot'");
  expect_error({"explain", "--decl", "float tile[32]", "--expr", "tile[tid]", "--block", "64"},
               "out of range [0, 32)");
  expect_error({"explain", "--type", "int", "--expr", "tid / (tid - tid)"}, "division by zero");
  expect_error({"explain", "--type", "int", "--expr", "tid", "--block", "2048"}, "--block");
  expect_error({"explain", "--type", "int", "--expr", "tid", "--set", "x"}, "--set");
  expect_error({"explain", "--type", "int"}, "give --addrs, or --type or --decl with --expr");
  expect_error({"explain", "--type", "float3", "--expr", "tid", "--width", "4"},
               "--width 4 does not match");
  expect_error({"explain", "--addrs", addrs(32), "--format", "xml"}, "--format");
  expect_error({"explain", "--addrs", addrs(32), "--bogus"}, "bogus");
  expect_error({}, "subcommand");
  expect_error({"explain", "--addrs", addrs(32), "-o", "/nonexistent/dir/out.json"},
               "-o: cannot write");
}

TEST(Cli, HelpAndVersionExitZero) {
  EXPECT_EQ(run_tool({"--help"}).exit_code, 0);
  EXPECT_EQ(run_tool({"explain", "--help"}).exit_code, 0);
  const auto v = run_tool({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("bankcheck"), std::string::npos);
}

TEST(Cli, JsonHasTheContractFields) {
  const auto r = run_tool({"explain", "--addrs", addrs(32, 128), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["wavefronts"], 32);
  EXPECT_EQ(j["ideal_wavefronts"], 1);
  EXPECT_EQ(j["excess"], 31);
  EXPECT_EQ(j["ways"], 32);
  EXPECT_EQ(j["total_excess"], 31);
  ASSERT_EQ(j["warps"].size(), 1u);
  EXPECT_EQ(j["warps"][0]["requests"][0]["schedule"].size(), 32u);
}

TEST(Cli, InactiveLanesAndOutputFile) {
  std::string a = addrs(32, 128);
  a[0] = '-';  // lane 0 inactive (its address was "0")
  const std::string path = "/tmp/bankcheck_cli_test_out.json";
  const auto r = run_tool({"explain", "--addrs", a, "--format", "json", "-o", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  const auto j = nlohmann::json::parse(bankcheck::testing::slurp(path));
  EXPECT_EQ(j["wavefronts"], 31);
  EXPECT_TRUE(j["warps"][0]["requests"][0]["addresses"][0].is_null());
}

TEST(Cli, TextShowsVerdictWhyAndPicture) {
  const auto r = run_tool({"explain", "--addrs", addrs(32, 128)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("32 wavefronts for an ideal of 1: 32-way bank conflict, 31 excess"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("why: lanes 0, 1, 2, ..., 31 (32 in all) read 32 different words of bank 0"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  wf  31  31!"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// A file mixing kernels the emulator runs with kernels it refuses
// (tests/data/emu/mixed_support.cu).
std::string mixed_file() {
  return std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/emu/mixed_support.cu";
}

}  // namespace

// The kernels the launch comments select run; the refused ones are named in the report
// and on stderr, and do not fail the run since nobody asked for them.
TEST(Cli, RefusedKernelsAreNamedNotFatal) {
  const auto r = run_tool({"check", mixed_file(), "--format", "json"});
  if (r.err.find("nvcc") != std::string::npos && r.exit_code != 0) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out)["files"][0];
  ASSERT_EQ(j["kernels"].size(), 2u);
  ASSERT_EQ(j["unsupported_kernels"].size(), 2u);
  EXPECT_EQ(j["unsupported_kernels"][0]["name"], "counted_reduction");
  EXPECT_EQ(j["unsupported_kernels"][1]["name"], "recursive_fib");
  EXPECT_EQ(j["unsupported_kernels"][0]["selected"], false);
  EXPECT_GT(j["unsupported_kernels"][0]["line"].get<int>(), 0);
  EXPECT_GT(j["unsupported_kernels"][0]["ptx_line"].get<int>(), 0);
  EXPECT_NE(r.err.find("kernel counted_reduction not analysed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernel recursive_fib not analysed"), std::string::npos) << r.err;
  const auto text = run_tool({"check", mixed_file()});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("kernel counted_reduction not analysed"), std::string::npos) << text.out;
}

// Asking for a refused kernel fails with its reason and source line.
TEST(Cli, AskingForARefusedKernelFails) {
  const auto r = run_tool(
      {"check", mixed_file(), "--kernel", "counted_reduction", "--grid", "1", "--block", "64"});
  if (r.err.find("nvcc") != std::string::npos && r.exit_code != 0 &&
      r.err.find("counted_reduction") == std::string::npos)
    GTEST_SKIP() << r.err;
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("mixed_support.cu:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernel counted_reduction is not analysed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bar.red.popc.u32"), std::string::npos) << r.err;
}

// Every document a help text names exists: run from the build tree, the source tree's docs/
// (nothing is installed there); installed, the install's (install_test.sh).
TEST(Cli, HelpTextsNameDocumentsThatExist) {
  int named = 0;
  for (const char* sub : {"check", "fix", "run", "diff", "occupancy"}) {
    const auto r = run_tool({sub, "--help"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Each "/...*.md" path in the text, where a line break may not split it.
    for (std::size_t at = r.out.find(".md"); at != std::string::npos;
         at = r.out.find(".md", at + 3)) {
      std::size_t begin = at;
      while (begin > 0 && r.out[begin - 1] != ' ' && r.out[begin - 1] != '(') --begin;
      const std::string path = r.out.substr(begin, at + 3 - begin);
      if (path.front() != '/') continue;
      ++named;
      EXPECT_TRUE(std::ifstream(path).good()) << sub << " --help names " << path;
    }
  }
  EXPECT_GE(named, 5);
}

// run: a program is required; an option of bankcheck's before it is still checked.
TEST(Cli, RunWithoutAProgram) {
  expect_error({"run", "--format", "json"}, "run: no program given");
  expect_error({"run", "--bogus", "./app", "-h"}, "--bogus");
}

// fix: nothing to fix is said with both ways in.
TEST(Cli, FixWithoutInput) {
  expect_error({"fix", "--top", "2"}, "fix: no input: give FILE.cu");
  expect_error({"fix", "--grid", "4", "--", "/bin/true"}, "--grid sets a launch for a file");
}
