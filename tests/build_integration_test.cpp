// From a build to bankcheck: compile_commands.json read with located errors, the device
// flags of an entry in nvcc's and clang's spellings, `--` anywhere, several files in one run,
// and nvcc's warnings passed on.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "bankcheck/driver/compile_db.hpp"
#include "run_tool.hpp"

namespace {

namespace fs = std::filesystem;
using bankcheck::driver::CompileCommand;
using bankcheck::driver::DeviceFlags;
using bankcheck::driver::DriverError;
using bankcheck::testing::run_tool;
using Words = std::vector<std::string>;

const std::string kSrc = BANKCHECK_SOURCE_DIR;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DriverError& e) {
    return e.what();
  }
  return "(no error)";
}

// A scratch directory, removed at the end of the test.
struct Scratch {
  fs::path dir;
  Scratch() {
    dir = fs::temp_directory_path() /
          ("bankcheck_build_" + std::to_string(getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};

// ---- shell words -------------------------------------------------------------------------

TEST(SplitCommand, WordsAsAPosixShellSplitsThem) {
  using bankcheck::driver::split_command;
  EXPECT_EQ(split_command("nvcc  -c\ta.cu"), (Words{"nvcc", "-c", "a.cu"}));
  EXPECT_EQ(split_command(R"(nvcc "-DNAME=\"a b\"" -I'/x y' a\ b.cu)"),
            (Words{"nvcc", R"(-DNAME="a b")", "-I/x y", "a b.cu"}));
  EXPECT_EQ(split_command(R"(x "\$ \\ \n" 'a\b' "")"), (Words{"x", R"($ \ \n)", R"(a\b)", ""}));
  EXPECT_EQ(split_command("a\\\nb"), (Words{"ab"}));  // backslash-newline joins
  EXPECT_EQ(split_command(""), Words{});
  EXPECT_NE(
      error_of([] { bankcheck::driver::split_command("nvcc \"-DX"); }).find("unterminated \""),
      std::string::npos);
  EXPECT_NE(error_of([] { bankcheck::driver::split_command("nvcc '-DX"); }).find("unterminated '"),
            std::string::npos);
  EXPECT_NE(error_of([] { bankcheck::driver::split_command("nvcc \\"); }).find("backslash"),
            std::string::npos);
}

// ---- reading the database ----------------------------------------------------------------

TEST(CompileDb, MalformedJsonIsLocatedByLineAndColumn) {
  using bankcheck::driver::parse_compile_db;
  // Line 3, column 12: the value that is not JSON.
  const std::string text = "[\n  {\"directory\": \"/b\",\n   \"file\": bad}\n]";
  EXPECT_NE(error_of([&] {
              parse_compile_db(text, "b/compile_commands.json");
            }).find("b/compile_commands.json:3:12: malformed JSON: syntax error"),
            std::string::npos)
      << error_of([&] { parse_compile_db(text, "b/compile_commands.json"); });
  // A stray character after any prefix of a valid text outside a string: its own column.
  const std::string valid = "[{\"file\": \"a.cu\"}]";
  for (std::size_t cut = 1; cut < valid.size(); ++cut) {
    const std::string prefix = valid.substr(0, cut);
    if (std::count(prefix.begin(), prefix.end(), '"') % 2) continue;  // inside a string
    const std::string e = error_of([&] { parse_compile_db(prefix + "#", "db.json"); });
    EXPECT_TRUE(e.starts_with("db.json:1:" + std::to_string(cut + 1) + ": malformed JSON")) << e;
  }
  // Truncated input: the last line.
  EXPECT_NE(error_of([] { parse_compile_db("[\n{\"file\":\n", "db.json"); }).find("db.json:3:"),
            std::string::npos);
}

TEST(CompileDb, EntriesThatAreNotUsableNameTheirNumber) {
  using bankcheck::driver::parse_compile_db;
  auto err = [](const std::string& text) {
    return error_of([&] { parse_compile_db(text, "db.json"); });
  };
  EXPECT_NE(err("{}").find("db.json: not a compilation database"), std::string::npos);
  EXPECT_NE(
      err(R"([{"directory": "/b", "file": "a.cu", "command": "nvcc a.cu"}, {"file": "b.cu"}])")
          .find("db.json: entry 2: no 'directory'"),
      std::string::npos);
  EXPECT_NE(err(R"([{"directory": "/b", "command": "nvcc"}])").find("entry 1: no 'file'"),
            std::string::npos);
  EXPECT_NE(err(R"([{"directory": "/b", "file": "a.cu"}])")
                .find("entry 1: neither 'arguments' nor 'command'"),
            std::string::npos);
  EXPECT_NE(err(R"([{"directory": "/b", "file": "a.cu", "command": "nvcc \"-DX a.cu"}])")
                .find("entry 1: unterminated \""),
            std::string::npos);
  EXPECT_NE(err(R"([{"directory": "/b", "file": "a.cu", "arguments": ["nvcc", 3]}])")
                .find("entry 1: 'arguments' holds something other than strings"),
            std::string::npos);
  EXPECT_NE(err(R"([{"directory": 7, "file": "a.cu", "command": "nvcc"}])")
                .find("'directory' is not a string"),
            std::string::npos);
}

TEST(CompileDb, ReadsADirectoryOrTheFileAndFindsFilesByPath) {
  Scratch s;
  const std::string cu = s.write("src/a.cu", "__global__ void k() {}\n");
  s.write("build/compile_commands.json",
          R"([{"directory": ")" + (s.dir / "build").string() +
              R"(", "file": "../src/a.cu", "arguments": ["nvcc", "-c", "../src/a.cu"]},
              {"directory": "/elsewhere", "file": "/elsewhere/host.cpp", "command": "c++ -c host.cpp"}])");
  const auto from_dir = bankcheck::driver::read_compile_db((s.dir / "build").string());
  const auto from_file =
      bankcheck::driver::read_compile_db((s.dir / "build/compile_commands.json").string());
  ASSERT_EQ(from_dir.entries.size(), 2u);
  EXPECT_EQ(from_dir.path, from_file.path);
  EXPECT_EQ(from_dir.entries[0].file, fs::path(cu).lexically_normal().string());
  // The file as the user names it: absolute, or relative to the current directory.
  EXPECT_NE(bankcheck::driver::find_entry(from_dir, cu), nullptr);
  const fs::path cwd = fs::current_path();
  fs::current_path(s.dir / "src");
  EXPECT_NE(bankcheck::driver::find_entry(from_dir, "a.cu"), nullptr);
  EXPECT_NE(bankcheck::driver::find_entry(from_dir, "./../src/a.cu"), nullptr);
  EXPECT_EQ(bankcheck::driver::find_entry(from_dir, "b.cu"), nullptr);
  fs::current_path(s.dir);
  EXPECT_EQ(bankcheck::driver::cuda_files(from_dir), Words{"src/a.cu"});  // below: relative
  fs::current_path(cwd);
  EXPECT_NE(error_of([&] {
              bankcheck::driver::read_compile_db((s.dir / "src").string());
            }).find("-p: no " + (s.dir / "src/compile_commands.json").string()),
            std::string::npos);
}

// ---- device flags ------------------------------------------------------------------------

DeviceFlags flags_of(const std::string& dir, const Words& args) {
  CompileCommand c;
  c.directory = dir;
  c.file = dir + "/a.cu";
  c.arguments = args;
  return bankcheck::driver::device_flags(c);
}

TEST(DeviceFlags, CMakeNvccEntryWithItsOptionsFile) {
  Scratch s;
  const std::string b = (s.dir / "build").string();
  s.write("build/CMakeFiles/k.dir/includes_CUDA.rsp",
          "-I\"/src/include\" -isystem=/opt/cutlass/include\n");
  // As CMake 3.25 writes it for LANGUAGES CUDA with CMAKE_CUDA_ARCHITECTURES=90.
  const auto words = bankcheck::driver::split_command(
      "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DREDUCE_BLOCK=256 "
      "--options-file CMakeFiles/k.dir/includes_CUDA.rsp  "
      "--generate-code=arch=compute_90,code=[compute_90,sm_90] -std=c++17 -x cu "
      "-Xcompiler=-fPIC -Xcompiler -DHOST_ONLY -G -g -O3 -c /src/a.cu -o CMakeFiles/k.dir/a.cu.o");
  const DeviceFlags f = flags_of(b, words);
  EXPECT_EQ(f.include_dirs, Words{"/src/include"});
  EXPECT_EQ(f.defines, Words{"REDUCE_BLOCK=256"});  // not the host compiler's HOST_ONLY
  EXPECT_EQ(f.extra, (Words{"-isystem", "/opt/cutlass/include", "-std=c++17", "-x", "cu"}));
  EXPECT_EQ(f.archs, Words{"sm_90"});
}

TEST(DeviceFlags, EverySpellingOfTheFlagsThatChangeDeviceCode) {
  const DeviceFlags f = flags_of("/b", {"nvcc",
                                        "-I",
                                        "inc",
                                        "-Iinc2",
                                        "--include-path=/abs",
                                        "--include-path",
                                        "x/../y",
                                        "-D",
                                        "A=1",
                                        "-DB",
                                        "--define-macro=C=3",
                                        "--define-macro",
                                        "D",
                                        "-U",
                                        "E",
                                        "-UF",
                                        "-isystem",
                                        "sys",
                                        "--system-include=/sys2",
                                        "-include",
                                        "pre.h",
                                        "--pre-include=/p.h",
                                        "--std",
                                        "c++20",
                                        "--expt-relaxed-constexpr",
                                        "-extended-lambda",
                                        "--expt-extended-lambda",
                                        "-rdc=true",
                                        "--relocatable-device-code",
                                        "false",
                                        "-dc",
                                        "-use_fast_math",
                                        "--ftz=true",
                                        "-prec-div",
                                        "false",
                                        "--fmad=false",
                                        "-ccbin",
                                        "gcc-12",
                                        "--compiler-bindir=tools/g++",
                                        "--allow-unsupported-compiler",
                                        "-Xcudafe",
                                        "--diag_suppress=177",
                                        "-arch=sm_80",
                                        "-code",
                                        "sm_86,compute_86",
                                        "-gencode",
                                        "arch=compute_75,code=\"sm_75,compute_75\"",
                                        "-o",
                                        "-Dnot_a_define.o",
                                        "a.cu"});
  EXPECT_EQ(f.include_dirs, (Words{"/b/inc", "/b/inc2", "/abs", "/b/y"}));
  EXPECT_EQ(f.defines, (Words{"A=1", "B", "C=3", "D"}));
  EXPECT_EQ(f.extra, (Words{"-U",
                            "E",
                            "-U",
                            "F",
                            "-isystem",
                            "/b/sys",
                            "-isystem",
                            "/sys2",
                            "-include",
                            "pre.h",
                            "-include",
                            "/p.h",
                            "-std=c++20",
                            "--expt-relaxed-constexpr",
                            "--extended-lambda",
                            "--extended-lambda",
                            "-rdc=true",
                            "-rdc=false",
                            "-rdc=true",
                            "--use_fast_math",
                            "--ftz=true",
                            "--prec-div=false",
                            "--fmad=false",
                            "-ccbin",
                            "gcc-12",
                            "-ccbin",
                            "/b/tools/g++",
                            "--allow-unsupported-compiler",
                            "-Xcudafe",
                            "--diag_suppress=177"}));
  EXPECT_EQ(f.archs, (Words{"sm_80", "sm_86", "sm_75"}));
}

TEST(DeviceFlags, ClangCudaEntry) {
  const DeviceFlags f =
      flags_of("/b", {"clang++", "-x", "cuda", "--cuda-gpu-arch=sm_80", "--offload-arch=sm_90a",
                      "-std=gnu++17", "-fgpu-rdc", "-Iinclude", "-DN=4", "-Xclang", "-DCLANG_ONLY",
                      "--cuda-path=/usr/local/cuda", "-MD", "-MF", "a.d", "-c", "a.cu"});
  EXPECT_EQ(f.include_dirs, Words{"/b/include"});
  EXPECT_EQ(f.defines, Words{"N=4"});
  EXPECT_EQ(f.extra, (Words{"-x", "cu", "-std=c++17", "-rdc=true"}));
  EXPECT_EQ(f.archs, (Words{"sm_80", "sm_90a"}));
}

TEST(DeviceFlags, UnreadableOptionsFileIsAnError) {
  EXPECT_NE(error_of([] {
              flags_of("/nonexistent", {"nvcc", "--options-file", "x.rsp"});
            }).find("cannot read '/nonexistent/x.rsp'"),
            std::string::npos);
}

TEST(PickArch, Sm90WhenListedElseTheHighest) {
  using bankcheck::driver::pick_arch;
  EXPECT_EQ(pick_arch({"sm_80", "sm_90", "sm_100"}), "sm_90");
  EXPECT_EQ(pick_arch({"sm_90a", "sm_120"}), "sm_90a");
  EXPECT_EQ(pick_arch({"sm_75", "sm_86", "sm_80"}), "sm_86");
  EXPECT_EQ(pick_arch({"sm_100a", "sm_120"}), "sm_120");
  EXPECT_EQ(pick_arch({}), "");
}

// ---- the command line --------------------------------------------------------------------

const std::string kTranspose = kSrc + "/examples/transpose.cu";
const std::string kHistogram = kSrc + "/examples/histogram.cu";

TEST(NvccFlags, DoubleDashWorksAfterRepeatableOptions) {
  // `--arg` takes any number of values: the `--` used to be read as its end only.
  const auto r = run_tool({"check", kHistogram, "--kernel", "histogram_shared", "--arg", "n=4096",
                           "--arg", "data=random:4096", "--blocks", "1", "--",
                           "-DUNUSED_BY_THE_TEST=1", "--expt-relaxed-constexpr"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("histogram_shared"), std::string::npos);
  // What follows `--` reaches nvcc: a flag it refuses makes the run fail with its words.
  const auto bad = run_tool({"check", kHistogram, "--arg", "n=4096", "--", "--no-such-nvcc-flag"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("no-such-nvcc-flag"), std::string::npos) << bad.err;
  // fix too.
  const auto fix = run_tool({"fix", kTranspose, "--kernel", "transposeShared", "--arg", "n=1",
                             "--blocks", "1", "--", "-DX=1"});
  EXPECT_NE(fix.err.find("kernel transposeShared has no parameter 'n'"), std::string::npos)
      << fix.err;
  EXPECT_EQ(fix.err.find("not expected"), std::string::npos) << fix.err;
}

TEST(NvccFlags, WarningsOfASuccessfulCompileAreShown) {
  Scratch s;
  const std::string cu = s.write("warn.cu", R"(#define TILE 32
#define TILE 16
// bankcheck: kernel=k grid=1 block=16,16
__global__ void k(float* out) {
  __shared__ float t[TILE][TILE];
  t[threadIdx.x][threadIdx.y] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = t[threadIdx.y][threadIdx.x];
}
)");
  const auto r = run_tool({"check", cu, "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("bankcheck: " + cu + ": nvcc printed:\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"TILE\" redefined"), std::string::npos) << r.err;
  EXPECT_NO_THROW({  // the report stays on stdout alone
    const auto report = nlohmann::json::parse(r.out);
    EXPECT_TRUE(report.is_object());
  });
  const auto fix = run_tool({"fix", cu, "--format", "json"});
  EXPECT_EQ(fix.exit_code, 0) << fix.err;
  EXPECT_NE(fix.err.find("bankcheck: " + cu + ": nvcc printed:\n"), std::string::npos) << fix.err;
  // A file nvcc compiles silently gets no such line.
  const auto quiet = run_tool({"check", kSrc + "/examples/cmake/tiles.cu", "--blocks", "1"});
  EXPECT_EQ(quiet.err.find("nvcc printed"), std::string::npos) << quiet.err;
}

TEST(HostLaunches, ACommentOnOneKernelKeepsTheOtherLaunchedKernels) {
  // One kernel's comment gives its data; the other kernels main() launches are still
  // checked, with their launches, and a kernel only a comment names is checked too.
  Scratch s;
  const std::string cu = s.write("two.cu", R"(#include <cuda_runtime.h>
// bankcheck: kernel=lookup arg=keys=iota:4K
__global__ void lookup(const unsigned* keys, unsigned* out) {
  __shared__ unsigned t[256];
  t[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = t[(keys[threadIdx.x] * 33u) % 256u];
}
__global__ void column(float* out) {
  __shared__ float t[32][32];
  t[threadIdx.x][threadIdx.y] = threadIdx.x;
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = t[threadIdx.y][threadIdx.x];
}
// bankcheck: kernel=unlaunched grid=1 block=32
__global__ void unlaunched(float* out) {
  __shared__ float t[64];
  t[2 * threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = t[2 * threadIdx.x];
}
int main() {
  unsigned *keys, *out;
  float* f;
  cudaMalloc(&keys, 4096);
  cudaMalloc(&out, 4096);
  cudaMalloc(&f, 4096);
  lookup<<<4, 256>>>(keys, out);
  column<<<2, dim3(32, 32)>>>(f);
  return 0;
}
)");
  const auto r = run_tool({"check", cu, "--no-progress"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto lookup = r.out.find("kernel lookup: grid 4x1x1, block 256x1x1");
  const auto unlaunched = r.out.find("kernel unlaunched: grid 1x1x1, block 32x1x1");
  const auto column = r.out.find("kernel column: grid 2x1x1, block 32x32x1");
  ASSERT_NE(lookup, std::string::npos) << r.out;
  ASSERT_NE(unlaunched, std::string::npos) << r.out;
  ASSERT_NE(column, std::string::npos) << r.out;
  EXPECT_LT(lookup, unlaunched);  // commented kernels in the program's order, then launches
  EXPECT_LT(unlaunched, column);
  EXPECT_NE(r.out.find("from launch 2 at " + cu + ":29 in main"), std::string::npos) << r.out;
  // t[threadIdx.x][threadIdx.y]: 32 lanes down one column, 32 ways.
  EXPECT_NE(r.out.find("32-way bank conflict"), std::string::npos) << r.out;
}

TEST(SeveralFiles, OneSectionPerFileAndKernelsMatchedWhereTheyAre) {
  const auto r = run_tool({"check", kTranspose, kHistogram, "--kernel", "histogram_shared",
                           "--blocks", "1", "--no-progress"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto first = r.out.find("== " + kTranspose + " (1 of 2) ==\n");
  const auto second = r.out.find("== " + kHistogram + " (2 of 2) ==\n");
  ASSERT_NE(first, std::string::npos) << r.out;
  ASSERT_NE(second, std::string::npos) << r.out;
  EXPECT_LT(first, second);
  EXPECT_NE(r.out.find(kTranspose + ": note: no kernel named 'histogram_shared' here"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("kernel histogram_shared:", second), std::string::npos) << r.out;
  // A name no file has is an error.
  const auto none = run_tool({"check", kTranspose, kHistogram, "--kernel", "nope"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--kernel: no kernel named 'nope' in any of the 2 files"),
            std::string::npos)
      << none.err;
}

TEST(SeveralFiles, JsonSarifAndTheWorstExitCode) {
  Scratch s;
  const std::string bad = s.write("bad.cu", "__global__ void k(float* o) { o[0] = undeclared; }\n");
  const std::string one_conflict = kSrc + "/examples/cmake/tiles.cu";
  const auto r = run_tool({"check", one_conflict, bad, kTranspose, "--blocks", "1", "--format",
                           "json", "--fail-on", "ways>1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the worst: bad.cu's nvcc error over the gates' 1
  EXPECT_NE(r.err.find("bankcheck: error: " + bad + ": nvcc failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("crossed"), std::string::npos) << r.err;  // the others still gated
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["files"].size(), 3u);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["files"][0]["input"], one_conflict);
  EXPECT_GT(j["files"][0]["kernels"].size(), 0u);
  EXPECT_EQ(j["files"][1]["input"], bad);
  EXPECT_NE(j["files"][1]["error"].get<std::string>().find("undeclared"), std::string::npos);
  EXPECT_FALSE(j["files"][1].contains("kernels"));
  EXPECT_EQ(j["files"][2]["input"], kTranspose);
  // Without the broken file: the gates' 1.
  const auto gated = run_tool({"check", one_conflict, kTranspose, "--blocks", "1", "--format",
                               "sarif", "--fail-on", "ways>1"});
  EXPECT_EQ(gated.exit_code, 1) << gated.err;
  const auto sarif = nlohmann::json::parse(gated.out);
  ASSERT_EQ(sarif["runs"].size(), 1u);
  const auto& run = sarif["runs"][0];
  std::set<std::string> uris;
  for (const auto& a : run["artifacts"]) uris.insert(a["location"]["uri"].get<std::string>());
  EXPECT_EQ(uris.size(), 2u);
  std::set<std::string> result_uris;
  for (const auto& res : run["results"]) {
    const auto& loc = res["locations"][0]["physicalLocation"]["artifactLocation"];
    const int index = loc["index"];
    // Each result's index names the artifact of its own uri after the renumbering.
    EXPECT_EQ(run["artifacts"][static_cast<std::size_t>(index)]["location"]["uri"], loc["uri"]);
    result_uris.insert(loc["uri"].get<std::string>());
  }
  EXPECT_EQ(result_uris, uris);
  EXPECT_EQ(run["properties"]["inputs"].size(), 2u);
  EXPECT_TRUE(run["invocations"][0]["executionSuccessful"].get<bool>());
  // html is one page per file.
  const auto html = run_tool({"check", one_conflict, kTranspose, "--format", "html"});
  EXPECT_EQ(html.exit_code, 2);
  EXPECT_NE(html.err.find("--format html: one page per file"), std::string::npos) << html.err;
}

TEST(SeveralFiles, OneFileHasTheSameShape) {
  const auto r = run_tool(
      {"check", kTranspose, "--kernel", "transposeShared", "--blocks", "1", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 2);
  ASSERT_EQ(j["files"].size(), 1u);
  EXPECT_EQ(j["files"][0]["input"], kTranspose);
  EXPECT_FALSE(j.contains("kernels"));
  // And an error stays the run's, as before.
  const auto missing = run_tool({"check", kTranspose, "--kernel", "nope"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--kernel: no kernel named 'nope'; the kernels are:"),
            std::string::npos)
      << missing.err;
  EXPECT_TRUE(missing.out.empty());
}

TEST(CompileDbCli, EntryFlagsUnderTheCommandLine) {
  Scratch s;
  s.write("inc/config.cuh", "#ifndef BLOCK\n#define BLOCK 64\n#endif\n");
  const std::string cu = s.write("src/k.cu", R"(#include "config.cuh"
__global__ void k(float* out) {
  __shared__ float t[BLOCK];
  t[threadIdx.x] = 1.f;
  __syncthreads();
  out[threadIdx.x] = t[(threadIdx.x * 2) % BLOCK];
}
void run(float* d) { k<<<2, BLOCK>>>(d); }
)");
  const std::string b = (s.dir / "build").string();
  s.write("build/compile_commands.json",
          R"([{"directory": ")" + b + R"(", "file": ")" + cu +
              R"(", "command": "nvcc -I../inc -DBLOCK=128 -arch=sm_80 -c )" + cu + R"("}])");
  auto block = [](const std::string& out) {
    return nlohmann::json::parse(out)["files"][0]["kernels"][0]["block"][0].get<int>();
  };
  // Without -p the header is not found.
  const auto plain = run_tool({"check", cu});
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_NE(plain.err.find("config.cuh"), std::string::npos) << plain.err;
  // With -p: the include directory, the definition (nvcc's and the host launch's), the arch.
  const auto r = run_tool({"check", "-p", b, cu, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(block(r.out), 128);
  EXPECT_EQ(nlohmann::json::parse(r.out)["files"][0]["kernels"][0]["static_smem"], 512);
  EXPECT_EQ(nlohmann::json::parse(r.out)["files"][0]["arch"], "sm_80");
  // The command line wins: --arch, and a -D after -- replaces the entry's (no redefinition
  // warning from nvcc).
  const auto over = run_tool({"check", "-p", b + "/compile_commands.json", cu, "--arch", "sm_90",
                              "--format", "json", "--", "-DBLOCK=32"});
  ASSERT_EQ(over.exit_code, 0) << over.err;
  EXPECT_EQ(block(over.out), 32);
  EXPECT_EQ(nlohmann::json::parse(over.out)["files"][0]["arch"], "sm_90");
  EXPECT_EQ(over.err.find("redefin"), std::string::npos) << over.err;
  // fix reads -p too.
  const auto fix = run_tool({"fix", "-p", b, cu, "--format", "json"});
  EXPECT_EQ(fix.exit_code, 0) << fix.err;
  // Errors: a file not in the database; a malformed database; no file and no .cu entry.
  const auto absent = run_tool({"check", "-p", b, kTranspose});
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find(kTranspose + ": not in " + b + "/compile_commands.json"),
            std::string::npos)
      << absent.err;
  EXPECT_NE(absent.err.find(cu), std::string::npos) << absent.err;  // its .cu files listed
  // PTX needs no entry.
  const auto ptx = run_tool({"check", "-p", b, kSrc + "/tests/data/check/unsupported.ptx", "--grid",
                             "1", "--block", "32"});
  EXPECT_EQ(ptx.err.find("not in"), std::string::npos) << ptx.err;
  s.write("broken/compile_commands.json", "[\n  {\"directory\": \"/x\",\n   \"file\": }\n]\n");
  const auto broken = run_tool({"check", "-p", (s.dir / "broken").string()});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("broken/compile_commands.json:3:12: malformed JSON"), std::string::npos)
      << broken.err;
  s.write("hostonly/compile_commands.json",
          R"([{"directory": "/x", "file": "/x/a.cpp", "command": "c++ -c a.cpp"}])");
  const auto host_only = run_tool({"check", "-p", (s.dir / "hostonly").string()});
  EXPECT_EQ(host_only.exit_code, 2);
  EXPECT_NE(host_only.err.find("has no .cu file (1 entries)"), std::string::npos) << host_only.err;
  const auto nothing = run_tool({"check"});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("no input"), std::string::npos) << nothing.err;
}

}  // namespace
