// The CUDA source reader: code keeps every column, comments and literals do not, object-like
// macros are read without their comments, and constants evaluate through explain's evaluator.
#include "bankcheck/explain/cuda_source.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ex = bankcheck::explain;

namespace {

TEST(CudaSource, CodeKeepsColumnsAndDropsCommentsAndLiterals) {
  const std::string text =
      "a = \"x // y\"; // c\n"
      "b = '\\''; /* one\n"
      "two */ c = 1'000;\n"
      "#define X \\\n"
      "  2\n"
      "d = R\"(/* )\";\n";
  const std::string code = ex::code_only(text);
  ASSERT_EQ(code.size(), text.size());
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') {
      EXPECT_EQ(code[i], '\n') << i;
    }
  EXPECT_EQ(ex::code_lines(text)[0], "a =         ;     ");
  EXPECT_EQ(ex::code_lines(text)[1], "b =     ;       ");
  EXPECT_EQ(ex::code_lines(text)[2], "       c = 1'000;");  // a digit separator is not a char
  EXPECT_EQ(ex::code_lines(text)[3], "           ");        // the directive and its
  EXPECT_EQ(ex::code_lines(text)[4], "   ");                // continuation
  EXPECT_EQ(ex::code_lines(text)[5], "d = R       ;");      // the prefix is an identifier
  EXPECT_EQ(ex::code_lines(text, ex::Directives::Keep)[3], "#define X \\");
}

TEST(CudaSource, ObjectLikeDefines) {
  const auto d = ex::object_defines(
      "#define TILE 32 // side\n"
      "# define PAD /* one */ 1\n"
      "#define SQ(x) ((x) * (x))\n"
      "#define LONG 1 + \\\n"
      "  2\n"
      "// #define TILE 64\n"
      "#define TILE 16\n");
  EXPECT_EQ(d.at("TILE"), "32");
  EXPECT_EQ(d.at("PAD"), "1");
  EXPECT_EQ(d.count("SQ"), 0u);
  EXPECT_EQ(d.at("LONG"), "1 +    2");
}

TEST(CudaSource, ConstantsThroughTheExplainEvaluator) {
  auto lookup = [](const std::string& name) -> std::optional<std::int64_t> {
    if (name == "TILE") return 32;
    return std::nullopt;
  };
  EXPECT_EQ(ex::eval_constant("TILE * 2 + 1", lookup), 65);
  EXPECT_EQ(ex::eval_constant("(TILE << 1) | 1", lookup), 65);
  EXPECT_EQ(ex::eval_constant("0x10u % 3", lookup), 1);
  EXPECT_FALSE(ex::eval_constant("TILE / 0", lookup));
  EXPECT_FALSE(ex::eval_constant("threadIdx.x + 1", lookup));  // not a constant
  EXPECT_FALSE(ex::eval_constant("blockDim.x", lookup));       // not a constant either
  EXPECT_FALSE(ex::eval_constant("TILE +", lookup));
}

TEST(CudaSource, TakenBranchesBlankTheOthersAndKeepLines) {
  const std::string text =
      "#if defined(A) && B > 2\n"  // 0
      "int a = 1;\n"
      "#  elif !defined C\n"
      "int a = 2;\n"
      "#define W(x, y) ((x) * (y))\n"
      "#else\n"
      "int a = 3;\n"
      "#endif\n"
      "#ifdef __CUDA_ARCH__\n"
      "#define V 1\n"
      "#endif\n"
      "#undef B\n";
  auto run = [&](ex::Macros m) {
    const std::string out = ex::taken_branches(text, m);
    EXPECT_EQ(out.size(), text.size());
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') {
        EXPECT_EQ(out[i], '\n') << i;
      }
    return std::make_pair(out, m);
  };
  auto has = [](const std::string& out, const char* line) {
    return out.find(line) != std::string::npos;
  };
  ex::Macros ab;
  ab.object = {{"A", ""}, {"B", "3"}};
  auto [first, after_first] = run(ab);
  EXPECT_TRUE(has(first, "int a = 1;"));
  EXPECT_FALSE(has(first, "int a = 2;"));
  EXPECT_FALSE(has(first, "int a = 3;"));
  EXPECT_FALSE(after_first.defined("W"));
  EXPECT_FALSE(after_first.defined("B"));  // #undef
  EXPECT_FALSE(after_first.defined("V"));  // the host pass: no __CUDA_ARCH__
  auto [second, after_second] = run({});
  EXPECT_TRUE(has(second, "int a = 2;"));
  EXPECT_FALSE(has(second, "int a = 1;"));
  ASSERT_TRUE(after_second.function.count("W"));
  EXPECT_EQ(after_second.function.at("W").params, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(after_second.function.at("W").body, "((x) * (y))");
  ex::Macros c;
  c.object = {{"C", "1"}};
  EXPECT_TRUE(has(run(c).first, "int a = 3;"));
}

TEST(CudaSource, PreprocessorConditionsAsCDoes) {
  ex::Macros m;
  m.object = {{"N", "4"}, {"M", "N * 2"}, {"EMPTY", ""}};
  EXPECT_EQ(ex::preprocessor_condition("M == 8 && defined(N)", m), 1);
  EXPECT_EQ(ex::preprocessor_condition("UNKNOWN + 1", m), 1);  // unknown names are 0
  EXPECT_EQ(ex::preprocessor_condition("defined EMPTY", m), 1);
  EXPECT_FALSE(ex::preprocessor_condition("F(1)", m));  // a call: not evaluated
  EXPECT_FALSE(ex::preprocessor_condition("defined(", m));
}

}  // namespace
