// Tests of the `check` driver pieces: launch value parsers, `// bankcheck:` comments, merging
// flags over comments, kernel-name demangling and matching (mangled names observed from
// nvcc 13.0 -ptx), parameter names from source, and running a real nvcc (skipped when none).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/driver/launch.hpp"
#include "bankcheck/driver/nvcc.hpp"

namespace bc = bankcheck::driver;
namespace fs = std::filesystem;
using bc::ArgValue;
using bc::Dim3;
using bc::DriverError;
using bc::LaunchSettings;

namespace {

// The message of the DriverError that `f` throws ("" and a test failure if none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const DriverError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no DriverError thrown";
  return "";
}

#define EXPECT_ERROR_STARTS(expr, prefix)                         \
  do {                                                            \
    std::string msg_ = error_of([&] { (void)(expr); });           \
    EXPECT_TRUE(msg_.starts_with(prefix)) << "message: " << msg_; \
  } while (0)

#define EXPECT_ERROR_HAS(expr, part)                                      \
  do {                                                                    \
    std::string msg_ = error_of([&] { (void)(expr); });                   \
    EXPECT_NE(msg_.find(part), std::string::npos) << "message: " << msg_; \
  } while (0)

// ---------------------------------------------------------------- dim3, bytes, blocks

TEST(Dim3, OneTwoThreeComponents) {
  EXPECT_EQ(bc::parse_dim3("128", "--block"), (Dim3{128, 1, 1}));
  EXPECT_EQ(bc::parse_dim3("32,8", "--block"), (Dim3{32, 8, 1}));
  EXPECT_EQ(bc::parse_dim3("4,2,3", "--grid"), (Dim3{4, 2, 3}));
  EXPECT_EQ(bc::parse_dim3("4294967295", "--grid"), (Dim3{4294967295u, 1, 1}));
}

TEST(Dim3, BadInputNamesWhereAndWhat) {
  EXPECT_ERROR_STARTS(bc::parse_dim3("", "--grid"), "--grid: missing dimension");
  EXPECT_ERROR_STARTS(bc::parse_dim3("0", "--grid"), "--grid: dimension x is 0");
  EXPECT_ERROR_STARTS(bc::parse_dim3("4,0", "--grid"), "--grid: dimension y is 0");
  EXPECT_ERROR_STARTS(bc::parse_dim3("32,", "--block"), "--block: missing dimension");
  EXPECT_ERROR_STARTS(bc::parse_dim3(",32", "--block"), "--block: missing dimension");
  EXPECT_ERROR_STARTS(bc::parse_dim3("1,2,3,4", "--block"),
                      "--block: '1,2,3,4' has more than three");
  EXPECT_ERROR_STARTS(bc::parse_dim3("-1", "k.cu:3:20"), "k.cu:3:20: '-1' is not a positive");
  EXPECT_ERROR_STARTS(bc::parse_dim3("32x8", "--block"), "--block: '32x8' is not a positive");
  EXPECT_ERROR_STARTS(bc::parse_dim3("0x20", "--block"), "--block: '0x20' is not a positive");
  EXPECT_ERROR_STARTS(bc::parse_dim3("4294967296", "--grid"), "--grid: '4294967296' is too large");
  EXPECT_ERROR_STARTS(bc::parse_dim3(" 4", "--grid"), "--grid: ' 4' is not");
}

TEST(Dim3, LaunchLimits) {
  EXPECT_NO_THROW(bc::check_block({1024, 1, 1}, "--block"));
  EXPECT_NO_THROW(bc::check_block({32, 32, 1}, "--block"));
  EXPECT_NO_THROW(bc::check_block({1, 16, 64}, "--block"));
  EXPECT_ERROR_STARTS(bc::check_block({1025, 1, 1}, "--block"), "--block: block x is 1025");
  EXPECT_ERROR_STARTS(bc::check_block({1, 1, 65}, "--block"), "--block: block z is 65");
  EXPECT_ERROR_STARTS(bc::check_block({64, 32, 1}, "--block"), "--block: block of 64x32x1 = 2048");
  EXPECT_NO_THROW(bc::check_grid({2147483647u, 65535, 65535}, "--grid"));
  EXPECT_ERROR_STARTS(bc::check_grid({2147483648u, 1, 1}, "--grid"), "--grid: grid x is");
  EXPECT_ERROR_STARTS(bc::check_grid({1, 65536, 1}, "--grid"), "--grid: grid y is 65536");
}

TEST(Bytes, SuffixesAre1024Based) {
  EXPECT_EQ(bc::parse_bytes("0", "--smem"), 0u);
  EXPECT_EQ(bc::parse_bytes("4096", "--smem"), 4096u);
  EXPECT_EQ(bc::parse_bytes("48K", "--smem"), 48u * 1024);
  EXPECT_EQ(bc::parse_bytes("48k", "--smem"), 48u * 1024);
  EXPECT_EQ(bc::parse_bytes("2M", "--smem"), 2u << 20);
  EXPECT_EQ(bc::parse_bytes("3G", "--smem"), 3ull << 30);
  EXPECT_ERROR_STARTS(bc::parse_bytes("", "--smem"), "--smem: '' is not a byte count");
  EXPECT_ERROR_STARTS(bc::parse_bytes("K", "--smem"), "--smem: 'K' is not a byte count");
  EXPECT_ERROR_STARTS(bc::parse_bytes("4KB", "--smem"), "--smem: '4KB' is not a byte count");
  EXPECT_ERROR_STARTS(bc::parse_bytes("-4", "--smem"), "--smem: '-4' is not a byte count");
  EXPECT_ERROR_STARTS(bc::parse_bytes("1.5K", "--smem"), "--smem: '1.5K' is not");
  EXPECT_ERROR_STARTS(bc::parse_bytes("17179869184G", "--smem"),
                      "--smem: '17179869184G' is too large");
  EXPECT_ERROR_STARTS(bc::parse_bytes("99999999999999999999", "--smem"),
                      "--smem: '99999999999999999999' is too large");
}

TEST(Blocks, AllOrPositiveCount) {
  EXPECT_EQ(bc::parse_blocks("all", "--blocks"), (bc::BlockSelection{true, 0}));
  EXPECT_EQ(bc::parse_blocks("1", "--blocks"), (bc::BlockSelection{false, 1}));
  EXPECT_EQ(bc::parse_blocks("16", "--blocks"), (bc::BlockSelection{false, 16}));
  EXPECT_ERROR_STARTS(bc::parse_blocks("0", "--blocks"), "--blocks: 0 blocks");
  EXPECT_ERROR_STARTS(bc::parse_blocks("ALL", "--blocks"),
                      "--blocks: 'ALL' is not 'all' or a positive count");
  EXPECT_ERROR_STARTS(bc::parse_blocks("-2", "--blocks"), "--blocks: '-2' is not");
  EXPECT_ERROR_STARTS(bc::parse_blocks("", "--blocks"), "--blocks: '' is not");
}

// ---------------------------------------------------------------- argument values

TEST(ArgValue, Integers) {
  auto i = [](std::string_view t) {
    ArgValue a = bc::parse_arg_value(t, "--arg n");
    EXPECT_EQ(a.kind, ArgValue::Kind::Integer) << t;
    return a.i;
  };
  EXPECT_EQ(i("0"), 0);
  EXPECT_EQ(i("1024"), 1024);
  EXPECT_EQ(i("-1"), -1);
  EXPECT_EQ(i("+7"), 7);
  EXPECT_EQ(i("0x1F"), 31);
  EXPECT_EQ(i("0XfF"), 255);
  EXPECT_EQ(i("-0x10"), -16);
  EXPECT_EQ(i("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(i("-9223372036854775808"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(i("0xFFFFFFFFFFFFFFFF"), -1);  // the bit pattern of a uint64 all-ones
  EXPECT_EQ(i("-0x8000000000000000"), std::numeric_limits<std::int64_t>::min());
  EXPECT_ERROR_STARTS(bc::parse_arg_value("9223372036854775808", "--arg n"),
                      "--arg n: '9223372036854775808' does not fit in a 64-bit signed integer");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("0x10000000000000000", "--arg n"),
                      "--arg n: '0x10000000000000000' does not fit in 64 bits");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("0x1G", "--arg n"),
                      "--arg n: '0x1G' is not a hex integer");
}

TEST(ArgValue, Floats) {
  auto f = [](std::string_view t) {
    ArgValue a = bc::parse_arg_value(t, "--arg x");
    EXPECT_EQ(a.kind, ArgValue::Kind::Float) << t;
    return a.f;
  };
  EXPECT_DOUBLE_EQ(f("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(f("-1.5"), -1.5);
  EXPECT_DOUBLE_EQ(f(".5"), 0.5);
  EXPECT_DOUBLE_EQ(f("5."), 5.0);
  EXPECT_DOUBLE_EQ(f("1e-3"), 1e-3);
  EXPECT_DOUBLE_EQ(f("1E3"), 1000.0);
  EXPECT_DOUBLE_EQ(f("2.0f"), 2.0);
  EXPECT_DOUBLE_EQ(f("2.5F"), 2.5);
  EXPECT_DOUBLE_EQ(f("2f"), 2.0);
  EXPECT_DOUBLE_EQ(f("+0.25"), 0.25);
  EXPECT_TRUE(std::isinf(f("-inf")));
  EXPECT_TRUE(std::isnan(f("nan")));
  EXPECT_ERROR_STARTS(bc::parse_arg_value("1.5.2", "--arg x"),
                      "--arg x: '1.5.2' is not a value; expected an integer");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("1e", "--arg x"), "--arg x: '1e' is not a value");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("f", "--arg x"), "--arg x: 'f' is not a value");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("-", "--arg x"), "--arg x: '-' is not a value");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("++1", "--arg x"), "--arg x: '++1' is not a value");
}

TEST(ArgValue, Buffers) {
  ArgValue z = bc::parse_arg_value("zeros", "--arg in");
  EXPECT_EQ(z.kind, ArgValue::Kind::Buffer);
  EXPECT_EQ(z.fill, ArgValue::Fill::Zeros);
  EXPECT_FALSE(z.bytes.has_value());

  ArgValue r = bc::parse_arg_value("random:4K", "--arg in");
  EXPECT_EQ(r.kind, ArgValue::Kind::Buffer);
  EXPECT_EQ(r.fill, ArgValue::Fill::Random);
  EXPECT_EQ(r.bytes, 4096u);

  ArgValue io = bc::parse_arg_value("iota:1M", "--arg in");
  EXPECT_EQ(io.fill, ArgValue::Fill::Iota);
  EXPECT_EQ(io.bytes, 1u << 20);
  EXPECT_EQ(bc::parse_arg_value("zeros:100", "--arg in").bytes, 100u);

  ArgValue file = bc::parse_arg_value("@data/in.bin", "--arg in");
  EXPECT_EQ(file.kind, ArgValue::Kind::Buffer);
  EXPECT_EQ(file.fill, ArgValue::Fill::File);
  EXPECT_EQ(file.path, "data/in.bin");
  // Not checked for existence here.
  EXPECT_EQ(bc::parse_arg_value("@/no/such/file", "--arg in").path, "/no/such/file");

  EXPECT_ERROR_STARTS(bc::parse_arg_value("@", "--arg in"), "--arg in: '@' needs a file name");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("zeros:", "--arg in"),
                      "--arg in: '' is not a byte count");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("zeros:0", "--arg in"), "--arg in: a buffer of 0 bytes");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("random:4X", "--arg in"),
                      "--arg in: '4X' is not a byte count");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("zero", "--arg in"),
                      "--arg in: 'zero' is not a value; expected an integer (42, -1, 0x10, 16M), a "
                      "float (1.5, 1e-3, 2.0f), a buffer (zeros, random or iota, optionally "
                      ":BYTES such as zeros:4K), @FILE or null");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("ones:4K", "--arg in"),
                      "--arg in: 'ones:4K' is not a value");
  EXPECT_ERROR_STARTS(bc::parse_arg_value("", "--arg in"), "--arg in: empty value; expected");
}

TEST(ArgValue, Assignment) {
  EXPECT_EQ(bc::parse_arg_assignment("n=1024", "--arg"),
            (std::pair<std::string, std::string>{"n", "1024"}));
  EXPECT_EQ(bc::parse_arg_assignment("in_=random:4K", "--arg"),
            (std::pair<std::string, std::string>{"in_", "random:4K"}));
  EXPECT_EQ(bc::parse_arg_assignment("p=@a=b.bin", "--arg"),
            (std::pair<std::string, std::string>{"p", "@a=b.bin"}));
  EXPECT_ERROR_STARTS(bc::parse_arg_assignment("n", "--arg"), "--arg: 'n' is not NAME=VALUE");
  EXPECT_ERROR_STARTS(bc::parse_arg_assignment("=3", "--arg"), "--arg: '' is not a parameter name");
  EXPECT_ERROR_STARTS(bc::parse_arg_assignment("2n=3", "--arg"),
                      "--arg: '2n' is not a parameter name");
  EXPECT_ERROR_STARTS(bc::parse_arg_assignment("n=x", "--arg"), "--arg: 'x' is not a value");
}

// ---------------------------------------------------------------- launch comments

TEST(LaunchComments, AllKeys) {
  const char* src =
      "#include <cstdio>\n"
      "// bankcheck: kernel=transpose grid=32,32 block=32,8 smem=4K arg=n=1024 "
      "arg=in=random:4M blocks=4\n"
      "__global__ void transpose(const float* in, float* out, int n) {}\n";
  auto all = bc::parse_launch_comments(src, "t.cu");
  ASSERT_EQ(all.size(), 1u);
  const LaunchSettings& s = all[0];
  EXPECT_EQ(s.kernel, "transpose");
  EXPECT_EQ(s.grid, (Dim3{32, 32, 1}));
  EXPECT_EQ(s.block, (Dim3{32, 8, 1}));
  EXPECT_EQ(s.smem, 4096u);
  ASSERT_EQ(s.args.size(), 2u);
  EXPECT_EQ(s.args[0], (std::pair<std::string, std::string>{"n", "1024"}));
  EXPECT_EQ(s.args[1], (std::pair<std::string, std::string>{"in", "random:4M"}));
  EXPECT_EQ(s.blocks, "4");
  EXPECT_EQ(s.line, 2);
  EXPECT_EQ(s.col, 1);
  EXPECT_EQ(s.kernel_col, 22);
}

TEST(LaunchComments, SeveralKernelsTrailingAndSpacing) {
  const char* src =
      "__global__ void a(int* p) {}  // bankcheck: kernel=a block=64\r\n"
      "\n"
      "//bankcheck:\tkernel=b   grid=2  blocks=all\r\n"
      "// ordinary comment mentioning bankcheck: nothing\n"
      "//   bankcheck: kernel=ns::c<int> blocks=007\n"
      "const char* s = \"x\"; /* bankcheck: not a line comment */\n";
  auto all = bc::parse_launch_comments(src, "m.cu");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].kernel, "a");
  EXPECT_EQ(all[0].block, (Dim3{64, 1, 1}));
  EXPECT_FALSE(all[0].grid.has_value());
  EXPECT_EQ(all[0].line, 1);
  EXPECT_EQ(all[0].col, 31);
  EXPECT_EQ(all[1].kernel, "b");
  EXPECT_EQ(all[1].grid, (Dim3{2, 1, 1}));
  EXPECT_EQ(all[1].blocks, "all");
  EXPECT_EQ(all[1].line, 3);
  EXPECT_EQ(all[2].kernel, "ns::c<int>");
  EXPECT_EQ(all[2].blocks, "7");  // normalised
  EXPECT_EQ(all[2].line, 5);
  EXPECT_TRUE(bc::parse_launch_comments("int x;\n// plain\n", "e.cu").empty());
  EXPECT_TRUE(bc::parse_launch_comments("", "e.cu").empty());
}

TEST(LaunchComments, ClusterAndCooperative) {
  const auto cs = bc::parse_launch_comments(
      "// bankcheck: kernel=k grid=8 block=64 cluster=2,1 cooperative=1\n", "k.cu");
  ASSERT_EQ(cs.size(), 1u);
  ASSERT_TRUE(cs[0].cluster.has_value());
  EXPECT_EQ(cs[0].cluster->x, 2u);
  EXPECT_EQ(cs[0].cluster->y, 1u);
  EXPECT_EQ(cs[0].cooperative, std::optional<bool>(true));
  // Flags win over the comment, field by field.
  bc::LaunchSettings flags;
  flags.cooperative = false;
  const bc::LaunchSettings m = bc::merge(flags, cs[0]);
  EXPECT_EQ(m.cooperative, std::optional<bool>(false));
  EXPECT_EQ(m.cluster->x, 2u);
}

TEST(LaunchComments, ErrorPositions) {
  auto err = [](std::string_view src) {
    return error_of([&] { bc::parse_launch_comments(src, "k.cu"); });
  };
  // Columns are 1-based bytes at the offending key or value (or part of a value).
  EXPECT_EQ(err("int x;\n// bankcheck: kernel=k gird=4\n"),
            "k.cu:2:24: unknown key 'gird'; expected kernel, grid, block, smem, arg, var, blocks, "
            "cluster or cooperative");
  EXPECT_EQ(err("// bankcheck: grid=4 block\n"),
            "k.cu:1:22: missing '=' in 'block'; expected key=value (kernel=, grid=, block=, "
            "smem=, arg=, var=, blocks=, cluster=, cooperative=)");
  EXPECT_EQ(err("// bankcheck: grid=4,x\n"),
            "k.cu:1:22: 'x' is not a positive integer (expected X[,Y[,Z]])");
  EXPECT_EQ(err("// bankcheck: grid=4,0\n"),
            "k.cu:1:22: dimension y is 0; dimensions are positive");
  EXPECT_EQ(err("// bankcheck: block=2048\n"),
            "k.cu:1:21: block x is 2048; CUDA allows at most 1024");
  EXPECT_EQ(err("\n\n   // bankcheck: smem=12Q\n"),
            "k.cu:3:23: '12Q' is not a byte count (expected digits with an optional K, M or G "
            "suffix, e.g. 4096 or 48K)");
  EXPECT_EQ(err("// bankcheck: arg=n=abc\n"),
            "k.cu:1:21: 'abc' is not a value; expected an integer (42, -1, 0x10, 16M), a float "
            "(1.5, 1e-3, 2.0f), a buffer (zeros, random or iota, optionally :BYTES such as "
            "zeros:4K), @FILE or null");
  EXPECT_EQ(err("// bankcheck: arg=in=zeros:4X\n"),
            "k.cu:1:28: '4X' is not a byte count (expected "
            "digits with an optional K, M or G suffix, e.g. 4096 or 48K)");
  EXPECT_EQ(err("// bankcheck: arg=n\n"),
            "k.cu:1:19: 'n' is not NAME=VALUE (e.g. n=1024 or in=random:4K)");
  EXPECT_EQ(err("// bankcheck: blocks=0\n"),
            "k.cu:1:22: 0 blocks; expected 'all' or a positive count");
  EXPECT_EQ(err("// bankcheck: grid=\n"), "k.cu:1:20: missing value after 'grid='");
  EXPECT_EQ(err("// bankcheck: =4\n"), "k.cu:1:15: missing key before '=' in '=4'");
  EXPECT_EQ(err("// bankcheck: grid=4 grid=8\n"), "k.cu:1:22: 'grid' given twice in one comment");
  EXPECT_EQ(err("// bankcheck: arg=n=1 arg=n=2\n"),
            "k.cu:1:27: argument 'n' given twice in one comment");
  EXPECT_EQ(err("// bankcheck:   \n"),
            "k.cu:1:1: empty launch comment; expected key=value items (kernel=, grid=, block=, "
            "smem=, arg=, var=, blocks=, cluster=, cooperative=)");
  EXPECT_EQ(err("// bankcheck: cooperative=maybe\n"),
            "k.cu:1:27: cooperative=maybe: expected 1 or 0");
  EXPECT_EQ(err("// bankcheck: cluster=2,0\n"),
            "k.cu:1:25: dimension y is 0; dimensions are positive");
  EXPECT_EQ(err("// bankcheck: kernel=a grid=1\n// bankcheck: kernel=a grid=2\n"),
            "k.cu:2:22: a second launch comment for kernel 'a' (the first is at line 1); one "
            "comment per kernel");
  EXPECT_EQ(err("// bankcheck: grid=1\nint x; // bankcheck: grid=2\n"),
            "k.cu:2:8: a second launch comment without kernel= (the first is at line 1); name "
            "the kernel of each with kernel=NAME");
}

TEST(LaunchComments, ChoosingTheCommentForAKernel) {
  auto comments = bc::parse_launch_comments(
      "// bankcheck: kernel=reduce grid=4\n"
      "// bankcheck: kernel=ns::k<int> grid=8\n",
      "two.cu");
  auto r = bc::comment_for_kernel(comments, "_Z6reducePKfPfi", 2, "two.cu");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->grid, (Dim3{4, 1, 1}));
  auto k = bc::comment_for_kernel(comments, "_ZN2ns1kIiEEvPT_", 2, "two.cu");
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->grid, (Dim3{8, 1, 1}));
  EXPECT_FALSE(bc::comment_for_kernel(comments, "plain_c", 3, "two.cu").has_value());

  // Without kernel=: applies when the file has one kernel, an error when it has several.
  auto unnamed = bc::parse_launch_comments("\n  // bankcheck: block=32\n", "one.cu");
  EXPECT_EQ(bc::comment_for_kernel(unnamed, "_Z6reducePKfPfi", 1, "one.cu")->block,
            (Dim3{32, 1, 1}));
  EXPECT_EQ(error_of([&] { bc::comment_for_kernel(unnamed, "_Z6reducePKfPfi", 2, "one.cu"); }),
            "one.cu:2:3: this launch comment names no kernel, but the file has 2 kernels; add "
            "kernel=NAME");

  // Two spellings of one kernel.
  auto twice = bc::parse_launch_comments(
      "// bankcheck: kernel=k grid=1\n// bankcheck: kernel=ns::k<int> grid=2\n", "t.cu");
  EXPECT_EQ(error_of([&] { bc::comment_for_kernel(twice, "_ZN2ns1kIiEEvPT_", 1, "t.cu"); }),
            "t.cu:2:22: launch comments at lines 1 and 2 both name kernel void ns::k<int>(int*); "
            "keep one");

  // A kernel= that names nothing in the file.
  EXPECT_NO_THROW(
      bc::check_comment_kernels(comments, {"_Z6reducePKfPfi", "_ZN2ns1kIiEEvPT_"}, "two.cu"));
  EXPECT_EQ(error_of([&] {
              bc::check_comment_kernels(comments, {"_Z6reducePKfPfi", "plain_c"}, "two.cu");
            }),
            "two.cu:2:22: no kernel 'ns::k<int>' in this file; its kernels: reduce, plain_c");
}

// ---------------------------------------------------------------- merge

TEST(Merge, FlagsWinFieldByField) {
  LaunchSettings comment;
  comment.kernel = "k";
  comment.grid = Dim3{4, 1, 1};
  comment.block = Dim3{128, 1, 1};
  comment.smem = 1024;
  comment.blocks = "all";
  comment.args = {{"in", "random"}, {"n", "64"}, {"out", "zeros"}};
  comment.line = 7;
  comment.col = 1;
  comment.kernel_col = 22;

  LaunchSettings flags;
  flags.block = Dim3{256, 1, 1};
  flags.args = {{"scale", "2.0"}, {"n", "1024"}, {"bias", "1"}};

  LaunchSettings m = bc::merge(flags, comment);
  EXPECT_EQ(m.kernel, "k");
  EXPECT_EQ(m.grid, (Dim3{4, 1, 1}));
  EXPECT_EQ(m.block, (Dim3{256, 1, 1}));
  EXPECT_EQ(m.smem, 1024u);
  EXPECT_EQ(m.blocks, "all");
  EXPECT_EQ(m.line, 7);
  using A = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(
      m.args,
      (A{{"in", "random"}, {"n", "1024"}, {"out", "zeros"}, {"scale", "2.0"}, {"bias", "1"}}));

  flags.kernel = "other";
  flags.grid = Dim3{1, 2, 3};
  flags.smem = 0;
  flags.blocks = "2";
  m = bc::merge(flags, comment);
  EXPECT_EQ(m.kernel, "other");
  EXPECT_EQ(m.grid, (Dim3{1, 2, 3}));
  EXPECT_EQ(m.smem, 0u);  // an explicit 0 still wins
  EXPECT_EQ(m.blocks, "2");

  // No comment: the flags as they are.
  LaunchSettings alone = bc::merge(flags, LaunchSettings{});
  EXPECT_EQ(alone.args, flags.args);
  EXPECT_EQ(alone.line, 0);
  EXPECT_EQ(alone.block, flags.block);
}

// ---------------------------------------------------------------- kernel names

// Mangled names observed in `nvcc -ptx -arch=sm_90` (CUDA 13.0) output for:
//   __global__ void reduce(const float*, float*, int);
//   extern "C" __global__ void plain_c(int*);
//   struct Params {...}; __global__ void __launch_bounds__(256) withstruct(Params, float*
//   __restrict__); namespace ns { template <typename T> __global__ void k(T*); k<int>
//                  template <int N, typename T> __global__ void tile(T*, unsigned); tile<32, float>
//                  namespace inner { __global__ void deep(double*); } }
//   namespace { __global__ void anon(int*); }
//   __device__ int f(int); template <int (*F)(int)> __global__ void fp(int*); fp<f>
//   template <typename T, int N> struct Vec; template <typename T> __global__ void vk(Vec<T, 4>,
//   T*); vk<float>
//   __global__ void overloaded(int*); __global__ void overloaded(float*);
TEST(KernelNames, Demangle) {
  EXPECT_EQ(bc::demangle("_Z6reducePKfPfi"), "reduce(float const*, float*, int)");
  EXPECT_EQ(bc::demangle("plain_c"), "plain_c");
  EXPECT_EQ(bc::demangle("_Z10withstruct6ParamsPf"), "withstruct(Params, float*)");
  EXPECT_EQ(bc::demangle("_ZN2ns1kIiEEvPT_"), "void ns::k<int>(int*)");
  EXPECT_EQ(bc::demangle("_ZN2ns4tileILi32EfEEvPT0_j"),
            "void ns::tile<32, float>(float*, unsigned int)");
  EXPECT_EQ(bc::demangle("_ZN2ns5inner4deepEPd"), "ns::inner::deep(double*)");
  EXPECT_EQ(bc::demangle("_ZN37_GLOBAL__N__97dea1b5_5_k2_cu_a4fe15d74anonEPi"),
            "(anonymous namespace)::anon(int*)");
  EXPECT_EQ(bc::demangle("_Z2fpIXadL_Z1fiEEEvPi"), "void fp<&(f(int))>(int*)");
  EXPECT_EQ(bc::demangle("_Z2vkIfEv3VecIT_Li4EEPS1_"), "void vk<float>(Vec<float, 4>, float*)");
  // A static kernel under -rdc=true: nvcc's per-file prefix, then the mangled name.
  EXPECT_EQ(bc::demangle("__nv_static_25__cac1ee34_8_clock_cu_main__Z14timedReductionPKfPfPl"),
            "timedReduction(float const*, float*, long*)");
  EXPECT_EQ(bc::demangle("__nv_static_41__44e16ebe_19_simpleAttributes_cu_f352f5dd__"
                         "Z20kernCacheSegmentTestPiiS_ii"),
            "kernCacheSegmentTest(int*, int, int*, int, int)");
  EXPECT_EQ(bc::demangle("__nv_static_8__abc_plain"), "__nv_static_8__abc_plain");
  // Not mangled (or not valid): unchanged. A bare "i" is not read as the type int.
  EXPECT_EQ(bc::demangle("i"), "i");
  EXPECT_EQ(bc::demangle("_Zgarbage"), "_Zgarbage");
  EXPECT_EQ(bc::demangle(""), "");
}

TEST(KernelNames, BaseName) {
  EXPECT_EQ(bc::base_name("reduce(float const*, float*, int)"), "reduce");
  EXPECT_EQ(bc::base_name("void ns::k<int>(int*)"), "ns::k<int>");
  EXPECT_EQ(bc::base_name("void ns::tile<32, float>(float*, unsigned int)"), "ns::tile<32, float>");
  EXPECT_EQ(bc::base_name("ns::inner::deep(double*)"), "ns::inner::deep");
  EXPECT_EQ(bc::base_name("(anonymous namespace)::anon(int*)"), "(anonymous namespace)::anon");
  EXPECT_EQ(bc::base_name("void fp<&(f(int))>(int*)"), "fp<&(f(int))>");
  EXPECT_EQ(bc::base_name("void vk<float>(Vec<float, 4>, float*)"), "vk<float>");
  EXPECT_EQ(bc::base_name("plain_c"), "plain_c");
  EXPECT_EQ(bc::base_name("k()"), "k");
}

TEST(KernelNames, Matching) {
  const std::string reduce = "_Z6reducePKfPfi";
  for (const char* w : {"_Z6reducePKfPfi", "reduce(float const*, float*, int)", "reduce",
                        "reduce(float const *, float *, int)"})
    EXPECT_TRUE(bc::kernel_matches(reduce, w)) << w;
  for (const char* w : {"reduc", "reduce2", "Reduce", "", "reduce(const float*, float*, int)"})
    EXPECT_FALSE(bc::kernel_matches(reduce, w)) << w;

  const std::string k = "_ZN2ns1kIiEEvPT_";
  for (const char* w :
       {"_ZN2ns1kIiEEvPT_", "void ns::k<int>(int*)", "ns::k<int>", "ns::k", "k<int>", "k", " k "})
    EXPECT_TRUE(bc::kernel_matches(k, w)) << w;
  for (const char* w : {"ns", "k<float>", "ns::k<float>", "other::k", "ns::k<int>(float*)"})
    EXPECT_FALSE(bc::kernel_matches(k, w)) << w;

  const std::string tile = "_ZN2ns4tileILi32EfEEvPT0_j";
  for (const char* w : {"ns::tile<32, float>", "ns::tile<32,float>", "tile<32,float>", "tile",
                        "ns::tile", "void ns::tile<32, float>(float*, unsigned int)"})
    EXPECT_TRUE(bc::kernel_matches(tile, w)) << w;
  EXPECT_FALSE(bc::kernel_matches(tile, "tile<32>"));

  const std::string statik = "__nv_static_25__cac1ee34_8_clock_cu_main__Z14timedReductionPKfPfPl";
  for (const char* w : {"timedReduction", "timedReduction(float const*, float*, long*)",
                        "__nv_static_25__cac1ee34_8_clock_cu_main__Z14timedReductionPKfPfPl"})
    EXPECT_TRUE(bc::kernel_matches(statik, w)) << w;
  EXPECT_TRUE(bc::kernel_matches("_ZN2ns5inner4deepEPd", "deep"));
  EXPECT_TRUE(bc::kernel_matches("_ZN2ns5inner4deepEPd", "ns::inner::deep"));
  EXPECT_FALSE(bc::kernel_matches("_ZN2ns5inner4deepEPd", "inner::deep"));  // not a suffix match

  const std::string anon = "_ZN37_GLOBAL__N__97dea1b5_5_k2_cu_a4fe15d74anonEPi";
  EXPECT_TRUE(bc::kernel_matches(anon, "anon"));
  EXPECT_TRUE(bc::kernel_matches(anon, "(anonymous namespace)::anon"));

  EXPECT_TRUE(bc::kernel_matches("_Z2fpIXadL_Z1fiEEEvPi", "fp"));
  EXPECT_TRUE(bc::kernel_matches("_Z2fpIXadL_Z1fiEEEvPi", "fp<&(f(int))>"));
  EXPECT_TRUE(bc::kernel_matches("_Z2vkIfEv3VecIT_Li4EEPS1_", "vk"));
  EXPECT_TRUE(bc::kernel_matches("plain_c", "plain_c"));
  EXPECT_FALSE(bc::kernel_matches("plain_c", "plain"));

  // Overloads: the base name matches both; the signature picks one.
  EXPECT_TRUE(bc::kernel_matches("_Z10overloadedPi", "overloaded"));
  EXPECT_TRUE(bc::kernel_matches("_Z10overloadedPf", "overloaded"));
  EXPECT_TRUE(bc::kernel_matches("_Z10overloadedPf", "overloaded(float*)"));
  EXPECT_FALSE(bc::kernel_matches("_Z10overloadedPi", "overloaded(float*)"));
}

// ---------------------------------------------------------------- parameter names

using Names = std::vector<std::string>;

TEST(ParamNames, PlainAndQualified) {
  const char* src = "__global__ void reduce(const float* __restrict__ in, float* out, int n) {}\n";
  EXPECT_EQ(bc::kernel_param_names(src, "reduce"), (Names{"in", "out", "n"}));
  // Any form of the base name works; only the last component is compared.
  EXPECT_EQ(bc::kernel_param_names(src, "reduce(float const*, float*, int)"),
            (Names{"in", "out", "n"}));
  EXPECT_EQ(bc::kernel_param_names(src, "reduc"), Names{});
  // Overloads: the signature's types pick the definition (cv-qualifiers and restrict aside).
  const std::string overloads =
      "__global__ void f(const float* __restrict__ a, int n) {}\n"
      "__global__ void f(int* b, int m) {}\n";
  EXPECT_EQ(bc::kernel_param_names(overloads, "f"), Names{});  // ambiguous
  EXPECT_EQ(bc::kernel_param_names(overloads, "f(float const*, int)"), (Names{"a", "n"}));
  EXPECT_EQ(bc::kernel_param_names(overloads, "f(int*, int)"), (Names{"b", "m"}));
  EXPECT_EQ(bc::kernel_param_names("", "reduce"), Names{});
}

TEST(ParamNames, LaunchBoundsTemplatesLineBreaksComments) {
  const char* src = R"SRC(
#include <cuda_runtime.h>
#define N 32
// __global__ void tiled(int decoy) {}   (commented out)
/* __global__ void tiled(float decoy2) {} */
const char* doc = "__global__ void tiled(int in_a_string)";
namespace ns {
template <typename T, int TILE = 32>
__global__ void __launch_bounds__(256, 2)
tiled  (  const T*   __restrict__  src /* the input */,
          T  *dst,   // the output
          unsigned int rows = 4,
          std::size_t   cols = sizeof(T) < 8 ? 1 : 2,
          const Vec<T, 4>& v,
          float (&table)[4][4],
          void (*cb)(int, float),
          int pitch[TILE][TILE + 1])
{
  dst[0] = src[0];
}
template __global__ void tiled<float, 32>(const float*, float*, unsigned int, std::size_t,
                                          const Vec<float, 4>&, float (&)[4][4],
                                          void (*)(int, float), int[32][33]);
}  // namespace ns
)SRC";
  Names want = {"src", "dst", "rows", "cols", "v", "table", "cb", "pitch"};
  EXPECT_EQ(bc::kernel_param_names(src, "ns::tiled<float, 32>"), want);
  EXPECT_EQ(bc::kernel_param_names(src, "tiled"), want);
}

TEST(ParamNames, UnnamedParametersAndNoParameters) {
  EXPECT_EQ(bc::kernel_param_names("__global__ void k(int*, float x, const T, unsigned, "
                                   "Params, ns::Params, float* __restrict__, const size_t, "
                                   "unsigned long long, Vec<int, 2>, int[4]) {}",
                                   "k"),
            (Names{"", "x", "", "", "", "", "", "", "", "", ""}));
  EXPECT_EQ(bc::kernel_param_names("__global__ void k() {}", "k"), Names{});
  EXPECT_EQ(bc::kernel_param_names("__global__ void k(void) {}", "k"), Names{});
  EXPECT_EQ(
      bc::kernel_param_names("__global__ void k(__grid_constant__ const Params p, Args... rest, "
                             "[[maybe_unused]] int m, volatile int* __align__(16) q, int&& r) {}",
                             "k"),
      (Names{"p", "rest", "m", "q", "r"}));
}

TEST(ParamNames, StorageAndPlacementOfGlobal) {
  EXPECT_EQ(bc::kernel_param_names("extern \"C\" __global__ void plain_c(int* a) {}", "plain_c"),
            (Names{"a"}));
  EXPECT_EQ(bc::kernel_param_names("static void __global__ k(int a) {}", "k"), (Names{"a"}));
  EXPECT_EQ(bc::kernel_param_names("__global__ void ns::k(int a) {}", "ns::k"), (Names{"a"}));
  EXPECT_EQ(bc::kernel_param_names("namespace { __global__ void anon(int* p) {} }",
                                   "(anonymous namespace)::anon"),
            (Names{"p"}));
  // A __device__ function of the same name is not the kernel.
  EXPECT_EQ(bc::kernel_param_names(
                "__device__ void k(int wrong) {}\n__global__ void k(int right) {}", "k"),
            (Names{"right"}));
  // A raw string and a digit separator do not confuse the scan.
  EXPECT_EQ(bc::kernel_param_names("auto s = R\"x(__global__ void k(int no))x\"; int big = 1'000;\n"
                                   "__global__ void k(int yes) {}",
                                   "k"),
            (Names{"yes"}));
}

TEST(ParamNames, DeclarationsDefinitionsOverloads) {
  // The definition wins over a prototype with other (or no) names.
  EXPECT_EQ(bc::kernel_param_names("__global__ void k(float*, int);\n"
                                   "__global__ void k(float* data, int count) { }\n",
                                   "k"),
            (Names{"data", "count"}));
  // Prototypes only: they must agree; names fill in from whichever has them.
  EXPECT_EQ(bc::kernel_param_names("__global__ void k(float*, int n);\n"
                                   "__global__ void k(float* p, int);\n",
                                   "k"),
            (Names{"p", "n"}));
  EXPECT_EQ(
      bc::kernel_param_names("__global__ void k(float* a);\n__global__ void k(int* b);\n", "k"),
      Names{});
  // Overloads defined: ambiguous.
  EXPECT_EQ(bc::kernel_param_names("__global__ void overloaded(int* a) {}\n"
                                   "__global__ void overloaded(float* a) {}\n",
                                   "overloaded"),
            Names{});
  // A template with an explicit instantiation (no names) uses the definition.
  EXPECT_EQ(
      bc::kernel_param_names("template <typename T> __global__ void k(T* p) { p[0] = T(1); }\n"
                             "template __global__ void k<int>(int*);\n",
                             "ns::k<int>"),
      (Names{"p"}));
}

// ---------------------------------------------------------------- nvcc

// A scratch directory for one test, removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "bankcheck-driver-test-XXXXXX").string();
    EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
    path_ = pattern;
  }
  ~ScratchDir() { fs::remove_all(path_); }
  fs::path write(const std::string& name, const std::string& text) const {
    fs::path p = path_ / name;
    std::ofstream(p) << text;
    return p;
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The nvcc that find_nvcc picks, or "" (tests that need it skip).
std::string nvcc_or_empty() {
  try {
    return bc::find_nvcc("");
  } catch (const DriverError&) {
    return "";
  }
}

#define REQUIRE_NVCC()                      \
  const std::string nvcc = nvcc_or_empty(); \
  if (nvcc.empty()) GTEST_SKIP() << "no nvcc found";

TEST(Nvcc, Argv) {
  bc::NvccOptions o;
  o.input = "k.cu";
  o.arch = "sm_80";
  o.include_dirs = {"inc", "/opt/x y"};
  o.defines = {"N=4", "DEBUG"};
  o.extra = {"-std=c++17", "--use_fast_math"};
  EXPECT_EQ(
      bc::nvcc_argv(o, "/cuda/bin/nvcc", "/tmp/d/out.ptx"),
      (std::vector<std::string>{"/cuda/bin/nvcc", "-ptx", "-lineinfo", "-arch=sm_80", "-I", "inc",
                                "-I", "/opt/x y", "-D", "N=4", "-D", "DEBUG", "-std=c++17",
                                "--use_fast_math", "k.cu", "-o", "/tmp/d/out.ptx"}));
  o.input = "-odd.cu";
  EXPECT_EQ(bc::nvcc_argv(o, "nvcc", "o.ptx")[14], "./-odd.cu");
}

TEST(Nvcc, FindWithFlag) {
  ScratchDir dir;
  EXPECT_ERROR_STARTS(bc::find_nvcc("/no/such/nvcc"), "--nvcc: '/no/such/nvcc': No such file");
  EXPECT_ERROR_STARTS(bc::find_nvcc(dir.path().string() + "/"), "--nvcc: '");
  fs::path not_exec = dir.write("nvcc", "#!/bin/sh\n");
  fs::permissions(not_exec, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_ERROR_HAS(bc::find_nvcc(not_exec.string()), "is not executable");
  fs::permissions(not_exec, fs::perms::owner_all);
  EXPECT_EQ(bc::find_nvcc(not_exec.string()), not_exec.string());
  EXPECT_ERROR_STARTS(bc::find_nvcc("no-such-nvcc-anywhere"),
                      "--nvcc: 'no-such-nvcc-anywhere' is not on PATH");
}

TEST(Nvcc, FindWithoutFlagSaysHowToPointAtIt) {
  // With PATH and CUDA_* cleared, only /usr/local/cuda/bin/nvcc can be found.
  std::string old_path = getenv("PATH") ? getenv("PATH") : "";
  ::setenv("PATH", "/nonexistent", 1);
  const char* saved_home = getenv("CUDA_HOME");
  std::string old_home = saved_home ? saved_home : "";
  ::unsetenv("CUDA_HOME");
  std::string found;
  std::string message;
  try {
    found = bc::find_nvcc("");
  } catch (const DriverError& e) {
    message = e.what();
  }
  ::setenv("PATH", old_path.c_str(), 1);
  if (saved_home) ::setenv("CUDA_HOME", old_home.c_str(), 1);
  if (fs::exists("/usr/local/cuda/bin/nvcc")) {
    EXPECT_EQ(found, "/usr/local/cuda/bin/nvcc");
  } else {
    EXPECT_NE(message.find("pass --nvcc PATH"), std::string::npos) << message;
  }
}

TEST(Nvcc, CompilesAGoodKernelToPtxWithLineInfo) {
  REQUIRE_NVCC();
  ScratchDir dir;
  fs::path cu = dir.write("good.cu",
                          "#include \"tile.h\"\n"
                          "__global__ void reduce(const float* in, float* out, int n) {\n"
                          "  __shared__ float s[TILE];\n"
                          "  s[threadIdx.x] = in[threadIdx.x] * SCALE;\n"
                          "  __syncthreads();\n"
                          "  if (threadIdx.x == 0) out[0] = s[n % TILE];\n"
                          "}\n");
  fs::create_directory(dir.path() / "inc");
  dir.write("inc/tile.h", "#define TILE 64\n");
  bc::NvccOptions o;
  o.nvcc = nvcc;
  o.input = cu.string();
  o.include_dirs = {(dir.path() / "inc").string()};
  o.defines = {"SCALE=2.0f"};
  std::string diagnostics = "untouched";
  std::string ptx = bc::compile_to_ptx(o, &diagnostics);
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx.find(".entry _Z6reducePKfPfi("), std::string::npos);
  EXPECT_NE(ptx.find(".loc"), std::string::npos);  // -lineinfo
  EXPECT_NE(ptx.find("good.cu"), std::string::npos);
  EXPECT_NE(ptx.find("_ZZ6reducePKfPfiE1s[256]"), std::string::npos);  // TILE from -I
  EXPECT_EQ(diagnostics, "");

  // Another arch and an extra flag; the nvcc flag empty means "find one".
  o.nvcc = "";
  o.arch = "sm_80";
  o.extra = {"-std=c++17"};
  EXPECT_NE(bc::compile_to_ptx(o).find(".target sm_80"), std::string::npos);
}

TEST(Nvcc, PtxasIsFoundForAWrapperNvcc) {
  // An nvcc that is a script elsewhere (a site wrapper) has no ptxas beside it: the toolkit's
  // ptxas is found on PATH, and with none anywhere the message says where it looked.
  REQUIRE_NVCC();
  ScratchDir dir;
  const std::string real = nvcc;
  fs::path wrapper = dir.write("nvcc", "#!/bin/sh\nexec '" + real + "' \"$@\"\n");
  fs::permissions(wrapper, fs::perms::owner_all);
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n";
  std::string old_path = getenv("PATH") ? getenv("PATH") : "";
  ::setenv("PATH", (fs::path(real).parent_path().string() + ":" + old_path).c_str(), 1);
  std::string found_msg;
  try {
    EXPECT_FALSE(bc::assemble(ptx, "sm_90", wrapper.string()).cubin.empty());
  } catch (const DriverError& e) {
    found_msg = e.what();
  }
  ::setenv("PATH", "/nonexistent", 1);
  std::string missing_msg = error_of([&] { bc::assemble(ptx, "sm_90", wrapper.string()); });
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_EQ(found_msg, "");
  EXPECT_EQ(missing_msg, "ptxas not found (not beside nvcc '" + wrapper.string() +
                             "', not on PATH)");
}

TEST(Nvcc, SyntaxErrorCarriesNvccsMessage) {
  REQUIRE_NVCC();
  ScratchDir dir;
  fs::path cu = dir.write("bad.cu", "__global__ void k(int* a) { a[0] = ; }\n");
  bc::NvccOptions o;
  o.input = cu.string();
  std::string msg = error_of([&] { bc::compile_to_ptx(o); });
  EXPECT_TRUE(msg.starts_with("nvcc failed (exit 1):\n")) << msg;
  EXPECT_NE(msg.find("bad.cu(1): error: expected an expression"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 error detected in the compilation of"), std::string::npos) << msg;
}

TEST(Nvcc, BadFlagsAndUnknownArchReachTheUser) {
  REQUIRE_NVCC();
  ScratchDir dir;
  bc::NvccOptions o;
  o.input = dir.write("ok.cu", "__global__ void k(int* a) { a[0] = 1; }\n").string();
  o.arch = "sm_1";
  std::string msg = error_of([&] { bc::compile_to_ptx(o); });
  EXPECT_TRUE(msg.starts_with("nvcc failed (exit ")) << msg;
  EXPECT_NE(msg.find("sm_1"), std::string::npos) << msg;
}

TEST(Nvcc, LargeOutputDoesNotBlock) {
  REQUIRE_NVCC();
  ScratchDir dir;
  // ~3000 warnings, far more than a pipe buffer holds.
  std::string src;
  for (int i = 0; i < 3000; ++i)
    src += "#warning this is a long warning line that is here only to fill the output " +
           std::to_string(i) + "\n";
  src += "__global__ void k(int* a) { a[0] = 1; }\n";
  bc::NvccOptions o;
  o.input = dir.write("noisy.cu", src).string();
  std::string diagnostics;
  std::string ptx = bc::compile_to_ptx(o, &diagnostics);
  EXPECT_NE(ptx.find(".entry _Z1kPi"), std::string::npos);
  EXPECT_GT(diagnostics.size(), 64u * 1024);
  EXPECT_NE(diagnostics.find("output 2999"), std::string::npos);
}

TEST(Nvcc, MissingInputFile) {
  ScratchDir dir;
  bc::NvccOptions o;
  o.input = (dir.path() / "missing.cu").string();
  EXPECT_EQ(error_of([&] { bc::compile_to_ptx(o); }),
            o.input + ": cannot read: No such file or directory");
  o.input = dir.path().string();
  EXPECT_EQ(error_of([&] { bc::compile_to_ptx(o); }), o.input + ": cannot read: is a directory");
}

TEST(Nvcc, BogusNvccPath) {
  ScratchDir dir;
  bc::NvccOptions o;
  o.input = dir.write("ok.cu", "__global__ void k(int* a) { a[0] = 1; }\n").string();
  o.nvcc = "/definitely/not/nvcc";
  EXPECT_ERROR_STARTS(bc::compile_to_ptx(o), "--nvcc: '/definitely/not/nvcc': No such file");
  // An executable that is not nvcc and fails: its exit code and stderr come through.
  fs::path fake = dir.write("fake-nvcc", "#!/bin/sh\necho \"fake: $1 $2 $3\" >&2\nexit 3\n");
  fs::permissions(fake, fs::perms::owner_all);
  o.nvcc = fake.string();
  EXPECT_EQ(error_of([&] { bc::compile_to_ptx(o); }),
            "nvcc failed (exit 3):\nfake: -ptx -lineinfo -arch=sm_90\n");
  // An executable that cannot be run at all.
  fs::path junk = dir.write("junk-nvcc", "");
  fs::permissions(junk, fs::perms::owner_all);
  std::ofstream(junk, std::ios::binary) << std::string(
      "\x7f"
      "ELF\x01\x02",
      6);
  EXPECT_ERROR_STARTS(bc::compile_to_ptx((o.nvcc = junk.string(), o)),
                      "cannot run nvcc '" + junk.string() + "': ");
}

TEST(Nvcc, TemporaryFilesAreRemoved) {
  ScratchDir dir;
  fs::create_directory(dir.path() / "tmp");
  const char* saved = getenv("TMPDIR");
  std::string old = saved ? saved : "";
  ::setenv("TMPDIR", (dir.path() / "tmp").c_str(), 1);
  bc::NvccOptions o;
  o.input = dir.write("ok.cu", "__global__ void k(int* a) { a[0] = 1; }\n").string();
  fs::path fake = dir.write("fake-nvcc", "#!/bin/sh\nexit 2\n");
  fs::permissions(fake, fs::perms::owner_all);
  o.nvcc = fake.string();
  EXPECT_ERROR_STARTS(bc::compile_to_ptx(o), "nvcc failed (exit 2):\n");
  EXPECT_TRUE(fs::is_empty(dir.path() / "tmp"));
  if (!nvcc_or_empty().empty()) {
    o.nvcc = "";
    EXPECT_FALSE(bc::compile_to_ptx(o).empty());
    EXPECT_FALSE(fs::exists(dir.path() / "tmp") && !fs::is_empty(dir.path() / "tmp") && [&] {
      for (auto& e : fs::directory_iterator(dir.path() / "tmp"))
        if (e.path().filename().string().starts_with("bankcheck-nvcc-")) return true;
      return false;
    }());
  }
  if (saved)
    ::setenv("TMPDIR", old.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

}  // namespace
