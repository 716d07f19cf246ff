// --nvtx-include and --nvtx-exclude: the expressions as Nsight Compute writes them, the
// per-thread push/pop stacks and per-process start/end ranges, and the match between them.
#include "bankcheck/runtime/nvtx_ranges.hpp"

#include <gtest/gtest.h>

#include <thread>

using namespace bankcheck::runtime;

namespace {

bool on(const std::string& expr, const std::vector<std::string>& stack) {
  return nvtx_stack_matches(parse_nvtx_filter(expr), stack);
}

std::string error_of(const std::string& expr) {
  try {
    parse_nvtx_filter(expr);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(NvtxFilter, ParsesPushPopAndStartEnd) {
  const NvtxFilter a = parse_nvtx_filter("step/");
  EXPECT_TRUE(a.push_pop);
  ASSERT_EQ(a.names.size(), 1u);
  EXPECT_EQ(a.names[0].text, "step");
  EXPECT_EQ(a.domain.text, "");
  const NvtxFilter b = parse_nvtx_filter("train@[epoch/*/step]");
  EXPECT_TRUE(b.push_pop && b.bottom && b.top);
  EXPECT_EQ(b.domain.text, "train");
  ASSERT_EQ(b.names.size(), 3u);
  EXPECT_EQ(b.names[1].kind, NvtxName::Kind::AnyMany);
  const NvtxFilter c = parse_nvtx_filter("load,compute");
  EXPECT_FALSE(c.push_pop);
  ASSERT_EQ(c.names.size(), 2u);
  EXPECT_EQ(c.names[1].text, "compute");
  // Escapes name ranges with the delimiters in them.
  const NvtxFilter d = parse_nvtx_filter("a\\/b\\@c/");
  ASSERT_EQ(d.names.size(), 1u);
  EXPECT_EQ(d.names[0].text, "a/b@c");
  EXPECT_FALSE(parse_nvtx_filter("a\\/b").push_pop);  // an escaped '/' is no delimiter
}

TEST(NvtxFilter, RefusesWhatItCannotMean) {
  EXPECT_NE(error_of("").find("no range named"), std::string::npos);
  EXPECT_NE(error_of("a//b").find("column 3: an empty range name"), std::string::npos);
  EXPECT_NE(error_of("a/[b").find("'[' may only begin"), std::string::npos);
  EXPECT_NE(error_of("a@b@c").find("a second '@'"), std::string::npos);
  EXPECT_NE(error_of("@a/").find("an empty domain name"), std::string::npos);
  EXPECT_NE(error_of("a*").find("'*' stands for ranges of a push/pop stack"), std::string::npos);
  EXPECT_NE(error_of("regex:a(/").find("is not a regular expression"), std::string::npos);
  EXPECT_NE(error_of("a\\").find("must be followed"), std::string::npos);
}

// Every push/pop form against stacks where it must and must not match.
TEST(NvtxFilter, PushPopStacks) {
  EXPECT_TRUE(on("A/", {"A"}));
  EXPECT_TRUE(on("A/", {"X", "A", "Y"}));  // anywhere in the stack
  EXPECT_FALSE(on("A/", {"X", "Y"}));
  EXPECT_FALSE(on("A/", {}));
  EXPECT_TRUE(on("A/B", {"A", "B", "C"}));
  EXPECT_FALSE(on("A/B", {"A", "X", "B"}));  // B directly inside A
  EXPECT_TRUE(on("A/*/B", {"A", "X", "Y", "B"}));
  EXPECT_TRUE(on("A/*/B", {"A", "B"}));
  EXPECT_TRUE(on("A/+/B", {"A", "X", "B"}));
  EXPECT_FALSE(on("A/+/B", {"A", "B"}));
  EXPECT_FALSE(on("A/+/B", {"A", "X", "Y", "B"}));
  EXPECT_TRUE(on("[A/", {"A", "B"}));
  EXPECT_FALSE(on("[B/", {"A", "B"}));
  EXPECT_TRUE(on("B]", {"A", "B"}));
  EXPECT_FALSE(on("A]", {"A", "B"}));
  EXPECT_TRUE(on("[A/B]", {"A", "B"}));
  EXPECT_FALSE(on("[A/B]", {"A", "B", "C"}));
  EXPECT_TRUE(on("[*/C]", {"A", "B", "C"}));
  EXPECT_TRUE(on("regex:^st/", {"step_3"}));
  EXPECT_FALSE(on("regex:^st/", {"first"}));
  EXPECT_TRUE(on("regex:ep/", {"step_3"}));  // a regular expression matches anywhere
}

// A property: "[" + the whole stack + "]" matches exactly that stack, and a stack's every
// contiguous window matches as an unanchored pattern.
TEST(NvtxFilter, WindowsOfAStack) {
  const std::vector<std::string> stack = {"a", "b", "c", "d"};
  for (std::size_t i = 0; i < stack.size(); ++i)
    for (std::size_t j = i + 1; j <= stack.size(); ++j) {
      std::string expr;
      for (std::size_t k = i; k < j; ++k) expr.append(stack[k]).append("/");
      EXPECT_TRUE(on(expr, stack)) << expr;
      const std::string bracketed = std::string("[").append(expr, 0, expr.size() - 1).append("]");
      EXPECT_EQ(on(bracketed, stack), i == 0 && j == stack.size()) << expr;
    }
}

TEST(NvtxRanges, PushPopPerThreadAndDomain) {
  NvtxRanges r;
  const auto include = std::vector<NvtxFilter>{parse_nvtx_filter("step/")};
  EXPECT_FALSE(r.included(include, {}));
  EXPECT_TRUE(r.included({}, {}));  // no filter: every launch
  r.push("", "step");
  EXPECT_TRUE(r.included(include, {}));
  // Another thread has a stack of its own.
  bool other = true;
  std::thread([&] { other = r.included(include, {}); }).join();
  EXPECT_FALSE(other);
  // Another domain's range of the same name is not the default domain's.
  r.pop("");
  r.push("torch", "step");
  EXPECT_FALSE(r.included(include, {}));
  EXPECT_TRUE(r.included({parse_nvtx_filter("torch@step/")}, {}));
  EXPECT_TRUE(r.included({parse_nvtx_filter("regex:^to@step/")}, {}));
  r.pop("torch");
  r.pop("torch");  // one too many: ignored
  EXPECT_TRUE(r.stack("torch").empty());
  r.push("", "outer");
  r.push("", "inner");
  EXPECT_EQ(r.stack(""), (std::vector<std::string>{"outer", "inner"}));
  // Excluded wins over included.
  EXPECT_FALSE(r.included({parse_nvtx_filter("outer/")}, {parse_nvtx_filter("inner]")}));
  EXPECT_TRUE(r.included({parse_nvtx_filter("outer/")}, {parse_nvtx_filter("inner/x")}));
}

TEST(NvtxRanges, StartEndAcrossThreads) {
  NvtxRanges r;
  const auto both = std::vector<NvtxFilter>{parse_nvtx_filter("load,compute")};
  std::thread([&] { r.start(7, "", "load"); }).join();
  EXPECT_FALSE(r.included(both, {}));
  r.start(8, "", "compute");
  EXPECT_TRUE(r.included(both, {}));  // started on another thread, open for every thread
  bool other = false;
  std::thread([&] { other = r.included(both, {}); }).join();
  EXPECT_TRUE(other);
  std::thread([&] { r.end(7); }).join();
  EXPECT_FALSE(r.included(both, {}));
  r.end(99);  // not open: ignored
  EXPECT_TRUE(r.included({parse_nvtx_filter("compute")}, {}));
}
