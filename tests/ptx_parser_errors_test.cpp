// Tests of the PTX parser's errors (position, message, quoted line) and of its robustness:
// deep nesting, truncated input, large input in linear time. The structure of what parses is
// in ptx_parser_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/ptx/ast.hpp"

namespace {

using namespace bankcheck::ptx;

std::string data_path(const std::string& name) {
  return std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/ptx/" + name;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Module parse_str(const std::string& text) { return parse(text, "frag.ptx"); }

// Wraps body lines in a module with one kernel.
std::string kernel(const std::string& body, const std::string& decls = "") {
  return ".version 9.0\n.target sm_90\n.address_size 64\n" + decls + ".visible .entry k()\n{\n" +
         body + "}\n";
}

ParseError parse_error(const std::string& text) {
  try {
    parse(text, "bad.ptx");
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "no ParseError for:\n" << text;
  return ParseError("none", "", {}, "");
}

// ---- errors --------------------------------------------------------------------------

TEST(PtxParserErrors, MissingSemicolon) {
  const ParseError e = parse_error(kernel("  ld.shared.f32 %f1, [%r1]\n  ret;\n"));
  EXPECT_STREQ(e.what(), "expected ';', found 'ret'");
  EXPECT_EQ(e.source, "bad.ptx");
  EXPECT_EQ(e.pos.line, 7);
  EXPECT_EQ(e.pos.col, 3);
  EXPECT_EQ(e.line_text, "  ret;");
}

TEST(PtxParserErrors, UnknownDirectives) {
  ParseError e = parse_error(".version 9.0\n.foo 1\n");
  EXPECT_STREQ(e.what(), "unknown directive '.foo'");
  EXPECT_EQ(e.pos.line, 2);
  EXPECT_EQ(e.pos.col, 1);
  e = parse_error(kernel("  .bar;\n"));
  EXPECT_STREQ(e.what(), "unknown directive '.bar'");
  EXPECT_EQ(e.pos.line, 6);
  EXPECT_EQ(e.pos.col, 3);
  e = parse_error(".entry k() .maxthreads 4 { ret; }");
  EXPECT_STREQ(e.what(), "unknown directive '.maxthreads'");
  EXPECT_EQ(e.pos.col, 12);
}

TEST(PtxParserErrors, LexicalErrors) {
  ParseError e = parse_error(".version 9.0\n  /* open\n\n");
  EXPECT_STREQ(e.what(), "unterminated block comment");
  EXPECT_EQ(e.pos.line, 2);
  EXPECT_EQ(e.pos.col, 3);
  EXPECT_EQ(e.line_text, "  /* open");
  e = parse_error(".file 1 \"abc\n");
  EXPECT_STREQ(e.what(), "unterminated string");
  EXPECT_EQ(e.pos.col, 9);
  e = parse_error(kernel("  mov.u32 %r1, #3;\n"));
  EXPECT_STREQ(e.what(), "unexpected character '#'");
  EXPECT_EQ(e.pos.line, 6);
  EXPECT_EQ(e.pos.col, 16);
  e = parse_error(std::string(".version 9.0\n\x01"));
  EXPECT_STREQ(e.what(), "unexpected byte 0x01");
  e = parse_error(kernel("  mov.f32 %f1, 0f3F80;\n"));
  EXPECT_STREQ(e.what(), "invalid number '0f3F80'");
  EXPECT_EQ(e.pos.col, 16);
  e = parse_error(kernel("  mov.u32 %r1, 09;\n"));
  EXPECT_STREQ(e.what(), "invalid number '09'");
  e = parse_error(kernel("  mov.u64 %rd1, 18446744073709551616;\n"));
  EXPECT_STREQ(e.what(), "integer literal '18446744073709551616' does not fit in 64 bits");
}

TEST(PtxParserErrors, SyntaxErrors) {
  struct Case {
    std::string body;
    const char* message;
    int line;
    int col;
  };
  const Case cases[] = {
      {"  add.s32 %r1, , %r2;\n", "expected an operand, found ','", 6, 16},
      {"  add.s32 %r1 %r2;\n", "expected ';', found '%r2'", 6, 15},
      {"  ld.shared.u32 %r1, [%r2+%r3];\n", "expected an integer offset, found '%r3'", 6, 27},
      {"  ld.shared.u32 %r1, [%r2;\n", "expected ']', found ';'", 6, 26},
      {"  mov.b64 %rd1, {%r1, %r2;\n", "expected '}', found ';'", 6, 26},
      {"  @%p1;\n", "expected an opcode, found ';'", 6, 7},
      {"  123;\n", "expected an instruction, label or directive, found '123'", 6, 3},
      {"  $L1 ret;\n", "expected an instruction, label or directive, found '$L1'", 6, 3},
      {"  .reg .b32 %r<0>;\n", "register count out of range: 0", 6, 16},
      {"  .reg %r;\n", "expected a register type, found '%r'", 6, 8},
      {"  .reg .b32 .u32 %r;\n", "more than one type in declaration: '.u32' after '.b32'", 6, 13},
      {"  .loc 1 2\n  ret;\n", "expected a column number, found 'ret'", 7, 3},
      {"  .loc 1 2 3, inlined 1 2 3\n", "expected 'function_name' or 'inlined_at', found 'inlined'",
       6, 15},
      {"  .shared .b8 x[;\n", "expected an array size, found ';'", 6, 17},
      {"  mov.u32 %r1, -%r2;\n", "expected a number after '-', found '%r2'", 6, 17},
      {"  mov.b32 %r1, {{{{1}}}};\n", "operand nested too deeply", 6, 20},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    const ParseError e = parse_error(kernel(c.body));
    EXPECT_STREQ(e.what(), c.message);
    EXPECT_EQ(e.pos.line, c.line);
    EXPECT_EQ(e.pos.col, c.col);
  }
}

TEST(PtxParserErrors, UnclosedBlocks) {
  ParseError e = parse_error(".entry k()\n{\n  ret;\n");
  EXPECT_STREQ(e.what(),
               "expected '}' to close the function body opened at line 2, column 1, found end "
               "of input");
  EXPECT_EQ(e.pos.line, 4);
  EXPECT_EQ(e.pos.col, 1);
  e = parse_error(".entry k()\n{\n  { ret;\n");
  EXPECT_STREQ(e.what(),
               "expected '}' to close the block opened at line 3, column 3, found end of input");
  e = parse_error(".section .debug_str {\n.b8 1\n");
  EXPECT_EQ(e.pos.line, 3);
  e = parse_error(".global .b32 x[2] = {1, 2;\n");
  EXPECT_STREQ(e.what(), "expected ',' or '}', found ';'");
  e = parse_error(".global .pred x = 1;\n");
  EXPECT_STREQ(e.what(), "a variable of type '.pred' cannot be initialized");
  e = parse_error(".entry k(.param .u32 a .param .u32 b) {}\n");
  EXPECT_STREQ(e.what(), "expected ',' or ')', found '.param'");
  e = parse_error(".visible .foo x;\n");
  EXPECT_STREQ(e.what(), "expected '.entry', '.func' or a state space, found '.foo'");
  e = parse_error("ret;\n");
  EXPECT_STREQ(e.what(), "expected a directive, found 'ret'");
}

// ---- robustness and speed ------------------------------------------------------------

TEST(PtxParserRobustness, DeepNestingDoesNotOverflowTheStack) {
  const int depth = 200000;
  std::string blocks =
      ".entry k()\n{\n" + std::string(depth, '{') + "ret;" + std::string(depth, '}') + "}\n";
  const Module m = parse_str(blocks);
  EXPECT_EQ(m.functions.at(0).body.size(), 1u);
  std::string init =
      ".global .b8 x = " + std::string(depth, '{') + "1" + std::string(depth, '}') + ";\n";
  EXPECT_EQ(parse_str(init).variables.at(0).init, std::vector<std::uint8_t>{1});
  // Truncated: errors, not crashes.
  EXPECT_THROW(parse_str(blocks.substr(0, blocks.size() / 2)), ParseError);
  EXPECT_THROW(parse_str(init.substr(0, init.size() / 2)), ParseError);
}

TEST(PtxParserRobustness, EveryPrefixOfAFileParsesOrThrowsParseError) {
  const std::string text = read_file(data_path("indirect_sm90.ptx"));
  int ok = 0;
  for (std::size_t n = 0; n <= text.size(); n += 7) {
    try {
      parse(text.substr(0, n), "prefix.ptx");
      ++ok;
    } catch (const ParseError& e) {
      EXPECT_GE(e.pos.line, 1);
      EXPECT_GE(e.pos.col, 1);
    }
  }
  EXPECT_GT(ok, 0);
}

TEST(PtxParserRobustness, LargeInputIsLinear) {
  // About 4 MB: many copies of the misc kernel (callseq blocks, inline asm scopes).
  const std::string text = read_file(data_path("misc_sm90.ptx"));
  const std::size_t b = text.find(".visible .entry");
  const std::size_t e = text.find("\t.file");
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  const std::string head = text.substr(0, b);
  const std::string body = text.substr(b, e - b);
  std::string big = head;
  int copies = 0;
  while (big.size() < 4'000'000) {
    big += body;
    ++copies;
  }
  big += text.substr(e);
  const auto t0 = std::chrono::steady_clock::now();
  const Module m = parse(big, "big.ptx");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(m.functions.size(), 3u + static_cast<std::size_t>(copies));
  EXPECT_LT(secs, 20.0) << "parsing " << big.size() << " bytes";  // generous: Debug builds
}

}  // namespace
