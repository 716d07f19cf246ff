// Native code for runs of ALU micro-ops (src/emu/native.hpp): which runs it plans (never
// across a place control flow enters), when it compiles (once a kernel has earned it, or
// from the cache at once), and that a kernel without it (no compiler) runs as before. Its
// results are compared with the reference's by every differential test (emu_differential.hpp).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/emu/emulator.hpp"
#include "bankcheck/emu/footprint.hpp"
#include "cta.hpp"
#include "lane_values.hpp"
#include "native.hpp"

namespace drv = bankcheck::driver;
namespace emu = bankcheck::emu;
namespace det = bankcheck::emu::detail;
namespace fs = std::filesystem;

namespace {

// A kernel NAME(out, in, n): the parameters in %rd1, %rd2 and %r1, %tid.x in %r2, its float's
// byte offset in %rd3 and its address in `in` in %rd4; then `body`.
std::string kernel_ptx(const char* name, const char* body) {
  return std::string(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry ") + name +
         R"((.param .u64 p_out, .param .u64 p_in, .param .u32 p_n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<8>;
  ld.param.u64 %rd1, [p_out];
  ld.param.u64 %rd2, [p_in];
  ld.param.u32 %r1, [p_n];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
)" + body +
         "}\n";
}

// out[tid] = f(in[tid]) through a loop whose head (label L) follows straight-line arithmetic:
// a run must end before L, and the loop body is a run of its own.
const std::string kLoop = kernel_ptx("loop", R"(  ld.global.f32 %f1, [%rd4];
  mov.u32 %r3, 0;
  mul.f32 %f2, %f1, 0f3F000000;
L:
  fma.rn.f32 %f2, %f2, %f1, 0f3F800000;
  add.s32 %r3, %r3, 1;
  and.b32 %r4, %r2, 3;
  setp.lt.u32 %p1, %r3, %r1;
  setp.ne.u32 %p2, %r4, 0;
  @%p2 add.f32 %f2, %f2, %f1;
  @%p1 bra L;
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f2;
  ret;
)");

// A kernel_ptx() kernel NAME(out, in, n) launched with `threads` threads.
emu::Launch launch_of(const bankcheck::ptx::Kernel& k, std::uint32_t threads, std::uint64_t out,
                      std::uint64_t in, std::uint32_t n = 0) {
  emu::Launch launch;
  launch.block = {threads, 1, 1};
  launch.params.assign(static_cast<std::size_t>(k.param_bytes), 0);
  std::memcpy(launch.params.data() + k.params[0].offset, &out, 8);
  std::memcpy(launch.params.data() + k.params[1].offset, &in, 8);
  std::memcpy(launch.params.data() + k.params[2].offset, &n, 4);
  return launch;
}

class Native : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("bankcheck-native-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    ::setenv("BANKCHECK_CACHE_DIR", dir_.c_str(), 1);
    ::unsetenv("BANKCHECK_NATIVE_AFTER");
    const fs::path file = dir_.string() + ".ptx";
    std::ofstream(file) << kLoop;
    drv::CheckOptions o;
    o.input = file.string();
    loaded_ = std::make_unique<drv::Loaded>(drv::load(o));
  }
  void TearDown() override {
    ::unsetenv("BANKCHECK_CXX");
    fs::remove_all(dir_);
    fs::remove(dir_.string() + ".ptx");
  }
  const bankcheck::ptx::Kernel& kernel() const { return loaded_->program.kernels.at(0); }

  // One CTA of 64 threads over in[t] = t / 8; returns out.
  std::vector<float> run(const emu::Emulator::Options& eo, std::uint32_t n = 5) {
    emu::GlobalMemory mem;
    const std::uint64_t out = mem.add("out", 4 * 64), in = mem.add("in", 4 * 64);
    std::vector<float> x(64);
    for (int t = 0; t < 64; ++t) x[static_cast<std::size_t>(t)] = static_cast<float>(t) / 8;
    std::memcpy(mem.find(in, 1)->data(), x.data(), 4 * 64);
    const auto& k = kernel();
    const emu::Launch launch = launch_of(k, 64, out, in, n);
    {
      emu::Emulator e(loaded_->program, k, mem, eo);
      e.run_cta(launch, {0, 0, 0});
    }
    std::vector<float> r(64);
    std::memcpy(r.data(), mem.find(out, 1)->data(), 4 * 64);
    return r;
  }
  std::size_t compiled() const {
    std::size_t n = 0;
    if (fs::exists(dir_ / "native"))
      for (const auto& e : fs::directory_iterator(dir_ / "native"))
        n += e.path().extension() == ".so";
    return n;
  }

  fs::path dir_;
  std::unique_ptr<drv::Loaded> loaded_;
};

det::Compiled compile(const bankcheck::ptx::Kernel& k, std::vector<std::uint64_t>& cta) {
  cta.assign(32 * 10, 0);
  det::Layout layout;
  layout.num_preds = std::max<std::uint32_t>(k.num_preds, 1);
  layout.cta = cta.data();
  layout.laneid = cta.data() + 9 * 32;
  return det::compile(k, layout);
}

// A kernel's PTX loaded from a file of its own, its native code cached in a directory of its
// own; both removed at the end.
struct LoadedKernel {
  fs::path dir, file;
  std::unique_ptr<drv::Loaded> loaded;
  LoadedKernel(const std::string& tag, const std::string& ptx)
      : dir(fs::temp_directory_path() /
            ("bankcheck-native-" + tag + "-" + std::to_string(::getpid()))),
        file(dir.string() + ".ptx") {
    fs::remove_all(dir);
    ::setenv("BANKCHECK_CACHE_DIR", dir.c_str(), 1);
    std::ofstream(file) << ptx;
    drv::CheckOptions co;
    co.input = file.string();
    loaded = std::make_unique<drv::Loaded>(drv::load(co));
  }
  ~LoadedKernel() {
    fs::remove_all(dir);
    fs::remove(file);
  }
  const bankcheck::ptx::Kernel& kernel() const { return loaded->program.kernels.at(0); }
};

TEST_F(Native, RunsStopWhereControlFlowEnters) {
  std::vector<std::uint64_t> cta;
  const det::Compiled c = compile(kernel(), cta);
  const det::NativePlan plan = det::plan_native(c, std::max<std::uint32_t>(kernel().num_preds, 1));
  int label = -1;
  for (std::size_t i = 0; i < c.code.size(); ++i)
    if (c.code[i].op == bankcheck::ptx::Opc::Fma) label = static_cast<int>(i);
  ASSERT_GE(label, 0);
  ASSERT_FALSE(plan.first.empty());
  bool body = false;
  for (std::size_t r = 0; r < plan.first.size(); ++r) {
    const int a = static_cast<int>(plan.first[r]), b = a + static_cast<int>(plan.len[r]);
    EXPECT_FALSE(a < label && label < b) << "run " << a << ".." << b << " holds the loop head";
    body = body || a == label;
    EXPECT_GE(plan.len[r], 2u);
  }
  EXPECT_TRUE(body) << "the loop body (fma, add, and, setp, setp, add.f32) is one run";
  EXPECT_NE(plan.source.find("bcn_full_0"), std::string::npos);
}

// The code's own constants are literals in the source (the compiler folds them), not operands
// read lane by lane (but a directed fma's, as uniform values); the launch's values (the trip
// count n) stay operands, read once per run.
TEST_F(Native, ConstantsOfTheCodeAreLiterals) {
  std::vector<std::uint64_t> cta;
  const det::Compiled c = compile(kernel(), cta);
  const det::NativePlan plan = det::plan_native(c, std::max<std::uint32_t>(kernel().num_preds, 1));
  EXPECT_NE(plan.source.find("& U{0x3ull}"), std::string::npos);       // and.b32 %r4, %r2, 3
  EXPECT_NE(plan.source.find("U{0x3f800000ull}"), std::string::npos);  // fma's 1.0
  for (const auto& fixed : plan.fixed)
    for (const std::uint64_t* f : fixed) {
      const bool literal = f >= c.imm.data() && f < c.imm.data() + c.imm.size() &&
                           c.literal[static_cast<std::size_t>(f - c.imm.data()) / 32];
      EXPECT_FALSE(literal) << "a constant of the code read as an operand";
    }
  EXPECT_NE(plan.source.find("f0[0]"), std::string::npos);  // n, the same in every lane
  EXPECT_EQ(plan.source.find("f0[l]"), std::string::npos);
}

// A lane that does not run a float operation (here the guarded `@%p2 add.f32`) computes it
// on zero, not on what its slot last held (a denormal's bits take the host a microcode
// assist); the lanes that run it read their registers.
TEST_F(Native, LanesThatDoNotRunFloatArithmeticComputeOnZero) {
  std::vector<std::uint64_t> cta;
  const det::Compiled c = compile(kernel(), cta);
  const det::NativePlan plan = det::plan_native(c, std::max<std::uint32_t>(kernel().num_preds, 1));
  // Zero by a mask of the lane's x, not a select: a select of a select kept GCC 12 from
  // vectorizing an if's lanes.
  const std::size_t add = plan.source.find("canonical_f32(as_f32((");
  ASSERT_NE(add, std::string::npos) << plan.source;
  const std::size_t mask = plan.source.find(" & (U{0} - (U)x", add);
  EXPECT_NE(mask, std::string::npos);
  EXPECT_LT(mask, plan.source.find('\n', add));
}

// The kernel's ld.params come before any branch: their readers anywhere (the trip count n,
// read after the loop's label) read the launch's value in place, and the loads count as
// instructions without writing a register (uop.cpp: forward_constants).
TEST_F(Native, ParametersReadPastTheFirstBranch) {
  std::vector<std::uint64_t> cta;
  const det::Compiled c = compile(kernel(), cta);
  ASSERT_EQ(c.params.size(), 3u);  // out, in, n
  const det::Compiled::ParamRead& n = c.params[2];
  EXPECT_FALSE(n.keep);
  ASSERT_FALSE(n.readers.empty());
  int label = -1;
  for (std::size_t i = 0; i < c.code.size(); ++i)
    if (c.code[i].op == bankcheck::ptx::Opc::Fma) label = static_cast<int>(i);
  for (const auto& [uop, src] : n.readers) EXPECT_GT(static_cast<int>(uop), label);
}

// A constant's mov before a barrier, read after it in the same block (block_scan moves the
// clamp of its five shfls to a register before its bar.sync): a barrier ends a run, not the
// block, so the shfl reads the constant in place and the mov writes nothing.
TEST(NativeConstants, MovedBeforeABarrierReadAfterIt) {
  LoadedKernel k("barrier", kernel_ptx("barrier_clamp", R"(  setp.ge.u32 %p1, %r2, 1024;
  @%p1 bra DONE;
  mov.u32 %r5, 0;
  bar.sync 0;
  shfl.sync.up.b32 %r6, %r2, 1, %r5, -1;
  add.s64 %rd5, %rd1, %rd3;
  st.global.u32 [%rd5], %r6;
DONE:
  ret;
)"));
  std::vector<std::uint64_t> cta;
  const det::Compiled c = compile(k.kernel(), cta);
  int mov = -1, shfl = -1;
  for (std::size_t i = 0; i < c.code.size(); ++i) {
    if (c.code[i].op == bankcheck::ptx::Opc::Shfl) shfl = static_cast<int>(i);
    if (c.code[i].op == bankcheck::ptx::Opc::Mov &&
        c.code[i].src[0].kind == bankcheck::ptx::Opnd::Kind::Imm)
      mov = static_cast<int>(i);
  }
  ASSERT_GE(mov, 0);
  ASSERT_GT(shfl, mov);
  EXPECT_EQ(c.uops[static_cast<std::size_t>(mov)].kind, det::K::Nop);
  EXPECT_NE(c.uops[static_cast<std::size_t>(shfl)].src[2].fixed, nullptr);
}

TEST_F(Native, SameResultsAsTheMicroOps) {
  emu::Emulator::Options micro{.fast = true, .execute_only = true};
  emu::Emulator::Options native = micro;
  native.native = true;
  native.native_after = 0;
  const std::vector<float> want = run(micro);
  EXPECT_EQ(compiled(), 0u);
  EXPECT_EQ(run(native), want);
  EXPECT_EQ(compiled(), 1u);
  // Another trip count: the parameters are bound again, the same code runs.
  EXPECT_EQ(run(native, 9), run(micro, 9));
}

// A kernel's plan kept from one emulator to the next (EmulatorOptions::native_memo): the
// second emulator's runs read its own fixed operands (the ones planning it anew finds), not
// the first's, and compute what the micro-ops do with another trip count.
TEST_F(Native, APlanKeptFromOneEmulatorToTheNext) {
  const std::uint32_t preds = std::max<std::uint32_t>(kernel().num_preds, 1);
  const std::shared_ptr<det::NativeMemo> memo = emu::make_native_memo();
  std::vector<std::uint64_t> cta1, cta2;
  det::Compiled c1 = compile(kernel(), cta1);
  ASSERT_TRUE(det::make_native(c1, preds, 0, nullptr, memo.get()));
  EXPECT_TRUE(memo->planned);
  det::Compiled c2 = compile(kernel(), cta2);
  const det::NativePlan own = det::plan_native(c2, preds);
  ASSERT_TRUE(det::make_native(c2, preds, 0, nullptr, memo.get()));
  ASSERT_EQ(c2.natives.size(), own.fixed.size());
  for (std::size_t i = 0; i < own.fixed.size(); ++i) {
    EXPECT_EQ(c2.natives[i].fixed, own.fixed[i]) << "run " << i;
    EXPECT_EQ(c2.natives[i].full, c1.natives[i].full);
  }
  emu::Emulator::Options micro{.fast = true, .execute_only = true};
  emu::Emulator::Options native = micro;
  native.native = true;
  native.native_after = 0;
  native.native_memo = emu::make_native_memo();
  EXPECT_EQ(run(native), run(micro));
  EXPECT_EQ(run(native, 9), run(micro, 9));
  EXPECT_EQ(run(native, 2), run(micro, 2));
}

TEST_F(Native, CompiledOnceTheKernelHasEarnedIt) {
  emu::Emulator::Options o{.fast = true, .execute_only = true};
  o.native = true;
  o.native_after = 5000;  // the 64-thread CTA runs about 2 x 40 warp instructions a launch
  const std::vector<float> want = run(o);
  int launches = 1;
  while (compiled() == 0 && launches < 200) {
    EXPECT_EQ(run(o), want);
    ++launches;
  }
  EXPECT_EQ(compiled(), 1u);
  EXPECT_GT(launches, 20);
  EXPECT_EQ(run(o), want);
}

TEST_F(Native, WithoutACompilerTheMicroOpsRun) {
  ::setenv("BANKCHECK_CXX", "/nonexistent/c++", 1);
  std::vector<std::uint64_t> cta;
  det::Compiled c = compile(kernel(), cta);
  std::string why;
  EXPECT_FALSE(det::make_native(c, std::max<std::uint32_t>(kernel().num_preds, 1), 0, &why));
  EXPECT_NE(why.find("/nonexistent/c++ failed"), std::string::npos) << why;
  EXPECT_TRUE(c.natives.empty());
  for (const det::Uop& u : c.uops) EXPECT_NE(u.kind, det::K::Native);
  emu::Emulator::Options o{.fast = true, .execute_only = true};
  emu::Emulator::Options native = o;
  native.native = true;
  native.native_after = 0;
  EXPECT_EQ(run(native), run(o));
  EXPECT_EQ(compiled(), 0u);
}

// A loop whose body begins with a load: native code's run starts with it, and the load is
// called back on a launch whose footprint is recorded (repeats.hpp): the same memory and
// the same record as the micro-ops leave.
const std::string kWalk = kernel_ptx("walk", R"(  mov.f32 %f2, 0f00000000;
  mov.u32 %r3, 0;
L:
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f2, %f1;
  add.s64 %rd4, %rd4, 256;
  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, %r1;
  @%p1 bra L;
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f2;
  ret;
)");

TEST(NativeFootprint, CalledBackLoadsAndStoresAreRecorded) {
  const LoadedKernel lk("walk", kWalk);
  const auto& k = lk.kernel();
  struct Result {
    std::vector<float> out;
    bool complete = false;
    std::vector<emu::Footprint::Range> touched;
  };
  const auto run = [&](bool native) {
    emu::GlobalMemory mem;
    const std::uint32_t n = 4;
    const std::uint64_t out = mem.add("out", 4 * 64), in = mem.add("in", 4 * 64 * n);
    std::vector<float> x(64 * n);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 13) / 4;
    std::memcpy(mem.find(in, 1)->data(), x.data(), 4 * x.size());
    const emu::Launch launch = launch_of(k, 64, out, in, n);
    emu::Footprint fp(mem);
    emu::Emulator::Options o{.fast = true, .execute_only = true};
    o.footprint = &fp;
    o.native = native;
    o.native_after = 0;
    {
      emu::Emulator e(lk.loaded->program, k, mem, o);
      e.run_cta(launch, {0, 0, 0});
    }
    Result r;
    r.out.resize(64);
    std::memcpy(r.out.data(), mem.find(out, 1)->data(), 4 * 64);
    r.complete = fp.complete();
    r.touched = fp.touched();
    return r;
  };
  const std::uint64_t failures = emu::native_code_failures();
  const Result micro = run(false), native = run(true);
  EXPECT_EQ(emu::native_code_failures(), failures);
  EXPECT_EQ(native.out, micro.out);
  EXPECT_TRUE(micro.complete);
  EXPECT_EQ(native.complete, micro.complete);
  EXPECT_EQ(native.touched, micro.touched);
  EXPECT_EQ(micro.touched.size(), 2u);  // in and out, whole
}

// Every lane at one address: a load of in[1] (one element, every lane its value) and a
// store to out[0] (the last lane's value), beside a row and a store of one lane (lane 5 of
// each warp to out[129 + its thread]), and a row of float4 (in4[1 + t] to out4[65 + t],
// reversed), with 4 warps, so that all but the first run in place.
const std::string kOne = kernel_ptx("one", R"(  ld.global.f32 %f1, [%rd2+4];
  cvt.rn.f32.u32 %f2, %r2;
  add.f32 %f3, %f1, %f2;
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5+4], %f3;
  st.global.f32 [%rd1], %f3;
  and.b32 %r5, %r2, 31;
  setp.eq.u32 %p1, %r5, 5;
  @%p1 st.global.f32 [%rd5+516], %f3;
  mul.wide.u32 %rd6, %r2, 16;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.v4.f32 {%f4, %f5, %f6, %f7}, [%rd7+16];
  add.s64 %rd4, %rd1, %rd6;
  st.global.v4.f32 [%rd4+1040], {%f7, %f6, %f5, %f4};
  ret;
)");

TEST(NativeInPlace, OneAddressForEveryLane) {
  const LoadedKernel lk("one", kOne);
  const auto& k = lk.kernel();
  constexpr std::uint32_t kThreads = 128;
  const auto run = [&](bool native) {
    emu::GlobalMemory mem;
    const std::uint64_t out = mem.add("out", 1040 + 16 * kThreads),
                        in = mem.add("in", 16 * (kThreads + 1));
    std::vector<float> x(4 * (kThreads + 1));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) / 2;
    x[1] = 7.25f;
    std::memcpy(mem.find(in, 1)->data(), x.data(), 4 * x.size());
    const emu::Launch launch = launch_of(k, kThreads, out, in);
    emu::Emulator::Options o{.fast = true, .execute_only = true};
    o.native = native;
    o.native_after = 0;
    {
      emu::Emulator e(lk.loaded->program, k, mem, o);
      e.run_cta(launch, {0, 0, 0});
    }
    std::vector<float> r((1040 + 16 * kThreads) / 4);
    std::memcpy(r.data(), mem.find(out, 1)->data(), 4 * r.size());
    return r;
  };
  const std::uint64_t failures = emu::native_code_failures();
  const std::vector<float> micro = run(false), native = run(true);
  EXPECT_EQ(emu::native_code_failures(), failures);
  EXPECT_EQ(native, micro);
  for (std::uint32_t t = 0; t < kThreads; ++t)
    EXPECT_EQ(native[t + 1], 7.25f + static_cast<float>(t)) << "thread " << t;
  EXPECT_EQ(std::fmod(native[0] - 7.25f, 32.0f), 31.0f);  // a warp's last lane
  for (std::uint32_t t = 0; t < kThreads; ++t)
    EXPECT_EQ(native[kThreads + 1 + t], t % 32 == 5 ? 7.25f + static_cast<float>(t) : 0.0f)
        << "thread " << t;
  for (std::uint32_t t = 0; t < kThreads; ++t)
    for (std::uint32_t v = 0; v < 4; ++v)
      EXPECT_EQ(native[260 + 4 * t + v], static_cast<float>(4 * (t + 1) + 3 - v) / 2)
          << "thread " << t << ", element " << v;
}

// A kernel_ptx() kernel of 64 threads over `x` (in), one CTA `ctas` times, executing only,
// with native code compiled at once or the micro-ops; the first `words` words of out.
std::vector<std::uint32_t> run_words(const LoadedKernel& lk, const std::vector<float>& x,
                                     std::size_t words, int ctas, bool native) {
  const auto& k = lk.kernel();
  emu::GlobalMemory mem;
  const std::uint64_t out = mem.add("out", 4 * words), in = mem.add("in", 4 * x.size());
  std::memcpy(mem.find(in, 1)->data(), x.data(), 4 * x.size());
  const emu::Launch launch = launch_of(k, 64, out, in);
  emu::Emulator::Options o{.fast = true, .execute_only = true};
  o.native = native;
  o.native_after = 0;
  {
    emu::Emulator e(lk.loaded->program, k, mem, o);
    for (int cta = 0; cta < ctas; ++cta) e.run_cta(launch, {0, 0, 0});
  }
  std::vector<std::uint32_t> r(words);
  std::memcpy(r.data(), mem.find(out, 1)->data(), 4 * r.size());
  return r;
}

// Directed f32 arithmetic (fma.rm as every expf has it, add.rz, mul.rp, sub.rm) over
// values that round every way, denormals, infinities and NaNs: native code (on x86 with FMA,
// the host's arithmetic under MXCSR's rounding mode) leaves what the micro-ops leave (the
// host's rounding mode set for the warp).
const std::string kDirected = kernel_ptx("directed", R"(  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd4+256];
  fma.rm.f32 %f3, %f1, %f2, 0f3F800000;
  add.rz.f32 %f4, %f1, %f2;
  mul.rp.f32 %f5, %f3, %f4;
  sub.rm.f32 %f6, %f5, %f1;
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f3;
  st.global.f32 [%rd5+256], %f4;
  st.global.f32 [%rd5+512], %f5;
  st.global.f32 [%rd5+768], %f6;
  ret;
)");

TEST(NativeValues, DirectedArithmeticInPlaceEqualsTheMicroOps) {
  const LoadedKernel lk("directed", kDirected);
  std::mt19937 rng(7);
  const float specials[] = {0.0f,     -0.0f,     1e-45f, -1e-45f, 1e-38f, 3.4e38f, -3.4e38f,
                            INFINITY, -INFINITY, NAN,    1.0f,    -1.0f,  1.5e-7f, 1e30f};
  for (int round = 0; round < 8; ++round) {
    std::vector<float> x(128);
    for (std::size_t i = 0; i < x.size(); ++i) {
      std::uint32_t b = static_cast<std::uint32_t>(rng());
      if (round % 2 == 0) b = (b & 0x807FFFFFu) | ((100u + b % 56u) << 23);  // near 1
      std::memcpy(&x[i], &b, 4);
      if (rng() % 8 == 0) x[i] = specials[rng() % std::size(specials)];
    }
    const std::uint64_t failures = emu::native_code_failures();
    // Three CTAs: in place, too.
    const std::vector<std::uint32_t> micro = run_words(lk, x, 256, 3, false),
                                     native = run_words(lk, x, 256, 3, true);
    EXPECT_EQ(emu::native_code_failures(), failures);
    for (std::size_t i = 0; i < micro.size(); ++i)
      ASSERT_EQ(native[i], micro[i])
          << "round " << round << ", output " << i / 64 << ", thread " << i % 64;
  }
}

// ex2.approx.f32 (every expf's), in place over one operand and into another register, on
// values of every kind: native code's vectorized common case and its calls of exp2f for the
// lanes it leaves (halfway cases, subnormal results, overflow, NaN, infinities) leave what
// the micro-ops leave; under a guard, the lanes that do not run it keep their values.
const std::string kEx2 = kernel_ptx("ex2", R"(  ld.global.f32 %f1, [%rd4];
  ex2.approx.f32 %f2, %f1;
  ex2.approx.ftz.f32 %f1, %f1;
  setp.lt.u32 %p1, %r2, 40;
  @%p1 ex2.approx.f32 %f3, %f2;
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f1;
  st.global.f32 [%rd5+256], %f2;
  st.global.f32 [%rd5+512], %f3;
  ret;
)");

TEST(NativeValues, Ex2EqualsTheMicroOps) {
  const LoadedKernel lk("ex2", kEx2);
  std::mt19937 rng(11);
  const float specials[] = {0.0f,    -0.0f,  1e-45f,  -1e-45f, -126.0f,  -126.5f,   -149.0f,
                            -150.0f, 127.0f, 127.99f, 128.0f,  INFINITY, -INFINITY, NAN,
                            0.5f,    -0.5f,  1e-10f,  3.0f,    -3.4e38f, 3.4e38f};
  std::uint64_t left = 0;  // values the common case leaves to exp2f
  for (int round = 0; round < 16; ++round) {
    std::vector<float> x(64);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::uint32_t b = static_cast<std::uint32_t>(rng());
      x[i] = round % 2 == 0 ? std::uniform_real_distribution<float>(-140.0f, 130.0f)(rng)
                            : std::bit_cast<float>(b);
      if (rng() % 4 == 0) x[i] = specials[rng() % std::size(specials)];
      float r;
      left += det::exp2_f32_common(x[i], r) ? 0 : 1;
    }
    const std::uint64_t failures = emu::native_code_failures();
    const std::vector<std::uint32_t> micro = run_words(lk, x, 192, 2, false),
                                     native = run_words(lk, x, 192, 2, true);
    EXPECT_EQ(emu::native_code_failures(), failures);
    for (std::size_t i = 0; i < micro.size(); ++i)
      ASSERT_EQ(native[i], micro[i]) << "round " << round << ", output " << i / 64 << ", thread "
                                     << i % 64 << ", x " << x[i % 64];
    for (std::size_t t = 0; t < 64; ++t)  // the values themselves: exp2f's
      ASSERT_EQ(native[t], det::canonical_f32(std::exp2(x[t]))) << "x " << x[t];
  }
  EXPECT_GT(left, 16u);
}

}  // namespace

namespace {

// The host's own directed arithmetic, as the micro-ops run it (uop_run.hpp: directed_f32).
std::uint64_t host_directed(int op, int mode, float x, float y, float z) {
  const int fe = mode == det::kDirectedRz   ? FE_TOWARDZERO
                 : mode == det::kDirectedRm ? FE_DOWNWARD
                                            : FE_UPWARD;
  const int saved = std::fegetround();
  std::fesetround(fe);
  volatile float a = x, b = y, c = z, v;
  switch (op) {
    case 0:
      v = a + b;
      break;
    case 1:
      v = a - b;
      break;
    case 2:
      v = a * b;
      break;
    default:
      v = std::fma(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c));
      break;
  }
  std::fesetround(saved);
  return det::canonical_f32(v);
}

// Edge values: zeros, the smallest and largest subnormals and normals, one, infinities, NaN.
std::vector<float> edges() {
  std::vector<std::uint32_t> bits = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff,
                                     0x807fffff, 0x00800000, 0x80800000, 0x3f800000, 0xbf800000,
                                     0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
                                     0x33800000, 0x4b800000, 0x3f800001, 0x1f800000, 0x5f800000};
  std::vector<float> v;
  for (std::uint32_t b : bits) v.push_back(std::bit_cast<float>(b));
  return v;
}

TEST(NativeValues, DirectedArithmeticEqualsTheHostsRoundingModes) {
  std::mt19937 rng(29);
  std::vector<float> pool = edges();
  std::uniform_int_distribution<std::uint32_t> any;
  std::uniform_real_distribution<float> unit(-4.0f, 4.0f);
  for (int i = 0; i < 200; ++i) pool.push_back(std::bit_cast<float>(any(rng)));
  for (int i = 0; i < 200; ++i) pool.push_back(unit(rng));
  std::uint64_t checked = 0;
  for (int op = 0; op < 4; ++op)
    for (int mode = det::kDirectedRz; mode <= det::kDirectedRp; ++mode)
      for (std::size_t i = 0; i < pool.size(); ++i)
        for (std::size_t j = 0; j < pool.size(); j += 3) {
          const float x = pool[i], y = pool[j], z = pool[(i * 7 + j) % pool.size()];
          // Cancellation and near-cancellation: z close to -(x * y).
          const float zs[2] = {z, -x * y};
          for (float zz : zs) {
            ASSERT_EQ(det::directed_f32_value(op, mode, x, y, zz),
                      host_directed(op, mode, x, y, zz))
                << "op " << op << " mode " << mode << " x " << std::hexfloat << x << " y " << y
                << " z " << zz;
            ++checked;
          }
        }
  EXPECT_GT(checked, 100000u);
}

TEST(NativeValues, DivisionEqualsIntDiv) {
  using bankcheck::ptx::Ty;
  std::vector<std::uint32_t> v = {0u,          1u,          2u,          3u,          7u,
                                  0x7fffffffu, 0x80000000u, 0x80000001u, 0xffffffffu, 0xfffffffeu,
                                  768u,        1024u,       0x10000u,    0xffffu,     12345678u};
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) v.push_back(static_cast<std::uint32_t>(rng()));
  for (int i = 0; i < 100; ++i) v.push_back(static_cast<std::uint32_t>(rng() % 2000) - 1000u);
  for (std::uint32_t a : v)
    for (std::uint32_t b : v) {
      ASSERT_EQ(det::div_u32_value(a, b), det::int_div(Ty::U32, a, b)) << a << " / " << b;
      ASSERT_EQ(det::rem_u32_value(a, b), det::int_rem(Ty::U32, a, b)) << a << " % " << b;
      ASSERT_EQ(det::div_s32_value(a, b), det::int_div(Ty::S32, a, b)) << a << " / " << b;
      ASSERT_EQ(det::rem_s32_value(a, b), det::int_rem(Ty::S32, a, b)) << a << " % " << b;
    }
}

}  // namespace
