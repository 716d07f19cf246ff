// What the user gives a kernel to run on under `check`: struct parameters by value (their
// layout from the source, fields by name), __constant__ and __device__ variables (--var),
// dynamic shared memory that must be sized, and the note on addresses computed from a buffer
// of zeros. Unit tests of the parsing and layout, then `bankcheck check` on small kernels
// (tests/data/inputs/).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bankcheck/driver/launch.hpp"
#include "bankcheck/explain/records.hpp"
#include "run_tool.hpp"

namespace bc = bankcheck::driver;
namespace ex = bankcheck::explain;
using bankcheck::testing::run_tool;
using nlohmann::json;

namespace {

std::string data(const std::string& name) {
  return std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/inputs/" + name;
}

const ex::RecordField* field(const ex::RecordLayout& r, const std::string& name) {
  for (const auto& f : r.fields)
    if (f.name == name) return &f;
  return nullptr;
}

// ---- layouts ----------------------------------------------------------------------------

TEST(RecordLayout, CLayoutWithPointersArraysAndVectorTypes) {
  const auto r = ex::record_layout(R"(
#define NW 4
struct Params {
  int n;                 // 0
  const float* in;       // 8
  float* __restrict__ out;  // 16
  float scale;           // 24
  int w[NW];             // 28
  float4 v;              // 48 (float4 is 16-aligned)
  __device__ int twice() const { return 2 * n; }
  static constexpr int kMax = 8;
};)",
                                   "Params");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->error, "");
  EXPECT_EQ(r->size, 64u);
  EXPECT_EQ(r->align, 16u);
  EXPECT_EQ(r->line, 3);
  struct Want {
    const char* name;
    std::uint64_t offset, count;
    ex::RecordField::Kind kind;
  };
  using K = ex::RecordField::Kind;
  const Want want[] = {{"n", 0, 1, K::Integer},    {"in", 8, 1, K::Pointer},
                       {"out", 16, 1, K::Pointer}, {"scale", 24, 1, K::Float},
                       {"w", 28, 4, K::Integer},   {"v.x", 48, 1, K::Float},
                       {"v.w", 60, 1, K::Float}};
  for (const auto& w : want) {
    const auto* f = field(*r, w.name);
    ASSERT_NE(f, nullptr) << w.name;
    EXPECT_EQ(f->offset, w.offset) << w.name;
    EXPECT_EQ(f->count, w.count) << w.name;
    EXPECT_EQ(f->kind, w.kind) << w.name;
  }
  EXPECT_EQ(field(*r, "twice"), nullptr);
  EXPECT_EQ(field(*r, "kMax"), nullptr);
}

TEST(RecordLayout, NestedStructsTypedefsAndPointerArraysAreFlattened) {
  const char* src = R"(
namespace ns { struct Inner { char c; double d; }; }
typedef struct { short s; ns::Inner in; float* ptrs[2]; } Outer;
)";
  const auto r = ex::record_layout(src, "Outer");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->error, "");
  EXPECT_EQ(r->size, 40u);
  EXPECT_EQ(field(*r, "in.c")->offset, 8u);
  EXPECT_EQ(field(*r, "in.d")->offset, 16u);
  EXPECT_EQ(field(*r, "ptrs[0]")->offset, 24u);
  EXPECT_EQ(field(*r, "ptrs[1]")->kind, ex::RecordField::Kind::Pointer);
  EXPECT_FALSE(ex::record_layout(src, "Missing"));
}

TEST(RecordLayout, WhatCannotBeLaidOutIsSaidWithItsLine) {
  const auto bits = ex::record_layout("struct B {\n  int a : 3;\n};", "B");
  ASSERT_TRUE(bits);
  EXPECT_EQ(bits->error, "line 2: a bit-field member ('a')");
  const auto unknown = ex::record_layout("struct U { Foo f; };", "U");
  ASSERT_TRUE(unknown);
  EXPECT_NE(unknown->error.find("'Foo' is not defined"), std::string::npos) << unknown->error;
}

TEST(VariableLayout, ConstantArraysAndPointers) {
  const char* src = R"(
__constant__ int strides[4];
__constant__ const int* table;
__device__ float a, b[3];
__device__ int f(int x) { return x; }
)";
  const auto s = ex::variable_layout(src, "strides");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->fields.size(), 1u);
  EXPECT_EQ(s->fields[0].count, 4u);
  const auto t = ex::variable_layout(src, "table");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->fields[0].kind, ex::RecordField::Kind::Pointer);
  const auto b = ex::variable_layout(src, "b");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->fields[0].offset, 0u);
  EXPECT_EQ(b->fields[0].count, 3u);
  EXPECT_FALSE(ex::variable_layout(src, "f"));
}

// ---- names and values -------------------------------------------------------------------

TEST(ArgAssignment, FieldPathsAndValueLists) {
  EXPECT_EQ(bc::parse_arg_assignment("p.n=4096", "--arg").first, "p.n");
  EXPECT_EQ(bc::parse_arg_assignment("p.inner.ptrs[1]=random", "--arg").first, "p.inner.ptrs[1]");
  EXPECT_EQ(bc::parse_arg_assignment("p.w=1,2,3", "--arg").second, "1,2,3");
  // A list only for a field; a bad element is located.
  EXPECT_THROW(bc::parse_arg_assignment("n=1,2", "--arg"), bc::DriverError);
  try {
    bc::parse_arg_assignment("p.w=1,x,3", "--arg");
    ADD_FAILURE();
  } catch (const bc::DriverError& e) {
    EXPECT_NE(std::string(e.what()).find("'x' is not a value"), std::string::npos) << e.what();
  }
  EXPECT_THROW(bc::parse_arg_assignment("p.=1", "--arg"), bc::DriverError);
  EXPECT_THROW(bc::parse_arg_assignment("p[x]=1", "--arg"), bc::DriverError);
}

TEST(VarAssignment, NamesValuesAndComments) {
  EXPECT_EQ(bc::parse_var_assignment("ns::table=random:4K", "--var").first, "ns::table");
  EXPECT_EQ(bc::parse_var_assignment("strides=1,33,2,4", "--var").second, "1,33,2,4");
  EXPECT_THROW(bc::parse_var_assignment("=1", "--var"), bc::DriverError);
  EXPECT_THROW(bc::parse_var_assignment("a::=1", "--var"), bc::DriverError);
  const auto c = bc::parse_launch_comments(
      "// bankcheck: grid=1 block=32 var=strides=1,33 var=t=zeros\n", "f.cu");
  ASSERT_EQ(c.size(), 1u);
  ASSERT_EQ(c[0].vars.size(), 2u);
  EXPECT_EQ(c[0].vars[0].second, "1,33");
  // Flags win by name.
  bc::LaunchSettings flags;
  flags.vars = {{"strides", "2,2"}};
  EXPECT_EQ(bc::merge(flags, c[0]).vars[0].second, "2,2");
}

// ---- bankcheck check ----------------------------------------------------------------------

json check_json(std::vector<std::string> args, int want_exit = 0) {
  args.insert(args.begin(), "check");
  args.push_back("--format");
  args.push_back("json");
  const auto r = run_tool(args);
  EXPECT_EQ(r.exit_code, want_exit) << r.err;
  return r.exit_code == 0 ? json::parse(r.out)["files"][0] : json();
}

std::uint64_t excess(const json& j) {
  std::uint64_t w = 0, i = 0;
  for (const auto& k : j["kernels"])
    for (const auto& s : k["sites"])
      if (s["space"] == "shared") {
        w += s["wavefronts"].get<std::uint64_t>();
        i += s["ideal_wavefronts"].get<std::uint64_t>();
      }
  return w - i;
}

std::string notes(const json& j) {
  std::string out;
  for (const auto& k : j["kernels"])
    for (const auto& n : k["notes"]) out += n["message"].get<std::string>() + "\n";
  return out;
}

TEST(CheckInputs, StructParameterByFields) {
  const std::string cu = data("struct_param.cu");
  // w[1] = 2: a stride of 2 words, 2-way; w[1] = 1: none.
  const json two = check_json({cu, "--grid", "4", "--block", "256", "--arg", "p.n=1024", "--arg",
                               "p.in=random", "--arg", "p.scale=2", "--arg", "p.w=0,2,0,0"});
  const json one = check_json(
      {cu, "--grid", "4", "--block", "256", "--arg", "p.n=1024", "--arg", "p.w=0,1,0,0"});
  EXPECT_GT(excess(two), 0u);
  EXPECT_EQ(excess(one), 0u);
  // The fields not given are listed as defaulted; the pointers got buffers.
  bool out_defaulted = false, scale_defaulted = false;
  for (const auto& a : one["kernels"][0]["args"]) {
    if (a["name"] == "p.out") out_defaulted = a["defaulted"] && a.contains("bytes");
    if (a["name"] == "p.scale") scale_defaulted = a["defaulted"].get<bool>();
  }
  EXPECT_TRUE(out_defaulted);
  EXPECT_TRUE(scale_defaulted);
}

TEST(CheckInputs, StructParameterErrors) {
  const std::string cu = data("struct_param.cu");
  auto r = run_tool({"check", cu, "--grid", "1", "--block", "32", "--arg", "p.count=4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("struct Params has no field 'count' (its fields: n, in, out, scale, w[4])"),
            std::string::npos)
      << r.err;
  r = run_tool({"check", cu, "--grid", "1", "--block", "32"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing argument p (Params, 48 bytes)"), std::string::npos) << r.err;
  r = run_tool({"check", cu, "--grid", "1", "--block", "32", "--arg", "p.w=1,2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("2 values for 4 elements"), std::string::npos) << r.err;
  // The bytes of a file: exactly the struct's size.
  const std::string bin = "/tmp/bankcheck_inputs_" + std::to_string(getpid()) + ".bin";
  std::ofstream(bin, std::ios::binary) << std::string(40, '\0');
  r = run_tool({"check", cu, "--grid", "1", "--block", "32", "--arg", "p=@" + bin});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has 40 bytes, but p (Params) is 48 bytes"), std::string::npos) << r.err;
  std::ofstream(bin, std::ios::binary) << std::string(48, '\0');
  r = run_tool({"check", cu, "--grid", "1", "--block", "32", "--arg", "p=@" + bin});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::remove(bin.c_str());
}

TEST(CheckInputs, DynamicSharedMemoryMustBeSized) {
  const std::string cu = data("dynamic_smem.cu");
  auto r = run_tool({"check", cu, "--grid", "2", "--block", "128"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("dynamic_smem.cu:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernel stage: the size of its dynamic shared memory (extern __shared__ "
                       "buf) is unknown"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--smem BYTES"), std::string::npos) << r.err;
  r = run_tool({"check", cu, "--grid", "2", "--block", "128", "--smem", "512"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(CheckInputs, ConstantTableByValues) {
  const std::string cu = data("const_table.cu");
  // strides[1] = 32: every thread in one bank (32-way); 33: none.
  const json bad = check_json(
      {cu, "--grid", "1", "--block", "32", "--var", "strides=0,32,0,0", "--var", "scale_factor=1"});
  const json good = check_json({cu, "--grid", "1", "--block", "32", "--var", "strides=0,33,0,0"});
  EXPECT_EQ(excess(bad), 31u);
  EXPECT_EQ(excess(good), 0u);
  int variables = 0;
  for (const auto& a : bad["kernels"][0]["args"])
    if (a["name"] == "strides" || a["name"] == "scale_factor")
      variables += a.value("variable", false) ? 1 : 0;
  EXPECT_EQ(variables, 2);
  auto r = run_tool({"check", cu, "--grid", "1", "--block", "32", "--var", "strides=1,2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("2 values for 4 elements"), std::string::npos) << r.err;
  r = run_tool({"check", cu, "--grid", "1", "--block", "32", "--var", "stride=1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no __constant__ or __device__ variable 'stride' (its variables: "),
            std::string::npos)
      << r.err;
}

TEST(CheckInputs, ConstantPointerGetsABufferNeverAddressZero) {
  const std::string cu = data("const_pointer.cu");
  // Not given: a buffer of zeros, said so, and the note on the data-dependent address.
  const auto r = run_tool({"check", cu, "--grid", "1", "--block", "32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("variable table: zeros ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("depends on data loaded from table (zeros by default)"), std::string::npos)
      << r.out;
  // Given: iota makes lane i read i, no conflict and no note.
  const json j = check_json({cu, "--grid", "1", "--block", "32", "--var", "table=iota:4K"});
  EXPECT_EQ(excess(j), 0u);
  EXPECT_EQ(notes(j), "");
}

TEST(CheckInputs, HistogramOnZerosIsNotedAndRandomDataConflicts) {
  const std::string cu = data("histogram.cu");
  const json zeros = check_json({cu, "--grid", "16", "--block", "256", "--arg", "n=4096"});
  EXPECT_NE(notes(zeros).find("depends on data loaded from data (zeros by default)"),
            std::string::npos)
      << notes(zeros);
  EXPECT_NE(notes(zeros).find("--arg data=random"), std::string::npos);
  const json random =
      check_json({cu, "--grid", "16", "--block", "256", "--arg", "n=4096", "--arg", "data=random"});
  EXPECT_EQ(notes(random).find("depends on data"), std::string::npos) << notes(random);
  EXPECT_GT(excess(random), excess(zeros));
  // SARIF carries it as a result.
  const auto s = run_tool(
      {"check", cu, "--grid", "16", "--block", "256", "--arg", "n=4096", "--format", "sarif"});
  EXPECT_NE(s.out.find("depends on data loaded from data"), std::string::npos);
}

}  // namespace
