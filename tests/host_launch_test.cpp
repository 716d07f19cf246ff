// Launches read from host code: the reader on small sources (constants, dim3, launchers,
// templates, cudaMalloc sizes, what it leaves unset), every missing setting said at once, and
// the examples under examples/app/ checked with no flags through the command line.
#include "bankcheck/driver/host_launch.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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

TEST(HostLaunch, MissingSettingsAreListedAtOnce) {
  bc::LaunchSettings s;
  s.block = bc::Dim3{256, 1, 1};
  s.unresolved = {{"grid", "(n + 255) / 256"}, {"arg n", "n"}};
  const auto msg = bc::missing_settings("f.cu", "k", s, {"p", "n", "scale"},
                                        {"float*", "int", "float"}, {true, false, false});
  ASSERT_TRUE(msg);
  EXPECT_NE(msg->find("3 launch settings missing"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("`(n + 255) / 256`"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("--grid X[,Y[,Z]] --arg n=VALUE --arg scale=VALUE"), std::string::npos)
      << *msg;
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
  const auto named = check_json("reduce_template.cu", {"--kernel", "reduce"});
  ASSERT_EQ(named["kernels"].size(), 2u);
  EXPECT_NE(named["kernels"][0]["settings_from"][0]["where"].get<std::string>().find(
                "one of the 2 kernels"),
            std::string::npos);
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
  EXPECT_NE(r.err.find("3 launch settings missing"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--grid X[,Y[,Z]] --arg n=VALUE --arg m=VALUE"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
