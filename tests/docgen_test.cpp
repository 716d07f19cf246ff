// The generated manual page and bash completion (tools/bankcheck/docgen.hpp) walk any CLI11
// App: a subcommand and options they were never told about appear in both, hidden ones do
// not, option values and files complete as the options say, and text is escaped for roff.
// The real command line's page and completion are checked after an install
// (tests/install_test.sh: every option of every subcommand's --help).
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "docgen.hpp"

namespace {

using bankcheck::tools::bash_completion;
using bankcheck::tools::generate_docs;
using bankcheck::tools::man_page;

// An App shaped like bankcheck's, with a subcommand the generators have no table for.
struct TestApp {
  CLI::App app{"bankcheck: test", "bankcheck"};
  std::vector<std::string> files;
  std::string baseline, mode = "new", kernel, arch = "sm_90", build_dir, secret;
  bool quiet = false;
  int top = 4;
  TestApp() {
    app.set_version_flag("--version", "bankcheck 0");
    CLI::App* d = app.add_subcommand("diff", "Compare two reports.\n\n  bankcheck diff a.json b.json\n"
                                             ".a line that starts with a dot, and a \\ backslash");
    d->add_option("reports", files, "FILE.json FILE.json: the old report and the new")->required();
    d->add_option("--baseline", baseline, "a report file to compare against");
    d->add_option("--mode", mode, "what to list")
        ->check(CLI::IsMember({"new", "worse", "all"}))
        ->capture_default_str();
    d->add_option("--kernel", kernel, "the kernel's name");
    d->add_option("--arch", arch, "architecture")->capture_default_str();
    d->add_option("-p", build_dir, "BUILD_DIR: the build's directory");
    d->add_option("--top", top, "how many")->check(CLI::Range(1, 16));
    d->add_flag("-q,--quiet", quiet, "print nothing but errors");
    d->add_option("--secret", secret, "not shown")->group("");
    d->footer("Exit codes:\n  0  same\n  1  worse");
    app.add_subcommand("hidden", "a subcommand --help does not list")->group("");
  }
};

// What the completion offers for `words` (the last one being completed), run in `dir`, sorted
// (C order), each word followed by a space.
std::string complete(const std::string& script, const std::string& words,
                     const std::filesystem::path& dir) {
  const auto file = std::filesystem::temp_directory_path() / "docgen_test_completion.bash";
  std::ofstream(file) << script;
  const std::string cmd = "cd '" + dir.string() + "' && bash -c 'source \"$0\"; COMP_WORDS=(" +
                          words + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _bankcheck; " +
                          "((${#COMPREPLY[@]})) && printf \"%s\\n\" \"${COMPREPLY[@]}\" | " +
                          "LC_ALL=C sort | tr \"\\n\" \" \"' " + file.string();
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    std::array<char, 256> buf{};
    while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
    pclose(p);
  }
  return out;
}

TEST(Docgen, ManPageDocumentsEverySubcommandAndOption) {
  TestApp t;
  const std::string man = man_page(t.app);
  EXPECT_NE(man.find(".TH BANKCHECK 1"), std::string::npos);
  for (const char* s : {".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH COMMANDS",
                        ".SH EXIT STATUS", ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES",
                        ".SH SEE ALSO", ".SS diff", ".B bankcheck diff"})
    EXPECT_NE(man.find(s), std::string::npos) << s;
  // Each option with its names, its value and its help; the set's values; the default.
  for (const char* s : {"\\fB\\-\\-baseline\\fR \\fITEXT\\fR\na report file to compare against",
                        "\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR\nprint nothing but errors",
                        "\\fB\\-\\-mode\\fR \\fInew\\fR|\\fIworse\\fR|\\fIall\\fR",
                        "(default: new)", "\\fB\\-p\\fR \\fITEXT\\fR", "\\fB\\-\\-top\\fR \\fIINT\\fR",
                        "\\fIREPORTS\\fR .\\|.\\|.", "\\fB\\-\\-version\\fR"})
    EXPECT_NE(man.find(s), std::string::npos) << s;
  // The description's example shown as typed, the footer kept, text escaped for roff.
  EXPECT_NE(man.find(".RS\n.nf\nbankcheck diff a.json b.json\n.fi\n.RE\n"), std::string::npos);
  EXPECT_NE(man.find("\\&.a line that starts with a dot, and a \\e backslash"), std::string::npos);
  EXPECT_NE(man.find("Exit codes:"), std::string::npos);
  EXPECT_EQ(man.find("secret"), std::string::npos);
  EXPECT_EQ(man.find("hidden"), std::string::npos);
  // The installed paths, not the source tree's.
  EXPECT_EQ(man.find("docs/"), std::string::npos);
  EXPECT_NE(man.find(BANKCHECK_TEST_DOCDIR), std::string::npos);
}

TEST(Docgen, CompletionOffersEveryOptionAndValue) {
  TestApp t;
  const std::string script = bash_completion(t.app);
  const auto dir = std::filesystem::temp_directory_path() / "docgen_test_dir";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "builddir");
  std::ofstream(dir / "old.json") << "{}";
  std::ofstream(dir / "old.txt") << "";
  EXPECT_EQ(complete(script, "bankcheck \"\"", dir), "diff ");
  EXPECT_EQ(complete(script, "bankcheck --", dir), "--help --version ");
  EXPECT_EQ(complete(script, "bankcheck diff -", dir),
            "--arch --baseline --help --kernel --mode --quiet --top -h -p -q ");
  EXPECT_EQ(complete(script, "bankcheck diff --mode w", dir), "worse ");
  EXPECT_EQ(complete(script, "bankcheck diff --arch sm_2", dir), "sm_20 sm_21 ");
  EXPECT_EQ(complete(script, "bankcheck diff --baseline old", dir), "old.json old.txt ");
  EXPECT_EQ(complete(script, "bankcheck diff -p \"\"", dir), "builddir ");
  EXPECT_EQ(complete(script, "bankcheck diff --kernel o", dir), "");
  // The positional: its FILE.json names the extension; an option's value is not it.
  EXPECT_EQ(complete(script, "bankcheck diff old", dir), "old.json ");
  EXPECT_EQ(complete(script, "bankcheck diff --kernel k old", dir), "old.json ");
  EXPECT_EQ(complete(script, "bankcheck diff --top 3 -q --q", dir), "--quiet ");
  std::filesystem::remove_all(dir);
}

TEST(Docgen, HiddenFlagsPrintOrRefuse) {
  TestApp t;
  std::array<char*, 3> completion_zsh{const_cast<char*>("bankcheck"),
                                      const_cast<char*>("--generate-completion"),
                                      const_cast<char*>("zsh")};
  testing::internal::CaptureStderr();
  EXPECT_EQ(generate_docs(t.app, 3, completion_zsh.data()), 2);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("expected 'bash'"), std::string::npos);
  std::array<char*, 2> check{const_cast<char*>("bankcheck"), const_cast<char*>("diff")};
  EXPECT_FALSE(generate_docs(t.app, 2, check.data()).has_value());
  std::array<char*, 2> man{const_cast<char*>("bankcheck"), const_cast<char*>("--generate-man")};
  testing::internal::CaptureStdout();
  EXPECT_EQ(generate_docs(t.app, 2, man.data()), 0);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), man_page(t.app));
}

}  // namespace
