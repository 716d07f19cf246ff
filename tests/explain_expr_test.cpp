// Tests for `explain` expression mode (bankcheck/explain/expr.hpp): thread numbering, layout
// of arrays, vector types and structs, the split into requests, C expression semantics, and
// that every bad input is an ExprError pointing at the right argument and column.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/explain/expr.hpp"

namespace bankcheck::explain {
namespace {

ExplainInput decl_input(std::string decl, std::string expr, Dim3 block = {32, 1, 1}) {
  ExplainInput in;
  in.decl = std::move(decl);
  in.expr = std::move(expr);
  in.block = block;
  return in;
}

ExplainInput type_input(std::string type, std::string expr, Dim3 block = {32, 1, 1}) {
  ExplainInput in;
  in.type = std::move(type);
  in.expr = std::move(expr);
  in.block = block;
  return in;
}

// The error lower() throws for `in` (a failed expectation if none).
ExprError error_of(const ExplainInput& in) {
  try {
    lower(in);
  } catch (const ExprError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for --expr '" << in.expr << "'";
  return ExprError("", "", "", -1);
}

void expect_error(const ExplainInput& in, const std::string& source, int column,
                  const std::string& message_start) {
  const ExprError e = error_of(in);
  EXPECT_EQ(e.source, source) << e.what();
  EXPECT_EQ(e.column, column) << e.what() << "\n" << caret_line(e);
  EXPECT_EQ(std::string(e.what()).substr(0, message_start.size()), message_start) << e.what();
}

// The value of a constant expression, read back as the byte address of one char lane.
std::int64_t value_of(const std::string& expr, std::map<std::string, std::int64_t> vars = {}) {
  ExplainInput in = type_input("char", "(" + expr + ") + 1000000", Dim3{1, 1, 1});
  in.vars = std::move(vars);
  const Lowered l = lower(in);
  return static_cast<std::int64_t>(l.requests.at(0).warps.at(0).addr[0]) - 1000000;
}

std::uint32_t warps_for(const Dim3& b) { return (b.x * b.y * b.z + 31) / 32; }

// ---- thread numbering ---------------------------------------------------------------------

TEST(ExplainExpr, TransposeAddressesForEveryLaneOfEveryWarp) {
  const Lowered l =
      lower(decl_input("float tile[32][33]", "tile[threadIdx.x][threadIdx.y]", Dim3{32, 32, 1}));
  EXPECT_EQ(l.array_name, "tile");
  EXPECT_EQ(l.element_type, "float");
  EXPECT_EQ(l.array_bytes, 32u * 33 * 4);
  ASSERT_EQ(l.requests.size(), 1u);
  const Request& r = l.requests[0];
  EXPECT_EQ(r.label, "tile[threadIdx.x][threadIdx.y]");
  EXPECT_EQ(r.width, 4);
  ASSERT_EQ(r.warps.size(), 32u);
  for (int w = 0; w < 32; ++w) {
    EXPECT_EQ(r.warps[w].active, 0xFFFFFFFFu);
    EXPECT_EQ(r.warps[w].width, 4);
    EXPECT_EQ(r.warps[w].op, model::Op::Load);
    for (int lane = 0; lane < 32; ++lane) {
      const std::uint32_t x = lane, y = w;  // tid = 32w + lane = x + 32y
      EXPECT_EQ(r.warps[w].addr[lane], (x * 33 + y) * 4) << "warp " << w << " lane " << lane;
    }
  }
}

TEST(ExplainExpr, LaneAndWarpOfEveryThreadIn3DBlocks) {
  for (const Dim3 b : {Dim3{5, 7, 3}, Dim3{32, 32, 1}, Dim3{1, 1, 64}, Dim3{16, 8, 8},
                       Dim3{3, 5, 7}, Dim3{1, 1, 1}, Dim3{33, 1, 1}}) {
    // The coordinates, packed so each can be read back from the address.
    const Lowered coords =
        lower(type_input("char", "threadIdx.z * 1000000 + threadIdx.y * 1000 + threadIdx.x", b));
    const Lowered ids = lower(type_input("int", "tid * 65536 + warp * 256 + lane", b));
    const std::uint32_t threads = b.x * b.y * b.z;
    ASSERT_EQ(coords.requests[0].warps.size(), warps_for(b));
    for (std::uint32_t tid = 0; tid < threads; ++tid) {
      const std::uint32_t w = tid / 32, lane = tid % 32;
      const std::uint32_t x = tid % b.x, y = tid / b.x % b.y, z = tid / (b.x * b.y);
      const model::WarpAccess& c = coords.requests[0].warps[w];
      ASSERT_TRUE(c.lane_active(lane));
      EXPECT_EQ(c.addr[lane], z * 1000000 + y * 1000 + x) << "tid " << tid;
      EXPECT_EQ(ids.requests[0].warps[w].addr[lane], (tid * 65536 + w * 256 + lane) * 4);
    }
    // Lanes past the last thread are inactive; all others active.
    for (std::uint32_t w = 0; w < warps_for(b); ++w) {
      const std::uint32_t n = std::min<std::uint32_t>(32, threads - 32 * w);
      EXPECT_EQ(coords.requests[0].warps[w].active, n == 32 ? 0xFFFFFFFFu : (1u << n) - 1);
    }
  }
}

TEST(ExplainExpr, LinearIdFormulasAgreeWithTid) {
  const Dim3 b{6, 5, 4};
  const Lowered a = lower(type_input("int", "tid", b));
  const Lowered c = lower(type_input(
      "int", "threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y", b));
  const Lowered d = lower(type_input("int", "warp * warpSize + lane", b));
  for (std::size_t w = 0; w < a.requests[0].warps.size(); ++w)
    for (int lane = 0; lane < 32; ++lane) {
      if (!a.requests[0].warps[w].lane_active(lane)) continue;
      EXPECT_EQ(a.requests[0].warps[w].addr[lane], c.requests[0].warps[w].addr[lane]);
      EXPECT_EQ(a.requests[0].warps[w].addr[lane], d.requests[0].warps[w].addr[lane]);
    }
}

TEST(ExplainExpr, PartialLastWarp) {
  const Lowered l = lower(type_input("float", "tid", Dim3{40, 1, 1}));
  ASSERT_EQ(l.requests[0].warps.size(), 2u);
  EXPECT_EQ(l.requests[0].warps[0].active, 0xFFFFFFFFu);
  EXPECT_EQ(l.requests[0].warps[1].active, 0xFFu);
  EXPECT_EQ(std::popcount(l.requests[0].warps[1].active), 8);
  for (int lane = 0; lane < 8; ++lane)
    EXPECT_EQ(l.requests[0].warps[1].addr[lane], (32u + lane) * 4);
}

// ---- layout and requests -------------------------------------------------------------------

TEST(ExplainExpr, Float3SplitsIntoThreeRequests) {
  const Lowered l = lower(decl_input("float3 a[64]", "a[tid]", Dim3{64, 1, 1}));
  EXPECT_EQ(l.element_type, "float3");
  EXPECT_EQ(l.array_bytes, 64u * 12);
  ASSERT_EQ(l.requests.size(), 3u);
  const char* labels[] = {"a[tid].x", "a[tid].y", "a[tid].z"};
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(l.requests[k].label, labels[k]);
    EXPECT_EQ(l.requests[k].width, 4);
    for (int w = 0; w < 2; ++w)
      for (std::uint32_t lane = 0; lane < 32; ++lane)
        EXPECT_EQ(l.requests[k].warps[w].addr[lane], 12 * (32 * w + lane) + 4 * k);
  }
}

TEST(ExplainExpr, FlatTypeModeLabelsAndSplits) {
  const Lowered l = lower(type_input("float3", "tid"));
  EXPECT_EQ(l.array_name, "s");
  EXPECT_EQ(l.array_bytes, 0u);
  ASSERT_EQ(l.requests.size(), 3u);
  EXPECT_EQ(l.requests[0].label, "s[tid].x");
  EXPECT_EQ(l.requests[2].label, "s[tid].z");
  EXPECT_EQ(l.requests[2].warps[0].addr[5], 5u * 12 + 8);
}

// For each type: its size, and the widths (and offsets) of the requests of a whole element.
TEST(ExplainExpr, TypeSizesAndSplits) {
  struct Case {
    const char* type;
    std::uint32_t size;
    std::vector<int> widths;
  };
  const Case cases[] = {
      {"char", 1, {1}},
      {"signed char", 1, {1}},
      {"unsigned char", 1, {1}},
      {"short", 2, {2}},
      {"unsigned short", 2, {2}},
      {"int", 4, {4}},
      {"unsigned", 4, {4}},
      {"unsigned int", 4, {4}},
      {"float", 4, {4}},
      {"long long", 8, {8}},
      {"unsigned long long", 8, {8}},
      {"double", 8, {8}},
      {"char2", 2, {2}},
      {"uchar2", 2, {2}},
      {"char4", 4, {4}},
      {"uchar4", 4, {4}},
      {"short2", 4, {4}},
      {"short4", 8, {8}},
      {"int2", 8, {8}},
      {"uint2", 8, {8}},
      {"float2", 8, {8}},
      {"int3", 12, {4, 4, 4}},
      {"uint3", 12, {4, 4, 4}},
      {"float3", 12, {4, 4, 4}},
      {"int4", 16, {16}},
      {"uint4", 16, {16}},
      {"float4", 16, {16}},
      {"double2", 16, {16}},
      {"double3", 24, {8, 8, 8}},
      {"double4", 32, {8, 8, 8, 8}},
      {"longlong2", 16, {16}},
      {"struct { float x; float y; }", 8, {4, 4}},
      {"struct { double d; char c; }", 16, {8, 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    const Lowered l = lower(type_input(c.type, "lane"));
    ASSERT_EQ(l.requests.size(), c.widths.size());
    std::uint32_t offset = 0;
    for (std::size_t k = 0; k < c.widths.size(); ++k) {
      EXPECT_EQ(l.requests[k].width, c.widths[k]);
      EXPECT_EQ(l.requests[k].warps[0].width, c.widths[k]);
      for (std::uint32_t lane = 0; lane < 32; ++lane)
        EXPECT_EQ(l.requests[k].warps[0].addr[lane], c.size * lane + offset);
      offset += c.widths[k];
    }
    EXPECT_EQ(value_of(std::string("sizeof(") + c.type + ")"), c.size);
  }
}

TEST(ExplainExpr, StructLayoutWithPadding) {
  const Lowered f = lower(decl_input("struct { char c; float f; } s[32]", "s[lane].f"));
  EXPECT_EQ(f.array_bytes, 32u * 8);
  EXPECT_EQ(f.element_type, "float");
  ASSERT_EQ(f.requests.size(), 1u);
  for (std::uint32_t lane = 0; lane < 32; ++lane)
    EXPECT_EQ(f.requests[0].warps[0].addr[lane], 8 * lane + 4);

  const Lowered whole = lower(decl_input("struct { char c; float f; } s[32]", "s[lane]"));
  EXPECT_EQ(whole.element_type, "struct { char c; float f; }");
  ASSERT_EQ(whole.requests.size(), 2u);
  EXPECT_EQ(whole.requests[0].label, "s[lane].c");
  EXPECT_EQ(whole.requests[0].width, 1);
  EXPECT_EQ(whole.requests[1].label, "s[lane].f");
  EXPECT_EQ(whole.requests[1].width, 4);
  EXPECT_EQ(whole.requests[0].warps[0].addr[3], 24u);
  EXPECT_EQ(whole.requests[1].warps[0].addr[3], 28u);
}

TEST(ExplainExpr, StructWithCommaMembersAndMemberArrays) {
  const Lowered l = lower(decl_input("struct { float x, y, z; } s[32]", "s[tid]"));
  EXPECT_EQ(l.array_bytes, 32u * 12);
  ASSERT_EQ(l.requests.size(), 3u);
  EXPECT_EQ(l.requests[1].label, "s[tid].y");
  EXPECT_EQ(l.requests[1].warps[0].addr[2], 28u);

  // A member array: 3 floats and an int, 16 bytes a struct.
  const char* decl = "struct Tag { float v[3]; int n; } s[8]";
  const Lowered v = lower(decl_input(decl, "s[lane % 8].v[1]"));
  for (std::uint32_t lane = 0; lane < 32; ++lane)
    EXPECT_EQ(v.requests[0].warps[0].addr[lane], 16 * (lane % 8) + 4);
  const Lowered all = lower(decl_input(decl, "s[0].v"));
  ASSERT_EQ(all.requests.size(), 3u);
  EXPECT_EQ(all.requests[2].label, "s[0].v[2]");
  EXPECT_EQ(all.requests[2].warps[0].addr[0], 8u);
}

TEST(ExplainExpr, NestedStructAndVectorMembers) {
  const Lowered l = lower(decl_input("struct { char tag; struct { short a; double2 d; } in; } s[4]",
                                     "s[lane & 3].in.d.y"));
  // tag at 0, in at 16 (aligned 16): a at 16, d at 32, d.y at 40; the struct is 48 bytes.
  EXPECT_EQ(l.array_bytes, 4u * 48);
  EXPECT_EQ(l.requests[0].width, 8);
  for (std::uint32_t lane = 0; lane < 32; ++lane)
    EXPECT_EQ(l.requests[0].warps[0].addr[lane], 48 * (lane & 3) + 40);
}

TEST(ExplainExpr, VectorMembers) {
  const Lowered y = lower(decl_input("float4 a[32]", "a[lane].y"));
  EXPECT_EQ(y.element_type, "float");
  EXPECT_EQ(y.requests[0].label, "a[lane].y");
  EXPECT_EQ(y.requests[0].warps[0].addr[2], 36u);
  const Lowered w = lower(decl_input("uchar4 a[32]", "a[lane].w"));
  EXPECT_EQ(w.element_type, "unsigned char");
  EXPECT_EQ(w.requests[0].width, 1);
  EXPECT_EQ(w.requests[0].warps[0].addr[2], 11u);
}

TEST(ExplainExpr, DeclarationSyntaxVariants) {
  for (const char* decl : {"__shared__ float tile[32][33];", "  float tile [32] [33] ",
                           "volatile __shared__ float tile[32][33]", "float tile[TILE][TILE + 1]",
                           "float tile[TILE][0x21]"}) {
    SCOPED_TRACE(decl);
    ExplainInput in = decl_input(decl, "tile[lane][warp]", Dim3{32, 4, 1});
    in.vars["TILE"] = 32;
    const Lowered l = lower(in);
    EXPECT_EQ(l.array_bytes, 32u * 33 * 4);
    EXPECT_EQ(l.requests[0].warps[3].addr[1], (33u + 3) * 4);
  }
  const Lowered u = lower(decl_input("extern __shared__ float dyn[]", "dyn[tid * 2]"));
  EXPECT_EQ(u.array_bytes, 0u);
  EXPECT_EQ(u.requests[0].warps[0].addr[31], 62u * 4);
  const Lowered sc = lower(decl_input("unsigned short h[64]", "h[2 * lane]"));
  EXPECT_EQ(sc.element_type, "unsigned short");
  EXPECT_EQ(sc.requests[0].width, 2);
}

TEST(ExplainExpr, ActiveMask) {
  ExplainInput in = type_input("float", "tid", Dim3{32, 4, 1});
  in.active = "lane < 16";
  Lowered l = lower(in);
  for (const auto& w : l.requests[0].warps) EXPECT_EQ(w.active, 0xFFFFu);

  in.active = "threadIdx.y == 1 && (lane & 1)";
  l = lower(in);
  EXPECT_EQ(l.requests[0].warps[0].active, 0u);
  EXPECT_EQ(l.requests[0].warps[1].active, 0xAAAAAAAAu);
  EXPECT_EQ(l.requests[0].warps[2].active, 0u);

  // Index expressions are evaluated (and checked) only for active lanes.
  ExplainInput guarded = decl_input("float s[16]", "s[lane]");
  guarded.active = "lane < 16";
  EXPECT_EQ(lower(guarded).requests[0].warps[0].active, 0xFFFFu);
  ExplainInput div = type_input("int", "64 / lane");
  div.active = "lane";
  EXPECT_EQ(lower(div).requests[0].warps[0].addr[3], 21u * 4);

  // The mask applies to every request of a split access.
  ExplainInput split = type_input("float3", "tid", Dim3{64, 1, 1});
  split.active = "warp == 1";
  for (const Request& r : lower(split).requests) {
    EXPECT_EQ(r.warps[0].active, 0u);
    EXPECT_EQ(r.warps[1].active, 0xFFFFFFFFu);
  }
}

TEST(ExplainExpr, OpIsCopiedIntoEveryWarp) {
  ExplainInput in = type_input("double3", "tid", Dim3{64, 1, 1});
  in.op = model::Op::Store;
  for (const Request& r : lower(in).requests)
    for (const auto& w : r.warps) EXPECT_EQ(w.op, model::Op::Store);
}

// ---- expressions -----------------------------------------------------------------------------

TEST(ExplainExpr, OperatorPrecedenceAndLiterals) {
  struct Case {
    const char* expr;
    std::int64_t value;
  };
  const Case cases[] = {
      {"1 + 2 * 3", 7},
      {"(1 + 2) * 3", 9},
      {"1 << 2 + 1", 8},
      {"6 & 3 == 3", 0},
      {"1 | 2 ^ 3 & 4", 3},
      {"10 - 3 - 2", 5},
      {"100 / 10 / 5", 2},
      {"2 * 3 % 4", 2},
      {"1 ? 2 : 3 ? 4 : 5", 2},
      {"0 ? 2 : 0 ? 4 : 5", 5},
      {"!0 + ~0", 0},
      {"1 < 2 == 1", 1},
      {"3 > 2 > 1", 0},
      {"2 <= 2", 1},
      {"3 >= 4", 0},
      {"5 != 5", 0},
      {"1 && 0 || 1", 1},
      {"0 && 1 / 0", 0},
      {"1 || 1 % 0", 1},
      {"1 ? 5 : 1 / 0", 5},
      {"-(-3)", 3},
      {"+4", 4},
      {"5 >> 1", 2},
      {"-8 >> 1", -4},
      {"0x1F", 31},
      {"0X10u", 16},
      {"10UL", 10},
      {"7ll", 7},
      {"010", 8},
      {"0b101", 5},
      {"(unsigned char)300", 44},
      {"(signed char)200", -56},
      {"(short)65535", -1},
      {"(bool)7", 1},
      {"sizeof(float3) * 2", 24},
      {"warpSize", 32},
      {"blockDim.x + blockIdx.y + gridDim.z", 2},
      {"1 - -1", 2},
      {"~~5", 5},
  };
  for (const Case& c : cases) EXPECT_EQ(value_of(c.expr), c.value) << c.expr;
}

TEST(ExplainExpr, DivisionAndModuloTruncateTowardZeroLikeC) {
  for (int a = -20; a <= 20; ++a)
    for (int b = -7; b <= 7; ++b) {
      if (b == 0) continue;
      std::string sa = "(", sb = "(";
      sa += std::to_string(a);
      sa += ')';
      sb += std::to_string(b);
      sb += ')';
      EXPECT_EQ(value_of(sa + " / " + sb), a / b) << a << " / " << b;
      EXPECT_EQ(value_of(sa + " % " + sb), a % b) << a << " % " << b;
      EXPECT_EQ(value_of(sa + " / " + sb + " * " + sb + " + " + sa + " % " + sb), a);
    }
  EXPECT_EQ(value_of("-7 / 2"), -3);
  EXPECT_EQ(value_of("-7 % 2"), -1);
  EXPECT_EQ(value_of("7 % -2"), 1);
}

TEST(ExplainExpr, SetVariablesAndShadowing) {
  ExplainInput in = type_input("float", "blockIdx.x * blockDim.x + tid + OFF");
  in.vars = {{"blockIdx.x", 3}, {"OFF", -96}};
  const Lowered l = lower(in);
  for (std::uint32_t lane = 0; lane < 32; ++lane)
    EXPECT_EQ(l.requests[0].warps[0].addr[lane], lane * 4);
  EXPECT_EQ(value_of("blockIdx.x + gridDim.x"), 1);
  EXPECT_EQ(value_of("lane", {{"lane", 9}}), 9);
}

// ---- errors ----------------------------------------------------------------------------------

TEST(ExplainExprErrors, UnknownIdentifier) {
  expect_error(type_input("int", "threadIdx.w + 1"), "--expr", 1,
               "unknown identifier 'threadIdx.w'");
  expect_error(decl_input("float tile[32][33]", "tile[threadIdx.x][threadIdx.w]"), "--expr", 19,
               "unknown identifier 'threadIdx.w'");
  expect_error(type_input("int", "lane + n"), "--expr", 8, "unknown identifier 'n'");
  // A name of the user's code gets the flag that gives it a value, ready to paste; a misspelt
  // built-in (threadIdx.w) does not.
  expect_error(type_input("int", "lane * stride + j"), "--expr", 8,
               "unknown identifier 'stride' (give its value with --set stride=VALUE)");
  EXPECT_EQ(std::string(error_of(type_input("int", "threadIdx.w")).what()),
            "unknown identifier 'threadIdx.w'");
  expect_error(type_input("int", "s[tid]"), "--expr", 1, "unknown identifier 's' (with --type");
  ExplainInput a = type_input("int", "tid");
  a.active = "lane < lanes";
  expect_error(a, "--active", 8, "unknown identifier 'lanes'");
}

TEST(ExplainExprErrors, Syntax) {
  const char* decl = "float tile[32][33]";
  expect_error(decl_input(decl, "tile[threadIdx.x"), "--expr", 17, "expected ']'");
  expect_error(decl_input(decl, "tile[1)[2]"), "--expr", 7, "expected ']'");
  expect_error(decl_input(decl, "tile[1][2] + 1"), "--expr", 12, "unexpected '+'");
  expect_error(decl_input(decl, "tiles[1][2]"), "--expr", 1, "expected the array name 'tile'");
  expect_error(type_input("int", "lane +"), "--expr", 7, "expected expression");
  expect_error(type_input("int", "(lane"), "--expr", 6, "expected ')'");
  expect_error(type_input("int", "lane ? 1"), "--expr", 9, "expected ':'");
  expect_error(type_input("int", "lane @ 2"), "--expr", 6, "unexpected character '@'");
  expect_error(type_input("int", "lane * 1.5"), "--expr", 8, "floating-point literals");
  expect_error(type_input("int", "12abc"), "--expr", 3, "invalid suffix 'abc'");
  expect_error(type_input("int", "09"), "--expr", 2, "invalid digit '9'");
  expect_error(type_input("int", "99999999999999999999"), "--expr", 1, "integer literal too large");
  expect_error(type_input("int", ""), "--expr", 1, "expected expression");
  expect_error(type_input("int", "(float)lane"), "--expr", 2, "cast to 'float'");
}

TEST(ExplainExprErrors, Types) {
  expect_error(decl_input("flaot tile[32]", "tile[0]"), "--decl", 1, "unknown type 'flaot'");
  expect_error(decl_input("__shared__ flaot t[3]", "t[0]"), "--decl", 12, "unknown type 'flaot'");
  expect_error(type_input("flaot", "0"), "--type", 1, "unknown type 'flaot'");
  expect_error(type_input("float s", "0"), "--type", 7, "unexpected 's'");
  expect_error(type_input("short char", "0"), "--type", 1, "invalid type 'short char'");
  expect_error(decl_input("struct { float x; float x; } s[3]", "s[0]"), "--decl", 25,
               "duplicate member 'x'");
  expect_error(decl_input("struct { } s[3]", "s[0]"), "--decl", 1, "empty struct");
  expect_error(decl_input("struct { float x float y; } s[3]", "s[0]"), "--decl", 18,
               "expected ';'");
  // The ';' after the last member may be left out.
  EXPECT_EQ(lower(decl_input("struct { float x } s[3]", "s[0]")).array_bytes, 12u);
}

TEST(ExplainExprErrors, Declarations) {
  expect_error(decl_input("float tile[0]", "tile[0]"), "--decl", 12, "array size must be positive");
  expect_error(decl_input("float tile[lane]", "tile[0]"), "--decl", 12,
               "'lane' differs between threads");
  expect_error(decl_input("float tile[32", "tile[0]"), "--decl", 14, "expected ']'");
  expect_error(decl_input("float", "tile[0]"), "--decl", 6, "expected an array name");
  expect_error(decl_input("float a[32], b[32]", "a[0]"), "--decl", 12, "unexpected ','");
  expect_error(decl_input("float a[4 / 0]", "a[0]"), "--decl", 11, "division by zero");
  expect_error(decl_input("char a[65536][65536]", "a[0][0]"), "--decl", 8, "array too large");
}

TEST(ExplainExprErrors, DimensionCountAndMembers) {
  const char* decl = "float tile[32][33]";
  expect_error(decl_input(decl, "tile[lane]"), "--expr", 1,
               "tile has 2 dimensions, expression gives 1");
  expect_error(decl_input(decl, "  tile[1][2][3]"), "--expr", 3,
               "tile has 2 dimensions, expression gives 3");
  expect_error(decl_input("float s[4]", "s"), "--expr", 1, "s has 1 dimension, expression gives 0");
  expect_error(decl_input(decl, "tile[1].x"), "--expr", 1,
               "tile has 2 dimensions, expression gives 1");
  expect_error(decl_input("float2 a[32]", "a[lane].q"), "--expr", 9, "'float2' has no member 'q'");
  expect_error(decl_input("float a[32]", "a[lane].x"), "--expr", 9, "'float' has no member 'x'");
  expect_error(decl_input("float2 a[32]", "a[lane].x[0]"), "--expr", 11,
               "subscript of non-array type 'float'");
}

TEST(ExplainExprErrors, IndexRange) {
  expect_error(decl_input("float t[32]", "t[lane == 1 ? 33 : 0]"), "--expr", 3,
               "index 33 out of range [0, 32) for lane 1 of warp 0");
  expect_error(decl_input("float tile[32][33]", "tile[warp][ lane + 2 ]", Dim3{32, 2, 1}), "--expr",
               13, "index 33 out of range [0, 33) for lane 31 of warp 0");
  expect_error(decl_input("float tile[2][33]", "tile[warp][0]", Dim3{96, 1, 1}), "--expr", 6,
               "index 2 out of range [0, 2) for lane 0 of warp 2");
  expect_error(decl_input("float t[32]", "t[lane - 1]"), "--expr", 3,
               "index -1 out of range [0, 32) for lane 0 of warp 0");
  expect_error(type_input("int", "lane - 1"), "--expr", 1,
               "negative index -1 for lane 0 of warp 0");
  expect_error(type_input("int", "  1 << 40"), "--expr", 3, "index 1099511627776 is beyond 32-bit");
  expect_error(type_input("float4", "0x0FFFFFFF + lane"), "--expr", 1, "byte offset");
}

TEST(ExplainExprErrors, ArithmeticPointsAtTheOperator) {
  expect_error(type_input("int", "lane / (lane - lane)"), "--expr", 6,
               "division by zero for lane 0 of warp 0");
  expect_error(type_input("int", "lane % (warp)"), "--expr", 6, "modulo by zero");
  expect_error(type_input("int", "1 << 64"), "--expr", 3, "shift count 64");
  expect_error(type_input("int", "1 >> (lane - 1)"), "--expr", 3, "negative shift count -1");
  ExplainInput a = type_input("int", "tid", Dim3{64, 1, 1});
  a.active = "1 / (tid - 40)";
  expect_error(a, "--active", 3, "division by zero for lane 8 of warp 1");
}

TEST(ExplainExprErrors, InputShape) {
  expect_error(type_input("int", "tid", Dim3{0, 1, 1}), "--block", 0, "block dimension x is 0");
  expect_error(type_input("int", "tid", Dim3{64, 32, 1}), "--block", 0, "block of 2048 threads");
  expect_error(type_input("int", "tid", Dim3{1, 1, 65}), "--block", 0, "block z dimension 65");
  ExplainInput both = type_input("int", "tid");
  both.decl = "int s[32]";
  expect_error(both, "--decl", 0, "give --type or --decl");
  ExplainInput none;
  none.expr = "tid";
  expect_error(none, "--expr", 0, "expression mode needs --type or --decl");
  ExplainInput bad_var = type_input("int", "tid");
  bad_var.vars["a b"] = 1;
  expect_error(bad_var, "--set", 1, "invalid variable name 'a b'");
}

// Every way an input nests (parentheses, prefix operators, conditionals, chains of binary
// operators, structs in structs) is bounded by one depth: past 256 levels the input is a
// located error, never a deep recursion (the evaluator and the tree's destructor recurse
// along a chain's left operands). 256 levels of each still parse.
TEST(ExplainExprErrors, NestingDeeperThan256LevelsIsALocatedError) {
  auto repeat = [](const std::string& s, int n) {
    std::string r;
    for (int i = 0; i < n; ++i) r += s;
    return r;
  };
  const std::string deep = repeat("(", 100000) + "1" + repeat(")", 100000);
  expect_error(decl_input("float t[" + deep + "][32]", "t[0][lane]"), "--decl", 265,
               "expression nested more than 256 levels deep");
  expect_error(type_input("int", repeat("-", 300) + "lane"), "--expr", 257,
               "expression nested more than 256 levels deep");
  expect_error(type_input("int", "lane" + repeat(" + 1", 100000)), "--expr", 1028,
               "expression nested more than 256 levels deep");
  expect_error(decl_input("float t[32" + repeat(" + 0", 100000) + "]", "t[lane]"), "--decl", 1034,
               "expression nested more than 256 levels deep");
  expect_error(type_input("int", repeat("lane ? 1 : ", 300) + "0"), "--expr", 2813,
               "expression nested more than 256 levels deep");
  const std::string structs =
      repeat("struct { ", 300) + "int x; " + repeat("} m; ", 299) + "} s[32]";
  expect_error(decl_input(structs, "s[lane].x"), "--decl", 2305, "struct nested more than 256");
  // At the limit: evaluated.
  EXPECT_EQ(value_of(repeat("(", 200) + "7" + repeat(")", 200)), 7);
  EXPECT_EQ(value_of("1" + repeat(" + 1", 200)), 201);
  EXPECT_EQ(value_of(repeat("- ", 200) + "5"), 5);
  const Lowered nested =
      lower(decl_input(repeat("struct { ", 100) + "float x; " + repeat("} m; ", 99) + "} s[32]",
                       "s[lane]" + repeat(".m", 99) + ".x"));
  EXPECT_EQ(nested.requests.at(0).warps.at(0).addr[1], 4u);
}

TEST(ExplainExprErrors, CaretLine) {
  const ExprError e = error_of(decl_input("float tile[32][33]", "tile[threadIdx.x"));
  EXPECT_EQ(caret_line(e), "tile[threadIdx.x\n                ^");
  const ExprError t = error_of(type_input("int", "\tlane + q"));
  EXPECT_EQ(caret_line(t), "\tlane + q\n\t       ^");
  EXPECT_EQ(caret_line(ExprError("m", "--block", "0,1,1", 0)), "0,1,1");
}

// ---- command-line helpers ----------------------------------------------------------------------

TEST(ExplainExprHelpers, ParseBlock) {
  const Dim3 a = parse_block("16");
  EXPECT_EQ(a.x, 16u);
  EXPECT_EQ(a.y, 1u);
  const Dim3 b = parse_block("8, 4,2");
  EXPECT_EQ(b.x, 8u);
  EXPECT_EQ(b.y, 4u);
  EXPECT_EQ(b.z, 2u);
  auto err = [](const char* text) {
    try {
      parse_block(text);
    } catch (const ExprError& e) {
      EXPECT_EQ(e.source, "--block");
      return e.column;
    }
    ADD_FAILURE() << text;
    return -1;
  };
  EXPECT_EQ(err("32,x"), 4);
  EXPECT_EQ(err("32,0"), 4);
  EXPECT_EQ(err("1,2,3,4"), 7);
  EXPECT_EQ(err("1024,2"), 0);
  EXPECT_EQ(err(""), 1);
}

TEST(ExplainExprHelpers, ParseSet) {
  EXPECT_EQ(parse_set("N=32"), (std::pair<std::string, std::int64_t>{"N", 32}));
  EXPECT_EQ(parse_set("blockIdx.x=0x10"), (std::pair<std::string, std::int64_t>{"blockIdx.x", 16}));
  EXPECT_EQ(parse_set("off = -5"), (std::pair<std::string, std::int64_t>{"off", -5}));
  auto err = [](const char* text) {
    try {
      parse_set(text);
    } catch (const ExprError& e) {
      EXPECT_EQ(e.source, "--set");
      return e.column;
    }
    ADD_FAILURE() << text;
    return -1;
  };
  EXPECT_EQ(err("N"), 2);
  EXPECT_EQ(err("1N=3"), 1);
  EXPECT_EQ(err("N=x"), 3);
  EXPECT_EQ(err("N=3 4"), 5);
  EXPECT_EQ(err("N=1.5"), 3);
}

}  // namespace
}  // namespace bankcheck::explain
