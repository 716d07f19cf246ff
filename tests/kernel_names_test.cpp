// The kernel-name parser (driver/kernel_names.hpp): worked cases, and properties over every
// kernel entry of the repository's PTX files (tests/data, bench): the parts of each demangled
// signature put back together are the signature, parsing a base name again gives the same
// parts, and every form a user may type names the kernel.
#include "bankcheck/driver/kernel_names.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace bc = bankcheck::driver;
namespace fs = std::filesystem;

namespace {

using Strings = std::vector<std::string>;

std::string joined(const Strings& parts, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

// The mangled names of every .entry in the PTX files under tests/ and bench/.
const std::set<std::string>& entries() {
  static const std::set<std::string> names = [] {
    std::set<std::string> out;
    const std::regex entry(R"(\.entry\s+([A-Za-z_$][A-Za-z0-9_$]*))");
    for (const char* dir : {"tests", "bench"})
      for (const auto& e : fs::recursive_directory_iterator(fs::path(BANKCHECK_SOURCE_DIR) / dir)) {
        if (!e.is_regular_file() || e.path().extension() != ".ptx") continue;
        std::ifstream f(e.path());
        for (std::string line; std::getline(f, line);) {
          std::smatch m;
          if (std::regex_search(line, m, entry)) out.insert(m[1]);
        }
      }
    return out;
  }();
  return names;
}

TEST(KernelName, Parts) {
  bc::KernelName k = bc::parse_kernel_name("void ns::k<int, 4>(float*, int)");
  EXPECT_EQ(k.name, "ns::k<int, 4>");
  EXPECT_EQ(k.qualified, "ns::k");
  EXPECT_EQ(k.base, "k");
  EXPECT_EQ(k.template_list, "<int, 4>");
  EXPECT_EQ(k.template_args, (Strings{"int", "4"}));
  EXPECT_TRUE(k.has_params);
  EXPECT_EQ(k.params, (Strings{"float*", "int"}));
  EXPECT_EQ(k.unqualified(), "k<int, 4>");

  k = bc::parse_kernel_name("(anonymous namespace)::anon(int*)");
  EXPECT_EQ(k.name, "(anonymous namespace)::anon");
  EXPECT_EQ(k.base, "anon");
  EXPECT_EQ(k.params, (Strings{"int*"}));

  k = bc::parse_kernel_name(
      "void k<(nvcuda::wmma::layout_t)1, 16>(float*, Vec<float, 4>, void (*)(int, float))");
  EXPECT_EQ(k.name, "k<(nvcuda::wmma::layout_t)1, 16>");
  EXPECT_EQ(k.template_args, (Strings{"(nvcuda::wmma::layout_t)1", "16"}));
  EXPECT_EQ(k.params, (Strings{"float*", "Vec<float, 4>", "void (*)(int, float)"}));

  k = bc::parse_kernel_name("void fp<&(f(int))>(int*)");
  EXPECT_EQ(k.name, "fp<&(f(int))>");
  EXPECT_EQ(k.template_args, (Strings{"&(f(int))"}));

  k = bc::parse_kernel_name("  ns::k<A<B<int>>, (N > 4)>  ");  // a name, not a signature
  EXPECT_FALSE(k.has_params);
  EXPECT_EQ(k.name, "ns::k<A<B<int>>, (N > 4)>");
  EXPECT_EQ(k.qualified, "ns::k");
  EXPECT_EQ(k.template_args, (Strings{"A<B<int>>", "(N > 4)"}));

  k = bc::parse_kernel_name("k(void)");
  EXPECT_TRUE(k.has_params);
  EXPECT_TRUE(k.params.empty());
  EXPECT_EQ(k.name, "k");
  EXPECT_TRUE(k.template_list.empty());

  k = bc::parse_kernel_name("plain_c");
  EXPECT_EQ(k.name, "plain_c");
  EXPECT_EQ(k.base, "plain_c");
  EXPECT_FALSE(k.has_params);
}

TEST(KernelName, TemplateArgumentValues) {
  EXPECT_EQ(bc::template_argument_value("32"), 32);
  EXPECT_EQ(bc::template_argument_value("64u"), 64);
  EXPECT_EQ(bc::template_argument_value("8ul"), 8);
  EXPECT_EQ(bc::template_argument_value("-1"), -1);
  EXPECT_EQ(bc::template_argument_value("(unsigned char)3"), 3);
  EXPECT_EQ(bc::template_argument_value("(int)-7"), -7);
  EXPECT_EQ(bc::template_argument_value("true"), 1);
  EXPECT_EQ(bc::template_argument_value("false"), 0);
  EXPECT_EQ(bc::template_argument_value("0x10"), 16);
  EXPECT_FALSE(bc::template_argument_value("float"));
  EXPECT_FALSE(bc::template_argument_value("N"));
  EXPECT_FALSE(bc::template_argument_value("1.5"));
  EXPECT_FALSE(bc::template_argument_value("(nvcuda::wmma::layout_t)"));
}

TEST(KernelName, CorpusIsThere) { EXPECT_GE(entries().size(), 50u); }

// For every kernel of the corpus: the signature is the base name and the parameter list (the
// demangler writes ", " between parameters); the base name is the qualified name and the
// template list; the qualified name ends with the base after a `::`.
TEST(KernelName, PartsMakeTheSignature) {
  for (const std::string& mangled : entries()) {
    const std::string sig = bc::demangle(mangled);
    const bc::KernelName k = bc::parse_kernel_name(sig);
    SCOPED_TRACE(sig);
    EXPECT_FALSE(k.base.empty());
    EXPECT_EQ(k.name, bc::base_name(sig));
    EXPECT_EQ(k.name, k.qualified + k.template_list);
    EXPECT_TRUE(k.qualified == k.base || k.qualified.ends_with("::" + k.base));
    if (k.has_params) {
      EXPECT_TRUE(sig.ends_with(k.name + "(" + joined(k.params, ", ") + ")"));
    } else {
      EXPECT_EQ(sig, k.name);  // extern "C": no signature
    }
    if (!k.template_list.empty()) {  // the arguments are the list's, blanks aside
      std::string args = joined(k.template_args, ",");
      std::string list = k.template_list.substr(1, k.template_list.size() - 2);
      std::erase(args, ' ');
      std::erase(list, ' ');
      EXPECT_EQ(args, list);
    }
  }
}

// Parsing a base name again gives the same parts, and each form of the name names the kernel.
TEST(KernelName, BaseNamesParseToTheSameParts) {
  for (const std::string& mangled : entries()) {
    const bc::KernelName k = bc::parse_kernel_name(bc::demangle(mangled));
    const bc::KernelName again = bc::parse_kernel_name(k.name);
    SCOPED_TRACE(k.name);
    EXPECT_FALSE(again.has_params);
    EXPECT_EQ(again.name, k.name);
    EXPECT_EQ(again.qualified, k.qualified);
    EXPECT_EQ(again.base, k.base);
    EXPECT_EQ(again.template_args, k.template_args);
    for (const std::string& form : {mangled, k.name, k.qualified, k.unqualified(), k.base})
      EXPECT_TRUE(bc::kernel_matches(mangled, form)) << form;
    EXPECT_FALSE(bc::kernel_matches(mangled, k.base + "_not"));
  }
}

}  // namespace
