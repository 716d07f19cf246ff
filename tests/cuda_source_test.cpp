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

}  // namespace
