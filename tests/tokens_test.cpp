// The token layer of CUDA source (explain/tokens.hpp) and its evaluator (explain/evaluate.hpp):
// properties over every CUDA source of the repository's corpora (the examples, the tests' data,
// the benchmarks' kernels), and the evaluator against explain's own expression parser on
// random constant expressions.
#include "bankcheck/explain/tokens.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../src/explain/parser.hpp"  // the reference: explain's per-lane parser (private)
#include "bankcheck/explain/cuda_source.hpp"
#include "bankcheck/explain/evaluate.hpp"
#include "bankcheck/explain/expr.hpp"

namespace ex = bankcheck::explain;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Every .cu and .cuh under examples/, tests/ and bench/: the code of each (code_only).
const std::vector<std::pair<std::string, std::string>>& corpus() {
  static const auto files = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const char* dir : {"examples", "tests", "bench"})
      for (const auto& e : fs::recursive_directory_iterator(fs::path(BANKCHECK_SOURCE_DIR) / dir)) {
        const std::string ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".cu" || ext == ".cuh"))
          out.emplace_back(e.path().string(), ex::code_only(read(e.path())));
      }
    std::sort(out.begin(), out.end());
    return out;
  }();
  return files;
}

TEST(Tokens, CorpusIsThere) { EXPECT_GE(corpus().size(), 40u); }

// For every source: the tokens, put back at their offsets, are the code; only blanks are
// between them.
TEST(Tokens, TokensRejoinedAreTheCode) {
  for (const auto& [path, code] : corpus()) {
    const ex::Tokens t = ex::tokenize(code);
    std::string back(code.size(), ' ');
    for (std::size_t i = 0; i < code.size(); ++i)
      if (ex::is_blank(code[i])) back[i] = code[i];
    std::size_t last_end = 0;
    for (const ex::Token& k : t) {
      ASSERT_FALSE(k.text.empty()) << path;
      ASSERT_GE(k.pos, last_end) << path << ": tokens overlap at " << k.pos;
      back.replace(k.pos, k.text.size(), k.text);
      last_end = k.end();
    }
    EXPECT_EQ(back, code) << path;
  }
}

// Identifiers and numbers are maximal: no identifier character on either side of one.
TEST(Tokens, IdentifiersAndNumbersAreMaximal) {
  for (const auto& [path, code] : corpus())
    for (const ex::Token& k : ex::tokenize(code)) {
      if (!k.ident() && !k.number()) continue;
      if (k.pos > 0) {
        EXPECT_FALSE(ex::is_ident_char(code[k.pos - 1])) << path << ":" << k.pos;
      }
      if (k.end() < code.size()) {
        EXPECT_FALSE(ex::is_ident_char(code[k.end()])) << path;
      }
      if (k.ident()) {
        EXPECT_TRUE(ex::is_ident_start(k.text[0])) << path;
      }
    }
}

// Bracket matching is an involution, and in these (well-formed) sources every bracket has a
// partner of its own kind.
TEST(Tokens, BracketMatchingIsAnInvolution) {
  const std::map<std::string, std::string> pair = {{"(", ")"}, {"[", "]"}, {"{", "}"}};
  for (const auto& [path, code] : corpus()) {
    const ex::Tokens t = ex::tokenize(code);
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (ex::is_open(t[i])) {
        const std::size_t j = ex::match_forward(t, i);
        ASSERT_LT(j, t.size()) << path << ": '" << t[i].text << "' at " << t[i].pos;
        EXPECT_EQ(t[j].text, pair.at(t[i].text)) << path << ": at " << t[i].pos;
        EXPECT_EQ(ex::match_backward(t, j), i) << path;
        EXPECT_EQ(ex::past_group(t, i), j + 1);
      }
      if (ex::is_close(t[i])) {
        const std::size_t j = ex::match_backward(t, i);
        ASSERT_LT(j, t.size()) << path << ": '" << t[i].text << "' at " << t[i].pos;
        EXPECT_EQ(ex::match_forward(t, j), i) << path;
      }
    }
  }
}

// A template argument list found forwards is found again backwards from its end.
TEST(Tokens, AngleMatchingBothWays) {
  for (const auto& [path, code] : corpus()) {
    const ex::Tokens t = ex::tokenize(code);
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (!t[i].is("<")) continue;
      const std::size_t j = ex::angle_forward(t, i);
      if (j >= t.size() || !t[j].is(">")) continue;  // a comparison, or a >> closing two
      EXPECT_EQ(ex::angle_backward(t, j), i) << path << ": at " << t[i].pos;
    }
  }
}

// Splitting at commas and joining again is the identity: the parts and the commas between
// them are the tokens of the list, in order, and join() of both is the same text.
TEST(Tokens, CommaSplitThenJoinIsIdentity) {
  for (const auto& [path, code] : corpus()) {
    const ex::Tokens t = ex::tokenize(code);
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (!t[i].is("(") && !t[i].is("<")) continue;
      const std::size_t close = t[i].is("(") ? ex::match_forward(t, i) : ex::angle_forward(t, i);
      if (close >= t.size()) continue;
      for (bool angles : {false, true}) {
        const auto parts = ex::split_commas(t, i + 1, close, angles);
        ex::Tokens rebuilt;
        for (std::size_t p = 0; p < parts.size(); ++p) {
          if (p > 0) {
            ASSERT_EQ(parts[p].first, parts[p - 1].second + 1) << path;
            EXPECT_TRUE(t[parts[p - 1].second].is(",")) << path;
            rebuilt.push_back(t[parts[p - 1].second]);
          }
          for (std::size_t k = parts[p].first; k < parts[p].second; ++k) rebuilt.push_back(t[k]);
        }
        ASSERT_EQ(rebuilt.size(), close - i - 1) << path << ": at " << t[i].pos;
        for (std::size_t k = 0; k < rebuilt.size(); ++k)
          EXPECT_EQ(rebuilt[k].pos, t[i + 1 + k].pos) << path;
        EXPECT_EQ(ex::join(rebuilt, 0, rebuilt.size()), ex::join(t, i + 1, close));
        if (!parts.empty()) {
          EXPECT_EQ(parts.front().first, i + 1);
          EXPECT_EQ(parts.back().second, close);
        }
      }
    }
  }
}

TEST(Tokens, Examples) {
  auto texts = [](std::string_view code) {
    std::vector<std::string> out;
    for (const auto& k : ex::tokenize(code)) out.push_back(k.text);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(texts("k<<<n / 2, 64>>>(p)"),
            (V{"k", "<<<", "n", "/", "2", ",", "64", ">>>", "(", "p", ")"}));
  EXPECT_EQ(texts("a->b::c ... x+=1e-3f"),
            (V{"a", "->", "b", "::", "c", "...", "x", "+=", "1e-3f"}));
  EXPECT_EQ(texts("0x1e+2 0x1p+3 1'000 .5 $x_1"),
            (V{"0x1e", "+", "2", "0x1p+3", "1'000", ".5", "$x_1"}));
  EXPECT_EQ(texts("A<B<int>> c @"), (V{"A", "<", "B", "<", "int", ">>", "c", "@"}));
  const ex::Tokens t = ex::tokenize("f(a, g(b, c), x<1, 2>::y, n = a < b, m)");
  const auto flat = ex::split_commas(t, 2, t.size() - 1, false);
  EXPECT_EQ(flat.size(), 6u);
  const auto templ = ex::split_commas(t, 2, t.size() - 1, true);  // x<1, 2> is one; a < b compares
  ASSERT_EQ(templ.size(), 5u);
  EXPECT_EQ(ex::join(t, templ[2].first, templ[2].second), "x<1, 2>::y");
  EXPECT_EQ(ex::join(t, templ[3].first, templ[3].second), "n = a<b");  // join writes templates
  EXPECT_EQ(ex::join(ex::tokenize("( n+255 )/256"), 0, 7), "(n + 255) / 256");
  EXPECT_EQ(ex::join(ex::tokenize("dim3 ( 16 , 16 )"), 0, 6), "dim3(16, 16)");
}

TEST(Tokens, IntegerLiterals) {
  EXPECT_EQ(ex::integer_literal("0x1F").value, 31);
  EXPECT_EQ(ex::integer_literal("010").value, 8);
  EXPECT_EQ(ex::integer_literal("0b101u").value, 5);
  EXPECT_EQ(ex::integer_literal("1'000'000ull").value, 1000000);
  EXPECT_EQ(ex::integer_literal("18446744073709551615u").value, -1);  // wraps as in C
  EXPECT_EQ(ex::integer_literal("09").error, "invalid digit '9' in octal literal");
  EXPECT_EQ(ex::integer_literal("09").error_at, 1u);
  EXPECT_EQ(ex::integer_literal("12abc").error, "invalid suffix 'abc' on integer literal");
  EXPECT_EQ(ex::integer_literal("12abc").error_at, 2u);
  EXPECT_FALSE(ex::integer_literal("1.5f").ok());
  EXPECT_FALSE(ex::integer_literal("1e5").ok());
  EXPECT_FALSE(ex::integer_literal("0x").ok());
  EXPECT_FALSE(ex::integer_literal("1uu").ok());
  EXPECT_FALSE(ex::integer_literal("99999999999999999999").ok());
}

// The resolver may read past a name; a name in a branch not taken is not resolved (it may be
// a call or a run-time value: `argc > 1 ? atoi(argv[1]) : 1024`), one taken is.
TEST(Evaluate, ResolverReadsOperands) {
  const ex::Tokens t = ex::tokenize("d.y * 2 + (flag ? 1 : missing)");
  std::vector<std::string> asked;
  const auto v =
      ex::evaluate(t, [&](ex::TokenSpan e, std::size_t at) -> std::optional<ex::Operand> {
        asked.push_back(e[at].text);
        if (e[at].is("d") && e[at + 1].is(".")) return ex::Operand{7, at + 3};
        if (e[at].is("flag")) return ex::Operand{1, at + 1};
        return std::nullopt;
      });
  ASSERT_TRUE(v);  // `missing` is in the branch not taken
  EXPECT_EQ(*v, 15);
  EXPECT_EQ(asked, (std::vector<std::string>{"d", "flag"}));
  const ex::Tokens taken = ex::tokenize("d.y * 2 + (flag ? missing : 1)");
  asked.clear();
  EXPECT_FALSE(ex::evaluate(taken, [&](ex::TokenSpan e, std::size_t at) -> std::optional<ex::Operand> {
    asked.push_back(e[at].text);
    if (e[at].is("d") && e[at + 1].is(".")) return ex::Operand{7, at + 3};
    if (e[at].is("flag")) return ex::Operand{1, at + 1};
    return std::nullopt;
  }));  // `missing` is taken and unknown
  EXPECT_EQ(asked, (std::vector<std::string>{"d", "flag", "missing"}));
  // A call and an index in the branch not taken are read past, not evaluated.
  const ex::Tokens argv = ex::tokenize("argc > 1 ? std::atoi(argv[1]) + x.y->z : 1024");
  EXPECT_EQ(ex::evaluate(argv, ex::by_name([](const std::string& n) -> std::optional<std::int64_t> {
              if (n == "argc") return 1;
              return std::nullopt;
            })),
            1024);
  const auto lookup = ex::by_name([](const std::string& n) -> std::optional<std::int64_t> {
    if (n == "N") return 32;
    return std::nullopt;
  });
  EXPECT_EQ(ex::evaluate(ex::tokenize("(N + 1) * N >> 2"), lookup), 264);
  EXPECT_EQ(ex::evaluate(ex::tokenize("0 && 1 / 0"), lookup), 0);
  EXPECT_FALSE(ex::evaluate(ex::tokenize("N / (N - 32)"), lookup));
  EXPECT_FALSE(ex::evaluate(ex::tokenize("N N"), lookup));
  EXPECT_FALSE(ex::evaluate(ex::tokenize("N.x"), lookup));
  EXPECT_FALSE(ex::evaluate(ex::tokenize(""), lookup));
}

// A random constant expression: literals in every base and suffix, prefix operators,
// parentheses, every binary operator and ?:.
std::string random_expression(std::mt19937& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  if (depth == 0 || pick(4) == 0) {
    static const char* kLiterals[] = {"0",
                                      "1",
                                      "2",
                                      "3",
                                      "7",
                                      "31",
                                      "64",
                                      "255",
                                      "0x1F",
                                      "010",
                                      "0b101",
                                      "5u",
                                      "9ll",
                                      "-1",
                                      "1'024",
                                      "4294967296",
                                      "9223372036854775807",
                                      "18446744073709551615u",
                                      "63"};
    return kLiterals[pick(sizeof(kLiterals) / sizeof(kLiterals[0]))];
  }
  switch (pick(4)) {
    case 0: {
      static const char* kPrefix[] = {"-", "+", "~", "!"};
      return std::string(kPrefix[pick(4)]) + random_expression(rng, depth - 1);
    }
    case 1:
      return "(" + random_expression(rng, depth - 1) + ")";
    case 2:
      return random_expression(rng, depth - 1) + " ? " + random_expression(rng, depth - 1) + " : " +
             random_expression(rng, depth - 1);
    default: {
      static const char* kBinary[] = {"*", "/",  "%",  "+",  "-", "<<", ">>", "<",  "<=",
                                      ">", ">=", "==", "!=", "&", "^",  "|",  "&&", "||"};
      return random_expression(rng, depth - 1) + " " + kBinary[pick(18)] + " " +
             random_expression(rng, depth - 1);
    }
  }
}

// explain's parser and evaluator, the reference: nullopt where it reports an error.
std::optional<std::int64_t> reference(const std::string& text) {
  namespace d = bankcheck::explain::detail;
  try {
    const std::map<std::string, std::int64_t> vars;
    d::Scope scope;
    scope.vars = &vars;
    d::Parser parser("--expr", text, scope);
    const d::NodePtr node = parser.whole_expression();
    return d::eval(*node, d::LaneValues{});
  } catch (const ex::ExprError&) {
    return std::nullopt;
  } catch (const d::EvalError&) {
    return std::nullopt;
  }
}

TEST(Evaluate, AgreesWithExplainsParserOnRandomExpressions) {
  std::mt19937 rng(20240611);
  const auto none = ex::by_name([](const std::string&) { return std::optional<std::int64_t>(); });
  int defined = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string e = random_expression(rng, 1 + i % 6);
    const auto want = reference(e);
    EXPECT_EQ(ex::evaluate(ex::tokenize(e), none), want) << e;
    defined += want.has_value();
  }
  EXPECT_GT(defined, 10000);  // most are constants, so values are compared, not only errors
}

// Nesting past kMaxNesting is refused by both, at any form of nesting.
TEST(Evaluate, NestingLimitAsExplains) {
  const auto none = ex::by_name([](const std::string&) { return std::optional<std::int64_t>(); });
  for (int n : {10, 100, 254, 255, 256, 257, 300}) {
    const std::string parens = std::string(static_cast<std::size_t>(n), '(') + "1" +
                               std::string(static_cast<std::size_t>(n), ')');
    std::string chain = "1";
    for (int k = 0; k < n; ++k) chain += " + 1";
    for (const std::string& e :
         {parens, std::string(static_cast<std::size_t>(n), '-') + "1", chain})
      EXPECT_EQ(ex::evaluate(ex::tokenize(e), none), reference(e)) << n;
  }
}

}  // namespace
