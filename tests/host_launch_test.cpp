// Launches read from host code: the reader on small sources (constants, dim3, launchers,
// templates, cudaMalloc sizes, what it leaves unset), every missing setting said at once, and
// the examples under examples/app/ checked with no flags through the command line.
#include "bankcheck/driver/host_launch.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_tool.hpp"

namespace bc = bankcheck::driver;
using bankcheck::testing::run_tool;

namespace {

TEST(HostLaunch, ConstantsCeilDivAndMallocSizes) {
  const auto ls = bc::find_host_launches(R"(
#define THREADS 128
constexpr int N = 1000;
__global__ void k(float* p, int n, float a) {}
int main() {
  float* d; cudaMalloc(&d, N * sizeof(float));
  const int blocks = (N + THREADS - 1) / THREADS;
  k<<<blocks, THREADS, 64>>>(d, N, 1.5f);
})",
                                         "");
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].kernel, "k");
  ASSERT_TRUE(ls[0].grid && ls[0].block && ls[0].smem);
  EXPECT_EQ(*ls[0].grid, (bc::Dim3{8, 1, 1}));
  EXPECT_EQ(*ls[0].block, (bc::Dim3{128, 1, 1}));
  EXPECT_EQ(*ls[0].smem, 64u);
  ASSERT_EQ(ls[0].args.size(), 3u);
  EXPECT_EQ(ls[0].args[0].value, "zeros:4000");
  EXPECT_EQ(ls[0].args[1].value, "1000");
  EXPECT_EQ(ls[0].args[2].value, "1.5f");
  EXPECT_EQ(ls[0].line, 8);
}

TEST(HostLaunch, BoolTemplateArgumentsMatchTheirInstantiation) {
  // ldsm<false> demangles as "void ldsm<false>(...)"; a bool written as an expression
  // (SWZ > 0) evaluates to 1 and matches `true`.
  const auto ls = bc::find_host_launches(R"(
constexpr int SWZ = 1;
template <bool S> __global__ void ldsm(float* p) {}
int main() {
  float* d; cudaMalloc(&d, 4096);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(8);
  config.blockDim = dim3(128);
  cudaLaunchKernelEx(&config, ldsm<false>, d);
  ldsm<(SWZ > 0)><<<8, 128>>>(d);
})",
                                         "");
  ASSERT_EQ(ls.size(), 2u);
  EXPECT_EQ(ls[0].written(), "ldsm<false>");
  EXPECT_EQ(ls[1].written(), "ldsm<1>");  // the value of (SWZ > 0)
  EXPECT_TRUE(bc::launch_matches(ls[0], "_Z4ldsmILb0EEvPf"));
  EXPECT_FALSE(bc::launch_matches(ls[0], "_Z4ldsmILb1EEvPf"));
  EXPECT_TRUE(bc::launch_matches(ls[1], "_Z4ldsmILb1EEvPf"));
  EXPECT_FALSE(bc::launch_matches(ls[1], "_Z4ldsmILb0EEvPf"));
}

TEST(HostLaunch, LauncherCalledTwiceIsTwoLaunchesWithTheirArguments) {
  const auto ls = bc::find_host_launches(R"(
template <int B> __global__ void r(int n) {}
template <int B> void run(int n) { dim3 g((n + B - 1) / B); r<B><<<g, B>>>(n); }
int main() { run<64>(640); run<128>(128 * 3); }
)",
                                         "");
  ASSERT_EQ(ls.size(), 2u);
  EXPECT_EQ(ls[0].written(), "r<64>");
  EXPECT_EQ(*ls[0].grid, (bc::Dim3{10, 1, 1}));
  EXPECT_EQ(ls[1].written(), "r<128>");
  EXPECT_EQ(*ls[1].grid, (bc::Dim3{3, 1, 1}));
  EXPECT_EQ(ls[1].args[0].value, "384");
  EXPECT_NE(ls[1].via.find("called from main"), std::string::npos);
}

TEST(HostLaunch, RuntimeValuesStayUnsetAndNullIsNull) {
  const auto ls = bc::find_host_launches(R"(
__global__ void k(float* p, float* q, int n) {}
int main(int argc, char** argv) {
  int n = atoi(argv[1]);
  k<<<(n + 255) / 256, 256>>>(nullptr, 0, n);
})",
                                         "");
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_FALSE(ls[0].grid);
  EXPECT_EQ(ls[0].grid_expr, "(n + 255) / 256");
  EXPECT_TRUE(ls[0].block);
  EXPECT_EQ(ls[0].args[0].value, "null");
  EXPECT_EQ(ls[0].args[1].value, "0");  // a literal 0: an integer here; binding makes it null
  EXPECT_FALSE(ls[0].args[2].value);
}

// A program that reads its sizes from its command line: the names asked are the integers
// (W, H, rows), not argv, i or a getenv pointer; each with the source's own default (the
// initialiser before the loop, the branch of `?:` that evaluates, a launcher's default
// argument); expressions quoted as written.
TEST(HostLaunch, MissingNamesWithTheSourcesDefaults) {
  const auto ls = bc::find_host_launches(R"(
__global__ void k(float* p, int w, int h) {}
void launch(float* p, int m = 64 * 4) { k<<<m, 32>>>(p, m, m); }
int main(int argc, char** argv) {
  int W = 1024, H = 512;
  const char* env = getenv("ROWS");   // a pointer: never asked
  const int rows = env ? atoi(env) : 8;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-w")) W = atoi(argv[++i]);  /* a comment */
    else if (!strcmp(argv[i], "-h")) H = atoi(argv[++i]);
  }
  k<<<dim3(W / 32, H / 32), dim3(32, rows)>>>(nullptr, W, H);
})",
                                         "");
  ASSERT_EQ(ls.size(), 2u);
  const bc::HostLaunch& l = ls[1];
  EXPECT_FALSE(l.grid);
  EXPECT_EQ(l.needs.at("grid"), (std::vector<std::string>{"W", "H"}));
  EXPECT_EQ(l.needs.at("block"), (std::vector<std::string>{"rows"}));
  EXPECT_EQ(l.why.at("W"), "`atoi(argv[++i])` at line 9, which bankcheck does not evaluate");
  EXPECT_EQ(l.why.at("rows"), "`env ? atoi(env) : 8` at line 7, which bankcheck does not evaluate");
  EXPECT_EQ(l.why.count("argv"), 0u);
  EXPECT_EQ(l.why.count("env"), 0u);
  EXPECT_EQ(l.why.count("i"), 0u);
  ASSERT_EQ(l.defaults.count("W"), 1u);
  EXPECT_EQ(l.defaults.at("W").value, 1024);
  EXPECT_EQ(l.defaults.at("W").where, "line 5");
  EXPECT_EQ(l.defaults.at("H").value, 512);
  EXPECT_EQ(l.defaults.at("rows").value, 8);
  EXPECT_EQ(l.defaults.at("rows").where, "line 7");
  // The launcher nobody calls: its parameter's default argument.
  const bc::HostLaunch& in_launcher = ls[0];
  ASSERT_EQ(in_launcher.defaults.count("m"), 1u);
  EXPECT_EQ(in_launcher.defaults.at("m").value, 256);
  EXPECT_EQ(in_launcher.grid_expr, "m");
}

// Every kernel's missing settings in one message: kernels that lack the same said once, the
// host names merged, one command with the defaults filled in, and `bankcheck run`.
TEST(HostLaunch, MissingSettingsMergedAcrossKernels) {
  bc::LaunchSettings s;
  s.block = bc::Dim3{32, 8, 1};
  s.unresolved = {{"grid", "grid"}, {"arg W", "W"}};
  s.unresolved_needs = {{"grid", {"W", "H"}}, {"arg W", {"W"}}};
  s.host_why = {{"W", "`atoi(argv[++i])` at line 9, which bankcheck does not evaluate"},
                {"H", "`atoi(argv[++i])` at line 10, which bankcheck does not evaluate"}};
  s.host_defaults = {{"W", {1024, "line 5"}}};
  bc::MissingContext c;
  c.rerun = bc::Rerun{"t.cu", {"bankcheck", "check", "t.cu"}, {}, {}};
  c.program = "PROGRAM";
  const std::vector<bc::KernelSettings> ks{
      {"naive", &s, {"out", "W"}, {"float*", "int"}, {true, false}, {}},
      {"tiled", &s, {"out", "W"}, {"float*", "int"}, {true, false}, {}}};
  const auto msg = bc::missing_settings(c, ks);
  ASSERT_TRUE(msg);
  EXPECT_NE(msg->find("2 of the 2 kernels lack launch settings:\nkernels naive, tiled: 2 launch "
                      "settings missing each:"),
            std::string::npos)
      << *msg;
  EXPECT_NE(msg->find("  W: `atoi(argv[++i])` at line 9, which bankcheck does not evaluate; the "
                      "source's default: 1024 (line 5)"),
            std::string::npos)
      << *msg;
  EXPECT_NE(msg->find("\n  bankcheck check t.cu --host-arg W=1024 --host-arg H=VALUE\n"),
            std::string::npos)
      << *msg;
  EXPECT_EQ(msg->find("--kernel"), std::string::npos) << *msg;
  EXPECT_EQ(msg->find("the host code does not determine:"),
            msg->rfind("the host code does not determine:"))
      << *msg;
  EXPECT_NE(msg->find("bankcheck run -- PROGRAM [ARGS...]"), std::string::npos) << *msg;
  // A setting no host name gives is one kernel's flag: a command per kernel, with --kernel.
  bc::LaunchSettings t = s;
  t.unresolved_needs.erase("arg W");
  const auto per =
      bc::missing_settings(c, {{"naive", &s, {"out", "W"}, {"float*", "int"}, {true, false}, {}},
                               {"tiled", &t, {"out", "W"}, {"float*", "int"}, {true, false}, {}}});
  ASSERT_TRUE(per);
  EXPECT_NE(per->find("one command per kernel"), std::string::npos) << *per;
  EXPECT_NE(per->find("t.cu --kernel tiled --host-arg W=1024 --host-arg H=VALUE --arg W=VALUE"),
            std::string::npos)
      << *per;
  EXPECT_NE(per->find("t.cu --kernel naive --host-arg W=1024 --host-arg H=VALUE\n"),
            std::string::npos)
      << *per;
}

TEST(HostLaunch, MissingSettingsAreListedAtOnce) {
  bc::LaunchSettings s;
  s.block = bc::Dim3{256, 1, 1};
  s.unresolved = {{"grid", "(n + 255) / 256"}, {"arg n", "n"}};
  const auto msg = bc::missing_settings(bc::Rerun{"f.cu", {}, {}, {}}, "k", s, {"p", "n", "scale"},
                                        {"float*", "int", "float"}, {true, false, false});
  ASSERT_TRUE(msg);
  EXPECT_NE(msg->find("3 launch settings missing"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("`(n + 255) / 256`"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("bankcheck check f.cu --kernel k --grid 'X[,Y[,Z]]' --arg n=VALUE "
                      "--arg scale=VALUE"),
            std::string::npos)
      << *msg;
}

TEST(HostLaunch, HelperFunctionsMacrosAndQualifiedConstants) {
  // A tensor-core launcher's shapes: a constexpr helper, a template helper with statements,
  // a function-like macro, std::min, an enum class constant through static_cast and a
  // struct's static constexpr member.
  const auto ls = bc::find_host_launches(R"(
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
constexpr int div_ceil(int a, int b) { return (a + b - 1) / b; }
template <typename T> inline T round_up(T x, T m) {
  const T q = div_ceil(x, m);
  if (q == 0) return m;
  return q * m;
}
static int pick(int n) { if (n > 4096) { return 256; } else { return 128; } }
enum class Tile : int { BM = 128, BN = 64 };
struct Cfg { static constexpr int WARPS = 4; };
template <int BM_, int BN_, int BK_> __global__ void gemm(const half* A, half* C, int M, int N) {}
int main() {
  const int M = 1000, N = 500;
  dim3 grid(div_ceil(M, static_cast<int>(Tile::BM)), CEIL_DIV(N, (int)Tile::BN));
  dim3 block(Cfg::WARPS * 32);
  gemm<128, 64, 32><<<grid, block, std::min<int>(round_up(N, 64), 48 * 1024)>>>(nullptr, nullptr, pick(M), pick(8192));
})",
                                         "");
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].written(), "gemm<128, 64, 32>");
  ASSERT_TRUE(ls[0].grid && ls[0].block && ls[0].smem);
  EXPECT_EQ(*ls[0].grid, (bc::Dim3{8, 8, 1}));
  EXPECT_EQ(*ls[0].block, (bc::Dim3{128, 1, 1}));
  EXPECT_EQ(*ls[0].smem, 512u);  // round_up(500, 64): 8 * 64
  ASSERT_EQ(ls[0].args.size(), 4u);
  EXPECT_EQ(ls[0].args[2].value, "128");
  EXPECT_EQ(ls[0].args[3].value, "256");
}

TEST(HostLaunch, SpacedChevronsStreamsAndTemplateLaunches) {
  const auto ls = bc::find_host_launches(R"(
template <typename T, int B> __global__ void k(T* p, int n) {}
int main() {
  cudaStream_t stream;
  k<float, 16> << < 4, 64 >> > (nullptr, 1);
  k<float, 32><<<8,128,0,stream>>>(nullptr, 2);
  k<float, 64>< << 2, 32 > >>(nullptr, 3);
})",
                                         "");
  ASSERT_EQ(ls.size(), 3u);
  EXPECT_EQ(ls[0].written(), "k<float, 16>");
  EXPECT_EQ(ls[0].grid, (bc::Dim3{4, 1, 1}));
  EXPECT_EQ(ls[0].block, (bc::Dim3{64, 1, 1}));
  EXPECT_EQ(ls[0].args[1].value, "1");
  EXPECT_EQ(ls[1].written(), "k<float, 32>");
  EXPECT_EQ(ls[1].block, (bc::Dim3{128, 1, 1}));
  EXPECT_EQ(ls[1].smem, 0u);
  EXPECT_EQ(ls[2].written(), "k<float, 64>");
  EXPECT_EQ(ls[2].grid, (bc::Dim3{2, 1, 1}));
  EXPECT_EQ(ls[2].args[1].value, "3");
}

TEST(HostLaunch, Dim3DeclaredTogetherBracedAndAuto) {
  const auto ls = bc::find_host_launches(R"(
__global__ void k(int n) {}
int main() {
  const int n = 4096;
  dim3 grid(n / 256, 2), block(256);
  k<<<grid, block>>>(n);
  dim3 b = {32, 8};
  dim3 g{n / 32, 4};
  k<<<g, b>>>(1);
  auto g2 = dim3(7, 1, 3);
  k<<<g2, b>>>(2);
  foo(n, g(1));
})",
                                         "");
  ASSERT_EQ(ls.size(), 3u);
  EXPECT_EQ(ls[0].grid, (bc::Dim3{16, 2, 1}));
  EXPECT_EQ(ls[0].block, (bc::Dim3{256, 1, 1}));
  EXPECT_EQ(ls[1].grid, (bc::Dim3{128, 4, 1}));
  EXPECT_EQ(ls[1].block, (bc::Dim3{32, 8, 1}));
  EXPECT_EQ(ls[2].grid, (bc::Dim3{7, 1, 3}));
}

TEST(HostLaunch, OnlyTheTakenPreprocessorBranchesCount) {
  const std::string src = R"(
#ifdef USE_BIG
#define BLOCK 512
#elif defined(USE_MID) && MID_SIZE > 100
#define BLOCK MID_SIZE
#else
#define BLOCK 64
#endif
#if !defined(__CUDA_ARCH__)
#define HOST_GRID 10
#endif
__global__ void k(int n) {}
int main() {
#if BLOCK > 100
  k<<<HOST_GRID, BLOCK>>>(1);
#else
  k<<<HOST_GRID * 2, BLOCK>>>(2);
#endif
})";
  const auto none = bc::find_host_launches(src, "");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].grid, (bc::Dim3{20, 1, 1}));
  EXPECT_EQ(none[0].block, (bc::Dim3{64, 1, 1}));
  const auto big = bc::find_host_launches(src, "", {{"USE_BIG", "1"}});
  ASSERT_EQ(big.size(), 1u);
  EXPECT_EQ(big[0].grid, (bc::Dim3{10, 1, 1}));
  EXPECT_EQ(big[0].block, (bc::Dim3{512, 1, 1}));
  EXPECT_EQ(big[0].args[0].value, "1");
  const auto mid = bc::find_host_launches(src, "", {{"USE_MID", "1"}, {"MID_SIZE", "192"}});
  ASSERT_EQ(mid.size(), 1u);
  EXPECT_EQ(mid[0].block, (bc::Dim3{192, 1, 1}));
  const auto small = bc::find_host_launches(src, "", {{"USE_MID", ""}, {"MID_SIZE", "96"}});
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0].block, (bc::Dim3{64, 1, 1}));
}

TEST(HostLaunch, ClassMethodsWithInClassMembers) {
  const auto ls = bc::find_host_launches(R"(
__global__ void k(float* p, int n) {}
class Runner {
 public:
  static constexpr int kThreads = 128;
  int n = 1 << 12;
  void run(float* p) { k<<<(n + kThreads - 1) / kThreads, kThreads>>>(p, this->n); }
  void twice(float* p);
};
void Runner::twice(float* p) { k<<<2, kThreads * 2>>>(p, 7); }
int main() { Runner r; r.run(nullptr); r.twice(nullptr); }
)",
                                         "");
  ASSERT_EQ(ls.size(), 2u);
  EXPECT_EQ(ls[0].grid, (bc::Dim3{32, 1, 1}));
  EXPECT_EQ(ls[0].block, (bc::Dim3{128, 1, 1}));
  EXPECT_EQ(ls[0].args[1].value, "4096");
  EXPECT_EQ(ls[1].block, (bc::Dim3{256, 1, 1}));
}

TEST(HostLaunch, CallOperatorOfALauncherObject) {
  // A functor launcher (`GemmLauncher launch; launch(A, M, N, s);`), its smem and grid from
  // sizeof, a constexpr template helper and the class's own constant; spaced chevrons.
  const auto ls = bc::find_host_launches(R"(
constexpr int BM = 64, BN = 64, BK = 32;
template <typename T> __host__ __device__ constexpr T div_ceil(T a, T b) { return (a + b - 1) / b; }
template <int BM_, int BN_, int BK_, int W> __global__ void mma(const half* A, int M, int N) {}
struct GemmLauncher {
  static constexpr int kWarps = 4;
  void operator()(const half* A, int M, int N, cudaStream_t s) {
    const size_t smem = (BM + BN) * BK * sizeof(half);
    dim3 grid(div_ceil(N, BN), div_ceil(M, BM)), block(kWarps * 32);
    mma<BM, BN, BK, kWarps> << <grid, block, smem, s >> > (A, M, N);
  }
};
int main() {
  GemmLauncher launch;
  launch(nullptr, 1024, 512, 0);
})",
                                         "");
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].written(), "mma<64, 64, 32, 4>");
  EXPECT_EQ(ls[0].grid, (bc::Dim3{8, 16, 1}));
  EXPECT_EQ(ls[0].block, (bc::Dim3{128, 1, 1}));
  EXPECT_EQ(ls[0].smem, 8192u);
  EXPECT_EQ(ls[0].args[1].value, "1024");
  EXPECT_EQ(ls[0].via, "GemmLauncher::operator() (called from main at line 15)");
}

TEST(HostLaunch, LauncherNobodyCallsAsksForItsParameters) {
  const std::string src = R"(
template <int BM> __global__ void gemm(const half* A, half* C, int M, int N) {}
inline int div_ceil(int a, int b) { return (a + b - 1) / b; }
void launch_gemm(int M, int N, const half* A, half* C, cudaStream_t s) {
  dim3 grid(div_ceil(M, 128), div_ceil(N, 128));
  gemm<128><<<grid, 256, 0, s>>>(A, C, M, N);
}
int occupancy_grid(float* p) {
  int sms = 0, per_sm = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gemm<128>, 256, 0);
  gemm<128><<<sms * per_sm, 256>>>(nullptr, nullptr, 1, 1);
  return 0;
})";
  const auto ls = bc::find_host_launches(src, "");
  ASSERT_EQ(ls.size(), 2u);
  EXPECT_FALSE(ls[0].grid);
  EXPECT_EQ(ls[0].block, (bc::Dim3{256, 1, 1}));
  EXPECT_EQ(ls[0].needs.at("grid"), (std::vector<std::string>{"M", "N"}));
  EXPECT_NE(ls[0].why.at("M").find("parameter of launch_gemm"), std::string::npos);
  EXPECT_EQ(ls[0].args[2].needs, (std::vector<std::string>{"M"}));
  EXPECT_NE(ls[0].via.find("which no function of the file calls"), std::string::npos);
  EXPECT_FALSE(ls[1].grid);
  EXPECT_NE(ls[1].why.at("sms").find("cudaDeviceGetAttribute"), std::string::npos)
      << ls[1].why.at("sms");
  EXPECT_NE(ls[1].why.at("per_sm").find("cudaOccupancyMaxActiveBlocksPerMultiprocessor"),
            std::string::npos);
  // --host-arg M=4096 N=2048 sms=132 per_sm=2: every value known.
  const auto given =
      bc::find_host_launches(src, "", {}, {{"M", 4096}, {"N", 2048}, {"sms", 132}, {"per_sm", 2}});
  ASSERT_EQ(given.size(), 2u);
  EXPECT_EQ(given[0].grid, (bc::Dim3{32, 16, 1}));
  EXPECT_EQ(given[0].args[2].value, "4096");
  EXPECT_EQ(given[1].grid, (bc::Dim3{264, 1, 1}));
  EXPECT_EQ(given[0].host_values_used, (std::vector<std::string>{"M", "N"}));
  EXPECT_EQ(given[1].host_values_used, (std::vector<std::string>{"sms", "per_sm"}));
}

TEST(HostLaunch, LaunchInALoopTakesTheFirstIteration) {
  const auto ls = bc::find_host_launches(R"(
__global__ void k(int s) {}
int main() {
  for (int s = 64; s <= 512; s *= 2) k<<<1024 / s, s>>>(s);
})",
                                         "");
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].grid, (bc::Dim3{16, 1, 1}));
  EXPECT_EQ(ls[0].block, (bc::Dim3{64, 1, 1}));
}

TEST(HostLaunch, LaunchesInAnIncludedCuFileWithTheirLines) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("bankcheck_included_cu_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "src");
  std::ofstream(dir / "src" / "kernels.cu") << "#pragma once\n"
                                               "__global__ void k(float* p, int n) {}\n"
                                               "void run_k(float* p, int n) {\n"
                                               "  k<<<(n + 255) / 256, 256>>>(p, n);\n"
                                               "}\n";
  const std::string main_cu =
      "#include \"kernels.cu\"\n"
      "#include \"kernels.cu\"\n"  // once, as #pragma once has it
      "int main() {\n"
      "  run_k(nullptr, 4096);\n"
      "}\n";
  const auto hs =
      bc::with_included_cu(main_cu, (dir / "main.cu").string(), {(dir / "src").string()});
  ASSERT_EQ(hs.origin.size(), 5u + 3u);  // kernels.cu's 5 lines, then main.cu's 2 to 5
  const auto ls = bc::find_host_launches(hs, "");
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].grid, (bc::Dim3{16, 1, 1}));
  EXPECT_EQ(ls[0].args[1].value, "4096");
  EXPECT_EQ(ls[0].line, 4);
  EXPECT_EQ(ls[0].file, (dir / "src" / "kernels.cu").lexically_normal().string());
  EXPECT_NE(ls[0].via.find("called from main at line 4"), std::string::npos) << ls[0].via;
  // Without the include directory, kernels.cu is not found and nothing is inlined.
  EXPECT_TRUE(bc::with_included_cu(main_cu, (dir / "main.cu").string(), {}).origin.empty());
  std::filesystem::remove_all(dir);
}

TEST(HostLaunch, SelfCallingHelpersAndMacrosEndUnset) {
  // Functions and macros that call themselves twice, and #if macros that name each other:
  // the reader stops (a bound on its work) and leaves the settings unset.
  const auto ls = bc::find_host_launches(R"(
#define A B + B
#define B A + A
#if A
#define G 1
#endif
#define TWICE(x) TWICE(x) + TWICE(x)
int twice(int n) { return twice(n) + twice(n); }
__global__ void k(int n) {}
int main() {
  k<<<twice(3), TWICE(4)>>>(G);
  k << < 1, 2 >> > (
})",
                                         "");
  ASSERT_GE(ls.size(), 1u);
  EXPECT_FALSE(ls[0].grid);
  EXPECT_FALSE(ls[0].block);
  EXPECT_FALSE(ls[0].args[0].value);  // G: the #if that defines it is not taken
}

TEST(ArgValues, NullAndSuffixedScalars) {
  EXPECT_EQ(bc::parse_arg_value("null", "--arg p").fill, bc::ArgValue::Fill::Null);
  const auto v = bc::parse_arg_value("16M", "--arg n");
  EXPECT_EQ(v.kind, bc::ArgValue::Kind::Integer);
  EXPECT_EQ(v.i, 16 << 20);
  EXPECT_EQ(bc::parse_arg_value("-2K", "--arg n").i, -2048);
}

// `bankcheck check examples/app/FILE --format json`, with no other flag: the file's report.
nlohmann::json check_json(const std::string& file, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{
      "check", std::string(BANKCHECK_SOURCE_DIR) + "/examples/app/" + file, "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_tool(args);
  EXPECT_NE(r.exit_code, 2) << r.err;
  return nlohmann::json::parse(r.out)["files"][0];
}

std::string arg(const nlohmann::json& k, const std::string& name) {
  for (const auto& a : k["args"])
    if (a["name"] == name) return a["value"];
  return "(none)";
}

std::vector<int> dims(const nlohmann::json& d) { return d.get<std::vector<int>>(); }

bool all_from_host(const nlohmann::json& k) {
  for (const auto& s : k["settings_from"])
    if (s["from"] != "host") return false;
  return !k["settings_from"].empty();
}

TEST(AppExamples, HistogramFromMacrosAndManagedMemory) {
  const auto j = check_json("histogram_managed.cu");
  const auto& k = j["kernels"][0];
  EXPECT_EQ(dims(k["grid"]), (std::vector<int>{256, 1, 1}));
  EXPECT_EQ(dims(k["block"]), (std::vector<int>{256, 1, 1}));
  EXPECT_EQ(arg(k, "in"), "zeros:65536");
  EXPECT_EQ(arg(k, "bins"), "zeros:1024");
  EXPECT_EQ(arg(k, "n"), "65536");
  EXPECT_TRUE(all_from_host(k));
}

// The note on a data-dependent address asks for `random` with the size the host code
// allocates; a `random` given without a size takes that size (not the default gigabyte).
TEST(AppExamples, RandomDataTakesTheHostCodesSize) {
  const auto zeros = check_json("histogram_managed.cu")["kernels"][0];
  bool hinted = false;
  for (const auto& n : zeros["notes"])
    hinted =
        hinted || n["message"].get<std::string>().find("--arg in=random:64K,") != std::string::npos;
  EXPECT_TRUE(hinted) << zeros["notes"].dump();
  const auto k = check_json("histogram_managed.cu", {"--arg", "in=random"})["kernels"][0];
  EXPECT_EQ(arg(k, "in"), "random:65536");
  bool sized = false;
  for (const auto& s : k["settings_from"])
    if (s["setting"] == "arg in")
      sized = s["from"] == "flag" &&
              s["where"].get<std::string>().find("of the size of its cudaMalloc, 65536 bytes") !=
                  std::string::npos;
  EXPECT_TRUE(sized) << k["settings_from"].dump();
  EXPECT_TRUE(k["notes"].empty() || k["notes"].dump().find("all-equal data") == std::string::npos)
      << k["notes"].dump();
}

TEST(AppExamples, TransposeFromDim3Variables) {
  const auto k = check_json("transpose_dim3.cu")["kernels"][0];
  EXPECT_EQ(dims(k["grid"]), (std::vector<int>{16, 8, 1}));
  EXPECT_EQ(dims(k["block"]), (std::vector<int>{32, 8, 1}));
  EXPECT_EQ(arg(k, "width"), "512");
  EXPECT_EQ(arg(k, "height"), "256");
  EXPECT_EQ(arg(k, "out"), "zeros:524288");
  EXPECT_TRUE(all_from_host(k));
}

TEST(AppExamples, TemplateReduceThroughATemplateLauncherChecksBothInstantiations) {
  const auto j = check_json("reduce_template.cu");
  ASSERT_EQ(j["kernels"].size(), 2u);
  EXPECT_EQ(j["kernels"][0]["name"], "reduce<128, float>");
  EXPECT_EQ(dims(j["kernels"][0]["grid"]), (std::vector<int>{128, 1, 1}));
  EXPECT_EQ(j["kernels"][0]["dynamic_smem"], 512);
  EXPECT_EQ(j["kernels"][1]["name"], "reduce<256, float>");
  EXPECT_EQ(dims(j["kernels"][1]["block"]), (std::vector<int>{256, 1, 1}));
  EXPECT_EQ(j["kernels"][1]["dynamic_smem"], 1024);
  // --launch 2 picks the second call of the launcher only.
  const auto two = check_json("reduce_template.cu", {"--launch", "2"});
  ASSERT_EQ(two["kernels"].size(), 1u);
  EXPECT_EQ(two["kernels"][0]["name"], "reduce<256, float>");
  // --kernel reduce names both instantiations and says so.
  // --kernel reduce names both: refused, with the exact name of each; one of them is checked
  // with its own launch.
  const auto both =
      run_tool({"check", std::string(BANKCHECK_SOURCE_DIR) + "/examples/app/reduce_template.cu",
                "--kernel", "reduce"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--kernel reduce: the name matches 2 kernels; give one of them:\n"
                          "  --kernel 'reduce<128, float>'"),
            std::string::npos)
      << both.err;
  const auto one = check_json("reduce_template.cu", {"--kernel", "reduce<256, float>"});
  ASSERT_EQ(one["kernels"].size(), 1u);
  EXPECT_EQ(one["kernels"][0]["name"], "reduce<256, float>");
}

TEST(AppExamples, StencilThroughALauncherWithDynamicSharedMemory) {
  const auto k = check_json("stencil_launcher.cu")["kernels"][0];
  EXPECT_EQ(dims(k["grid"]), (std::vector<int>{16, 16, 1}));
  EXPECT_EQ(dims(k["block"]), (std::vector<int>{16, 8, 1}));
  EXPECT_EQ(k["dynamic_smem"], 18 * 10 * 4);
  EXPECT_EQ(arg(k, "nx"), "256");
  EXPECT_TRUE(all_from_host(k));
}

TEST(AppExamples, MatmulThroughCudaLaunchKernel) {
  const auto k = check_json("matmul_launchkernel.cu")["kernels"][0];
  EXPECT_EQ(dims(k["grid"]), (std::vector<int>{8, 8, 1}));
  EXPECT_EQ(dims(k["block"]), (std::vector<int>{16, 16, 1}));
  EXPECT_EQ(arg(k, "n"), "128");
  EXPECT_EQ(arg(k, "alpha"), "2.0f");
  EXPECT_EQ(arg(k, "b"), "zeros:65536");
  EXPECT_GT(k["shared_excess_percent"].get<double>(), 0);  // the transposed store conflicts
}

TEST(AppExamples, HeaderKernelThroughCudaLaunchKernelEx) {
  const auto k = check_json("structs_header.cu")["kernels"][0];
  EXPECT_EQ(dims(k["grid"]), (std::vector<int>{32, 1, 1}));
  EXPECT_EQ(dims(k["block"]), (std::vector<int>{128, 1, 1}));
  EXPECT_EQ(arg(k, "particles"), "zeros:49152");  // sizeof(Particle) == 12 from the header
  EXPECT_EQ(arg(k, "trace"), "null");
  EXPECT_EQ(arg(k, "count"), "4096");
}

TEST(AppExamples, FlagsOverrideTheHostCode) {
  const auto k = check_json("histogram_managed.cu", {"--grid", "4", "--arg", "n=4K"})["kernels"][0];
  EXPECT_EQ(dims(k["grid"]), (std::vector<int>{4, 1, 1}));
  EXPECT_EQ(arg(k, "n"), "4K");
  bool grid_from_flag = false;
  for (const auto& s : k["settings_from"])
    if (s["setting"] == "grid") grid_from_flag = s["from"] == "flag";
  EXPECT_TRUE(grid_from_flag);
}

TEST(AppExamples, EveryMissingSettingAtOnce) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("bankcheck_host_launch_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "runtime.cu";
  std::ofstream(file) << "#include <cstdlib>\n"
                         "__global__ void k(float* p, int n, int m) { if (n > m) p[0] = 1; }\n"
                         "int main(int argc, char** argv) {\n"
                         "  int n = atoi(argv[1]);\n"
                         "  float* p; cudaMalloc(&p, 64);\n"
                         "  k<<<(n + 255) / 256, 256>>>(p, n, argc);\n}\n";
  const auto r = run_tool({"check", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("2 launch settings missing"), std::string::npos) << r.err;
  // n decides the grid and the scalar n: --host-arg gives it. argc is the program's run
  // without arguments (1), not asked for.
  EXPECT_NE(r.err.find("n: `atoi(argv[1])` at line 4, which bankcheck does not evaluate"),
            std::string::npos)
      << r.err;
  // One kernel, settled by --host-arg alone: the command needs no --kernel.
  EXPECT_NE(r.err.find("runtime.cu --host-arg n=VALUE\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bankcheck run -- PROGRAM"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("argc=VALUE"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

// The words a POSIX shell reads from `line` (printf prints one a line).
std::vector<std::string> shell_words(const std::string& line) {
  const std::string cmd = "set -- " + line + "; printf '%s\\n' \"$@\"";
  FILE* p = ::popen(("/bin/sh -c " + bc::shell_quote(cmd)).c_str(), "r");
  std::vector<std::string> words;
  if (!p) return words;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) {
    std::string w = buf;
    if (!w.empty() && w.back() == '\n') w.pop_back();
    words.push_back(w);
  }
  ::pclose(p);
  return words;
}

// The message of a program that reads its sizes from argv: one command for both kernels,
// which, pasted as it is (the source's defaults filled in), checks them.
TEST(AppExamples, TheMissingSettingsCommandRunsAsPasted) {
  const std::string file = std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/check/argv_main.cu";
  const auto r = run_tool({"check", file});
  ASSERT_EQ(r.exit_code, 2);
  std::vector<std::string> commands;
  std::istringstream lines(r.err);
  for (std::string l; std::getline(lines, l);)
    if (l.starts_with("  bankcheck check ")) commands.push_back(l.substr(2));
  ASSERT_EQ(commands.size(), 1u) << r.err;
  EXPECT_EQ(r.err.find("argv="), std::string::npos) << r.err;
  std::vector<std::string> words = shell_words(commands[0]);
  ASSERT_GE(words.size(), 3u);
  EXPECT_EQ(words, (std::vector<std::string>{"bankcheck", "check", file, "--host-arg", "W=1024",
                                             "--host-arg", "H=512", "--host-arg", "rows=8"}));
  words.erase(words.begin());  // `bankcheck`: the binary under test
  const auto pasted = run_tool(words);
  EXPECT_NE(pasted.exit_code, 2) << pasted.err;
  EXPECT_NE(pasted.out.find("[transpose]"), std::string::npos) << pasted.out;
}

TEST(HostLaunch, ShellQuotingReadsBackTheSameWords) {
  const std::vector<std::string> words{"k<16, 8, 16>", "a b",        "it's", "$HOME",
                                       "-DX=\"q\"",    "plain/p.cu", "*"};
  bc::Rerun r{"x.cu", {"bankcheck", "check"}, {"-std=c++17", "-DY=a;b"}, {}};
  const std::string line = bc::rerun_line(r, words);
  std::vector<std::string> expected{"bankcheck", "check"};
  expected.insert(expected.end(), words.begin(), words.end());
  expected.insert(expected.end(), {"--", "-std=c++17", "-DY=a;b"});
  EXPECT_EQ(shell_words(line), expected) << line;
  EXPECT_EQ(bc::shell_quote("plain/p.cu"), "plain/p.cu");
  EXPECT_EQ(bc::shell_quote(""), "''");
}

// A file of launchers no function calls, two kernels: both kernels' missing settings at once,
// each with a command that pastes into a shell with the user's own flags, and the launchers'
// parameters given with --host-arg.
TEST(AppExamples, LaunchersNobodyCallsTakeHostArgs) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("bankcheck_host_args_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "inc dir");
  const auto file = dir / "lib.cu";
  std::ofstream(dir / "inc dir" / "tiles.cuh") << "#define TILE 64\n";
  std::ofstream(file)
      << "#include \"tiles.cuh\"\n"
         "template <int BM, int BK> __global__ void gemm(const float* A, float* C, int M, int N) "
         "{\n"
         "  __shared__ float t[BM][BK];\n"
         "  t[threadIdx.x % BM][0] = A[threadIdx.x];\n  __syncthreads();\n"
         "  if (threadIdx.x < M && blockIdx.y < N) C[threadIdx.x] = t[0][threadIdx.x % BK];\n}\n"
         "__global__ void scale(float* p, int n) { if (threadIdx.x < n) p[threadIdx.x] *= 2; }\n"
         "inline int div_ceil(int a, int b) { return (a + b - 1) / b; }\n"
         "void launch_gemm(int M, int N, const float* A, float* C, cudaStream_t s) {\n"
         "  dim3 grid(div_ceil(M, TILE), div_ceil(N, TILE));\n"
         "  gemm<TILE, 16><<<grid, 256, 0, s>>>(A, C, M, N);\n}\n"
         "void launch_scale(float* p, int n) { scale<<<(n + 255) / 256, 256>>>(p, n); }\n";
  const std::string inc = (dir / "inc dir").string();
  const auto r =
      run_tool({"check", file.string(), "-I", inc, "-D", "UNUSED=a b", "--", "-std=c++17"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("2 of the 2 kernels lack launch settings"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("M: a parameter of launch_gemm, which no function of the file calls"),
            std::string::npos)
      << r.err;
  // One command for both kernels, read back by the shell: the user's own plus the launchers'
  // parameters, merged.
  const std::vector<std::string> expected{"bankcheck", "check",      "-I",          inc,
                                          "-D",        "UNUSED=a b", file.string(), "--host-arg",
                                          "M=VALUE",   "--host-arg", "N=VALUE",     "--host-arg",
                                          "n=VALUE",   "--",         "-std=c++17"};
  int commands = 0;
  bool found = false;
  std::istringstream lines(r.err);
  for (std::string l; std::getline(lines, l);)
    if (l.starts_with("  bankcheck check ")) {
      ++commands;
      found = found || shell_words(l) == expected;
    }
  EXPECT_TRUE(found) << r.err;
  EXPECT_EQ(commands, 1) << r.err;
  const auto ok = run_tool({"check", file.string(), "-I", inc, "--format", "json", "--host-arg",
                            "M=4096", "--host-arg", "N=1K", "--host-arg", "n=512"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const auto j = nlohmann::json::parse(ok.out)["files"][0]["kernels"];
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["name"], "gemm<64, 16>");
  EXPECT_EQ(dims(j[0]["grid"]), (std::vector<int>{64, 16, 1}));
  EXPECT_EQ(arg(j[0], "M"), "4096");
  EXPECT_EQ(dims(j[1]["grid"]), (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(arg(j[1], "n"), "512");
  const auto bad = run_tool({"check", file.string(), "--host-arg", "M=1.5"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--host-arg M: '1.5' is not an integer"), std::string::npos) << bad.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
