// The emulator's instruction semantics, checked against the same computation on the CPU:
// small CUDA kernels (tests/data/emu/*.cu, compiled by nvcc through driver::load) run on
// random inputs with a fixed seed, element by element, exact for integers and bit-exact for
// correctly rounded float operations (NaN bit patterns included, as an H200 produces them),
// with a tolerance for approximations. Then warp intrinsics, atomics, control flow and
// reconvergence (with the request counts they imply), memories, and the errors a kernel can
// run into. Every test needs nvcc and skips without. tests/data/emu/gpu_replay.cpp replays
// these launches on a GPU to check the references against the hardware.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/emu/device_printf.hpp"
#include "bankcheck/emu/emulator.hpp"
#include "bankcheck/emu/lanes.hpp"
#include "bankcheck/model/arch.hpp"
#include "emu_differential.hpp"

namespace drv = bankcheck::driver;
namespace emu = bankcheck::emu;
namespace ptx = bankcheck::ptx;
namespace fs = std::filesystem;

using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i8 = std::int8_t;
using i16 = std::int16_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

namespace {

// ---------------------------------------------------------------- harness

bool have_nvcc() {
  static const bool found = [] {
    try {
      drv::find_nvcc("");
      return true;
    } catch (const drv::DriverError&) {
      return false;
    }
  }();
  return found;
}

#define REQUIRE_NVCC() \
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found"

std::string data_path(const std::string& file) {
  return std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/emu/" + file;
}

// A private directory for input files, removed at exit.
class Scratch {
 public:
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "bankcheck-emu-XXXXXX").string();
    if (::mkdtemp(pattern.data())) path_ = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};
Scratch& scratch() {
  static Scratch s;
  return s;
}

int file_counter = 0;

// The bytes of `v` as an argument value "@FILE".
template <typename T>
std::string file_arg(const std::vector<T>& v) {
  const fs::path p = scratch().path() / ("in" + std::to_string(file_counter++) + ".bin");
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()),
          static_cast<std::streamsize>(v.size() * sizeof(T)));
  return "@" + p.string();
}
std::string zeros(std::uint64_t bytes) { return "zeros:" + std::to_string(bytes); }

drv::CheckOptions options_for(const std::string& file) {
  drv::CheckOptions o;
  o.input = data_path(file);
  o.arch = "sm_90";
  return o;
}

// Each .cu file is compiled once per process.
const drv::Loaded& loaded(const std::string& file) {
  static std::map<std::string, std::unique_ptr<drv::Loaded>> cache;
  auto& slot = cache[file];
  if (!slot) slot = std::make_unique<drv::Loaded>(drv::load(options_for(file)));
  return *slot;
}

const ptx::Kernel& kernel_named(const drv::Loaded& l, const std::string& name) {
  for (const auto& k : l.program.kernels)
    if (drv::kernel_matches(k.name, name)) return k;
  throw std::runtime_error("no kernel " + name);
}

struct Result {
  drv::KernelRun run;
  const drv::Loaded* loaded = nullptr;
  const ptx::Kernel* kernel = nullptr;

  std::size_t param(const std::string& name) const {
    for (std::size_t i = 0; i < run.report.args.size(); ++i)
      if (run.report.args[i].name == name) return i;
    throw std::runtime_error("no parameter " + name);
  }
  const u8* bytes(const std::string& name) const {
    auto* b = run.memory->find(run.arg_buffers[param(name)], 1);
    return b ? b->data() : nullptr;
  }
  template <typename T>
  std::vector<T> get(const std::string& name, std::size_t count) const {
    std::vector<T> v(count);
    std::memcpy(v.data(), bytes(name), count * sizeof(T));
    return v;
  }
  // The requests of the shared-memory site(s) on source line `line` (summed), and the
  // number of those sites.
  std::pair<std::uint64_t, int> requests_on_line(int line) const {
    std::uint64_t r = 0;
    int n = 0;
    for (const auto& s : run.report.sites)
      if (s.line == line && s.file == loaded->program.main_file &&
          s.stats.space == ptx::Space::Shared) {
        r += s.stats.requests;
        ++n;
      }
    return {r, n};
  }
};

struct Launch {
  drv::Dim3 grid{1, 1, 1}, block{32, 1, 1};
  std::vector<std::pair<std::string, std::string>> args;
  std::uint64_t smem = 0;
  std::uint64_t budget = 200'000'000;
  unsigned threads = 0;
};

// With BANKCHECK_EMU_DUMP=DIR set, each successful run is also written there for
// tests/data/emu/gpu_replay.cpp to replay on a GPU: DIR/NNN.launch, the buffers' initial
// bytes (NNN.pK.in) and the emulator's final ones (NNN.pK.emu), and the PTX.
void dump_for_gpu(const std::string& file, const Result& r, const Launch& launch) {
  const char* dir = std::getenv("BANKCHECK_EMU_DUMP");
  if (!dir || !*dir) return;
  static int counter = 0;
  static std::set<std::string> ptx_written;
  const std::string ptx_name = fs::path(file).stem().string() + ".ptx";
  if (!ptx_written.count(file)) {
    drv::NvccOptions n;
    n.input = data_path(file);
    n.arch = "sm_90";
    std::ofstream(std::string(dir) + "/" + ptx_name) << drv::compile_to_ptx(n);
    ptx_written.insert(file);
  }
  char id[16];
  std::snprintf(id, sizeof id, "%03d", counter++);
  std::ofstream m(std::string(dir) + "/" + id + ".launch");
  m << "ptx " << ptx_name << "\nkernel " << r.kernel->name << "\ngrid " << launch.grid.x << " "
    << launch.grid.y << " " << launch.grid.z << "\nblock " << launch.block.x << " "
    << launch.block.y << " " << launch.block.z << "\nsmem " << launch.smem << "\n";
  for (std::size_t i = 0; i < r.run.report.args.size(); ++i) {
    const auto& a = r.run.report.args[i];
    const std::string base = std::string(dir) + "/" + id + ".p" + std::to_string(i);
    if (a.is_buffer) {
      std::vector<char> init(a.bytes, 0);
      if (a.value.starts_with("@")) {
        std::ifstream in(a.value.substr(1), std::ios::binary);
        in.read(init.data(), static_cast<std::streamsize>(init.size()));
      }
      std::ofstream(base + ".in", std::ios::binary)
          .write(init.data(), static_cast<std::streamsize>(init.size()));
      std::ofstream(base + ".emu", std::ios::binary)
          .write(reinterpret_cast<const char*>(r.bytes(a.name)),
                 static_cast<std::streamsize>(a.bytes));
      m << "buffer " << i << " " << id << ".p" << i << ".in\n";
    } else {
      const auto& p = r.kernel->params[i];
      const drv::ArgValue v = drv::parse_arg_value(a.value, "dump");
      std::uint8_t bytes[8] = {};
      if (p.type == ".f32") {
        const float f = static_cast<float>(
            v.kind == drv::ArgValue::Kind::Float ? v.f : static_cast<double>(v.i));
        std::memcpy(bytes, &f, 4);
      } else if (p.type == ".f64") {
        const double d = v.kind == drv::ArgValue::Kind::Float ? v.f : static_cast<double>(v.i);
        std::memcpy(bytes, &d, 8);
      } else {
        std::memcpy(bytes, &v.i, 8);
      }
      m << "scalar " << i << " ";
      for (int b = 0; b < p.size; ++b) {
        char h[3];
        std::snprintf(h, sizeof h, "%02x", bytes[b]);
        m << h;
      }
      m << "\n";
    }
  }
}

// Every launch also runs with the emulator's fast tier on and off, one CTA at a time
// (emu_differential.hpp: CTAs in parallel may order global atomics differently): the same
// memory, error and access events, or the test fails. The tests then check a run of the
// launch as given (its thread count).
// With `tier`, one run of the launch with those emulator options instead.
Result run_k(const std::string& file, const std::string& kernel, const Launch& launch,
             const std::optional<emu::Emulator::Options>& tier = std::nullopt) {
  auto run = [&](unsigned threads, const emu::Emulator::Options& eo) {
    Result r;
    r.loaded = &loaded(file);
    r.kernel = &kernel_named(*r.loaded, kernel);
    drv::LaunchSettings s;
    s.grid = launch.grid;
    s.block = launch.block;
    if (launch.smem) s.smem = launch.smem;
    s.args = launch.args;
    s.blocks = "all";
    drv::CheckOptions o = options_for(file);
    o.budget = launch.budget;
    o.threads = threads;
    o.emulator = eo;
    r.run = drv::run_kernel(*r.loaded, *r.kernel, s, *bankcheck::model::find_arch("sm_90"), o);
    return r;
  };
  if (tier) return run(launch.threads, *tier);
  Result one = emu::testing::run_both_tiers<Result>(
      file + " " + kernel, [&](const emu::Emulator::Options& eo) { return run(1, eo); },
      [](Result& x) -> emu::GlobalMemory& { return *x.run.memory; });
  Result r = launch.threads == 1 ? std::move(one) : run(launch.threads, {});
  dump_for_gpu(file, r, launch);
  return r;
}

// The 1-based line of the first line of `file` containing `marker`.
int line_of(const std::string& file, const std::string& marker) {
  std::ifstream f(data_path(file));
  std::string line;
  for (int n = 1; std::getline(f, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  ADD_FAILURE() << "marker " << marker << " not in " << file;
  return -1;
}

// ---------------------------------------------------------------- inputs

template <typename T>
std::vector<T> random_ints(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  using S = std::make_signed_t<T>;
  using U = std::make_unsigned_t<T>;
  const std::vector<U> special = {0,
                                  1,
                                  2,
                                  3,
                                  static_cast<U>(-1),
                                  static_cast<U>(-2),
                                  static_cast<U>(std::numeric_limits<S>::min()),
                                  static_cast<U>(std::numeric_limits<S>::max()),
                                  static_cast<U>(std::numeric_limits<S>::min() + 1),
                                  0x7f,
                                  0x80,
                                  0xff,
                                  static_cast<U>(0x7fff),
                                  static_cast<U>(0x8000),
                                  static_cast<U>(0xffff),
                                  31,
                                  32,
                                  33,
                                  63,
                                  64,
                                  65,
                                  7,
                                  static_cast<U>(-7),
                                  13};
  std::vector<T> v(n);
  for (auto& x : v) {
    const u64 r = rng();
    switch (r % 4) {
      case 0:
        x = static_cast<T>(special[(r >> 8) % special.size()]);
        break;
      case 1:
        x = static_cast<T>(static_cast<S>(static_cast<i64>((r >> 8) % 2001) - 1000));
        break;
      default:
        x = static_cast<T>(rng());
        break;
    }
  }
  return v;
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<float> special = {
      0.0f,           -0.0f,         1.0f,          -1.0f,         0.5f,
      -0.5f,          1.5f,          2.5f,          -2.5f,         3.5f,
      INFINITY,       -INFINITY,     NAN,           1e-40f,        -1e-40f,
      1e-45f,         FLT_MIN,       FLT_MAX,       -FLT_MAX,      2147483648.0f,
      -2147483648.0f, 4294967296.0f, 4294967040.0f, 9.2233720e18f, -9.2233720e18f,
      1.8446744e19f,  3e19f,         65504.0f,      65520.0f,      6.1e-5f,
      5.96e-8f,       2.98e-8f,      1e-30f,        16777217.0f,   0.1f};
  std::vector<float> v(n);
  for (auto& x : v) {
    const u64 r = rng();
    switch (r % 5) {
      case 0:
        x = special[(r >> 8) % special.size()];
        break;
      case 1: {  // any bit pattern
        const u32 bits = static_cast<u32>(rng());
        std::memcpy(&x, &bits, 4);
        break;
      }
      case 2:
        x = static_cast<float>(static_cast<i64>((r >> 8) % 20001) - 10000) / 8.0f;
        break;  // halves
      default:
        x = std::ldexp(static_cast<float>(static_cast<i64>((r >> 8) % 2000001) - 1000000) / 1e6f,
                       static_cast<int>((r >> 40) % 80) - 40);
    }
  }
  return v;
}

std::vector<double> random_doubles(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<double> special = {0.0,
                                       -0.0,
                                       1.0,
                                       -1.0,
                                       0.5,
                                       -2.5,
                                       3.5,
                                       INFINITY,
                                       -INFINITY,
                                       NAN,
                                       4.9e-324,
                                       2.2e-308,
                                       1.7976931348623157e308,
                                       2147483647.5,
                                       -2147483648.5,
                                       2147483648.0,
                                       4294967295.5,
                                       4294967296.0,
                                       9.2233720368547758e18,
                                       -9.2233720368547758e18,
                                       1.8446744073709552e19,
                                       3e19,
                                       0.1,
                                       1.0000000596046448,  // 1 + 2^-24: a float tie
                                       1.0000000596046450,  // just above the tie
                                       3.4028235677973366e38,
                                       3.5e38,
                                       1e-46,
                                       65519.999,
                                       65520.0,
                                       1.0009765625 + 0x1p-11,
                                       1.0009765625 + 0x1p-11 + 0x1p-40};
  std::vector<double> v(n);
  for (auto& x : v) {
    const u64 r = rng();
    switch (r % 5) {
      case 0:
        x = special[(r >> 8) % special.size()];
        break;
      case 1: {
        const u64 bits = rng();
        std::memcpy(&x, &bits, 8);
        break;
      }
      case 2:
        x = static_cast<double>(static_cast<i64>((r >> 8) % 20001) - 10000) / 8.0;
        break;
      default:
        x = std::ldexp(
            static_cast<double>(static_cast<i64>((r >> 8) % 2000000001) - 1000000000) / 1e9,
            static_cast<int>((r >> 40) % 200) - 100);
    }
  }
  return v;
}

u32 bits_of(float f) { return std::bit_cast<u32>(f); }
u64 bits_of(double d) { return std::bit_cast<u64>(d); }
float f32_of(u32 b) { return std::bit_cast<float>(b); }
double f64_of(u64 b) { return std::bit_cast<double>(b); }

// Compares `got` with `want` (ops x n, op-major); `eq` decides equality; prints at most a
// few differences per op with `describe(i)` (the inputs).
template <typename T>
void compare_ops(
    const std::vector<T>& got, const std::vector<T>& want, int ops, int n,
    const std::function<std::string(int)>& describe,
    const std::function<bool(int, T, T)>& eq = [](int, T a, T b) { return a == b; }) {
  ASSERT_EQ(got.size(), want.size());
  for (int k = 0; k < ops; ++k) {
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      const T g = got[static_cast<size_t>(k) * n + i], w = want[static_cast<size_t>(k) * n + i];
      if (eq(k, g, w)) continue;
      if (bad++ < 3)
        ADD_FAILURE() << "op " << k << ", element " << i << " (" << describe(i) << "): got 0x"
                      << std::hex << static_cast<u64>(g) << ", want 0x" << static_cast<u64>(w);
    }
    if (bad > 3) ADD_FAILURE() << "op " << k << ": " << bad << " elements differ in all";
  }
}

template <typename T>
std::string hex(T v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Runs `f` with the host's rounding mode set (operands must be read through volatile inside).
template <typename F>
auto with_rounding(int mode, F f) {
  std::fesetround(mode);
  auto r = f();
  std::fesetround(FE_TONEAREST);
  return r;
}
// Each operation once, computed in T with the host in rounding `mode` (volatile keeps the
// compiler from folding it under the default rounding).
template <typename T>
T add_in(T a, T b, int mode) {
  return with_rounding(mode, [&] {
    volatile T x = a, y = b;
    volatile T r = x + y;
    return static_cast<T>(r);
  });
}
template <typename T>
T mul_in(T a, T b, int mode) {
  return with_rounding(mode, [&] {
    volatile T x = a, y = b;
    volatile T r = x * y;
    return static_cast<T>(r);
  });
}
template <typename T>
T div_in(T a, T b, int mode) {
  return with_rounding(mode, [&] {
    volatile T x = a, y = b;
    volatile T r = x / y;
    return static_cast<T>(r);
  });
}
template <typename T>
T sqrt_in(T a, int mode) {
  return with_rounding(mode, [&] {
    volatile T x = a;
    volatile T r = std::sqrt(static_cast<T>(x));
    return static_cast<T>(r);
  });
}
template <typename T>
T fma_in(T a, T b, T c, int mode) {
  return with_rounding(mode, [&] {
    volatile T x = a, y = b, z = c;
    volatile T r = std::fma(static_cast<T>(x), static_cast<T>(y), static_cast<T>(z));
    return static_cast<T>(r);
  });
}
float fadd(float a, float b, int mode) { return add_in(a, b, mode); }
float fmul(float a, float b, int mode) { return mul_in(a, b, mode); }
float fdiv(float a, float b, int mode) { return div_in(a, b, mode); }
float fsqrt(float a, int mode) { return sqrt_in(a, mode); }
float ffma(float a, float b, float c, int mode) { return fma_in(a, b, c, mode); }
double dadd(double a, double b, int mode) { return add_in(a, b, mode); }
double dmul(double a, double b, int mode) { return mul_in(a, b, mode); }
double ddiv(double a, double b, int mode) { return div_in(a, b, mode); }
double dsqrt(double a, int mode) { return sqrt_in(a, mode); }
double dfma(double a, double b, double c, int mode) { return fma_in(a, b, c, mode); }
float to_f32(double d, int mode) {
  return with_rounding(mode, [&] {
    volatile double x = d;
    volatile float r = static_cast<float>(static_cast<double>(x));
    return static_cast<float>(r);
  });
}
float i64_to_f32(i64 v, int mode) {
  return with_rounding(mode, [&] {
    volatile i64 x = v;
    volatile float r = static_cast<float>(static_cast<i64>(x));
    return static_cast<float>(r);
  });
}
float u64_to_f32(u64 v, int mode) {
  return with_rounding(mode, [&] {
    volatile u64 x = v;
    volatile float r = static_cast<float>(static_cast<u64>(x));
    return static_cast<float>(r);
  });
}
double i64_to_f64(i64 v, int mode) {
  return with_rounding(mode, [&] {
    volatile i64 x = v;
    volatile double r = static_cast<double>(static_cast<i64>(x));
    return static_cast<double>(r);
  });
}
double u64_to_f64(u64 v, int mode) {
  return with_rounding(mode, [&] {
    volatile u64 x = v;
    volatile double r = static_cast<double>(static_cast<u64>(x));
    return static_cast<double>(r);
  });
}

// PTX float -> integer conversion: round (mode), saturate to the type's range, NaN -> 0.
// (A NaN gives 0 from f32 into 32 bits or fewer; from f64, or into 64 bits, the type's
// sign bit alone, as measured on sm_90.)
template <typename T>
T f2i(double v, int mode, bool from_f64 = false) {
  if (std::isnan(v))
    return (from_f64 || sizeof(T) == 8)
               ? static_cast<T>(std::make_unsigned_t<T>{1} << (sizeof(T) * 8 - 1))
               : T{0};
  double r;
  switch (mode) {
    case FE_TOWARDZERO:
      r = std::trunc(v);
      break;
    case FE_DOWNWARD:
      r = std::floor(v);
      break;
    case FE_UPWARD:
      r = std::ceil(v);
      break;
    default:
      r = std::nearbyint(v);
      break;  // ties to even
  }
  const long double lo = static_cast<long double>(std::numeric_limits<T>::min());
  const long double hi = static_cast<long double>(std::numeric_limits<T>::max());
  if (static_cast<long double>(r) <= lo) return std::numeric_limits<T>::min();
  if (static_cast<long double>(r) >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

// IEEE half from a double, rounded by `mode`: an implementation independent of the
// emulator's.
u16 to_half(double v, int mode) {
  const u16 sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return 0x7fff;  // from f32 (f64 NaNs: see half_of_f64_nan)
  if (std::isinf(v)) return sign | 0x7c00;
  const double a = std::fabs(v);
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  const int E = std::max(e - 1, -14);
  const double q = std::ldexp(1.0, E - 10);  // the spacing of halves around a
  const double t = a / q;                    // exact
  double m = std::floor(t);
  const double frac = t - m;
  bool up = false;
  switch (mode) {
    case FE_TOWARDZERO:
      break;
    case FE_UPWARD:
      up = frac > 0 && !sign;
      break;
    case FE_DOWNWARD:
      up = frac > 0 && sign;
      break;
    default:
      up = frac > 0.5 || (frac == 0.5 && std::fmod(m, 2.0) == 1.0);
  }
  if (up) m += 1;
  const double r = m * q;
  if (r >= 65536.0 || (r > 65504.0)) {
    const bool to_inf =
        mode == FE_TONEAREST || (mode == FE_UPWARD && !sign) || (mode == FE_DOWNWARD && sign);
    return to_inf ? (sign | 0x7c00) : (sign | 0x7bff);
  }
  if (r == 0) return sign;
  int re;
  std::frexp(r, &re);
  const int RE = re - 1;
  if (RE < -14) return sign | static_cast<u16>(r / std::ldexp(1.0, -24));
  const u16 man = static_cast<u16>(r / std::ldexp(1.0, RE - 10) - 1024);
  return sign | static_cast<u16>((RE + 15) << 10) | man;
}
double from_half(u16 h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v;
  if (e == 0)
    v = std::ldexp(static_cast<double>(m), -24);
  else if (e == 31)
    v = m ? NAN : INFINITY;
  else
    v = std::ldexp(static_cast<double>(m + 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}

// ---------------------------------------------------------------- integer references

u32 bfe32(u32 a, u32 pos, u32 len, bool s) {
  pos &= 0xff;
  len &= 0xff;
  const u32 msb = 31;
  const bool sbit = s && len != 0 && ((a >> std::min(pos + len - 1, msb)) & 1);
  u32 d = 0;
  for (u32 i = 0; i <= msb; ++i) {
    const bool bit = (i < len && pos + i <= msb) ? ((a >> (pos + i)) & 1) : sbit;
    d |= static_cast<u32>(bit) << i;
  }
  return d;
}
u64 bfe64(u64 a, u32 pos, u32 len, bool s) {
  pos &= 0xff;
  len &= 0xff;
  const u32 msb = 63;
  const bool sbit = s && len != 0 && ((a >> std::min(pos + len - 1, msb)) & 1);
  u64 d = 0;
  for (u32 i = 0; i <= msb; ++i) {
    const bool bit = (i < len && pos + i <= msb) ? ((a >> (pos + i)) & 1) : sbit;
    d |= static_cast<u64>(bit) << i;
  }
  return d;
}
template <typename T>
T bfi(T a, T b, u32 pos, u32 len) {
  pos &= 0xff;
  len &= 0xff;
  const u32 msb = sizeof(T) * 8 - 1;
  T f = b;
  for (u32 i = 0; i < len && pos + i <= msb; ++i) {
    f &= ~(T{1} << (pos + i));
    f |= ((a >> i) & 1) << (pos + i);
  }
  return f;
}
u32 prmt_ref(u32 a, u32 b, u32 c) {
  const u64 bytes = (static_cast<u64>(b) << 32) | a;
  u32 r = 0;
  for (int i = 0; i < 4; ++i) {
    const u32 sel = (c >> (4 * i)) & 0xf;
    u32 byte = static_cast<u32>((bytes >> (8 * (sel & 7))) & 0xff);
    if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
    r |= byte << (8 * i);
  }
  return r;
}
template <typename T>
T brev(T x) {
  T r = 0;
  for (unsigned i = 0; i < sizeof(T) * 8; ++i)
    if ((x >> i) & 1) r |= T{1} << (sizeof(T) * 8 - 1 - i);
  return r;
}

}  // namespace

// ---------------------------------------------------------------- integer tests

TEST(EmuInt, Ops32) {
  REQUIRE_NVCC();
  const int n = 2048, ops = 56;
  const auto a = random_ints<u32>(n, 1), b = random_ints<u32>(n, 2), c = random_ints<u32>(n, 3);
  Launch L;
  L.grid = {n / 128, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(4ull * n * ops)},
            {"a", file_arg(a)},
            {"b", file_arg(b)},
            {"c", file_arg(c)},
            {"n", std::to_string(n)}};
  const Result r = run_k("int_ops.cu", "int32_ops", L);
  const auto got = r.get<u32>("out", static_cast<size_t>(n) * ops);
  std::vector<u32> want(got.size());
  for (int i = 0; i < n; ++i) {
    const u32 x = a[i], y = b[i], z = c[i];
    const i32 sx = static_cast<i32>(x), sy = static_cast<i32>(y), sz = static_cast<i32>(z);
    std::vector<u32> o;
    o.push_back(x + y);
    o.push_back(x - y);
    o.push_back(x * y);
    o.push_back(static_cast<u32>((static_cast<u64>(x) * y) >> 32));
    o.push_back(static_cast<u32>((static_cast<i64>(sx) * sy) >> 32));
    const u64 wu = static_cast<u64>(x) * y;
    o.push_back(static_cast<u32>(wu));
    o.push_back(static_cast<u32>(wu >> 32));
    const i64 ws = static_cast<i64>(sx) * sy;
    o.push_back(static_cast<u32>(ws));
    o.push_back(static_cast<u32>(static_cast<u64>(ws) >> 32));
    o.push_back(x * y + z);
    o.push_back(x * 7u - z);
    (void)sz;
    const u32 dy = y == 0 ? 1 : y;
    o.push_back(x / dy);
    o.push_back(x % dy);
    i32 sdy = sy == 0 ? 1 : sy;
    if (sdy == -1 && sx == INT_MIN) sdy = 1;
    o.push_back(static_cast<u32>(sx / sdy));
    o.push_back(static_cast<u32>(sx % sdy));
    o.push_back(static_cast<u32>(sx / 7));
    o.push_back(static_cast<u32>(sx % -13));
    o.push_back(x / 10);
    o.push_back(std::min(x, y));
    o.push_back(std::max(x, y));
    o.push_back(static_cast<u32>(std::min(sx, sy)));
    o.push_back(static_cast<u32>(std::max(sx, sy)));
    o.push_back(sx < 0 ? 0u - x : x);
    o.push_back(0u - x);
    o.push_back(x << (y & 31));
    o.push_back(x >> (y & 31));
    o.push_back(static_cast<u32>(sx >> (y & 31)));
    const u32 cnt = z % 70;
    o.push_back(cnt >= 32 ? 0 : x << cnt);
    o.push_back(cnt >= 32 ? 0 : x >> cnt);
    o.push_back(static_cast<u32>(sx >> std::min(cnt, 31u)));
    o.push_back(x & y);
    o.push_back(x | y);
    o.push_back(x ^ y);
    o.push_back(~x);
    o.push_back((x & ~y) | (z & y));
    o.push_back(static_cast<u32>(std::popcount(x)));
    o.push_back(static_cast<u32>(std::countl_zero(x)));
    o.push_back(brev(x));
    o.push_back(x == 0 ? 0 : static_cast<u32>(std::countr_zero(x)) + 1);
    o.push_back(prmt_ref(x, y, z & 0x7777));
    o.push_back(prmt_ref(x, y, z));
    o.push_back(bfe32(x, y & 0x3f, (y >> 8) & 0x3f, false));
    o.push_back(bfe32(x, y & 0x3f, (y >> 8) & 0x3f, true));
    o.push_back(bfi<u32>(x, z, y & 0x3f, (y >> 8) & 0x3f));
    o.push_back(x == 0 ? 0xffffffffu : 31 - static_cast<u32>(std::countl_zero(x)));
    {
      const u32 v = sx < 0 ? ~x : x;
      o.push_back(v == 0 ? 0xffffffffu : 31 - static_cast<u32>(std::countl_zero(v)));
    }
    o.push_back(static_cast<u32>(sx < sy) | static_cast<u32>(x < y) << 1 |
                static_cast<u32>(sx <= sy) << 2 | static_cast<u32>(x >= y) << 3 |
                static_cast<u32>(x == y) << 4 | static_cast<u32>(x != z) << 5 |
                static_cast<u32>(sx > sz) << 6 | static_cast<u32>(x > z) << 7);
    o.push_back(sx < sy ? x : z);
    o.push_back(static_cast<u32>(std::clamp(sx, -128, 127)));
    o.push_back(static_cast<u32>(std::clamp(sx, 0, 65535)));
    o.push_back(std::min<u32>(x, INT_MAX));
    o.push_back(static_cast<u32>(
        static_cast<i32>(std::clamp<i64>(static_cast<i64>(sx) + sy, INT_MIN, INT_MAX))));
    o.push_back(static_cast<u32>(
        static_cast<i32>(std::clamp<i64>(static_cast<i64>(sx) - sy, INT_MIN, INT_MAX))));
    o.push_back(std::rotr(x, 3));
    o.push_back(static_cast<u32>((sx >> 31) ^ sx));
    o.push_back(static_cast<u32>(static_cast<u16>(x * 3)) *
                static_cast<u32>(static_cast<u16>(y >> 16)));
    ASSERT_EQ(o.size(), static_cast<size_t>(ops));
    for (int k = 0; k < ops; ++k) want[static_cast<size_t>(k) * n + i] = o[static_cast<size_t>(k)];
  }
  compare_ops<u32>(got, want, ops, n,
                   [&](int i) { return "a=" + hex(a[i]) + " b=" + hex(b[i]) + " c=" + hex(c[i]); });
}

TEST(EmuInt, Ops64) {
  REQUIRE_NVCC();
  const int n = 2048, ops = 40;
  const auto a = random_ints<u64>(n, 11), b = random_ints<u64>(n, 12), c = random_ints<u64>(n, 13);
  Launch L;
  L.grid = {n / 128, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(8ull * n * ops)},
            {"a", file_arg(a)},
            {"b", file_arg(b)},
            {"c", file_arg(c)},
            {"n", std::to_string(n)}};
  const Result r = run_k("int_ops.cu", "int64_ops", L);
  const auto got = r.get<u64>("out", static_cast<size_t>(n) * ops);
  std::vector<u64> want(got.size());
  __extension__ typedef __int128 i128;
  __extension__ typedef unsigned __int128 u128;
  for (int i = 0; i < n; ++i) {
    const u64 x = a[i], y = b[i], z = c[i];
    const i64 sx = static_cast<i64>(x), sy = static_cast<i64>(y), sz = static_cast<i64>(z);
    std::vector<u64> o;
    o.push_back(x + y);
    o.push_back(x - y);
    o.push_back(x * y);
    o.push_back(static_cast<u64>((static_cast<u128>(x) * y) >> 64));
    o.push_back(static_cast<u64>((static_cast<i128>(sx) * sy) >> 64));
    o.push_back(x * y + z);
    const u64 dy = y == 0 ? 1 : y;
    o.push_back(x / dy);
    o.push_back(x % dy);
    i64 sdy = sy == 0 ? 1 : sy;
    if (sdy == -1 && sx == LLONG_MIN) sdy = 1;
    o.push_back(static_cast<u64>(sx / sdy));
    o.push_back(static_cast<u64>(sx % sdy));
    o.push_back(static_cast<u64>(sx / 1000003));
    o.push_back(x % 1000003);
    o.push_back(std::min(x, y));
    o.push_back(std::max(x, y));
    o.push_back(static_cast<u64>(std::min(sx, sy)));
    o.push_back(static_cast<u64>(std::max(sx, sy)));
    o.push_back(sx < 0 ? 0 - x : x);
    o.push_back(0 - x);
    o.push_back(x << (y & 63));
    o.push_back(x >> (y & 63));
    o.push_back(static_cast<u64>(sx >> (y & 63)));
    const u32 cnt = static_cast<u32>(z % 140);
    o.push_back(cnt >= 64 ? 0 : x << cnt);
    o.push_back(cnt >= 64 ? 0 : x >> cnt);
    o.push_back(static_cast<u64>(sx >> std::min(cnt, 63u)));
    o.push_back(x & y);
    o.push_back(x | y);
    o.push_back(x ^ y);
    o.push_back(~x);
    o.push_back(static_cast<u64>(std::popcount(x)));
    o.push_back(static_cast<u64>(std::countl_zero(x)));
    o.push_back(brev(x));
    o.push_back(x == 0 ? 0 : static_cast<u64>(std::countr_zero(x)) + 1);
    o.push_back(bfe64(x, static_cast<u32>(y & 0x7f), static_cast<u32>((y >> 8) & 0x7f), false));
    o.push_back(bfe64(x, static_cast<u32>(y & 0x7f), static_cast<u32>((y >> 8) & 0x7f), true));
    o.push_back(bfi<u64>(x, z, static_cast<u32>(y & 0x7f), static_cast<u32>((y >> 8) & 0x7f)));
    o.push_back(static_cast<u64>(sx < sy) | static_cast<u64>(x < y) << 1 |
                static_cast<u64>(sx <= sz) << 2 | static_cast<u64>(x >= z) << 3 |
                static_cast<u64>(x == y) << 4 | static_cast<u64>(x != z) << 5);
    o.push_back(static_cast<u64>(
        static_cast<i64>(static_cast<i32>(std::clamp<i64>(sx, INT_MIN, INT_MAX)))));
    o.push_back(static_cast<u64>(static_cast<u32>(std::clamp<i64>(sx, 0, UINT_MAX))));
    o.push_back(std::rotr(x, 13));
    o.push_back(
        static_cast<u64>(static_cast<u32>(x)) * static_cast<u64>(static_cast<u32>(y >> 32)) + z);
    ASSERT_EQ(o.size(), static_cast<size_t>(ops));
    for (int k = 0; k < ops; ++k) want[static_cast<size_t>(k) * n + i] = o[static_cast<size_t>(k)];
  }
  compare_ops<u64>(got, want, ops, n,
                   [&](int i) { return "a=" + hex(a[i]) + " b=" + hex(b[i]) + " c=" + hex(c[i]); });
}

TEST(EmuInt, NarrowTypesAndConversions) {
  REQUIRE_NVCC();
  const int n = 2048, ops32 = 24, ops64 = 6;
  const auto ic = random_ints<i8>(n, 21);
  const auto iuc = random_ints<u8>(n, 22);
  const auto is = random_ints<i16>(n, 23);
  const auto ius = random_ints<u16>(n, 24);
  const auto iw = random_ints<i32>(n, 25);
  auto il = random_ints<i64>(n, 26);
  for (auto& v : il) v = v >> 24;  // keeps l * short in range
  Launch L;
  L.grid = {n / 256, 1, 1};
  L.block = {256, 1, 1};
  L.args = {{"out32", zeros(4ull * n * ops32)},
            {"out64", zeros(8ull * n * ops64)},
            {"oc", zeros(n)},
            {"os", zeros(2ull * n)},
            {"ouc", zeros(n)},
            {"ous", zeros(2ull * n)},
            {"ic", file_arg(ic)},
            {"iuc", file_arg(iuc)},
            {"is", file_arg(is)},
            {"ius", file_arg(ius)},
            {"iw", file_arg(iw)},
            {"il", file_arg(il)},
            {"n", std::to_string(n)}};
  const Result r = run_k("int_ops.cu", "narrow_ops", L);
  const auto got32 = r.get<i32>("out32", static_cast<size_t>(n) * ops32);
  const auto got64 = r.get<i64>("out64", static_cast<size_t>(n) * ops64);
  const auto goc = r.get<i8>("oc", n);
  const auto gos = r.get<i16>("os", n);
  const auto gouc = r.get<u8>("ouc", n);
  const auto gous = r.get<u16>("ous", n);
  std::vector<i32> want32(got32.size());
  std::vector<i64> want64(got64.size());
  for (int i = 0; i < n; ++i) {
    const i8 c = ic[i];
    const u8 uc = iuc[i];
    const i16 s = is[i];
    const u16 us = ius[i];
    const i32 w = iw[i];
    const i64 l = il[i];
    const std::vector<i32> o = {c,
                                uc,
                                s,
                                us,
                                static_cast<i8>(w),
                                static_cast<u8>(w),
                                static_cast<i16>(w),
                                static_cast<u16>(w),
                                static_cast<i32>(l),
                                static_cast<i32>(l >> 32),
                                c * s,
                                uc * us,
                                static_cast<i8>(c + uc),
                                static_cast<i16>(s * 3 + us),
                                static_cast<i32>(static_cast<u32>(static_cast<u8>(c))),
                                static_cast<i8>(uc),
                                static_cast<i16>(us),
                                static_cast<u16>(s),
                                c<0, s>
                                    us,
                                static_cast<i32>(static_cast<i64>(w) * c),
                                static_cast<i32>((l * s) >> 20),
                                std::min<i32>(c, static_cast<i8>(uc)),
                                std::max<i32>(s, static_cast<i16>(w >> 16))};
    for (int k = 0; k < ops32; ++k)
      want32[static_cast<size_t>(k) * n + i] = o[static_cast<size_t>(k)];
    const std::vector<i64> q = {w,
                                static_cast<i64>(static_cast<u32>(w)),
                                c,
                                us,
                                static_cast<i64>(static_cast<u64>(static_cast<u16>(s))),
                                static_cast<i8>(l)};
    for (int k = 0; k < ops64; ++k)
      want64[static_cast<size_t>(k) * n + i] = q[static_cast<size_t>(k)];
    EXPECT_EQ(goc[i], static_cast<i8>(static_cast<u32>(w) * 5u + static_cast<u32>(c))) << i;
    EXPECT_EQ(gos[i], static_cast<i16>(static_cast<u32>(w) * 3u + static_cast<u32>(s))) << i;
    EXPECT_EQ(gouc[i], static_cast<u8>(uc * 7 + 1)) << i;
    EXPECT_EQ(gous[i], static_cast<u16>(us * 5 - s)) << i;
  }
  auto describe = [&](int i) {
    return "c=" + std::to_string(ic[i]) + " uc=" + std::to_string(iuc[i]) +
           " s=" + std::to_string(is[i]) + " us=" + std::to_string(ius[i]) +
           " w=" + std::to_string(iw[i]) + " l=" + std::to_string(il[i]);
  };
  compare_ops<i32>(got32, want32, ops32, n, describe);
  compare_ops<i64>(got64, want64, ops64, n, describe);
}

// ---------------------------------------------------------------- float tests

namespace {

float round_half_away(float x) { return std::round(x); }

// NaN results as sm_90 gives them (measured on an H200 by replaying these kernels, see
// tests/data/emu/gpu_replay.cpp):
// f32 arithmetic (abs and neg included) returns the canonical NaN 0x7fffffff.
u32 gpu_f32(float f) { return std::isnan(f) ? 0x7fffffffu : bits_of(f); }
// min/max: a NaN operand gives the other one, two NaNs the canonical NaN (f32) or the
// second one quieted (f64); -0.0 is below +0.0.
template <typename T>
T gpu_min_max(bool max, T x, T y) {
  if (std::isnan(x) && std::isnan(y)) return y;  // the caller fixes the NaN's bits
  if (std::isnan(x)) return y;
  if (std::isnan(y)) return x;
  if (x == y && x == 0) return (std::signbit(x) != max) ? x : y;
  return (max ? x > y : x < y) ? x : y;
}
u32 gpu_min_max_f32(bool max, float x, float y) { return gpu_f32(gpu_min_max(max, x, y)); }
constexpr u64 kQuiet64 = 0x0008000000000000ull;
u64 gpu_min_max_f64(bool max, double x, double y) {
  const double r = gpu_min_max(max, x, y);
  return std::isnan(r) ? bits_of(r) | kQuiet64 : bits_of(r);
}
// f64 add, mul and fma: the second operand's NaN (quieted) first, then the first's.
u64 gpu_f64_nan2(double a, double b, double r) {
  if (std::isnan(b)) return bits_of(b) | kQuiet64;
  if (std::isnan(a)) return bits_of(a) | kQuiet64;
  return bits_of(r);
}
// .sat / __saturatef: NaN and -0.0 give +0.0.
float gpu_sat(float x) { return (std::isnan(x) || x <= 0.0f) ? 0.0f : std::min(x, 1.0f); }

}  // namespace

TEST(EmuFloat, F32CorrectlyRounded) {
  REQUIRE_NVCC();
  const int n = 4096, ops = 45;
  const auto a = random_floats(n, 31), b = random_floats(n, 32), c = random_floats(n, 33);
  Launch L;
  L.grid = {n / 128, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(4ull * n * ops)},
            {"a", file_arg(a)},
            {"b", file_arg(b)},
            {"c", file_arg(c)},
            {"n", std::to_string(n)}};
  const Result r = run_k("float_ops.cu", "f32_exact", L);
  const auto got = r.get<u32>("out", static_cast<size_t>(n) * ops);
  std::vector<u32> want(got.size());
  const int RN = FE_TONEAREST, RZ = FE_TOWARDZERO, RU = FE_UPWARD, RD = FE_DOWNWARD;
  for (int i = 0; i < n; ++i) {
    const float x = a[i], y = b[i], z = c[i];
    std::vector<float> o;
    o.push_back(fadd(x, y, RN));
    o.push_back(fadd(x, -y, RN));
    o.push_back(fmul(x, y, RN));
    o.push_back(fdiv(x, y, RN));
    o.push_back(ffma(x, y, z, RN));
    o.push_back(fadd(fmul(x, y, RN), z, RN));
    o.push_back(fsqrt(x, RN));
    o.push_back(fdiv(1.0f, x, RN));
    o.push_back(fadd(x, y, RZ));
    o.push_back(fadd(x, y, RU));
    o.push_back(fadd(x, y, RD));
    o.push_back(fadd(x, -y, RZ));
    o.push_back(fmul(x, y, RZ));
    o.push_back(fmul(x, y, RU));
    o.push_back(fmul(x, y, RD));
    o.push_back(fdiv(x, y, RZ));
    o.push_back(fdiv(x, y, RU));
    o.push_back(fdiv(x, y, RD));
    o.push_back(fsqrt(x, RZ));
    o.push_back(fsqrt(x, RU));
    o.push_back(fsqrt(x, RD));
    o.push_back(ffma(x, y, z, RZ));
    o.push_back(ffma(x, y, z, RU));
    o.push_back(ffma(x, y, z, RD));
    o.push_back(fdiv(1.0f, x, RZ));
    o.push_back(fdiv(1.0f, x, RU));
    o.push_back(std::fmin(x, y));
    o.push_back(std::fmax(x, y));
    o.push_back(std::fabs(x));
    o.push_back(-x);
    o.push_back(std::copysign(x, y));
    o.push_back(std::floor(x));
    o.push_back(std::ceil(x));
    o.push_back(std::trunc(x));
    o.push_back(std::nearbyint(x));
    o.push_back(round_half_away(x));
    o.push_back(gpu_sat(x));
    o.push_back(std::fmod(x, y));
    o.push_back(std::ldexp(x, static_cast<int>(bits_of(y) % 61) - 30));
    o.push_back(std::fma(x, 0.1f, 3.0f));
    o.push_back(x * 0.5f);
    o.push_back(x < 0.0f ? y : z);
    const u32 cmp = static_cast<u32>(x < y) | static_cast<u32>(x <= y) << 1 |
                    static_cast<u32>(x == y) << 2 | static_cast<u32>(x != y) << 3 |
                    static_cast<u32>(!(x < y)) << 4 | static_cast<u32>(!(x >= y)) << 5 |
                    static_cast<u32>(x > y) << 6 | static_cast<u32>(std::isnan(x)) << 7 |
                    static_cast<u32>(std::isinf(x)) << 8 | static_cast<u32>(std::isfinite(x)) << 9 |
                    static_cast<u32>(std::signbit(x)) << 10 | static_cast<u32>(!(x == y)) << 11;
    o.push_back(f32_of(cmp));
    o.push_back(std::fdim(x, y));
    o.push_back(fadd(fmul(x, x, RN), -fmul(y, y, RN), RN));
    ASSERT_EQ(o.size(), static_cast<size_t>(ops));
    for (int k = 0; k < ops; ++k) {
      const float v = o[static_cast<size_t>(k)];
      // Bits passed through (copysign, a select, the compare bits) stay; arithmetic NaNs
      // are canonical.
      want[static_cast<size_t>(k) * n + i] =
          (k == 30 || k == 41 || k == 42) ? bits_of(v) : gpu_f32(v);
    }
    want[26ull * n + i] = gpu_min_max_f32(false, x, y);
    want[27ull * n + i] = gpu_min_max_f32(true, x, y);
  }
  compare_ops<u32>(got, want, ops, n, [&](int i) {
    return "a=" + std::to_string(a[i]) + " (" + hex(bits_of(a[i])) + ") b=" + std::to_string(b[i]) +
           " (" + hex(bits_of(b[i])) + ") c=" + hex(bits_of(c[i]));
  });
}

TEST(EmuFloat, F64CorrectlyRounded) {
  REQUIRE_NVCC();
  const int n = 4096, ops = 30;
  const auto a = random_doubles(n, 41), b = random_doubles(n, 42), c = random_doubles(n, 43);
  Launch L;
  L.grid = {n / 128, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(8ull * n * ops)},
            {"a", file_arg(a)},
            {"b", file_arg(b)},
            {"c", file_arg(c)},
            {"n", std::to_string(n)}};
  const Result r = run_k("float_ops.cu", "f64_exact", L);
  const auto got = r.get<u64>("out", static_cast<size_t>(n) * ops);
  std::vector<u64> want(got.size());
  const int RN = FE_TONEAREST, RZ = FE_TOWARDZERO, RU = FE_UPWARD, RD = FE_DOWNWARD;
  for (int i = 0; i < n; ++i) {
    const double x = a[i], y = b[i], z = c[i];
    std::vector<double> o;
    o.push_back(dadd(x, y, RN));
    o.push_back(with_rounding(RN, [&] {
      volatile double p = x, q = y;
      volatile double r = p - q;  // (not x + -y: a NaN y keeps its sign)
      return static_cast<double>(r);
    }));
    o.push_back(dmul(x, y, RN));
    o.push_back(ddiv(x, y, RN));
    o.push_back(dfma(x, y, z, RN));
    o.push_back(dadd(dmul(x, y, RN), z, RN));
    o.push_back(dsqrt(x, RN));
    o.push_back(ddiv(1.0, x, RN));
    o.push_back(dadd(x, y, RZ));
    o.push_back(dadd(x, y, RU));
    o.push_back(dadd(x, y, RD));
    o.push_back(dmul(x, y, RZ));
    o.push_back(dmul(x, y, RU));
    o.push_back(ddiv(x, y, RZ));
    o.push_back(ddiv(x, y, RD));
    o.push_back(dsqrt(x, RU));
    o.push_back(dfma(x, y, z, RZ));
    o.push_back(dfma(x, y, z, RD));
    o.push_back(ddiv(1.0, x, RZ));
    o.push_back(std::fmin(x, y));
    o.push_back(std::fmax(x, y));
    o.push_back(std::fabs(x));
    o.push_back(-x);
    o.push_back(std::floor(x));
    o.push_back(std::ceil(x));
    o.push_back(std::trunc(x));
    o.push_back(std::nearbyint(x));
    o.push_back(std::fmod(x, y));
    o.push_back(std::fma(x, 0.1, 3.0));
    const u64 cmp = static_cast<u64>(x < y) | static_cast<u64>(x <= y) << 1 |
                    static_cast<u64>(x == y) << 2 | static_cast<u64>(x != y) << 3 |
                    static_cast<u64>(!(x < y)) << 4 | static_cast<u64>(!(x >= y)) << 5 |
                    static_cast<u64>(x > y) << 6 | static_cast<u64>(std::isnan(x)) << 7 |
                    static_cast<u64>(std::isinf(x)) << 8;
    o.push_back(f64_of(cmp));
    ASSERT_EQ(o.size(), static_cast<size_t>(ops));
    for (int k = 0; k < ops; ++k)
      want[static_cast<size_t>(k) * n + i] = bits_of(o[static_cast<size_t>(k)]);
    // The GPU's NaN propagation through add, mul and fma (the rest propagates as the host).
    for (int k : {0, 2, 8, 9, 10, 11, 12})
      want[static_cast<size_t>(k) * n + i] = gpu_f64_nan2(x, y, o[static_cast<size_t>(k)]);
    for (int k : {4, 16, 17})
      if (std::isnan(x) || std::isnan(y))
        want[static_cast<size_t>(k) * n + i] = gpu_f64_nan2(x, y, 0);
    {
      const u64 p = gpu_f64_nan2(x, y, x * y);
      want[5ull * n + i] = gpu_f64_nan2(f64_of(p), z, f64_of(p) + z);
    }
    want[19ull * n + i] = gpu_min_max_f64(false, x, y);
    want[20ull * n + i] = gpu_min_max_f64(true, x, y);
    if (std::isnan(x))
      want[21ull * n + i] = want[22ull * n + i] = bits_of(x) | kQuiet64;  // abs, neg
  }
  compare_ops<u64>(got, want, ops, n, [&](int i) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "a=%.17g b=%.17g c=%.17g", a[i], b[i], c[i]);
    return std::string(buf);
  });
}

TEST(EmuFloat, Conversions) {
  REQUIRE_NVCC();
  const int n = 4096, ops = 60;
  const auto a = random_floats(n, 51);
  const auto b = random_doubles(n, 52);
  const auto c = random_ints<i32>(n, 53);
  auto e = random_ints<i64>(n, 54);
  for (int i = 0; i < n; i += 3) e[i] >>= (i % 40);  // all magnitudes
  std::vector<u16> h(n);
  {
    std::mt19937 rng(55);
    for (auto& v : h) v = static_cast<u16>(rng());
  }
  Launch L;
  L.grid = {n / 128, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(8ull * n * ops)},
            {"a", file_arg(a)},
            {"b", file_arg(b)},
            {"c", file_arg(c)},
            {"e", file_arg(e)},
            {"h", file_arg(h)},
            {"n", std::to_string(n)}};
  const Result r = run_k("float_ops.cu", "conversions", L);
  const auto got = r.get<u64>("out", static_cast<size_t>(n) * ops);
  std::vector<u64> want(got.size());
  const int RN = FE_TONEAREST, RZ = FE_TOWARDZERO, RU = FE_UPWARD, RD = FE_DOWNWARD;
  for (int i = 0; i < n; ++i) {
    const float x = a[i];
    const double d = b[i];
    const i32 w = c[i];
    const i64 l = e[i];
    std::vector<u64> o;  // the expected 64-bit slots (integers, f32/f64/f16 patterns)
    auto I = [&](u64 v) { o.push_back(v); };
    auto F = [&](float v) { o.push_back(bits_of(v)); };
    auto D = [&](double v) { o.push_back(bits_of(v)); };
    auto H = [&](u16 v) { o.push_back(v); };
    I(static_cast<u32>(f2i<i32>(x, RZ)));
    I(static_cast<u32>(f2i<i32>(x, RN)));
    I(static_cast<u32>(f2i<i32>(x, RD)));
    I(static_cast<u32>(f2i<i32>(x, RU)));
    I(f2i<u32>(x, RZ));
    I(f2i<u32>(x, RN));
    I(f2i<u32>(x, RD));
    I(f2i<u32>(x, RU));
    I(static_cast<u64>(f2i<i64>(x, RZ)));
    I(static_cast<u64>(f2i<i64>(x, RN)));
    I(static_cast<u64>(f2i<i64>(x, RD)));
    I(f2i<u64>(x, RZ));
    I(f2i<u64>(x, RU));
    I(static_cast<u32>(f2i<i32>(d, RZ, true)));
    I(static_cast<u32>(f2i<i32>(d, RN, true)));
    I(static_cast<u32>(f2i<i32>(d, RD, true)));
    I(static_cast<u32>(f2i<i32>(d, RU, true)));
    I(f2i<u32>(d, RZ, true));
    I(f2i<u32>(d, RD, true));
    I(static_cast<u64>(f2i<i64>(d, RZ, true)));
    I(static_cast<u64>(f2i<i64>(d, RN, true)));
    I(f2i<u64>(d, RZ, true));
    I(f2i<u64>(d, RU, true));
    D(static_cast<double>(x));
    F(to_f32(d, RN));
    F(to_f32(d, RN));
    F(to_f32(d, RZ));
    F(to_f32(d, RD));
    F(to_f32(d, RU));
    F(i64_to_f32(w, RN));
    F(i64_to_f32(w, RN));
    F(i64_to_f32(w, RZ));
    F(i64_to_f32(w, RD));
    F(i64_to_f32(w, RU));
    F(u64_to_f32(static_cast<u32>(w), RZ));
    F(u64_to_f32(static_cast<u32>(w), RN));
    D(static_cast<double>(w));
    D(static_cast<double>(static_cast<u32>(w)));
    F(i64_to_f32(l, RN));
    F(i64_to_f32(l, RZ));
    F(i64_to_f32(l, RD));
    F(i64_to_f32(l, RU));
    F(u64_to_f32(static_cast<u64>(l), RN));
    F(u64_to_f32(static_cast<u64>(l), RZ));
    D(i64_to_f64(l, RN));
    D(i64_to_f64(l, RZ));
    D(i64_to_f64(l, RU));
    D(u64_to_f64(static_cast<u64>(l), RN));
    D(u64_to_f64(static_cast<u64>(l), RD));
    F(gpu_sat(x));
    H(to_half(x, RN));
    H(to_half(x, RN));
    H(to_half(x, RZ));
    H(to_half(x, RD));
    H(to_half(x, RU));
    // f64 NaN to half: the sign and the top of the payload, quiet.
    H(std::isnan(d)
          ? static_cast<u16>(((bits_of(d) >> 48) & 0x8000) | 0x7e00 | ((bits_of(d) >> 42) & 0x3ff))
          : to_half(d, RN));
    I(gpu_f32(static_cast<float>(from_half(h[i]))));  // f16 NaNs widen to the canonical f32 NaN
    H(std::isnan(from_half(h[i])) ? 0x7fff : h[i]);
    I(gpu_f32(std::nearbyint(x)));
    I(gpu_f32(std::floor(x) + std::ceil(x)));
    ASSERT_EQ(o.size(), static_cast<size_t>(ops));
    for (int k = 0; k < ops; ++k) want[static_cast<size_t>(k) * n + i] = o[static_cast<size_t>(k)];
  }
  compare_ops<u64>(got, want, ops, n, [&](int i) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "x=%.9g (0x%08x) d=%.17g w=%d l=%lld h=0x%04x", a[i],
                  bits_of(a[i]), b[i], c[i], static_cast<long long>(e[i]), h[i]);
    return std::string(buf);
  });
}

TEST(EmuFloat, Approximations) {
  REQUIRE_NVCC();
  const int n = 2048, ops = 30;
  std::vector<float> a(n), b(n);
  std::mt19937 rng(61);
  std::uniform_real_distribution<float> ua(-10.0f, 10.0f), ub(-4.0f, 4.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = ua(rng);
    b[i] = ub(rng);
    if (std::fabs(b[i]) < 0.01f) b[i] = 0.5f;
  }
  Launch L;
  L.grid = {n / 128, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(4ull * n * ops)},
            {"a", file_arg(a)},
            {"b", file_arg(b)},
            {"n", std::to_string(n)}};
  const Result r = run_k("float_ops.cu", "approx", L);
  const auto got = r.get<float>("out", static_cast<size_t>(n) * ops);
  for (int i = 0; i < n; ++i) {
    const double x = a[i], y = b[i];
    const double ax1 = std::fabs(x) + 1.0;
    const std::vector<double> want = {std::exp(x),
                                      std::sin(x),
                                      std::cos(x),
                                      std::log(ax1),
                                      std::log2(ax1),
                                      std::exp2(x),
                                      1.0 / std::sqrt(ax1),
                                      x / y,
                                      std::sin(x),
                                      std::cos(x),
                                      std::exp(x),
                                      std::log(ax1),
                                      std::tanh(x),
                                      std::pow(std::fabs(x) + 0.5, y),
                                      std::atan2(x, y),
                                      1.0 / std::sqrt(ax1),
                                      std::sqrt(std::fabs(x)) / std::sqrt(std::fabs(y) + 2.0),
                                      std::pow(std::fabs(x) + 0.5, y),
                                      std::tan(x),
                                      std::erf(x),
                                      1.0 / y,
                                      std::sqrt(std::fabs(x)),
                                      1.0 / std::sqrt(std::fabs(x) + 0.25),
                                      std::exp2(x),
                                      std::log2(std::fabs(x) + 0.25),
                                      std::sin(x * 0.3f),
                                      std::cos(x * 0.3f),
                                      std::tanh(x * 0.3f),
                                      1.0 / std::sqrt(std::fabs(x) + 0.25),
                                      1.0 / y};
    for (int k = 0; k < ops; ++k) {
      const double g = got[static_cast<size_t>(k) * n + i], w = want[static_cast<size_t>(k)];
      // Relative 1e-5 (a few ulp; the fast intrinsics' documented bounds), absolute for
      // sin/cos near their zero crossings. The H200's own results are within these.
      double tol = 1e-5 * std::fabs(w) + 1e-6;
      // __sinf/__cosf: 2^-21.41 absolute on [-pi, pi], a little more beyond (the H200
      // gives 1.3e-6 on [-10, 10]).
      if (k == 1 || k == 2) tol = 1e-5;
      if (k == 25 || k == 26) tol = std::ldexp(1.0, -20);
      if (k == 27) tol = std::ldexp(1.0, -10);  // tanh.approx: about 2^-11 relative
      if (k == 18) tol = 1e-5 * std::fabs(w) + 1e-5 * (1 + w * w);  // __tanf = __sinf / __cosf
      if (k == 0 || k == 17)
        tol = 2e-6 * std::fabs(w) *
              (2 + 1.16 * std::fabs(k == 0 ? x : y * std::log2(std::fabs(x) + 0.5)));
      EXPECT_NEAR(g, w, tol) << "op " << k << ", element " << i << ": x=" << x << " y=" << y;
    }
  }
}

// ---------------------------------------------------------------- warp intrinsics

namespace {

// shfl.sync as the PTX ISA defines it, for lane `lane` of a warp holding `v`.
u32 shfl_ref(const u32* v, int lane, char mode, u32 b, u32 c) {
  const u32 bval = b & 31, clamp = c & 31, seg = (c >> 8) & 31;
  const int max_lane = static_cast<int>((static_cast<u32>(lane) & seg) | (clamp & ~seg));
  const int min_lane = static_cast<int>(static_cast<u32>(lane) & seg);
  int j = lane;
  bool ok = false;
  switch (mode) {
    case 'u':
      j = lane - static_cast<int>(bval);
      ok = j >= max_lane;
      break;
    case 'd':
      j = lane + static_cast<int>(bval);
      ok = j <= max_lane;
      break;
    case 'x':
      j = lane ^ static_cast<int>(bval);
      ok = j <= max_lane;
      break;
    default:
      j = min_lane | static_cast<int>(bval & ~seg);
      ok = j <= max_lane;
      break;
  }
  return v[ok ? j : lane];
}
// The c operand CUDA's __shfl*_sync(..., width) passes.
u32 shfl_c(char mode, int width) {
  return (static_cast<u32>(32 - width) << 8) | (mode == 'u' ? 0u : 0x1fu);
}

}  // namespace

TEST(EmuWarp, Shuffles) {
  REQUIRE_NVCC();
  const int n = 256, ops = 24;
  const auto a = random_ints<u32>(n, 71), b = random_ints<u32>(n, 72);
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(4ull * n * ops)},
            {"a", file_arg(a)},
            {"b", file_arg(b)},
            {"n", std::to_string(n)}};
  const Result r = run_k("warp.cu", "shuffles", L);
  const auto got = r.get<u32>("out", static_cast<size_t>(n) * ops);
  std::vector<u32> want(got.size());
  for (int w0 = 0; w0 < n; w0 += 32) {
    const u32* v = &a[w0];
    u32 fl[32], hi[32], lo[32];
    for (int l = 0; l < 32; ++l) {
      fl[l] = v[l] & 0x3fffffffu;
      hi[l] = v[l];
      lo[l] = b[w0 + l];
    }
    for (int l = 0; l < 32; ++l) {
      const u32 p = b[w0 + l];
      std::vector<u32> o;
      o.push_back(shfl_ref(v, l, 'i', p & 31, shfl_c('i', 32)));
      o.push_back(v[5]);
      o.push_back(l >= 1 ? v[l - 1] : v[l]);
      o.push_back(l >= 7 ? v[l - 7] : v[l]);
      o.push_back(l + 1 < 32 ? v[l + 1] : v[l]);
      o.push_back(l + 13 < 32 ? v[l + 13] : v[l]);
      o.push_back(v[l ^ 1]);
      o.push_back(v[l ^ 16]);
      o.push_back(v[l ^ (p & 31)]);
      o.push_back(v[(l & ~7) + (p & 7)]);
      o.push_back(v[(l & ~15) + 3]);
      o.push_back(l % 8 >= 3 ? v[l - 3] : v[l]);
      o.push_back(l % 8 + 3 < 8 ? v[l + 3] : v[l]);
      o.push_back(shfl_ref(v, l, 'x', 5, shfl_c('x', 4)));
      o.push_back(l % 4 + 2 < 4 ? v[l + 2] : v[l]);
      o.push_back(v[(l & ~15) + ((static_cast<int>(p & 63) - 16) & 15)]);
      o.push_back(shfl_ref(v, l, 'i', p & 31, shfl_c('i', 32)));
      o.push_back(l + 4 < 32 ? fl[l + 4] : fl[l]);
      o.push_back(v[l ^ 2]);
      o.push_back(l >= 2 ? hi[l - 2] : hi[l]);
      o.push_back(l >= 2 ? lo[l - 2] : lo[l]);
      u32 sum = 0, scan = 0, seg = 0;
      for (int j = 0; j < 32; ++j) sum += v[j];
      for (int j = 0; j <= l; ++j) scan += v[j];
      for (int j = l & ~7; j < (l & ~7) + 8; ++j) seg += v[j];
      o.push_back(sum);
      o.push_back(scan);
      o.push_back(seg);
      ASSERT_EQ(o.size(), static_cast<size_t>(ops));
      for (int k = 0; k < ops; ++k)
        want[static_cast<size_t>(k) * n + w0 + l] = o[static_cast<size_t>(k)];
    }
  }
  compare_ops<u32>(got, want, ops, n,
                   [&](int i) { return "lane " + std::to_string(i % 32) + " p=" + hex(b[i]); });
}

TEST(EmuWarp, Votes) {
  REQUIRE_NVCC();
  const int n = 256, ops = 12;
  auto a = random_ints<u32>(n, 81);
  a[40] = 12345;  // warp 1: any() true
  for (int l = 0; l < 32; ++l)
    a[64 + l] = static_cast<u32>(l * 3 + 1) & 0x3fffffffu;  // warp 2: match_all
  a[100] = 77;                                              // warp 3: all() false
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(4ull * n * ops)}, {"a", file_arg(a)}, {"n", std::to_string(n)}};
  const Result r = run_k("warp.cu", "votes", L);
  const auto got = r.get<u32>("out", static_cast<size_t>(n) * ops);
  std::vector<u32> want(got.size());
  for (int w0 = 0; w0 < n; w0 += 32) {
    const u32* v = &a[w0];
    auto ballot = [&](auto pred) {
      u32 m = 0;
      for (int l = 0; l < 32; ++l)
        if (pred(v[l])) m |= 1u << l;
      return m;
    };
    const u32 odd = ballot([](u32 x) { return x & 1; });
    const bool any = ballot([](u32 x) { return x == 12345u; }) != 0;
    const bool all = ballot([](u32 x) { return x != 77u; }) == 0xffffffffu;
    const u32 div3 = static_cast<u32>(std::popcount(ballot([](u32 x) { return x % 3 == 0; })));
    const bool same = ballot([&](u32 x) { return (x >> 30) == (v[0] >> 30); }) == 0xffffffffu;
    const u32 active = ballot([](u32 x) { return x % 4 != 0; });
    const u32 bit2 = ballot([](u32 x) { return x % 4 != 0 && (x & 2); });
    for (int l = 0; l < 32; ++l) {
      const u32 match = ballot([&](u32 x) { return x % 5 == v[l] % 5; });
      const bool in = v[l] % 4 != 0;
      const std::vector<u32> o = {odd,
                                  any,
                                  all,
                                  div3,
                                  0xffffffffu,
                                  match,
                                  same ? 0xffffffffu : 0u,
                                  same,
                                  in ? active : 0u,
                                  in ? bit2 : 0u,
                                  in ? static_cast<u32>(std::popcount(active)) : 0u,
                                  static_cast<u32>(std::popcount(odd & ((1u << l) - 1)))};
      for (int k = 0; k < ops; ++k)
        want[static_cast<size_t>(k) * n + w0 + l] = o[static_cast<size_t>(k)];
    }
  }
  compare_ops<u32>(got, want, ops, n,
                   [&](int i) { return "thread " + std::to_string(i) + " a=" + hex(a[i]); });
}

TEST(EmuWarp, PartialWarp) {
  REQUIRE_NVCC();
  std::vector<u32> a(48);
  for (int i = 0; i < 48; ++i) a[i] = static_cast<u32>(i * 7 + 3);
  a[40] = 5;  // warp 1: all() false
  Launch L;
  L.block = {48, 1, 1};
  L.args = {{"out", zeros(4 * 192)}, {"a", file_arg(a)}};
  const Result r = run_k("warp.cu", "votes_partial", L);
  const auto got = r.get<u32>("out", 192);
  for (int t = 0; t < 48; ++t) {
    const int w0 = t < 32 ? 0 : 32, lanes = t < 32 ? 32 : 16;
    const u32 m = lanes == 32 ? 0xffffffffu : 0xffffu;
    u32 odd = 0;
    bool all = true;
    for (int l = 0; l < lanes; ++l) {
      if (a[w0 + l] & 1) odd |= 1u << l;
      all = all && a[w0 + l] != 5u;
    }
    EXPECT_EQ(got[t], m) << t;
    EXPECT_EQ(got[48 + t], odd) << t;
    const int l = t - w0;
    if (l + 1 < lanes) {
      EXPECT_EQ(got[96 + t], a[t + 1]) << t;
    } else if (lanes == 32) {
      EXPECT_EQ(got[96 + t], a[t]) << t;  // (lane 15 of the 16 reads a lane that does not exist)
    }
    EXPECT_EQ(got[144 + t], static_cast<u32>(all)) << t;
  }
}

TEST(EmuWarp, EachGroupOfLanesOverItsOwnMemberMask) {
  REQUIRE_NVCC();
  const auto a = random_ints<u32>(32, 91), b = random_ints<u32>(32, 92);
  Launch L;
  L.grid = {1, 1, 1};
  L.block = {32, 1, 1};
  L.args = {{"out", zeros(4ull * 32 * 6)}, {"a", file_arg(a)}, {"b", file_arg(b)}};
  const Result r = run_k("warp.cu", "votes_grouped", L);
  const auto got = r.get<u32>("out", 32 * 6);
  for (int l = 0; l < 32; ++l) {
    u32 m = 0, most = 0, sum = 0, odd = 0, same = 0;
    for (int j = 0; j < 32; ++j)
      if (a[j] % 3 == a[l] % 3) {
        m |= 1u << j;
        most = std::max(most, b[j]);
        sum += b[j];
        if (b[j] & 1) odd |= 1u << j;
      }
    for (int j = 0; j < 32; ++j)
      if (((m >> j) & 1u) && (b[j] & 3) == (b[l] & 3)) same |= 1u << j;
    EXPECT_EQ(got[l], m) << l;
    EXPECT_EQ(got[32 + l], most) << l;  // the group's maximum, not the warp's
    EXPECT_EQ(got[64 + l], sum) << l;
    EXPECT_EQ(got[96 + l], odd) << l;
    EXPECT_EQ(got[128 + l], static_cast<u32>(odd == m)) << l;
    EXPECT_EQ(got[160 + l], same) << l;
  }
}

// ---------------------------------------------------------------- atomics

namespace {

// The values an atomicInc(limit) / atomicDec(limit) sequence returns from `start`, `count`
// times, sorted.
std::vector<u32> inc_sequence(u32 start, u32 limit, int count, bool dec, u32* final_value) {
  std::vector<u32> v;
  u32 x = start;
  for (int i = 0; i < count; ++i) {
    v.push_back(x);
    x = dec ? ((x == 0 || x > limit) ? limit : x - 1) : (x >= limit ? 0 : x + 1);
  }
  *final_value = x;
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<u32> sorted_slice(const std::vector<u32>& v, size_t from, size_t count) {
  std::vector<u32> s(v.begin() + static_cast<std::ptrdiff_t>(from),
                     v.begin() + static_cast<std::ptrdiff_t>(from + count));
  std::sort(s.begin(), s.end());
  return s;
}
std::vector<u32> iota_u32(u32 from, u32 count, u32 step = 1) {
  std::vector<u32> v(count);
  for (u32 i = 0; i < count; ++i) v[i] = from + i * step;
  return v;
}

}  // namespace

TEST(EmuAtomic, SharedManyLanesOneAddress) {
  REQUIRE_NVCC();
  const int blocks = 4, bs = 256, n = blocks * bs;
  const auto a = random_ints<i32>(n, 91);
  std::vector<float> f(n);
  std::mt19937 rng(92);
  for (auto& x : f)
    x = static_cast<float>(static_cast<int>(rng() % 513) - 256) * 0.25f;  // exact sums
  Launch L;
  L.grid = {blocks, 1, 1};
  L.block = {bs, 1, 1};
  L.args = {{"blk", zeros(4ull * blocks * 24)},
            {"old", zeros(4ull * n * 5)},
            {"a", file_arg(a)},
            {"f", file_arg(f)},
            {"n", std::to_string(n)}};
  const Result r = run_k("atomics.cu", "shared_atomics", L);
  const auto blk = r.get<i32>("blk", static_cast<size_t>(blocks) * 24);
  const auto old = r.get<u32>("old", static_cast<size_t>(n) * 5);
  for (int b = 0; b < blocks; ++b) {
    SCOPED_TRACE("block " + std::to_string(b));
    const i32* o = &blk[static_cast<size_t>(b) * 24];
    u32 sum = 0, umin = UINT_MAX, umax = 0;
    i32 smin = INT_MAX, smax = INT_MIN, sand = -1, sor = 0, sxor = 0;
    float fsum = 0;
    int hist[8] = {};
    for (int t = 0; t < bs; ++t) {
      const i32 v = a[static_cast<size_t>(b * bs + t)];
      sum += static_cast<u32>(v);
      smin = std::min(smin, v);
      smax = std::max(smax, v);
      umin = std::min(umin, static_cast<u32>(v));
      umax = std::max(umax, static_cast<u32>(v));
      sand &= v | 0x10000;
      sor |= v & 0xff00ff;
      sxor ^= v;
      fsum += f[static_cast<size_t>(b * bs + t)];
      ++hist[static_cast<u32>(v) % 8];
    }
    EXPECT_EQ(static_cast<u32>(o[0]), sum);
    EXPECT_EQ(o[1], smin);
    EXPECT_EQ(o[2], smax);
    EXPECT_EQ(static_cast<u32>(o[3]), umin);
    EXPECT_EQ(static_cast<u32>(o[4]), umax);
    EXPECT_EQ(o[6], sand);
    EXPECT_EQ(o[7], sor);
    EXPECT_EQ(o[8], sxor);
    EXPECT_EQ(o[11], bs);
    EXPECT_EQ(std::bit_cast<float>(o[12]), fsum);
    EXPECT_EQ(o[13], bs);
    for (int h = 0; h < 8; ++h) EXPECT_EQ(o[16 + h], hist[h]) << "bin " << h;
    // Exchange: the old values and the final one are the initial -1 and every gid.
    auto ex = sorted_slice(old, static_cast<size_t>(b * bs), bs);
    ex.push_back(static_cast<u32>(o[5]));
    std::sort(ex.begin(), ex.end());
    auto want_ex = iota_u32(static_cast<u32>(b * bs), bs);
    want_ex.push_back(0xffffffffu);
    EXPECT_EQ(ex, want_ex);
    u32 fin = 0;
    EXPECT_EQ(sorted_slice(old, static_cast<size_t>(n + b * bs), bs),
              inc_sequence(0, 9, bs, false, &fin));
    EXPECT_EQ(static_cast<u32>(o[9]), fin);
    EXPECT_EQ(sorted_slice(old, static_cast<size_t>(2 * n + b * bs), bs),
              inc_sequence(0, 6, bs, true, &fin));
    EXPECT_EQ(static_cast<u32>(o[10]), fin);
    EXPECT_EQ(sorted_slice(old, static_cast<size_t>(3 * n + b * bs), bs),
              iota_u32(0, bs));  // tickets
    EXPECT_EQ(sorted_slice(old, static_cast<size_t>(4 * n + b * bs), bs),
              iota_u32(0, bs));  // CAS loop
  }
}

TEST(EmuAtomic, GlobalAcrossTheGrid) {
  REQUIRE_NVCC();
  const int blocks = 8, bs = 128, n = blocks * bs;
  const auto a = random_ints<i32>(n, 101);
  std::vector<float> f(n);
  std::mt19937 rng(102);
  for (auto& x : f) x = static_cast<float>(static_cast<int>(rng() % 513) - 256) * 0.25f;
  std::vector<i32> g(32, 0);
  g[1] = INT_MAX;
  g[2] = INT_MIN;
  g[3] = -1;  // unsigned max
  g[5] = -7;
  g[6] = -1;
  g[9] = 95;
  g[10] = 3;
  g[12] = 11;
  std::vector<u64> g64 = {5, static_cast<u64>(INT64_MIN), static_cast<u64>(INT64_MAX), 0};
  Launch L;
  L.grid = {blocks, 1, 1};
  L.block = {bs, 1, 1};
  L.threads = 4;  // CTAs in parallel: the atomics serialize across threads
  L.args = {{"g", file_arg(g)}, {"g64", file_arg(g64)},       {"gf", zeros(4)},
            {"gd", zeros(8)},   {"old", zeros(4ull * n * 5)}, {"a", file_arg(a)},
            {"f", file_arg(f)}, {"n", std::to_string(n)}};
  const Result r = run_k("atomics.cu", "global_atomics", L);
  const auto go = r.get<i32>("g", 32);
  const auto g64o = r.get<u64>("g64", 4);
  const float gf = r.get<float>("gf", 1)[0];
  const double gd = r.get<double>("gd", 1)[0];
  const auto old = r.get<u32>("old", static_cast<size_t>(n) * 5);
  u32 sum = 0, umin = UINT_MAX, umax = 0;
  i32 smin = INT_MAX, smax = INT_MIN, sand = -1, sor = 0, sxor = 0;
  u64 sum64 = 5;
  i64 max64 = INT64_MIN, min64 = INT64_MAX;
  float fsum = 0;
  double dsum = 0;
  int hist[16] = {};
  for (int t = 0; t < n; ++t) {
    const i32 v = a[static_cast<size_t>(t)];
    sum += static_cast<u32>(v);
    smin = std::min(smin, v);
    smax = std::max(smax, v);
    umin = std::min(umin, static_cast<u32>(v));
    umax = std::max(umax, static_cast<u32>(v));
    sand &= v | 0x10000;
    sor |= v & 0xff00ff;
    sxor ^= v;
    sum64 += static_cast<u64>(static_cast<u32>(v)) * 4096u;
    max64 = std::max<i64>(max64, static_cast<i64>(v) * 100000);
    min64 = std::min<i64>(min64, static_cast<i64>(v) * 100000);
    fsum += f[static_cast<size_t>(t)];
    dsum += static_cast<double>(f[static_cast<size_t>(t)]) * 0.5;
    ++hist[static_cast<u32>(v) % 16];
  }
  EXPECT_EQ(static_cast<u32>(go[0]), sum);
  EXPECT_EQ(go[1], smin);
  EXPECT_EQ(go[2], smax);
  EXPECT_EQ(static_cast<u32>(go[3]), umin);
  EXPECT_EQ(static_cast<u32>(go[4]), umax);
  EXPECT_EQ(go[6], sand);
  EXPECT_EQ(go[7], sor);
  EXPECT_EQ(go[8], sxor);
  EXPECT_EQ(go[11], n);
  EXPECT_EQ(go[12], 11 + 3 * n);
  for (int h = 0; h < 16; ++h) EXPECT_EQ(go[16 + h], hist[h]) << "bin " << h;
  EXPECT_EQ(g64o[0], sum64);
  EXPECT_EQ(static_cast<i64>(g64o[1]), max64);
  EXPECT_EQ(static_cast<i64>(g64o[2]), min64);
  EXPECT_EQ(g64o[3], static_cast<u64>(n) * 0x100000001ull);
  EXPECT_EQ(gf, fsum);
  EXPECT_EQ(gd, dsum);
  auto ex = sorted_slice(old, 0, n);
  ex.push_back(static_cast<u32>(go[5]));
  std::sort(ex.begin(), ex.end());
  auto want_ex = iota_u32(0, n);
  want_ex.push_back(static_cast<u32>(-7));
  std::sort(want_ex.begin(), want_ex.end());
  EXPECT_EQ(ex, want_ex);
  u32 fin = 0;
  EXPECT_EQ(sorted_slice(old, static_cast<size_t>(n), n), inc_sequence(95, 100, n, false, &fin));
  EXPECT_EQ(static_cast<u32>(go[9]), fin);
  EXPECT_EQ(sorted_slice(old, static_cast<size_t>(2 * n), n), inc_sequence(3, 50, n, true, &fin));
  EXPECT_EQ(static_cast<u32>(go[10]), fin);
  EXPECT_EQ(sorted_slice(old, static_cast<size_t>(3 * n), n), iota_u32(0, n));
  EXPECT_EQ(sorted_slice(old, static_cast<size_t>(4 * n), n), iota_u32(11, n, 3));
}

// ---------------------------------------------------------------- control flow and memories

namespace {

i32 wrap_mul(i32 a, i32 b) { return static_cast<i32>(static_cast<u32>(a) * static_cast<u32>(b)); }
i32 wrap_add(i32 a, i32 b) { return static_cast<i32>(static_cast<u32>(a) + static_cast<u32>(b)); }

// Records every access event (mask and site) of a direct emulator run.
struct Capture : emu::Listener {
  std::vector<emu::AccessEvent> events;
  void on_access(const emu::AccessEvent& e) override { events.push_back(e); }
};

// Runs one CTA of `kernel` directly on an Emulator with a listener: buffers are given as
// (bytes, contents) per parameter in order; scalars as 4-byte values.
struct DirectRun {
  emu::GlobalMemory mem;
  std::vector<u64> bases;
  Capture capture;
};
std::unique_ptr<DirectRun> run_direct(const std::string& file, const std::string& kernel,
                                      emu::Dim3 block,
                                      const std::vector<std::vector<u8>>& buffers) {
  // With the fast tier on and off (emu_differential.hpp); the fast run is the result.
  auto run = [&](const emu::Emulator::Options& eo) {
    auto d = std::make_unique<DirectRun>();
    const auto& l = loaded(file);
    const auto& k = kernel_named(l, kernel);
    emu::Launch launch;
    launch.block = block;
    launch.params.assign(static_cast<size_t>(k.param_bytes), 0);
    for (size_t i = 0; i < k.params.size() && i < buffers.size(); ++i) {
      std::string name = "p";
      name += std::to_string(i);
      const u64 base = d->mem.add(name, buffers[i].size());
      std::memcpy(d->mem.find(base, 1)->data(), buffers[i].data(), buffers[i].size());
      std::memcpy(launch.params.data() + k.params[i].offset, &base, 8);
      d->bases.push_back(base);
    }
    emu::Emulator e(l.program, k, d->mem, eo);
    e.add_listener(&d->capture);
    e.run_cta(launch, {0, 0, 0});
    return d;
  };
  using P = std::unique_ptr<DirectRun>;
  return emu::testing::run_both_tiers<P>(file + " " + kernel, run,
                                         [](P& x) -> emu::GlobalMemory& { return x->mem; });
}
template <typename T>
std::vector<u8> as_bytes(const std::vector<T>& v) {
  std::vector<u8> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

}  // namespace

TEST(EmuControl, Branches) {
  REQUIRE_NVCC();
  const int n = 1024;
  auto a = random_ints<i32>(n, 111);
  for (int i = 0; i < n; i += 4) a[static_cast<size_t>(i)] %= 5000;  // smaller values too
  Launch L;
  L.grid = {8, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(4ull * n * 6)}, {"a", file_arg(a)}, {"n", std::to_string(n)}};
  const Result r = run_k("control.cu", "branches", L);
  const auto got = r.get<i32>("out", static_cast<size_t>(n) * 6);
  std::vector<i32> want(got.size());
  for (int g = 0; g < n; ++g) {
    const i32 v = a[static_cast<size_t>(g)];
    const int tid = g % 128;
    i32 rr = 0;
    if (v & 1) {
      for (int i = 0; i < (v & 7) + 3; ++i) rr = wrap_mul(v, i) ^ (rr >> 1);
      // (the kernel adds: r += (v*i) ^ (r >> 1))
      rr = 0;
      for (int i = 0; i < (v & 7) + 3; ++i) rr = wrap_add(rr, wrap_mul(v, i) ^ (rr >> 1));
    } else {
      rr = wrap_mul(v, 3);
      rr = rr / 7 + v % 5;
    }
    i32 q;
    if (v > 0) {
      if (v % 3 == 0)
        q = v / 3;
      else if (v % 3 == 1)
        q = -v;
      else
        q = wrap_mul(v, v);
    } else {
      q = v < -100 ? 1 : 2;
      if (v & 4) q += 10;
    }
    i32 acc = 0;
    for (int i = 0; i < (tid % 13) + 1; ++i) {
      if (i % 3 == 1) continue;
      if (acc > (v & 63) + 20) break;
      acc += i * 2 + 1;
    }
    i32 s;
    switch (v & 7) {
      case 0:
        s = 10;
        break;
      case 1:
        s = v;
        break;
      case 2:
      case 3:
        s = wrap_mul(v, 2);
        break;
      case 5:
        s = -1;
        break;
      default:
        s = 7;
        break;
    }
    u32 c = static_cast<u32>(v & 0xffff) + 1;
    i32 steps = 0;
    while (c != 1 && steps < 200) {
      c = (c & 1) ? 3 * c + 1 : c / 2;
      ++steps;
    }
    i32 found = -1;
    for (int i = 0; i < 8 && found < 0; ++i)
      for (int j = 0; j < 8; ++j)
        if (((v >> (i + j)) & 7) == 5) {
          found = i * 8 + j;
          break;
        }
    const i32 o[6] = {rr, q, acc, s, steps, found};
    for (int k = 0; k < 6; ++k) want[static_cast<size_t>(k) * n + g] = o[k];
  }
  compare_ops<i32>(got, want, 6, n,
                   [&](int i) { return "a=" + std::to_string(a[static_cast<size_t>(i)]); });
}

TEST(EmuControl, EarlyReturnBeforeBarrier) {
  REQUIRE_NVCC();
  const int n = 200;
  const auto a = random_ints<i32>(256, 121);
  Launch L;
  L.block = {256, 1, 1};
  L.budget = 1'000'000;  // a hang would hit it
  L.args = {{"out", zeros(4 * 256)}, {"a", file_arg(a)}, {"n", std::to_string(n)}};
  const Result r = run_k("control.cu", "early_return", L);
  const auto got = r.get<i32>("out", 256);
  for (int t = 0; t < 256; ++t)
    EXPECT_EQ(got[static_cast<size_t>(t)],
              t < n ? wrap_mul(a[static_cast<size_t>((t + 1) % n)], 2) : 0)
        << t;
  const int line = line_of("control.cu", "BARRIER: early_return");
  bool noted = false;
  for (const auto& note : r.run.report.notes)
    if (note.line == line && note.message.find("barrier") != std::string::npos) noted = true;
  EXPECT_TRUE(noted) << "no note at the barrier on line " << line;
  // The lanes of warp 6 that returned are gone: the barrier is not "under divergence".
  for (const auto& note : r.run.report.notes)
    EXPECT_EQ(note.message.find("divergence"), std::string::npos) << note.message;
}

TEST(EmuControl, BlockReductionAndScan) {
  REQUIRE_NVCC();
  const int blocks = 4, bs = 512, n = blocks * bs;
  const auto a = random_ints<i32>(n, 131);
  Launch L;
  L.grid = {blocks, 1, 1};
  L.block = {bs, 1, 1};
  L.args = {{"sums", zeros(4 * blocks)},
            {"scans", zeros(4ull * n)},
            {"fsums", zeros(4 * blocks)},
            {"a", file_arg(a)}};
  const Result r = run_k("control.cu", "reduce_scan", L);
  const auto sums = r.get<i32>("sums", blocks);
  const auto fsums = r.get<float>("fsums", blocks);
  const auto scans = r.get<i32>("scans", n);
  for (int b = 0; b < blocks; ++b) {
    i32 s = 0;
    float fs = 0;
    for (int t = 0; t < bs; ++t) {
      const i32 v = a[static_cast<size_t>(b * bs + t)];
      s = wrap_add(s, v);
      fs += static_cast<float>(v % 1000);
      EXPECT_EQ(scans[static_cast<size_t>(b * bs + t)], s) << "block " << b << " thread " << t;
    }
    EXPECT_EQ(sums[static_cast<size_t>(b)], s) << b;
    EXPECT_TRUE(r.run.report.notes.empty()) << r.run.report.notes.front().message;
    EXPECT_EQ(fsums[static_cast<size_t>(b)], fs) << b;
  }
}

TEST(EmuControl, DynamicSharedMemory) {
  REQUIRE_NVCC();
  const int blocks = 3, n = 1000;
  std::vector<float> in(static_cast<size_t>(blocks) * n);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f - 7.0f;
  Launch L;
  L.grid = {blocks, 1, 1};
  L.block = {128, 1, 1};
  L.smem = 4 * n;
  L.args = {
      {"out", zeros(4ull * (blocks * n + blocks))}, {"in", file_arg(in)}, {"n", std::to_string(n)}};
  const Result r = run_k("control.cu", "dyn_smem", L);
  const auto got = r.get<float>("out", static_cast<size_t>(blocks) * n + blocks);
  for (int b = 0; b < blocks; ++b) {
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(got[static_cast<size_t>(b * n + i)], in[static_cast<size_t>(b * n + n - 1 - i)])
          << b << " " << i;
    EXPECT_EQ(got[static_cast<size_t>(blocks * n + b)], 128.0f);
  }
  // One byte more than the launch gives is out of bounds.
  L.smem = 4 * n - 4;
  EXPECT_THROW(run_k("control.cu", "dyn_smem", L), drv::EmulationError);
}

// A DP wavefront compiled by nvcc, and the same PTX with its address register anchored one
// row up (wavefront_rebased.ptx: row 0's base is 0xFFFFFFBC, its accesses [%r43+68] and
// [%r43+72]). Both run to the end, give the recurrence's scores, and count the same
// requests and wavefronts on every line.
TEST(EmuControl, WavefrontWithANegativeSharedBase) {
  REQUIRE_NVCC();
  const int b = 16, rows = b + 1, n = b + 1, penalty = 3;
  const auto ref = random_ints<i32>(static_cast<size_t>(rows * rows), 23);
  std::vector<i32> small(ref.size());
  for (size_t i = 0; i < ref.size(); ++i) small[i] = ref[i] % 1000;
  // The recurrence on the CPU: each column from the previous one, every row at once.
  std::vector<i64> t(small.begin(), small.end());
  const i64 floor = INT_MIN / 2;
  for (int ty = 1; ty < n; ++ty) {
    std::vector<i64> col(rows);
    for (int tx = 0; tx < rows; ++tx) {
      const i64 nw = tx > 0 ? t[static_cast<size_t>((tx - 1) * rows + ty - 1)] : floor;
      const i64 up = tx > 0 ? t[static_cast<size_t>((tx - 1) * rows + ty)] - penalty : floor;
      const i64 w = t[static_cast<size_t>(tx * rows + ty - 1)] - penalty;
      col[static_cast<size_t>(tx)] = std::max(nw, std::max(up, w));
    }
    for (int tx = 0; tx < rows; ++tx)
      t[static_cast<size_t>(tx * rows + ty)] = col[static_cast<size_t>(tx)];
  }
  Launch L;
  L.block = {static_cast<unsigned>(rows), 1, 1};
  L.args = {{"ref", file_arg(small)},
            {"score", zeros(4ull * rows)},
            {"penalty", std::to_string(penalty)},
            {"n", std::to_string(n)}};
  const Result plain = run_k("wavefront.cu", "wavefront", L);
  // A .ptx has no source to name its parameters: p0..p3.
  for (size_t i = 0; i < L.args.size(); ++i) {
    L.args[i].first = "p";
    L.args[i].first += std::to_string(i);
  }
  const Result rebased = run_k("wavefront_rebased.ptx", "wavefront", L);
  for (const Result* r : {&plain, &rebased}) {
    const auto got = r->get<i32>(r == &plain ? "score" : "p1", static_cast<size_t>(rows));
    for (int tx = 0; tx < rows; ++tx)
      EXPECT_EQ(got[static_cast<size_t>(tx)], t[static_cast<size_t>(tx * rows + b)]) << tx;
  }
  auto per_line = [](const Result& r) {
    std::map<int, std::array<u64, 3>> m;  // line: requests, wavefronts, ideal
    for (const auto& s : r.run.report.sites)
      if (s.stats.space == ptx::Space::Shared) {
        auto& x = m[s.line];
        x[0] += s.stats.requests;
        x[1] += s.stats.wavefronts;
        x[2] += s.stats.ideal_wavefronts;
      }
    return m;
  };
  const auto a = per_line(plain), c = per_line(rebased);
  EXPECT_EQ(a, c);
  // The loop's west read (line of `temp[tx][ty - 1]`) runs once per column for the warp.
  const int west = line_of("wavefront.cu", "const int w = temp");
  ASSERT_TRUE(c.count(west));
  EXPECT_EQ(c.at(west)[0], static_cast<u64>(n - 1));
}

TEST(EmuControl, LocalArrays) {
  REQUIRE_NVCC();
  const int n = 256;
  const auto a = random_ints<i32>(n, 141);
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(12ull * n)}, {"a", file_arg(a)}};
  const Result r = run_k("control.cu", "local_array", L);
  const auto got = r.get<i32>("out", 3ull * n);
  ASSERT_GT(r.kernel->local_bytes, 0u) << "the arrays were not put in local memory";
  for (int g = 0; g < n; ++g) {
    const i32 v = a[static_cast<size_t>(g)];
    i32 arr[24];
    for (int i = 0; i < 24; ++i) arr[i] = wrap_add(wrap_mul(v, i), i ^ v);
    const u32 j = static_cast<u32>(v) % 24;
    arr[(j + 5) % 24] = wrap_add(arr[(j + 5) % 24], 1000);
    const u32 pi = static_cast<u32>(v) % 6;
    EXPECT_EQ(got[static_cast<size_t>(g) * 3], arr[j]) << g;
    EXPECT_EQ(got[static_cast<size_t>(g) * 3 + 1], arr[(j + 5) % 24]) << g;
    EXPECT_EQ(got[static_cast<size_t>(g) * 3 + 2],
              wrap_add(v, static_cast<i32>(pi)) + static_cast<i32>(pi) * 2)
        << g;
  }
}

TEST(EmuControl, GenericPointersToSharedAndGlobal) {
  REQUIRE_NVCC();
  const auto a = random_ints<i32>(128, 151);
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(4 * (2 * 384 + 2 * 128))}, {"g", zeros(4 * 256)}, {"a", file_arg(a)}};
  const Result r = run_k("control.cu", "generic_pointers", L);
  const auto got = r.get<float>("out", 2 * 384 + 2 * 128);
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 128; ++t) {
      const bool sh = a[static_cast<size_t>(t)] & 1;
      const float* o = &got[static_cast<size_t>(b) * 384];
      EXPECT_EQ(o[t], sh ? t * 2.0f + 1.0f : static_cast<float>(t)) << b << " " << t;
      EXPECT_EQ(o[128 + t], sh ? t * 10.0f : t * 20.0f + 1.0f) << b << " " << t;
      EXPECT_EQ(o[256 + t], sh ? 1.0f : 2.0f) << b << " " << t;
      EXPECT_EQ(got[static_cast<size_t>(768 + b * 128 + t)], t * 4.0f) << b << " " << t;
    }
}

TEST(EmuControl, VectorAndNonCoherentLoads) {
  REQUIRE_NVCC();
  const int n = 256;
  const auto in = random_floats(n, 161);
  const auto in4 = random_floats(4 * n, 162);
  const auto i4 = random_ints<i32>(4 * n, 163);
  const auto in2 = random_floats(2 * n, 164);
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out4", zeros(16ull * n)}, {"outi4", zeros(16ull * n)}, {"out2", zeros(8ull * n)},
            {"out", zeros(4ull * n)},   {"in", file_arg(in)},        {"in4", file_arg(in4)},
            {"i4", file_arg(i4)},       {"in2", file_arg(in2)}};
  const Result r = run_k("control.cu", "vectors", L);
  const auto o4 = r.get<u32>("out4", 4ull * n);
  const auto oi4 = r.get<i32>("outi4", 4ull * n);
  const auto o2 = r.get<u32>("out2", 2ull * n);
  const auto o = r.get<u32>("out", n);
  auto F = [](float f) { return bits_of(f); };  // moved bits; arithmetic results: gpu_f32
  for (int g = 0; g < n; ++g) {
    const float x = in[static_cast<size_t>(g)];
    const float* v = &in4[static_cast<size_t>(g) * 4];
    const i32* w = &i4[static_cast<size_t>(g) * 4];
    const float* h = &in2[static_cast<size_t>(g) * 2];
    const u32 want4[4] = {gpu_f32(v[3] + x), F(v[2]), F(v[1]), F(v[0])};
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(o4[static_cast<size_t>(g) * 4 + c], want4[c]) << g << "." << c;
    EXPECT_EQ(oi4[static_cast<size_t>(g) * 4], wrap_add(w[0], w[1])) << g;
    EXPECT_EQ(oi4[static_cast<size_t>(g) * 4 + 1],
              static_cast<i32>(static_cast<u32>(w[1]) - static_cast<u32>(w[2])))
        << g;
    EXPECT_EQ(oi4[static_cast<size_t>(g) * 4 + 2], w[2] ^ w[3]) << g;
    EXPECT_EQ(oi4[static_cast<size_t>(g) * 4 + 3], w[3]) << g;
    EXPECT_EQ(o2[static_cast<size_t>(g) * 2], F(h[1])) << g;
    EXPECT_EQ(o2[static_cast<size_t>(g) * 2 + 1], gpu_f32(h[0] * x)) << g;
    EXPECT_EQ(o[static_cast<size_t>(g)], gpu_f32(x + v[1])) << g;
  }
}

TEST(EmuControl, ThreeDimensionalGridAndBlock) {
  REQUIRE_NVCC();
  Launch L;
  L.grid = {2, 3, 2};
  L.block = {4, 2, 3};
  const int nb = 12, nt = 24;
  L.args = {{"out", zeros(4ull * nb * nt * 12)}};
  const Result r = run_k("control.cu", "dims", L);
  const auto got = r.get<i32>("out", static_cast<size_t>(nb) * nt * 12);
  for (int bz = 0; bz < 2; ++bz)
    for (int by = 0; by < 3; ++by)
      for (int bx = 0; bx < 2; ++bx)
        for (int tz = 0; tz < 3; ++tz)
          for (int ty = 0; ty < 2; ++ty)
            for (int tx = 0; tx < 4; ++tx) {
              const int bid = bx + 2 * (by + 3 * bz), tid = tx + 4 * (ty + 2 * tz);
              const i32* o = &got[static_cast<size_t>(bid * nt + tid) * 12];
              const i32 want[12] = {tx, ty, tz, bx, by, bz, 4, 2, 3, 2, 3, 2};
              for (int k = 0; k < 12; ++k)
                EXPECT_EQ(o[k], want[k]) << "block " << bid << " thread " << tid << " field " << k;
            }
}

TEST(EmuControl, ClockDoesNotCrash) {
  REQUIRE_NVCC();
  Launch L;
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(8 * 128)}};
  const Result r = run_k("control.cu", "clocks", L);
  const auto got = r.get<i64>("out", 128);
  for (int t = 0; t < 128; ++t) EXPECT_GE(got[static_cast<size_t>(t)], 0) << t;
}

TEST(EmuControl, ReconvergenceRequestCounts) {
  REQUIRE_NVCC();
  const int bs = 256, warps = bs / 32;
  const auto a = random_ints<i32>(bs, 171);
  Launch L;
  L.block = {bs, 1, 1};
  L.args = {{"out", zeros(4 * bs)}, {"g", zeros(4 * 2048)}, {"a", file_arg(a)}};
  const Result r = run_k("control.cu", "reconverge", L);
  // The result first.
  const auto got = r.get<i32>("out", bs);
  for (int t = 0; t < bs; ++t) {
    const i32 v = a[static_cast<size_t>(t)];
    i32 rr = (v & 1) ? wrap_mul(v, 5) : v / 3;
    i32 acc = 0;
    for (int i = 0; i <= (t & 7); ++i) acc += ((t + i) & 255) * 3;
    if (v & 2) acc += (t ^ 1) * 3;
    EXPECT_EQ(got[static_cast<size_t>(t)], wrap_add(wrap_add(rr, ((t * 7) & 255) * 3), acc)) << t;
  }
  const int after = line_of("control.cu", "SITE: after_ifelse");
  const int loop = line_of("control.cu", "SITE: in_loop");
  const int half = line_of("control.cu", "SITE: half");
  auto [after_req, after_sites] = r.requests_on_line(after);
  EXPECT_EQ(after_sites, 1);
  EXPECT_EQ(after_req, static_cast<u64>(warps))
      << "the access after the if/else is one request per warp";
  auto [loop_req, loop_sites] = r.requests_on_line(loop);
  EXPECT_EQ(loop_sites, 1);
  EXPECT_EQ(loop_req, static_cast<u64>(warps) * 8)
      << "one request per iteration, 8 iterations per warp";
  auto [half_req, half_sites] = r.requests_on_line(half);
  EXPECT_EQ(half_req, static_cast<u64>(warps));
  EXPECT_TRUE(r.run.report.notes.empty()) << r.run.report.notes.front().message;

  // The masks, from the emulator directly: the if/else really diverged, and each loop
  // iteration has the lanes still in the loop.
  std::vector<i32> g(2048, 0);
  auto d = run_direct("control.cu", "reconverge", {256, 1, 1},
                      {as_bytes(std::vector<i32>(bs, 0)), as_bytes(g), as_bytes(a)});
  const auto& k = *r.kernel;
  std::map<int, std::vector<u32>> masks_by_line;  // warp 0's masks per source line
  for (const auto& e : d->capture.events)
    if (e.warp == 0) masks_by_line[k.sites[static_cast<size_t>(e.site)].line].push_back(e.mask);
  u32 odd = 0, twos = 0;
  for (int l = 0; l < 32; ++l) {
    if (a[static_cast<size_t>(l)] & 1) odd |= 1u << l;
    if (a[static_cast<size_t>(l)] & 2) twos |= 1u << l;
  }
  const int then_line = line_of("control.cu", "g[tid * 4 + i] = v + i");
  const int else_line = line_of("control.cu", "g[1024 + tid * 3 + i] = v - i");
  EXPECT_EQ(masks_by_line[then_line], std::vector<u32>(4, odd));
  EXPECT_EQ(masks_by_line[else_line], std::vector<u32>(3, ~odd));
  EXPECT_EQ(masks_by_line[after], std::vector<u32>{0xffffffffu});
  std::vector<u32> want_loop;
  for (int i = 0; i < 8; ++i) {
    u32 m = 0;
    for (int l = 0; l < 32; ++l)
      if ((l & 7) >= i) m |= 1u << l;
    want_loop.push_back(m);
  }
  EXPECT_EQ(masks_by_line[loop], want_loop);
  EXPECT_EQ(masks_by_line[half], std::vector<u32>{twos});
}

// ---------------------------------------------------------------- odds and ends

TEST(EmuMisc, FunnelShiftsMul24SyncwarpPrintf) {
  REQUIRE_NVCC();
  const int n = 256, ops = 8;
  const auto a = random_ints<u32>(n, 181), b = random_ints<u32>(n, 182);
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(4ull * n * ops)},
            {"a", file_arg(a)},
            {"b", file_arg(b)},
            {"n", std::to_string(n)}};
  const Result r = run_k("misc.cu", "misc", L);
  const auto got = r.get<u32>("out", static_cast<size_t>(n) * ops);
  std::vector<u32> want(got.size());
  for (int g = 0; g < n; ++g) {
    const u32 x = a[static_cast<size_t>(g)], y = b[static_cast<size_t>(g)];
    const u64 hl = (static_cast<u64>(y) << 32) | x;
    const u32 s = (y >> 8) & 31, sc = std::min<u32>((y >> 8) & 63, 32);
    const auto s24 = [](u32 v) { return static_cast<i64>(static_cast<i32>(v << 8) >> 8); };
    u32 warp_sum = 0;
    for (int l = 0; l < 32; ++l) warp_sum += a[static_cast<size_t>((g & ~31) + l)];
    const u32 o[8] = {static_cast<u32>((hl << s) >> 32),
                      static_cast<u32>(hl >> s),
                      static_cast<u32>((hl << sc) >> 32),
                      static_cast<u32>(hl >> sc),
                      static_cast<u32>(s24(x) * s24(y)),
                      (x & 0xffffff) * (y & 0xffffff),
                      warp_sum,
                      1};
    for (int k = 0; k < ops; ++k) want[static_cast<size_t>(k) * n + g] = o[k];
  }
  compare_ops<u32>(got, want, ops, n, [&](int i) {
    return "a=" + hex(a[static_cast<size_t>(i)]) + " b=" + hex(b[static_cast<size_t>(i)]);
  });
}

// ---------------------------------------------------------------- errors

namespace {

// The message of the EmulationError (or DriverError) that running `kernel` throws.
std::string error_of(const std::string& kernel, const Launch& launch) {
  try {
    run_k("errors.cu", kernel, launch);
  } catch (const drv::EmulationError& e) {
    return e.what();
  } catch (const drv::DriverError& e) {
    return std::string("(DriverError, not EmulationError) ") + e.what();
  }
  ADD_FAILURE() << kernel << ": no error";
  return "";
}

void expect_error_at(const std::string& msg, const std::string& marker, const std::string& what) {
  const int line = line_of("errors.cu", "ERROR: " + marker);
  const std::string where = "errors.cu:" + std::to_string(line) + ":";
  EXPECT_NE(msg.find(where), std::string::npos) << "no '" << where << "' in: " << msg;
  EXPECT_NE(msg.find(what), std::string::npos) << "no '" << what << "' in: " << msg;
  EXPECT_EQ(msg.find("(DriverError"), std::string::npos) << msg;
}

}  // namespace

TEST(EmuErrors, SharedOutOfBounds) {
  REQUIRE_NVCC();
  Launch L;
  L.args = {{"out", zeros(128)}, {"idx", "40"}};
  expect_error_at(error_of("shared_oob", L), "shared_oob", "shared memory access out of bounds");
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(256)}, {"idx", "0"}};  // the last lane reads s[63]: fine
  EXPECT_NO_THROW(run_k("errors.cu", "shared_oob", L));
}

TEST(EmuErrors, GlobalOutsideTheBuffers) {
  REQUIRE_NVCC();
  Launch L;
  L.args = {{"out", zeros(128)}, {"idx", std::to_string(1 << 20)}};
  expect_error_at(error_of("global_oob", L), "global_oob", "outside every buffer");
  // out[32] is one past the end, within the 2 MiB the GPU maps with the buffer: the GPU
  // survives it, and so does the run (the fault is in the report, fault_test.sh); with
  // stop_on_fault it ends the run as one far from every buffer does.
  L.args[1].second = "1";
  EXPECT_NO_THROW(run_k("errors.cu", "global_oob", L));
  emu::Emulator::Options stop;
  stop.stop_on_fault = true;
  try {
    run_k("errors.cu", "global_oob", L, stop);
    ADD_FAILURE() << "stop_on_fault: no error";
  } catch (const drv::EmulationError& e) {
    expect_error_at(e.what(), "global_oob", "outside every buffer");
  }
  L.args[1].second = "0";
  EXPECT_NO_THROW(run_k("errors.cu", "global_oob", L));
}

TEST(EmuErrors, MisalignedVectorAccess) {
  REQUIRE_NVCC();
  Launch L;
  L.args = {{"out", zeros(128)}, {"in", zeros(64)}, {"off", "4"}};
  expect_error_at(error_of("misaligned", L), "misaligned", "misaligned 16-byte");
  L.args[2].second = "16";
  EXPECT_NO_THROW(run_k("errors.cu", "misaligned", L));
}

TEST(EmuErrors, InfiniteLoopHitsTheBudget) {
  REQUIRE_NVCC();
  Launch L;
  L.budget = 100000;
  L.args = {{"out", zeros(128)}, {"flag", zeros(4)}};
  expect_error_at(error_of("spin", L), "spin", "instruction budget exceeded");
}

TEST(EmuErrors, TrapAndAssert) {
  REQUIRE_NVCC();
  Launch L;
  L.args = {{"out", zeros(128)}, {"x", "3"}};
  expect_error_at(error_of("trapping", L), "trap", "trap");
  L.args[1].second = "2";
  EXPECT_NO_THROW(run_k("errors.cu", "trapping", L));
  std::vector<i32> in(32, 5);
  Launch A;
  A.args = {{"out", zeros(128)}, {"in", file_arg(in)}};
  const Result ok = run_k("errors.cu", "asserting", A);
  EXPECT_EQ(ok.get<i32>("out", 32), std::vector<i32>(32, 10));
  in[17] = -1;
  A.args[1].second = file_arg(in);
  expect_error_at(error_of("asserting", A), "assert", "assert");
}

TEST(EmuMisc, RarePtxForms) {
  REQUIRE_NVCC();
  const int n = 256, ops = 23;
  const auto a = random_ints<u32>(n, 191), b = random_ints<u32>(n, 192);
  const auto f = random_floats(n, 193);
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(4ull * n * ops)},
            {"a", file_arg(a)},
            {"b", file_arg(b)},
            {"f", file_arg(f)},
            {"n", std::to_string(n)}};
  const Result r = run_k("misc.cu", "ptx_forms", L);
  const auto got = r.get<u32>("out", static_cast<size_t>(n) * ops);
  std::vector<u32> want(got.size());
  std::vector<u32> uni_in(n);
  for (int g = 0; g < n; ++g)
    uni_in[static_cast<size_t>(g)] = (a[static_cast<size_t>(g)] & 1) | (g >= 32 && g < 64);
  for (int g = 0; g < n; ++g) {
    const u32 x = a[static_cast<size_t>(g)], y = b[static_cast<size_t>(g)];
    const i32 sx = static_cast<i32>(x), sy = static_cast<i32>(y);
    const float fx = f[static_cast<size_t>(g)], fy = f[static_cast<size_t>((g + 1) % n)];
    std::vector<u32> o;
    {
      const bool c = (y & 0xff00ff) != 0, lt = sx < static_cast<i32>(y & 0xff00ff);
      o.push_back(lt && c);
      o.push_back(!lt && c);
    }
    o.push_back((fx != fy && !std::isnan(fx) && !std::isnan(fy)) || x > 2000000000u);
    {
      const bool c = (x & 15) == 7, gtu = std::isnan(fx) || std::isnan(fy) || fx > fy;
      o.push_back(static_cast<u32>(gtu != c) | static_cast<u32>(!gtu != c) << 1);
    }
    o.push_back(static_cast<u32>(std::isfinite(fx)) | static_cast<u32>(std::isinf(fx)) << 1 |
                static_cast<u32>(!std::isnan(fx)) << 2 | static_cast<u32>(std::isnan(fx)) << 3 |
                static_cast<u32>(std::isfinite(fx) && std::fpclassify(fx) != FP_SUBNORMAL)
                    << 4 |  // zero too
                static_cast<u32>(std::fpclassify(fx) == FP_SUBNORMAL) << 5);
    o.push_back(sx < sy ? 0xffffffffu : 0u);
    o.push_back(bits_of(fx >= fy ? 1.0f : 0.0f));
    o.push_back(static_cast<i32>(x ^ y) >= 0 ? x : y);
    o.push_back(fx >= 0.0f ? x : y);  // a NaN selects b
    o.push_back(y >> 8);
    o.push_back((x >> 16) | (x << 16));
    {
      const u64 w3 = ((static_cast<u64>(y) << 32) | x) * 3;
      o.push_back(static_cast<u32>(w3 >> 32) - static_cast<u32>(w3));
    }
    o.push_back((x & 3) == 0 ? 1u : 0u);
    {
      const u32 v = x >> (y & 31);
      o.push_back(v == 0 ? 0xffffffffu : static_cast<u32>(std::countl_zero(v)));
    }
    o.push_back(static_cast<u32>((static_cast<i64>(sx) * sy) >> 32) + x);
    o.push_back(static_cast<u32>((static_cast<u64>(x) * y) >> 32) + y);
    {
      i16 a16 = static_cast<i16>(x), b16 = static_cast<i16>(y);
      const i16 c = static_cast<i16>((static_cast<i32>(a16) * b16) >> 16);
      a16 = static_cast<i16>(a16 < 0 ? -static_cast<i32>(a16) : a16);
      b16 = std::min(b16, a16);
      o.push_back(static_cast<u32>(static_cast<i32>(static_cast<i16>(c + b16))));
    }
    {
      u16 a16 = static_cast<u16>(x);
      const u16 b16 = static_cast<u16>(y | 1);
      u16 c = static_cast<u16>(a16 / b16);
      a16 = static_cast<u16>(a16 % b16);
      c = std::max(c, a16);
      o.push_back(static_cast<u32>(c) * b16);
    }
    o.push_back(static_cast<u32>(
        bits_of(std::copysign(static_cast<double>(fy), static_cast<double>(fx))) >> 32));
    {
      const int lane = g % 32, j = lane - 3, max_lane = lane & 8;
      o.push_back(j >= max_lane ? a[static_cast<size_t>(g - 3)] : 12345u);
    }
    {
      const int w0 = g & ~31;
      bool same = true;
      for (int l = 0; l < 32; ++l)
        same = same && uni_in[static_cast<size_t>(w0 + l)] == uni_in[static_cast<size_t>(w0)];
      o.push_back(same);
    }
    o.push_back(6);
    o.push_back((x & 3) * 4);
    ASSERT_EQ(o.size(), static_cast<size_t>(ops));
    for (int k = 0; k < ops; ++k) want[static_cast<size_t>(k) * n + g] = o[static_cast<size_t>(k)];
  }
  compare_ops<u32>(
      got, want, ops, n,
      [&](int i) {
        return "a=" + hex(a[static_cast<size_t>(i)]) + " b=" + hex(b[static_cast<size_t>(i)]) +
               " fx=" + hex(bits_of(f[static_cast<size_t>(i)])) +
               " fy=" + hex(bits_of(f[static_cast<size_t>((i + 1) % n)]));
      },
      [&](int, u32 g, u32 w) { return g == w; });
}

TEST(EmuControl, ExitInsideNestedDivergence) {
  REQUIRE_NVCC();
  const int bs = 256, warps = bs / 32;
  auto a = random_ints<i32>(bs, 201);
  for (int l = 0; l < 32; ++l) a[static_cast<size_t>(64 + l)] = 3;  // warp 2: every lane exits
  Launch L;
  L.block = {bs, 1, 1};
  L.args = {{"out", zeros(4 * 512)}, {"a", file_arg(a)}};
  const Result r = run_k("control.cu", "nested_exit", L);
  const auto got = r.get<i32>("out", 512);
  int warps_left = 0;
  for (int w = 0; w < warps; ++w) {
    bool any = false;
    for (int l = 0; l < 32; ++l) {
      const int t = w * 32 + l;
      const i32 v = a[static_cast<size_t>(t)];
      const bool exits = (v & 1) && (v & 2);
      any = any || !exits;
      EXPECT_EQ(got[static_cast<size_t>(t)], (v & 1) && !exits ? 1 : 0) << t;
      EXPECT_EQ(got[static_cast<size_t>(256 + t)], exits ? 0 : (t ^ 3) * 5) << t;
    }
    warps_left += any;
  }
  const auto [req, sites] = r.requests_on_line(line_of("control.cu", "SITE: after_exit"));
  EXPECT_EQ(sites, 1);
  EXPECT_EQ(req, static_cast<u64>(warps_left));
  EXPECT_TRUE(r.run.report.notes.empty()) << r.run.report.notes.front().message;
}

TEST(EmuControl, SearchLoopWithBreaks) {
  REQUIRE_NVCC();
  const int bs = 256;
  const auto a = random_ints<i32>(bs, 211);
  Launch L;
  L.block = {bs, 1, 1};
  L.args = {{"out", zeros(4 * bs)}, {"a", file_arg(a)}};
  const Result r = run_k("control.cu", "search", L);
  const auto got = r.get<i32>("out", bs);
  std::vector<int> s(bs), iters(bs);
  for (int t = 0; t < bs; ++t) s[static_cast<size_t>(t)] = a[static_cast<size_t>(t)] & 1023;
  u64 loop_requests = 0;
  for (int w = 0; w < bs / 32; ++w) {
    int most = 0;
    for (int l = 0; l < 32; ++l) {
      const int t = w * 32 + l;
      const int v = a[static_cast<size_t>((t * 5) & 255)] & 1023;
      int i = 0;
      int accesses = 1;
      while (true) {
        if (s[static_cast<size_t>((t + i * 7) & 255)] > v) break;
        ++i;
        if (i > 40) break;
        ++accesses;
      }
      most = std::max(most, accesses);
      EXPECT_EQ(got[static_cast<size_t>(t)], i * 1000 + s[static_cast<size_t>((t * 3) & 255)]) << t;
    }
    loop_requests += static_cast<u64>(most);  // one request per iteration while any lane is in
  }
  EXPECT_EQ(r.requests_on_line(line_of("control.cu", "SITE: search_loop")).first, loop_requests);
  EXPECT_EQ(r.requests_on_line(line_of("control.cu", "SITE: after_search")).first,
            static_cast<u64>(bs / 32));
}

// ---------------------------------------------------------------- function pointers
//
// A call through a function pointer runs the function the pointer holds: the inliner compares
// it with each address-taken function's address (ptx::function_address), which initializers
// and `mov` of a function's name give.

TEST(EmuCalls, ThroughFunctionPointers) {
  REQUIRE_NVCC();
  const auto a = random_ints<u32>(64, 301), b = random_ints<u32>(64, 302);
  std::vector<int> ia(64), ib(64);
  for (int i = 0; i < 64; ++i) {
    ia[static_cast<size_t>(i)] = static_cast<int>(a[static_cast<size_t>(i)] % 1000);
    ib[static_cast<size_t>(i)] = static_cast<int>(b[static_cast<size_t>(i)] % 1000);
  }
  Launch L;
  L.grid = {1, 1, 1};
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(4 * 64)}, {"a", file_arg(ia)}, {"b", file_arg(ib)}};
  const Result r = run_k("function_pointers.cu", "through_table", L);
  const auto got = r.get<int>("out", 64);
  for (int t = 0; t < 64; ++t) {
    const int x = ia[static_cast<size_t>(t)], y = ib[static_cast<size_t>(t)];
    const int want = (t % 3 == 0 ? x + y : t % 3 == 1 ? x * y : x - y) + 30;
    EXPECT_EQ(got[static_cast<size_t>(t)], want) << t;
  }
  // The address a kernel takes is the one a call through it finds (a pointer passed as an
  // argument: run_separate_compilation).
  Launch A;
  A.grid = {1, 1, 1};
  A.block = {1, 1, 1};
  A.args = {{"out", zeros(8)}};
  const Result addr = run_k("function_pointers.cu", "address_of", A);
  const std::uint64_t mul = addr.get<std::uint64_t>("out", 1)[0];
  EXPECT_EQ(mul, bankcheck::ptx::function_address("_Z3mulii"));
}

// ---------------------------------------------------------------- per-kernel refusal
//
// An instruction the decoder refuses stops its own kernel only: the file's other kernels
// are decoded and run, and the refused one is named with the reason, its PTX line and its
// source line.

TEST(EmuUnsupported, RefusalStopsOnlyItsKernel) {
  REQUIRE_NVCC();
  const drv::Loaded& l = loaded("mixed_support.cu");
  std::set<std::string> ok;
  for (const auto& k : l.program.kernels) ok.insert(drv::base_name(drv::demangle(k.name)));
  EXPECT_EQ(ok, (std::set<std::string>{"transpose_tile", "warp_sum", "calls_a_function"}));
  ASSERT_EQ(l.program.unsupported.size(), 2u);
  const auto& nb = l.program.unsupported[0];
  EXPECT_EQ(drv::base_name(drv::demangle(nb.name)), "counted_reduction");
  EXPECT_NE(nb.reason.find("supported"), std::string::npos) << nb.reason;
  EXPECT_NE(nb.ptx.find("bar.red.popc.u32"), std::string::npos) << nb.ptx;
  EXPECT_GT(nb.ptx_line, 0);
  EXPECT_EQ(nb.pos.line, line_of("mixed_support.cu", "bar.red.popc.u32 %0, 1, 64"));
  const auto& rec = l.program.unsupported[1];
  EXPECT_EQ(drv::base_name(drv::demangle(rec.name)), "recursive_fib");
  EXPECT_NE(rec.reason.find("recursion"), std::string::npos) << rec.reason;
  EXPECT_EQ(rec.pos.line, line_of("mixed_support.cu", "unsigned fib(unsigned n)"));
  // The out-of-line call runs inlined.
  {
    const auto xs = random_floats(32, 252);
    Launch L;
    L.args = {{"out", zeros(4 * 32)}, {"in", file_arg(xs)}};
    const Result r = run_k("mixed_support.cu", "calls_a_function", L);
    const auto got = r.get<float>("out", 32);
    for (int t = 0; t < 32; ++t) {
      const float want = 2.0f * xs[static_cast<size_t>(t)];
      EXPECT_EQ(std::bit_cast<u32>(got[static_cast<size_t>(t)]),
                want != want ? 0x7fffffffu : std::bit_cast<u32>(want))
          << t;
    }
  }
  // The supported kernels run: the warp sums through redux.sync and WARP_SZ.
  const auto in = random_ints<u32>(64, 251);
  Launch L;
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(4)}, {"in", file_arg(in)}};
  const Result r = run_k("mixed_support.cu", "warp_sum", L);
  u32 want = 0;
  for (u32 v : in) want += v;
  EXPECT_EQ(r.get<u32>("out", 1)[0], want);
}

// Selecting a refused kernel with --kernel stops the run with its reason and source line.
TEST(EmuUnsupported, SelectingARefusedKernelFails) {
  REQUIRE_NVCC();
  drv::CheckOptions o = options_for("mixed_support.cu");
  o.flags.kernel = "recursive_fib";
  try {
    drv::select_kernels(loaded("mixed_support.cu"), o);
    ADD_FAILURE() << "a refused kernel was selected";
  } catch (const drv::DriverError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("recursive_fib"), std::string::npos) << m;
    EXPECT_NE(m.find(":" + std::to_string(line_of("mixed_support.cu", "unsigned fib(unsigned n)"))),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("PTX line"), std::string::npos) << m;
  }
  // Without --kernel, the launch comments select the two kernels that have one.
  const auto sel = drv::select_kernels(loaded("mixed_support.cu"), options_for("mixed_support.cu"));
  EXPECT_EQ(sel.size(), 2u);
}

// A kernel refused over several instruction families names every one, with its count and
// where its first instruction is written: the header's own file and line for the
// createpolicy of a helper inlined from refused_families.cuh.
TEST(EmuUnsupported, RefusalNamesEveryFamily) {
  REQUIRE_NVCC();
  const drv::Loaded& l = loaded("refused_families.cu");
  ASSERT_EQ(l.program.unsupported.size(), 1u);
  const auto& u = l.program.unsupported[0];
  ASSERT_EQ(u.families.size(), 3u) << u.reason;
  const auto file_of = [&](const ptx::RefusedFamily& f) {
    return fs::path(l.program.files.at(static_cast<size_t>(f.pos.file))).filename().string();
  };
  const auto& policy = u.families[0];
  EXPECT_EQ(policy.family, "createpolicy.fractional");
  EXPECT_EQ(policy.count, 2);
  EXPECT_EQ(file_of(policy), "refused_families.cuh");
  EXPECT_EQ(policy.pos.line, line_of("refused_families.cuh", "createpolicy.fractional"));
  const auto& bar = u.families[1];
  EXPECT_EQ(bar.family, "bar.red.popc");
  EXPECT_EQ(bar.count, 1);
  EXPECT_EQ(file_of(bar), "refused_families.cu");
  const int asm_line = line_of("refused_families.cu", "bar.red.popc.u32 %0, 1, 64");
  EXPECT_TRUE(bar.pos.line == asm_line || bar.pos.line == asm_line + 1) << bar.pos.line;
  const auto& prmt = u.families[2];
  EXPECT_EQ(prmt.family, "prmt.f4e");
  EXPECT_EQ(prmt.count, 3);
  EXPECT_EQ(prmt.pos.line,
            line_of("refused_families.cu", "prmt.b32.f4e %0, %1, %2, %3;\" : \"=r\"(a)"));
  // The one message of a run that asks for it: each family on its line, the header's
  // location under the header's name.
  drv::CheckOptions o = options_for("refused_families.cu");
  o.flags.kernel = "several_families";
  try {
    drv::select_kernels(l, o);
    ADD_FAILURE() << "a refused kernel was selected";
  } catch (const drv::DriverError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("3 instruction families"), std::string::npos) << m;
    EXPECT_NE(m.find("6 instructions"), std::string::npos) << m;
    std::string header_at = "refused_families.cuh:";
    header_at += std::to_string(policy.pos.line);
    header_at += ':';
    EXPECT_NE(m.find(header_at), std::string::npos) << m;
    EXPECT_NE(m.find("createpolicy.fractional: 2 instructions"), std::string::npos) << m;
    EXPECT_NE(m.find("prmt.f4e: 3 instructions"), std::string::npos) << m;
    EXPECT_NE(m.find("bar.red.popc: 1 instruction,"), std::string::npos) << m;
  }
}

TEST(EmuWarp, ReduxSync) {
  REQUIRE_NVCC();
  const auto a = random_ints<u32>(64, 221);
  Launch L;
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(4 * 64 * 6)}, {"a", file_arg(a)}};
  const Result r = run_k("unsupported_redux.cu", "warp_reduce", L);
  const auto got = r.get<u32>("out", 64 * 6);
  for (int w = 0; w < 2; ++w) {
    u32 sum = 0, an = ~0u, orr = 0, x = 0;
    i32 mn = INT_MAX, mx = INT_MIN;
    for (int l = 0; l < 32; ++l) {
      const u32 v = a[static_cast<size_t>(w * 32 + l)];
      sum += v;
      mn = std::min(mn, static_cast<i32>(v));
      mx = std::max(mx, static_cast<i32>(v));
      an &= v | 0x10;
      orr |= v & 0xf0f0;
      x ^= v;
    }
    const u32 want[6] = {sum, static_cast<u32>(mn), static_cast<u32>(mx), an, orr, x};
    for (int l = 0; l < 32; ++l)
      for (int k = 0; k < 6; ++k)
        EXPECT_EQ(got[static_cast<size_t>((w * 32 + l) * 6 + k)], want[k]) << l << " " << k;
  }
}

TEST(EmuWarp, SyncthreadsCountAndOr) {
  REQUIRE_NVCC();
  auto a = random_ints<i32>(256, 231);
  a[77] = 12345;
  Launch L;
  L.block = {256, 1, 1};
  L.args = {{"out", zeros(4 * 256 * 3)}, {"a", file_arg(a)}};
  const Result r = run_k("unsupported_bar_red.cu", "barrier_reductions", L);
  const auto got = r.get<i32>("out", 256 * 3);
  i32 count = 0, all = 1, any = 0;
  for (i32 v : a) {
    count += v > 0;
    all = all && v > -900;
    any = any || v == 12345;
  }
  for (int t = 0; t < 256; ++t) {
    EXPECT_EQ(got[static_cast<size_t>(t * 3)], count);
    EXPECT_EQ(got[static_cast<size_t>(t * 3 + 1)] != 0, all != 0);
    EXPECT_EQ(got[static_cast<size_t>(t * 3 + 2)] != 0, any != 0);
  }
}

TEST(EmuInt, Dp4aAndSad) {
  REQUIRE_NVCC();
  const auto a = random_ints<u32>(32, 241), b = random_ints<u32>(32, 242);
  Launch L;
  L.args = {{"out", zeros(4 * 32 * 3)}, {"a", file_arg(a)}, {"b", file_arg(b)}};
  const Result r = run_k("unsupported_alu.cu", "alu", L);
  const auto got = r.get<u32>("out", 32 * 3);
  for (int t = 0; t < 32; ++t) {
    const u32 x = a[static_cast<size_t>(t)], y = b[static_cast<size_t>(t)];
    i32 dp = 7;
    for (int k = 0; k < 4; ++k) dp += static_cast<i8>(x >> (8 * k)) * static_cast<i8>(y >> (8 * k));
    const i64 sd = static_cast<i64>(static_cast<i32>(x)) - static_cast<i32>(y);
    EXPECT_EQ(got[static_cast<size_t>(t * 3)], static_cast<u32>(dp));
    EXPECT_EQ(got[static_cast<size_t>(t * 3 + 1)], static_cast<u32>(sd < 0 ? -sd : sd) + 5u);
    EXPECT_EQ(got[static_cast<size_t>(t * 3 + 2)], (x > y ? x - y : y - x) + 9u);
  }
}

// ---------------------------------------------------------------- extended precision

// 32-bit carry chains compose 128-bit sums, differences and products exactly.
TEST(EmuInt, CarryChains) {
  REQUIRE_NVCC();
  const auto a = random_ints<u64>(64, 261), b = random_ints<u64>(64, 262);
  Launch L;
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(4 * 64 * 12)}, {"a", file_arg(a)}, {"b", file_arg(b)}};
  const Result r = run_k("int_ext.cu", "carry_chains", L);
  const auto got = r.get<u32>("out", 64 * 12);
  __extension__ typedef unsigned __int128 u128;
  for (int t = 0; t < 64; ++t) {
    const u64 x = a[static_cast<size_t>(t)], y = b[static_cast<size_t>(t)];
    const u128 s = u128{x} + y, d = u128{x} - y, p = u128{x} * y;
    const u32* o = &got[static_cast<size_t>(t * 12)];
    EXPECT_EQ(o[0], static_cast<u32>(s)) << t;
    EXPECT_EQ(o[1], static_cast<u32>(s >> 32)) << t;
    EXPECT_EQ(o[2], static_cast<u32>(s >> 64)) << t;  // the carry out: 0 or 1
    EXPECT_EQ(o[3], static_cast<u32>(d)) << t;
    EXPECT_EQ(o[4], static_cast<u32>(d >> 32)) << t;
    EXPECT_EQ(o[5], x < y ? 0xffffffffu : 0u) << t;  // 0 - borrow
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(o[6 + k], static_cast<u32>(p >> (32 * k))) << t << " " << k;
    const u64 w = x + y;
    EXPECT_EQ(o[10], static_cast<u32>(w) ^ static_cast<u32>(w >> 32)) << t;
    EXPECT_EQ(o[11], static_cast<u32>(s >> 64)) << t;
  }
}

// bmsk.{clamp,wrap}.b32 over every (a, b) in 0..40 (positions and widths past 31 included)
// and random words, against the PTX ISA's definition written as bit ranges: wrap sets bits
// [a % 32, a % 32 + b % 32) below 32; clamp sets none when a >= 32, bits [a, 32) when
// b >= 32, else bits [a, a + b) below 32.
TEST(EmuInt, BmskAsTheIsaDefinesIt) {
  REQUIRE_NVCC();
  std::vector<u32> a, b;
  for (u32 x = 0; x <= 40; ++x)
    for (u32 y = 0; y <= 40; ++y) a.push_back(x), b.push_back(y);
  const auto ra = random_ints<u32>(127, 281), rb = random_ints<u32>(127, 282);
  a.insert(a.end(), ra.begin(), ra.end());
  b.insert(b.end(), rb.begin(), rb.end());
  ASSERT_EQ(a.size(), 1808u);
  Launch L;
  L.grid = {static_cast<std::uint32_t>(a.size() / 16), 1, 1};
  L.block = {16, 1, 1};
  L.args = {{"out", zeros(8 * a.size())}, {"a", file_arg(a)}, {"b", file_arg(b)}};
  const Result r = run_k("int_ext.cu", "bit_masks", L);
  const auto got = r.get<u32>("out", 2 * a.size());
  const auto bits = [](u64 lo, u64 hi) {
    u32 m = 0;
    for (u64 i = lo; i < hi && i < 32; ++i) m |= 1u << i;
    return m;
  };
  for (size_t t = 0; t < a.size(); ++t) {
    const u32 x = a[t], y = b[t];
    const u32 clamp = x >= 32 ? 0u : (y >= 32 ? bits(x, 32) : bits(x, u64{x} + y));
    const u32 wrap = bits(x & 31, u64{x & 31} + (y & 31));
    EXPECT_EQ(got[2 * t], clamp) << "clamp a=" << x << " b=" << y;
    EXPECT_EQ(got[2 * t + 1], wrap) << "wrap a=" << x << " b=" << y;
  }
  EXPECT_EQ(got[2 * (1 * 41 + 2) + 1], 0x6u);  // the ISA's example: bmsk.wrap.b32 d, 1, 2
}

TEST(EmuInt, Dp4aDp2aEverySignedness) {
  REQUIRE_NVCC();
  const auto a = random_ints<u32>(64, 271), b = random_ints<u32>(64, 272),
             c = random_ints<u32>(64, 273);
  Launch L;
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(4 * 64 * 6)}, {"a", file_arg(a)}, {"b", file_arg(b)}, {"c", file_arg(c)}};
  const Result r = run_k("int_ext.cu", "dot_products", L);
  const auto got = r.get<u32>("out", 64 * 6);
  const auto byte = [](u32 v, int i, bool s) -> i64 {
    return s ? static_cast<i8>(v >> (8 * i)) : static_cast<u8>(v >> (8 * i));
  };
  const auto half = [](u32 v, int i, bool s) -> i64 {
    return s ? static_cast<i16>(v >> (16 * i)) : static_cast<u16>(v >> (16 * i));
  };
  for (int t = 0; t < 64; ++t) {
    const u32 x = a[static_cast<size_t>(t)], y = b[static_cast<size_t>(t)],
              z = c[static_cast<size_t>(t)];
    const auto dp4 = [&](bool sa, bool sb) {
      i64 r = (sa || sb) ? static_cast<i32>(z) : static_cast<i64>(z);
      for (int i = 0; i < 4; ++i) r += byte(x, i, sa) * byte(y, i, sb);
      return static_cast<u32>(r);
    };
    const auto dp2 = [&](bool hi, bool sa, bool sb) {
      i64 r = (sa || sb) ? static_cast<i32>(z) : static_cast<i64>(z);
      for (int i = 0; i < 2; ++i) r += half(x, i, sa) * byte(y, i + (hi ? 2 : 0), sb);
      return static_cast<u32>(r);
    };
    const u32* o = &got[static_cast<size_t>(t * 6)];
    EXPECT_EQ(o[0], dp4(false, false)) << t;
    EXPECT_EQ(o[1], dp4(true, false)) << t;
    EXPECT_EQ(o[2], dp4(false, true)) << t;
    EXPECT_EQ(o[3], dp2(false, true, true)) << t;
    EXPECT_EQ(o[4], dp2(true, false, true)) << t;
    EXPECT_EQ(o[5], dp2(true, false, false)) << t;
  }
}

// warpSize is 32; the special registers read as docs/emulator.md documents them.
TEST(EmuSpecial, WarpSizeAndConstants) {
  REQUIRE_NVCC();
  Launch L;
  L.block = {96, 1, 1};
  L.smem = 96 * 4;
  L.args = {{"out", zeros(4 * 96 * 14)}};
  const Result r = run_k("int_ext.cu", "specials", L);
  const auto got = r.get<u32>("out", 96 * 14);
  for (u32 t = 0; t < 96; ++t) {
    const u32* o = &got[t * 14];
    const u32 lane = t % 32;
    EXPECT_EQ(o[0], 32u);
    EXPECT_EQ(o[1], t / 32);  // %warpid: the warp's index in the CTA
    EXPECT_EQ(o[2], 3u);      // %nwarpid: the CTA's warps
    EXPECT_EQ(o[3], 0u);      // %smid
    EXPECT_EQ(o[4], 132u);    // %nsmid: the H100 SXM's SMs
    EXPECT_EQ(o[5], 0u);      // %gridid
    EXPECT_EQ(o[6], (1u << lane) - 1);
    EXPECT_EQ(o[7], ~((1u << lane) - 1));
    EXPECT_EQ(o[8], 96u * 4);  // %dynamic_smem_size
    EXPECT_EQ(o[9], 96u * 4);  // %total_smem_size: static (none) + dynamic
    EXPECT_EQ(o[10], 0u);      // %envreg0
    EXPECT_GT(o[11], 0u);      // %clock advances between two reads
    EXPECT_EQ(o[12], lane);
    EXPECT_EQ(o[13], t);
  }
}

// ---------------------------------------------------------------- micro-op fast paths
// The emulator runs common instructions through whole-warp handlers (src/emu/uop.hpp)
// and keeps registers that are never live together in one slot. These tests run
// hand-written PTX (no nvcc needed) where those could go wrong: lanes switched off by a
// guard or by divergence must keep their values, integer results wrap, shift amounts at
// or past the width give 0 (or the sign), float comparisons with NaN, fma rounds once,
// and a register redefined under a guard keeps its old value in the other lanes.

namespace {

// f32 result bits as sm_90 gives them: a NaN is the canonical 0x7fffffff.
u32 gpu_bits(float f) { return f != f ? 0x7fffffffu : std::bit_cast<u32>(f); }

// One warp-pair CTA of `ptx_body`, with in = 3 x 64 u32 values; returns out (n x 64 u32).
// `sh2` after `sh` makes the shared window 320 bytes, not a power of two (so that one OR of
// in-bounds addresses can pass its end). `listener`, when given, sees every access.
std::vector<u32> run_fastpaths(const std::string& body, const std::vector<u32>& in, int results,
                               emu::Listener* listener = nullptr) {
  const std::string text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry fastpaths(.param .u64 p_out, .param .u64 p_in, .param .u32 p_k)
{
  .reg .pred %p<40>;
  .reg .b32 %r<200>;
  .reg .b64 %rd<60>;
  .reg .f32 %f<40>;
  .reg .f64 %fd<8>;
  .reg .b16 %rs<20>;
  .shared .align 4 .b8 sh[256];
  .shared .align 4 .b8 sh2[64];
  ld.param.u64 %rd1, [p_out];
  ld.param.u64 %rd2, [p_in];
  ld.param.u32 %r1, [p_k];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd4, %r2, 4;
  add.s64 %rd3, %rd1, %rd4;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.u32 %r3, [%rd5];
  ld.global.u32 %r4, [%rd5+256];
  ld.global.u32 %r5, [%rd5+512];
  and.b32 %r6, %r2, 1;
  setp.eq.u32 %p1, %r6, 1;
)" + body + "  ret;\n}\n";
  const fs::path file = scratch().path() / ("fastpaths" + std::to_string(file_counter++) + ".ptx");
  std::ofstream(file) << text;
  drv::CheckOptions o;
  o.input = file.string();
  const drv::Loaded l = drv::load(o);
  const ptx::Kernel& k = l.program.kernels.at(0);
  // Run with the fast tier on and off (emu_differential.hpp); the fast run's memory is
  // the result.
  struct Run {
    std::unique_ptr<emu::GlobalMemory> mem = std::make_unique<emu::GlobalMemory>();
    u64 out = 0;
  };
  auto run = [&](const emu::Emulator::Options& eo) {
    Run r;
    emu::GlobalMemory& mem = *r.mem;
    r.out = mem.add("out", 4ull * 64 * static_cast<u64>(results));
    const u64 inb = mem.add("in", 4ull * in.size());
    std::memcpy(mem.find(inb, 1)->data(), in.data(), 4 * in.size());
    emu::Launch launch;
    launch.block = {64, 1, 1};
    launch.params.assign(static_cast<size_t>(k.param_bytes), 0);
    const u32 kval = 0x7fffffffu;
    std::memcpy(launch.params.data() + k.params[0].offset, &r.out, 8);
    std::memcpy(launch.params.data() + k.params[1].offset, &inb, 8);
    std::memcpy(launch.params.data() + k.params[2].offset, &kval, 4);
    emu::Emulator e(l.program, k, mem, eo);
    if (listener && eo.fast && !eo.native) e.add_listener(listener);  // one run counts
    e.run_cta(launch, {0, 0, 0});
    return r;
  };
  Run r = emu::testing::run_both_tiers<Run>("hand-written PTX", run,
                                            [](Run& x) -> emu::GlobalMemory& { return *x.mem; });
  std::vector<u32> got(64 * static_cast<size_t>(results));
  std::memcpy(got.data(), r.mem->find(r.out, 1)->data(), 4 * got.size());
  return got;
}

// Builds the body: each `out(reg, reference)` stores the register as the next result.
struct FastPathCase {
  std::string body;
  std::vector<std::function<u32(int t, u32 x, u32 y, u32 z)>> want;
  void code(const std::string& s) { body += s; }
  void out(const std::string& reg, std::function<u32(int, u32, u32, u32)> ref) {
    body += "  st.global.u32 [%rd3+" + std::to_string(256 * want.size()) + "], " + reg + ";\n";
    want.push_back(std::move(ref));
  }
  void check(const std::vector<u32>& in, emu::Listener* listener = nullptr) {
    const auto got = run_fastpaths(body, in, static_cast<int>(want.size()), listener);
    for (size_t i = 0; i < want.size(); ++i)
      for (int t = 0; t < 64; ++t) {
        const u32 x = in[static_cast<size_t>(t)], y = in[64 + static_cast<size_t>(t)],
                  z = in[128 + static_cast<size_t>(t)];
        EXPECT_EQ(got[i * 64 + static_cast<size_t>(t)], want[i](t, x, y, z))
            << "result " << i << " thread " << t << " x=" << hex(x) << " y=" << hex(y)
            << " z=" << hex(z);
      }
  }
};

std::vector<u32> fastpath_inputs(u64 seed) {
  auto v = random_ints<u32>(192, seed);
  // Overflow and sign edges in the first lanes.
  const u32 edge[] = {0x7fffffffu, 1, 0x80000000u, 0xffffffffu, 0, 0x80000000u, 0xfffffff0u, 33};
  for (int i = 0; i < 8; ++i) v[static_cast<size_t>(i)] = edge[i];
  for (int i = 0; i < 8; ++i) v[64 + static_cast<size_t>(i)] = edge[7 - i];
  return v;
}

}  // namespace

TEST(EmuFastPath, IntegerWrapAndShiftLimits) {
  FastPathCase c;
  using F = u32 (*)(int, u32, u32, u32);
  auto s = [](u32 v) { return static_cast<i32>(v); };
  c.code("  add.s32 %r10, %r3, %r4;\n  sub.s32 %r11, %r3, %r4;\n  add.s32 %r12, %r1, %r2;\n");
  c.out("%r10", [](int, u32 x, u32 y, u32) { return x + y; });
  c.out("%r11", [](int, u32 x, u32 y, u32) { return x - y; });
  c.out("%r12", [](int t, u32, u32, u32) { return 0x7fffffffu + static_cast<u32>(t); });
  c.code("  mul.lo.s32 %r13, %r3, %r4;\n  mad.lo.s32 %r14, %r3, %r4, %r5;\n");
  c.out("%r13", [](int, u32 x, u32 y, u32) { return x * y; });
  c.out("%r14", [](int, u32 x, u32 y, u32 z) { return x * y + z; });
  c.code("  mul.hi.s32 %r15, %r3, %r4;\n  mul.hi.u32 %r16, %r3, %r4;\n");
  c.out("%r15", [s](int, u32 x, u32 y, u32) {
    return static_cast<u32>(static_cast<u64>(static_cast<i64>(s(x)) * s(y)) >> 32);
  });
  c.out("%r16", [](int, u32 x, u32 y, u32) { return static_cast<u32>((u64{x} * y) >> 32); });
  c.code(
      "  mul.wide.s32 %rd10, %r3, %r4;\n  cvt.u32.u64 %r17, %rd10;\n  shr.u64 %rd11, %rd10, 32;\n"
      "  cvt.u32.u64 %r18, %rd11;\n  mul.wide.u32 %rd12, %r3, %r4;\n  shr.u64 %rd13, %rd12, 32;\n"
      "  cvt.u32.u64 %r19, %rd13;\n  mad.wide.s32 %rd14, %r3, %r5, %rd10;\n"
      "  shr.s64 %rd15, %rd14, 32;\n  cvt.u32.u64 %r20, %rd15;\n");
  c.out("%r17", [s](int, u32 x, u32 y, u32) { return static_cast<u32>(i64{s(x)} * s(y)); });
  c.out("%r18", [s](int, u32 x, u32 y, u32) {
    return static_cast<u32>(static_cast<u64>(i64{s(x)} * s(y)) >> 32);
  });
  c.out("%r19", [](int, u32 x, u32 y, u32) { return static_cast<u32>((u64{x} * y) >> 32); });
  c.out("%r20", [s](int, u32 x, u32 y, u32 z) {
    return static_cast<u32>(
        static_cast<u64>(static_cast<i64>(static_cast<u64>(i64{s(x)} * s(z)) +
                                          static_cast<u64>(i64{s(x)} * s(y)))) >>
        32);
  });
  c.code(
      "  min.s32 %r21, %r3, %r4;\n  max.s32 %r22, %r3, %r4;\n"
      "  min.u32 %r23, %r3, %r4;\n  max.u32 %r24, %r3, %r4;\n");
  c.out("%r21", [s](int, u32 x, u32 y, u32) { return static_cast<u32>(std::min(s(x), s(y))); });
  c.out("%r22", [s](int, u32 x, u32 y, u32) { return static_cast<u32>(std::max(s(x), s(y))); });
  c.out("%r23", [](int, u32 x, u32 y, u32) { return std::min(x, y); });
  c.out("%r24", [](int, u32 x, u32 y, u32) { return std::max(x, y); });
  // Immediate amounts: the whole warp shifts by one count; at or past 32, 0 or the sign.
  c.code(
      "  shl.b32 %r25, %r3, 31;\n  shl.b32 %r26, %r3, 32;\n  shr.u32 %r27, %r3, 40;\n"
      "  shr.s32 %r28, %r3, 33;\n  shr.s32 %r29, %r3, 5;\n  shr.u32 %r30, %r3, 7;\n");
  c.out("%r25", [](int, u32 x, u32, u32) { return x << 31; });
  c.out("%r26", [](int, u32, u32, u32) { return 0u; });
  c.out("%r27", [](int, u32, u32, u32) { return 0u; });
  c.out("%r28", [s](int, u32 x, u32, u32) { return s(x) < 0 ? 0xffffffffu : 0u; });
  c.out("%r29", [s](int, u32 x, u32, u32) { return static_cast<u32>(s(x) >> 5); });
  c.out("%r30", [](int, u32 x, u32, u32) { return x >> 7; });
  // Per-lane amounts 0..63.
  c.code(
      "  and.b32 %r31, %r4, 63;\n  shl.b32 %r32, %r3, %r31;\n  shr.u32 %r33, %r3, %r31;\n"
      "  shr.s32 %r34, %r3, %r31;\n");
  c.out("%r32", [](int, u32 x, u32 y, u32) { return (y & 63) >= 32 ? 0 : x << (y & 63); });
  c.out("%r33", [](int, u32 x, u32 y, u32) { return (y & 63) >= 32 ? 0 : x >> (y & 63); });
  c.out("%r34", [s](int, u32 x, u32 y, u32) {
    return static_cast<u32>(s(x) >> std::min<u32>(y & 63, 31));
  });
  // 64-bit: widening conversions, shifts by 0..63 and by 64.
  c.code(
      "  cvt.s64.s32 %rd20, %r3;\n  cvt.u64.u32 %rd21, %r4;\n  add.s64 %rd22, %rd20, %rd21;\n"
      "  shl.b64 %rd23, %rd20, %r31;\n  shr.s64 %rd24, %rd20, %r31;\n"
      "  shr.u64 %rd25, %rd20, %r31;\n  shl.b64 %rd26, %rd20, 64;\n"
      "  or.b64 %rd27, %rd26, %rd22;\n");
  auto lo = [](u64 v) { return static_cast<u32>(v); };
  auto hi = [](u64 v) { return static_cast<u32>(v >> 32); };
  auto sx64 = [s](u32 x) { return static_cast<u64>(i64{s(x)}); };
  c.code(
      "  cvt.u32.u64 %r40, %rd23;\n  shr.u64 %rd30, %rd23, 32;\n  cvt.u32.u64 %r41, %rd30;\n"
      "  shr.u64 %rd31, %rd24, 32;\n  cvt.u32.u64 %r42, %rd31;\n  cvt.u32.u64 %r43, %rd25;\n"
      "  shr.u64 %rd32, %rd27, 32;\n  cvt.u32.u64 %r44, %rd32;\n");
  c.out("%r40", [=](int, u32 x, u32 y, u32) { return lo(sx64(x) << (y & 63)); });
  c.out("%r41", [=](int, u32 x, u32 y, u32) { return hi(sx64(x) << (y & 63)); });
  c.out("%r42", [=](int, u32 x, u32 y, u32) {
    return hi(static_cast<u64>(static_cast<i64>(sx64(x)) >> (y & 63)));
  });
  c.out("%r43", [=](int, u32 x, u32 y, u32) { return lo(sx64(x) >> (y & 63)); });
  c.out("%r44", [=](int, u32 x, u32 y, u32) { return hi(sx64(x) + y); });
  // Comparisons (lo/hi compare as unsigned whatever the type) and selects.
  c.code(
      "  setp.lt.s32 %p2, %r3, %r4;\n  setp.hi.s32 %p3, %r3, %r4;\n"
      "  setp.ge.u64 %p4, %rd20, %rd21;\n  setp.ne.s64 %p5|%p6, %rd20, %rd21;\n"
      "  selp.u32 %r50, 1, 0, %p2;\n  selp.u32 %r51, 1, 0, %p3;\n  selp.u32 %r52, 1, 0, %p4;\n"
      "  selp.u32 %r53, 1, 0, %p5;\n  selp.u32 %r54, 1, 0, %p6;\n"
      "  selp.b32 %r55, %r3, %r4, %p2;\n  selp.b64 %rd40, %rd20, %rd21, %p3;\n"
      "  shr.u64 %rd41, %rd40, 32;\n  cvt.u32.u64 %r56, %rd41;\n");
  c.out("%r50", [s](int, u32 x, u32 y, u32) { return u32{s(x) < s(y)}; });
  c.out("%r51", [](int, u32 x, u32 y, u32) { return u32{x > y}; });
  c.out("%r52", [=](int, u32 x, u32 y, u32) { return u32{sx64(x) >= u64{y}}; });
  c.out("%r53", [=](int, u32 x, u32 y, u32) { return u32{sx64(x) != u64{y}}; });
  c.out("%r54", [=](int, u32 x, u32 y, u32) { return u32{sx64(x) == u64{y}}; });
  c.out("%r55", [s](int, u32 x, u32 y, u32) { return s(x) < s(y) ? x : y; });
  c.out("%r56", [=](int, u32 x, u32 y, u32) { return x > y ? hi(sx64(x)) : 0u; });
  // Parameters and special registers.
  c.code("  mov.u32 %r57, %ntid.x;\n  mov.u32 %r58, %laneid;\n  mov.u32 %r59, %ctaid.x;\n");
  c.out("%r1", [](int, u32, u32, u32) { return 0x7fffffffu; });
  c.out("%r57", [](int, u32, u32, u32) { return 64u; });
  c.out("%r58", [](int t, u32, u32, u32) { return static_cast<u32>(t % 32); });
  c.out("%r59", [](int, u32, u32, u32) { return 0u; });
  (void)sizeof(F);
  c.check(fastpath_inputs(301));
}

TEST(EmuFastPath, FloatComparisonsConversionsAndRounding) {
  FastPathCase c;
  c.code(
      "  mov.b32 %f1, %r3;\n  mov.b32 %f2, %r4;\n  mov.b32 %f3, %r5;\n"
      "  add.f32 %f4, %f1, %f2;\n  sub.f32 %f5, %f1, %f2;\n  mul.f32 %f6, %f1, %f2;\n"
      "  fma.rn.f32 %f7, %f1, %f2, %f3;\n  mad.rn.f32 %f8, %f2, %f3, %f1;\n"
      "  mov.b32 %r10, %f4;\n  mov.b32 %r11, %f5;\n  mov.b32 %r12, %f6;\n"
      "  mov.b32 %r13, %f7;\n  mov.b32 %r14, %f8;\n");
  auto F = [](u32 v) { return f32_of(v); };
  c.out("%r10", [=](int, u32 x, u32 y, u32) { return gpu_bits(F(x) + F(y)); });
  c.out("%r11", [=](int, u32 x, u32 y, u32) { return gpu_bits(F(x) - F(y)); });
  c.out("%r12", [=](int, u32 x, u32 y, u32) { return gpu_bits(F(x) * F(y)); });
  c.out("%r13", [=](int, u32 x, u32 y, u32 z) { return gpu_bits(std::fma(F(x), F(y), F(z))); });
  c.out("%r14", [=](int, u32 x, u32 y, u32 z) { return gpu_bits(std::fma(F(y), F(z), F(x))); });
  const char* cmps[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                        "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  for (int i = 0; i < 14; ++i) {
    const std::string p = "%p" + std::to_string(10 + i), r = "%r" + std::to_string(20 + i);
    c.code("  setp." + std::string(cmps[i]) + ".f32 " + p + ", %f1, %f2;\n  selp.u32 " + r +
           ", 1, 0, " + p + ";\n");
    c.out(r, [=](int, u32 x, u32 y, u32) {
      const float a = F(x), b = F(y);
      const bool nan = a != a || b != b;
      const bool v[] = {!nan && a == b, !nan && a != b,
                        !nan && a < b,  !nan && a <= b,
                        !nan && a > b,  !nan && a >= b,
                        nan || a == b,  nan || a != b,
                        nan || a < b,   nan || a <= b,
                        nan || a > b,   nan || a >= b,
                        !nan,           nan};
      return u32{v[i]};
    });
  }
  c.code(
      "  cvt.rn.f32.s32 %f9, %r3;\n  cvt.rn.f32.u32 %f10, %r3;\n  cvt.f64.f32 %fd1, %f1;\n"
      "  mov.b32 %r40, %f9;\n  mov.b32 %r41, %f10;\n  mov.b64 %rd10, %fd1;\n"
      "  cvt.u32.u64 %r42, %rd10;\n  shr.u64 %rd11, %rd10, 32;\n  cvt.u32.u64 %r43, %rd11;\n");
  c.out("%r40", [](int, u32 x, u32, u32) {
    return std::bit_cast<u32>(static_cast<float>(static_cast<i32>(x)));
  });
  c.out("%r41", [](int, u32 x, u32, u32) { return std::bit_cast<u32>(static_cast<float>(x)); });
  c.out("%r42", [=](int, u32 x, u32, u32) {
    return static_cast<u32>(std::bit_cast<u64>(static_cast<double>(F(x))));
  });
  c.out("%r43", [=](int, u32 x, u32, u32) {
    return static_cast<u32>(std::bit_cast<u64>(static_cast<double>(F(x))) >> 32);
  });
  // Floats with NaNs, infinities, zeros, subnormals and cancelling products.
  std::vector<u32> in(192);
  std::mt19937 rng(7);
  const u32 special[] = {0x7fc00000u, 0xffc00001u, 0x7f800000u, 0xff800000u,
                         0,           0x80000000u, 0x00000001u, 0x807fffffu,
                         0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0x33800000u};
  for (size_t i = 0; i < 192; ++i) {
    const u32 r = rng();
    in[i] = r % 3 == 0 ? special[(r >> 8) % 12]
                       : std::bit_cast<u32>(std::ldexp(static_cast<float>((r >> 4) % 20000) - 10000,
                                                       static_cast<int>((r >> 20) % 40) - 20));
  }
  // Lanes 40..47: z = -(x*y) rounded, so fma keeps what a separate multiply loses.
  for (size_t t = 40; t < 48; ++t) {
    in[t] = std::bit_cast<u32>(1.0f + std::ldexp(static_cast<float>(t), -20));
    in[64 + t] = std::bit_cast<u32>(1.0f - std::ldexp(static_cast<float>(t), -21));
    in[128 + t] = std::bit_cast<u32>(-(f32_of(in[t]) * f32_of(in[64 + t])));
  }
  c.check(in);
}

// The micro-ops over the reference's own functions, at their edges: 32-bit division by zero
// (all ones, or the dividend for rem) and INT_MIN / -1 (itself, rem 0), as the GPU gives
// them; f32 min/max with NaNs (the other operand; two NaNs: canonical) and signed zeros,
// neg, abs, rcp, copysign (the sign moved, a NaN's bits kept), cvt.sat.f32.f32 (NaN and
// negatives to +0), div, fma.rm and add.rz; predicate logic.
TEST(EmuFastPath, DivisionFloatFunctionsAndPredicateLogic) {
  FastPathCase c;
  auto s = [](u32 v) { return static_cast<i32>(v); };
  // %r41: y, but -1 where x is INT_MIN (lanes 2 and 5 of fastpath_inputs).
  c.code(
      "  setp.eq.u32 %p2, %r3, 0x80000000;\n  selp.b32 %r41, -1, %r4, %p2;\n"
      "  div.s32 %r10, %r3, %r41;\n  rem.s32 %r11, %r3, %r41;\n"
      "  div.u32 %r12, %r3, %r4;\n  rem.u32 %r13, %r3, %r4;\n");
  c.out("%r10", [s](int, u32 x, u32 y, u32) {
    const i32 d = x == 0x80000000u ? -1 : s(y);
    if (d == 0) return 0xffffffffu;
    if (x == 0x80000000u && d == -1) return x;
    return static_cast<u32>(s(x) / d);
  });
  c.out("%r11", [s](int, u32 x, u32 y, u32) {
    const i32 d = x == 0x80000000u ? -1 : s(y);
    if (d == 0) return x;
    if (d == -1) return 0u;
    return static_cast<u32>(s(x) % d);
  });
  c.out("%r12", [](int, u32 x, u32 y, u32) { return y == 0 ? 0xffffffffu : x / y; });
  c.out("%r13", [](int, u32 x, u32 y, u32) { return y == 0 ? x : x % y; });
  c.code(
      "  not.b32 %r14, %r3;\n  setp.lt.u32 %p3, %r3, %r4;\n  setp.lt.u32 %p4, %r4, %r5;\n"
      "  and.pred %p5, %p3, !%p4;\n  or.pred %p6, !%p3, %p4;\n  xor.pred %p7, %p3, %p4;\n"
      "  not.pred %p8, %p5;\n  selp.u32 %r15, 1, 0, %p5;\n  selp.u32 %r16, 1, 0, %p6;\n"
      "  selp.u32 %r17, 1, 0, %p7;\n  selp.u32 %r18, 1, 0, %p8;\n");
  c.out("%r14", [](int, u32 x, u32, u32) { return ~x; });
  c.out("%r15", [](int, u32 x, u32 y, u32 z) { return u32{x < y && !(y < z)}; });
  c.out("%r16", [](int, u32 x, u32 y, u32 z) { return u32{!(x < y) || y < z}; });
  c.out("%r17", [](int, u32 x, u32 y, u32 z) { return u32{(x < y) != (y < z)}; });
  c.out("%r18", [](int, u32 x, u32 y, u32 z) { return u32{!(x < y && !(y < z))}; });
  c.check(fastpath_inputs(21));

  FastPathCase f;
  auto F = [](u32 v) { return f32_of(v); };
  f.code(
      "  mov.b32 %f1, %r3;\n  mov.b32 %f2, %r4;\n  mov.b32 %f3, %r5;\n"
      "  max.f32 %f4, %f1, %f2;\n  min.f32 %f5, %f1, %f2;\n  neg.f32 %f6, %f1;\n"
      "  cvt.sat.f32.f32 %f7, %f1;\n  div.rn.f32 %f8, %f1, %f2;\n  fma.rm.f32 %f9, %f1, %f2, %f3;\n"
      "  add.rz.f32 %f10, %f1, %f2;\n  mov.b32 %r10, %f4;\n  mov.b32 %r11, %f5;\n"
      "  mov.b32 %r12, %f6;\n  mov.b32 %r13, %f7;\n  mov.b32 %r14, %f8;\n  mov.b32 %r15, %f9;\n"
      "  mov.b32 %r16, %f10;\n  abs.f32 %f11, %f1;\n  rcp.approx.ftz.f32 %f12, %f1;\n"
      "  copysign.f32 %f13, %f1, %f2;\n  mov.b32 %r17, %f11;\n  mov.b32 %r18, %f12;\n"
      "  mov.b32 %r19, %f13;\n");
  auto min_max = [=](bool max, u32 x, u32 y) {
    const float a = F(x), b = F(y);
    if (a != a && b != b) return 0x7fffffffu;
    if (a != a) return y;
    if (b != b) return x;
    if (a == 0 && b == 0) return (std::signbit(a) != max) ? x : y;
    return (max ? a > b : a < b) ? x : y;
  };
  f.out("%r10", [=](int, u32 x, u32 y, u32) { return min_max(true, x, y); });
  f.out("%r11", [=](int, u32 x, u32 y, u32) { return min_max(false, x, y); });
  f.out("%r12", [=](int, u32 x, u32, u32) { return gpu_bits(-F(x)); });
  f.out("%r13", [=](int, u32 x, u32, u32) {
    const float a = F(x);
    return gpu_bits(a != a || a <= 0 ? 0.0f : std::min(a, 1.0f));
  });
  f.out("%r14", [=](int, u32 x, u32 y, u32) { return gpu_bits(F(x) / F(y)); });
  auto directed = [](int mode, auto op) {
    const int saved = std::fegetround();
    std::fesetround(mode);
    volatile float r = op();
    std::fesetround(saved);
    return gpu_bits(r);
  };
  f.out("%r15", [=](int, u32 x, u32 y, u32 z) {
    return directed(FE_DOWNWARD, [=] {
      volatile float a = F(x), b = F(y), cz = F(z);
      return std::fma(static_cast<float>(a), static_cast<float>(b), static_cast<float>(cz));
    });
  });
  f.out("%r16", [=](int, u32 x, u32 y, u32) {
    return directed(FE_TOWARDZERO, [=] {
      volatile float a = F(x), b = F(y);
      return static_cast<float>(a + b);
    });
  });
  f.out("%r17", [=](int, u32 x, u32, u32) { return gpu_bits(std::fabs(F(x))); });
  f.out("%r18", [=](int, u32 x, u32, u32) { return gpu_bits(1.0f / F(x)); });
  f.out("%r19", [](int, u32 x, u32 y, u32) { return (y & 0x7fffffffu) | (x & 0x80000000u); });
  std::vector<u32> in(192);
  std::mt19937 rng(9);
  const u32 special[] = {0x7fc00000u, 0xffc00001u, 0x7f800000u, 0xff800000u, 0,
                         0x80000000u, 0x00000001u, 0x3f800000u, 0xbf800000u, 0x3f000000u};
  for (size_t i = 0; i < 192; ++i) {
    const u32 r = rng();
    in[i] = r % 3 == 0 ? special[(r >> 8) % 10]
                       : std::bit_cast<u32>(std::ldexp(static_cast<float>((r >> 4) % 20000) - 10000,
                                                       static_cast<int>((r >> 20) % 30) - 20));
  }
  f.check(in);
}

// shfl's source lanes kept per instruction (uop_run.hpp: shfl()): a lane operand the same in
// every lane of a warp but not in the next warp, one that differs lane by lane, a loop that
// changes it at the same instruction, and a guard under which only the executing lanes
// share it. setp of 32-bit values and f32 four lanes at a time, at their sign and NaN edges.
TEST(EmuFastPath, ShuffleSourceLanesAndComparisons) {
  FastPathCase c;
  const std::vector<u32> in = fastpath_inputs(47);
  const auto x_of = [&](int t) { return in[static_cast<size_t>(t)]; };
  c.code(
      "  shr.u32 %r40, %r2, 5;\n  add.u32 %r41, %r40, 1;\n"
      "  shfl.sync.up.b32 %r42|%p2, %r3, %r41, 0, -1;\n  selp.u32 %r43, 1, 0, %p2;\n"
      "  and.b32 %r44, %r2, 7;\n  shfl.sync.down.b32 %r45, %r3, %r44, 31, -1;\n"
      "  selp.u32 %r46, 3, %r2, %p1;\n  mov.u32 %r47, %r5;\n"
      "  @%p1 shfl.sync.bfly.b32 %r47, %r3, %r46, 31, -1;\n"
      "  mov.u32 %r48, 0;\n  mov.u32 %r49, 1;\n  mov.u32 %r50, 0;\n"
      "$SCAN:\n  shfl.sync.up.b32 %r51|%p3, %r3, %r49, 0, -1;\n  @%p3 add.u32 %r48, %r48, %r51;\n"
      "  add.u32 %r50, %r50, 1;\n  shl.b32 %r49, %r49, 1;\n  setp.lt.u32 %p4, %r49, 32;\n"
      "  @%p4 bra $SCAN;\n");
  c.out("%r42", [&](int t, u32 x, u32, u32) {
    const int off = t / 32 + 1;
    return t % 32 >= off ? x_of(t - off) : x;
  });
  c.out("%r43", [](int t, u32, u32, u32) { return u32{t % 32 >= t / 32 + 1}; });
  c.out("%r45", [&](int t, u32 x, u32, u32) {
    const int j = t % 32 + t % 8;
    return j < 32 ? x_of(t / 32 * 32 + j) : x;
  });
  c.out("%r47", [&](int t, u32, u32, u32 z) { return t % 2 ? x_of(t ^ 3) : z; });
  c.out("%r48", [&](int t, u32, u32, u32) {
    u32 sum = 0;
    for (int off = 1; off < 32; off *= 2)
      if (t % 32 >= off) sum += x_of(t - off);
    return sum;
  });
  c.out("%r50", [](int, u32, u32, u32) { return 5u; });
  auto s = [](u32 v) { return static_cast<i32>(v); };
  const char* cmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
  int p = 10, r = 60;
  for (const char* cmp : cmps) {
    const std::string name = cmp;
    for (const char* type : {"s32", "u32"}) {
      const std::string pr = "%p" + std::to_string(p++), rr = "%r" + std::to_string(r++);
      c.code("  setp." + name + "." + type + " " + pr + ", %r3, %r4;\n  selp.u32 " + rr +
             ", 1, 0, " + pr + ";\n");
      const bool sig =
          std::string(type) == "s32" && (name == "eq" || name == "ne" || name == "lt" ||
                                         name == "le" || name == "gt" || name == "ge");
      c.out(rr, [=](int, u32 x, u32 y, u32) {
        const i64 a = sig ? s(x) : i64{x}, b = sig ? s(y) : i64{y};
        if (name == "eq") return u32{a == b};
        if (name == "ne") return u32{a != b};
        if (name == "lt" || name == "lo") return u32{a < b};
        if (name == "le" || name == "ls") return u32{a <= b};
        if (name == "gt" || name == "hi") return u32{a > b};
        return u32{a >= b};
      });
    }
  }
  c.check(in);

  FastPathCase f;
  std::vector<u32> fin(192);
  std::mt19937 rng(5);
  const u32 special[] = {0x7fc00000u, 0xffc00001u, 0x7f800000u, 0xff800000u, 0,
                         0x80000000u, 0x00000001u, 0x80000001u, 0x3f800000u, 0xbf800000u};
  for (size_t i = 0; i < 192; ++i) {
    const u32 v = rng();
    fin[i] = v % 2 ? special[(v >> 8) % 10] : (v % 4 == 0 ? fin[i % 64] : v);
  }
  const char* fcmps[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                         "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  p = 10;
  r = 60;
  f.code("  mov.b32 %f1, %r3;\n  mov.b32 %f2, %r4;\n");
  for (const char* cmp : fcmps) {
    const std::string name = cmp;
    const std::string pr = "%p" + std::to_string(p++), rr = "%r" + std::to_string(r++);
    f.code("  setp." + name + ".f32 " + pr + ", %f1, %f2;\n  selp.u32 " + rr + ", 1, 0, " + pr +
           ";\n");
    f.out(rr, [=](int, u32 x, u32 y, u32) {
      const float a = f32_of(x), b = f32_of(y);
      const bool nan = a != a || b != b;
      if (name == "eq") return u32{a == b};
      if (name == "ne") return u32{!nan && a != b};
      if (name == "lt") return u32{a < b};
      if (name == "le") return u32{a <= b};
      if (name == "gt") return u32{a > b};
      if (name == "ge") return u32{a >= b};
      if (name == "equ") return u32{nan || a == b};
      if (name == "neu") return u32{nan || a != b};
      if (name == "ltu") return u32{nan || a < b};
      if (name == "leu") return u32{nan || a <= b};
      if (name == "gtu") return u32{nan || a > b};
      if (name == "geu") return u32{nan || a >= b};
      if (name == "num") return u32{!nan};
      return u32{nan};
    });
  }
  f.check(fin);
}

// Movs of constants read in place (uop.cpp: forward_constants): an fma's f32 constants and
// %ctaid.x, %ntid.x read by the next instructions, a 64-bit constant added to an address; a
// constant read after a loop's label, as a shuffle's value and by the reference path keep
// their movs, and so does %laneid (not one value for the warp) read as a shift amount; a
// shuffle's lane and clamp operands are read in place.
// Every tier leaves the same memory (run_both_tiers).
TEST(EmuFastPath, ConstantsReadWhereTheyAreMoved) {
  FastPathCase c;
  const std::vector<u32> in = fastpath_inputs(53);
  auto F = [](u32 v) { return f32_of(v); };
  c.code(
      "  mov.b32 %f1, %r3;\n  mov.f32 %f2, 0f3F800000;\n  mov.f32 %f3, 0fC0000000;\n"
      "  fma.rn.f32 %f4, %f1, %f3, %f2;\n  mov.b32 %r40, %f4;\n"
      "  mov.u32 %r41, %ctaid.x;\n  mov.u32 %r42, %ntid.x;\n  mad.lo.s32 %r43, %r41, %r42, %r2;\n"
      "  mov.u32 %r44, 7;\n  mov.u32 %r45, 0;\n"
      "$LOOP:\n  add.u32 %r45, %r45, %r44;\n  setp.lt.u32 %p2, %r45, 21;\n  @%p2 bra $LOOP;\n"
      "  mov.u32 %r47, 99;\n  shfl.sync.bfly.b32 %r46, %r47, 1, 31, -1;\n"
      "  mov.u64 %rd40, 256;\n  add.s64 %rd41, %rd5, %rd40;\n  ld.global.u32 %r49, [%rd41+256];\n"
      "  mov.u32 %r50, 5;\n  bfe.u32 %r51, %r3, %r50, 4;\n  mov.u32 %r52, 0xffffffff;\n"
      "  cvt.u64.u32 %rd43, %r52;\n  shr.u64 %rd44, %rd43, 16;\n  cvt.u32.u64 %r53, %rd44;\n"
      "  mov.u32 %r54, %laneid;\n  shl.b32 %r55, 1, %r54;\n"
      "  mov.u32 %r56, 2;\n  mov.u32 %r58, 0;\n  bar.sync 0;\n"
      "  shfl.sync.up.b32 %r57, %r3, %r56, %r58, -1;\n");
  c.out("%r40", [=](int, u32 x, u32, u32) { return gpu_bits(std::fma(F(x), -2.0f, 1.0f)); });
  c.out("%r43", [](int t, u32, u32, u32) { return static_cast<u32>(t); });
  c.out("%r45", [](int, u32, u32, u32) { return 21u; });
  c.out("%r46", [](int, u32, u32, u32) { return 99u; });
  c.out("%r49", [](int, u32, u32, u32 z) { return z; });
  c.out("%r51", [](int, u32 x, u32, u32) { return (x >> 5) & 15u; });
  c.out("%r53", [](int, u32, u32, u32) { return 0xffffu; });
  c.out("%r55", [](int t, u32, u32, u32) { return 1u << (t % 32); });
  c.out("%r57", [&](int t, u32 x, u32, u32) {  // its lane and clamp operands read in place
    return t % 32 >= 2 ? in[static_cast<size_t>(t - 2)] : x;
  });
  c.check(in);
}

// ld.param read in place (uop.cpp: bind_params), by readers past the kernel's first branch
// (`if (tid < 48)`): one Emulator runs launches whose parameters differ (the readers see
// each launch's), then one whose parameter bytes end before the forwarded load's (it fails as
// the reference path fails it); every tier alike.
TEST(EmuFastPath, ParametersReadInPlacePerLaunch) {
  const std::string text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry params(.param .u64 p_out, .param .u32 p_a, .param .u32 p_b)
{
  .reg .b32 %r<10>;
  .reg .pred %p<2>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [p_out];
  ld.param.u32 %r1, [p_a];
  ld.param.u32 %r2, [p_b];
  mov.u32 %r3, %tid.x;
  setp.ge.u32 %p1, %r3, 48;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mad.lo.s32 %r4, %r3, %r1, %r2;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
DONE:
  ret;
}
)";
  const fs::path file = scratch().path() / "params_in_place.ptx";
  std::ofstream(file) << text;
  drv::CheckOptions o;
  o.input = file.string();
  const drv::Loaded l = drv::load(o);
  const ptx::Kernel& k = l.program.kernels.at(0);
  struct Run {
    std::unique_ptr<emu::GlobalMemory> mem = std::make_unique<emu::GlobalMemory>();
    std::vector<u32> got;
  };
  const u32 values[][2] = {{3, 100}, {7, 5}, {7, 5}, {0xffffffffu, 1}};
  for (const bool short_params : {false, true}) {
    auto run = [&](const emu::Emulator::Options& eo) {
      Run r;
      const u64 out = r.mem->add("out", 4 * 64);
      emu::Emulator e(l.program, k, *r.mem, eo);
      for (const auto& v : values) {
        emu::Launch launch;
        launch.block = {64, 1, 1};
        launch.params.assign(static_cast<size_t>(k.param_bytes), 0);
        std::memcpy(launch.params.data() + k.params[0].offset, &out, 8);
        std::memcpy(launch.params.data() + k.params[1].offset, &v[0], 4);
        std::memcpy(launch.params.data() + k.params[2].offset, &v[1], 4);
        if (short_params && v[0] == 0xffffffffu) launch.params.resize(k.params[2].offset + 2);
        e.run_cta(launch, {0, 0, 0});
        const u32* p = reinterpret_cast<const u32*>(r.mem->find(out, 1)->data());
        r.got.insert(r.got.end(), p, p + 64);
      }
      return r;
    };
    std::optional<Run> r;
    std::string error;
    try {
      r.emplace(emu::testing::run_both_tiers<Run>(
          "ld.param in place", run, [](Run& x) -> emu::GlobalMemory& { return *x.mem; }));
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (short_params) {
      EXPECT_NE(error, "") << "a parameter read past the launch's parameters";
      continue;
    }
    ASSERT_TRUE(r) << error;
    for (size_t i = 0; i < std::size(values); ++i)
      for (u32 t = 0; t < 64; ++t)
        EXPECT_EQ(r->got[i * 64 + t], t < 48 ? t * values[i][0] + values[i][1] : 0)
            << i << " " << t;
  }
}

TEST(EmuFastPath, GuardsDivergenceAndSharedSlots) {
  FastPathCase c;
  // A guard keeps the other lanes' values, for ALU ops, setp and fma alike.
  c.code(
      "  mov.u32 %r10, 1000;\n  @%p1 add.s32 %r10, %r3, %r4;\n  mov.u32 %r11, %r10;\n"
      "  @!%p1 shl.b32 %r11, %r11, 1;\n  setp.gt.s32 %p2, %r3, 0;\n"
      "  @%p1 setp.lt.s32 %p2, %r3, 0;\n  selp.u32 %r12, 1, 0, %p2;\n"
      "  mov.b32 %f1, %r4;\n  @%p1 fma.rn.f32 %f1, %f1, %f1, %f1;\n  mov.b32 %r13, %f1;\n");
  auto odd = [](int t) { return (t & 1) != 0; };
  c.out("%r10", [=](int t, u32 x, u32 y, u32) { return odd(t) ? x + y : 1000u; });
  c.out("%r11", [=](int t, u32 x, u32 y, u32) { return odd(t) ? x + y : 2000u; });
  c.out("%r12", [=](int t, u32 x, u32, u32) {
    return u32{odd(t) ? static_cast<i32>(x) < 0 : static_cast<i32>(x) > 0};
  });
  c.out("%r13", [=](int t, u32, u32 y, u32) {
    const float f = f32_of(y);
    return odd(t) ? gpu_bits(std::fma(f, f, f)) : y;
  });
  // Divergent branches writing shared memory, a barrier, then each lane reads its
  // neighbour's word; a guarded store changes only the odd lanes' words.
  c.code(
      "  mov.u32 %r20, sh;\n  shl.b32 %r21, %r2, 2;\n  add.s32 %r22, %r20, %r21;\n"
      "  xor.b32 %r23, %r2, 1;\n  shl.b32 %r24, %r23, 2;\n  add.s32 %r25, %r20, %r24;\n"
      "  mov.u32 %r26, %r2;\n  @%p1 bra ODD;\n  mul.lo.s32 %r26, %r26, 3;\n"
      "  shl.b32 %r27, %r26, 2;\n  st.shared.u32 [%r22], %r27;\n  bra JOIN;\nODD:\n"
      "  add.s32 %r26, %r26, 100;\n  st.shared.u32 [%r22], %r26;\nJOIN:\n  bar.sync 0;\n"
      "  ld.shared.u32 %r28, [%r25];\n  bar.sync 0;\n  @%p1 st.shared.u32 [%r22], 7;\n"
      "  bar.sync 0;\n  ld.shared.u32 %r29, [%r22];\n");
  auto word = [=](int t) { return odd(t) ? static_cast<u32>(t) + 100 : static_cast<u32>(t) * 12; };
  c.out("%r26", [=](int t, u32, u32, u32) {
    return odd(t) ? static_cast<u32>(t) + 100 : static_cast<u32>(t) * 3;
  });
  c.out("%r28", [=](int t, u32, u32, u32) { return word(t ^ 1); });
  c.out("%r29", [=](int t, u32, u32, u32) { return odd(t) ? 7u : word(t); });
  // A register redefined under a guard lives on from its first definition: the
  // temporaries between must not take its slot.
  c.code(
      "  mov.u32 %r40, 11;\n  @%p1 mov.u32 %r40, %r3;\n  add.s32 %r41, %r3, 1;\n"
      "  add.s32 %r42, %r41, 2;\n  add.s32 %r43, %r42, %r41;\n  mul.lo.s32 %r44, %r43, 3;\n"
      "  xor.b32 %r45, %r44, %r42;\n");
  c.out("%r45", [](int, u32 x, u32, u32) { return ((2 * x + 4) * 3) ^ (x + 3); });
  c.out("%r40", [=](int t, u32 x, u32, u32) { return odd(t) ? x : 11u; });
  // A loop: its counter and sum carried around the back edge, a value from before the
  // loop used after it, and temporaries inside.
  c.code(
      "  mul.lo.s32 %r50, %r3, 5;\n  mov.u32 %r51, 0;\n  mov.u32 %r52, 0;\nLOOP:\n"
      "  setp.ge.u32 %p7, %r52, %r2;\n  @%p7 bra DONE;\n  add.s32 %r51, %r51, %r52;\n"
      "  add.s32 %r53, %r52, 1;\n  mov.u32 %r52, %r53;\n  bra LOOP;\nDONE:\n");
  c.out("%r51", [](int t, u32, u32, u32) { return static_cast<u32>(t * (t - 1) / 2); });
  c.out("%r50", [](int, u32 x, u32, u32) { return x * 5; });
  // Defined under a guard in the first pass of a loop only: the value must survive the
  // second pass, whose temporaries come before that definition in program order.
  c.code(
      "  mov.u32 %r71, 0;\n  mov.u32 %r74, 0;\nLOOP2:\n  add.s32 %r72, %r71, 5;\n"
      "  xor.b32 %r74, %r74, %r72;\n  setp.eq.u32 %p8, %r71, 0;\n  @%p8 mov.u32 %r70, %r3;\n"
      "  add.s32 %r71, %r71, 1;\n  setp.lt.u32 %p9, %r71, 2;\n  @%p9 bra LOOP2;\n");
  c.out("%r70", [](int, u32 x, u32, u32) { return x; });
  c.out("%r74", [](int, u32, u32, u32) { return 5u ^ 6u; });
  // Vector loads.
  c.code(
      "  and.b32 %r60, %r2, 31;\n  mul.wide.u32 %rd20, %r60, 8;\n  add.s64 %rd21, %rd2, %rd20;\n"
      "  ld.global.v2.u32 {%r61, %r62}, [%rd21];\n  and.b32 %r63, %r2, 15;\n"
      "  mul.wide.u32 %rd22, %r63, 16;\n  add.s64 %rd23, %rd2, %rd22;\n"
      "  ld.global.v4.u32 {%r64, %r65, %r66, %r67}, [%rd23];\n");
  std::vector<u32> in = fastpath_inputs(302);
  for (auto& v : in) v = v % 1000;  // small, so that nothing here depends on overflow
  c.out("%r61", [in](int t, u32, u32, u32) { return in[static_cast<size_t>(2 * (t % 32))]; });
  c.out("%r62", [in](int t, u32, u32, u32) { return in[static_cast<size_t>(2 * (t % 32) + 1)]; });
  c.out("%r64", [in](int t, u32, u32, u32) { return in[static_cast<size_t>(4 * (t % 16))]; });
  c.out("%r67", [in](int t, u32, u32, u32) { return in[static_cast<size_t>(4 * (t % 16) + 3)]; });
  c.check(in);
}

// Ifs (a guarded branch forward over a few instructions, reconverging at its target), which
// native code runs through with the lanes that do not jump: taken by some lanes, by none and
// by all; with loads and stores, guards and shared memory inside; inside a loop; and where
// the warp's own entry, split by a branch the warp loop ran, reconverges at the same target
// (native code hands the branch back).
TEST(EmuFastPath, IfsWithLoadsStoresAndLoops) {
  FastPathCase c;
  auto odd = [](int t) { return (t & 1) != 0; };
  c.code(
      "  mov.u32 %r10, 7;\n  @%p1 bra A1;\n  ld.global.u32 %r10, [%rd5+256];\n"
      "  add.s32 %r10, %r10, 3;\nA1:\n"
      "  setp.gt.u32 %p2, %r2, 100;\n  mov.u32 %r11, 1;\n  @%p2 bra A2;\n"
      "  add.s32 %r11, %r11, %r3;\nA2:\n"
      "  setp.lt.u32 %p3, %r2, 100;\n  mov.u32 %r12, 5;\n  @%p3 bra A3;\n"
      "  add.s32 %r12, %r12, %r3;\nA3:\n"
      "  mov.u32 %r13, 0;\n  setp.lt.u32 %p4, %r2, 16;\n  @%p4 bra A4;\n"
      "  mov.u32 %r15, sh;\n  shl.b32 %r14, %r2, 2;\n  add.s32 %r16, %r15, %r14;\n"
      "  st.shared.u32 [%r16], %r3;\n  ld.shared.u32 %r13, [%r16];\n"
      "  @%p1 add.s32 %r13, %r13, 1;\nA4:\n");
  c.out("%r10", [=](int t, u32, u32 y, u32) { return odd(t) ? 7u : y + 3; });
  c.out("%r11", [](int, u32 x, u32, u32) { return x + 1; });
  c.out("%r12", [](int, u32, u32, u32) { return 5u; });
  c.out("%r13", [=](int t, u32 x, u32, u32) { return t < 16 ? 0u : x + (odd(t) ? 1u : 0u); });
  // membar keeps the outer if out of native code: warp 0 splits there (threads below 8
  // jump), and its other lanes reach the inner if, whose target is where they reconverge.
  c.code(
      "  mov.u32 %r20, 0;\n  setp.lt.u32 %p5, %r2, 8;\n  @%p5 bra A5;\n  membar.gl;\n"
      "  add.s32 %r20, %r20, %r3;\n  setp.lt.u32 %p6, %r2, 20;\n  @%p6 bra A5;\n"
      "  add.s32 %r20, %r20, 100;\nA5:\n  add.s32 %r20, %r20, 1;\n");
  c.out("%r20", [](int t, u32 x, u32, u32) { return t < 8 ? 1u : t < 20 ? x + 1 : x + 101; });
  // An if inside a loop: lanes skip the iterations of their own parity; the odd lanes store
  // their sum inside it, the even ones after the loop (result 5).
  c.code(
      "  mov.u32 %r30, 0;\n  mov.u32 %r31, 0;\nB6:\n  and.b32 %r32, %r31, 1;\n"
      "  setp.eq.u32 %p7, %r32, %r6;\n  @%p7 bra A6;\n  add.s32 %r30, %r30, %r31;\n"
      "  @%p1 st.global.u32 [%rd3+1280], %r30;\nA6:\n  add.s32 %r31, %r31, 1;\n"
      "  setp.lt.u32 %p8, %r31, 6;\n  @%p8 bra B6;\n  @!%p1 st.global.u32 [%rd3+1280], %r30;\n");
  c.want.push_back([=](int t, u32, u32, u32) { return odd(t) ? 6u : 9u; });
  // An if whose instructions write its own predicate: not run through.
  c.code(
      "  mov.u32 %r33, 2;\n  @%p1 bra A7;\n  setp.eq.u32 %p1, %r2, 0;\n"
      "  mul.lo.s32 %r33, %r33, %r3;\nA7:\n  selp.u32 %r34, 1, 0, %p1;\n  and.b32 %r6, %r2, 1;\n"
      "  setp.eq.u32 %p1, %r6, 1;\n");
  c.out("%r33", [=](int t, u32 x, u32, u32) { return odd(t) ? 2u : 2 * x; });
  c.out("%r34", [=](int t, u32, u32, u32) { return u32{odd(t) || t == 0}; });
  std::vector<u32> in = fastpath_inputs(303);
  for (auto& v : in) v = v % 1000;
  c.check(in);
}

// ld/st.shared of 32-bit words with every lane executing take one OR of the base lanes as
// their bounds check, read a broadcast address once, and copy through the base register
// itself: the broadcast and the gather, each into its own base register, sign and zero
// extension into 64-bit registers, a store from every lane to one word (the last lane
// wins), addresses whose OR passes the window's end while every lane is inside, a
// negative offset, and the addresses the listeners see.
TEST(EmuFastPath, SharedWordsBroadcastGatherAndBounds) {
  FastPathCase c;
  c.code(
      "  mov.u32 %r20, sh;\n  shl.b32 %r21, %r2, 2;\n  add.s32 %r22, %r20, %r21;\n"
      "  st.shared.u32 [%r22], %r3;\n  bar.sync 0;\n"
      "  add.s32 %r30, %r20, 20;\n  ld.shared.u32 %r31, [%r30];\n"
      "  ld.shared.u32 %r32, [%r30+8];\n  mov.u32 %r33, %r30;\n  ld.shared.u32 %r33, [%r33+4];\n"
      "  mov.u32 %r34, 63;\n  sub.s32 %r34, %r34, %r2;\n  shl.b32 %r34, %r34, 2;\n"
      "  add.s32 %r34, %r34, %r20;\n  ld.shared.u32 %r35, [%r34];\n  ld.shared.u32 %r34, [%r34];\n"
      "  ld.shared.s32 %rd50, [%r30];\n  ld.shared.u32 %rd51, [%r30];\n"
      "  ld.shared.s32 %rd52, [%r22];\n"
      "  shr.u64 %rd53, %rd50, 32;\n  cvt.u32.u64 %r36, %rd53;\n"
      "  shr.u64 %rd54, %rd51, 32;\n  cvt.u32.u64 %r37, %rd54;\n"
      "  shr.u64 %rd55, %rd52, 32;\n  cvt.u32.u64 %r38, %rd55;\n  cvt.u32.u64 %r39, %rd52;\n"
      "  cvt.u32.u64 %r29, %rd50;\n");
  auto sign = [](u32 v) { return static_cast<i32>(v) < 0 ? 0xffffffffu : 0u; };
  c.out("%r31", [](int, u32, u32, u32) { return 0x80000000u; });  // x of thread 5
  c.out("%r32", [](int, u32, u32, u32) { return 33u; });          // x of thread 7
  c.out("%r33", [](int, u32, u32, u32) { return 0xfffffff0u; });  // x of thread 6
  std::vector<u32> in = fastpath_inputs(303);
  auto x_of = [in](int t) { return in[static_cast<size_t>(t)]; };
  c.out("%r35", [=](int t, u32, u32, u32) { return x_of(63 - t); });
  c.out("%r34", [=](int t, u32, u32, u32) { return x_of(63 - t); });
  c.out("%r36", [](int, u32, u32, u32) { return 0xffffffffu; });
  c.out("%r29", [](int, u32, u32, u32) { return 0x80000000u; });
  c.out("%r37", [](int, u32, u32, u32) { return 0u; });
  c.out("%r38", [=](int, u32 x, u32, u32) { return sign(x); });
  c.out("%r39", [](int, u32 x, u32, u32) { return x; });
  // Every lane of both warps stores to sh[55]: warp 1 runs after warp 0, lane 31 last.
  c.code(
      "  bar.sync 0;\n  st.shared.u32 [%r30+200], %r2;\n  bar.sync 0;\n"
      "  ld.shared.u32 %r40, [%r30+200];\n");
  c.out("%r40", [](int, u32, u32, u32) { return 63u; });
  // Odd lanes read sh[t], even ones sh2[(t / 2) % 16] (bytes 256..319): the OR of the
  // addresses passes the 320-byte window, every lane is inside.
  c.code(
      "  mov.u32 %r42, sh2;\n  setp.lt.u32 %p10, %r2, 16;\n  mul.lo.s32 %r45, %r2, 7;\n"
      "  add.s32 %r45, %r45, 1;\n  add.s32 %r46, %r21, %r42;\n  @%p10 st.shared.u32 [%r46], %r45;\n"
      "  bar.sync 0;\n  shr.u32 %r43, %r2, 1;\n  and.b32 %r43, %r43, 15;\n  shl.b32 %r43, %r43, "
      "2;\n"
      "  add.s32 %r43, %r43, %r42;\n  selp.u32 %r44, %r22, %r43, %p1;\n"
      "  ld.shared.u32 %r47, [%r44];\n  add.s32 %r48, %r22, 4;\n  ld.shared.u32 %r49, "
      "[%r48+-4];\n");
  auto word = [=](int t) { return t == 55 ? 63u : x_of(t); };
  c.out("%r47", [=](int t, u32, u32, u32) {
    return (t & 1) ? word(t) : static_cast<u32>(((t >> 1) & 15) * 7 + 1);
  });
  c.out("%r49", [=](int t, u32, u32, u32) { return word(t); });
  Capture cap;
  c.check(in, &cap);
  // What the listeners saw: whole-warp shared requests of 4 bytes, counted by the window
  // offset each lane of each warp gave.
  auto requests = [&](bankcheck::model::Op op, std::function<u64(int t)> addr_of) {
    int n = 0;
    for (const auto& e : cap.events) {
      if (e.space != ptx::Space::Shared || e.op != op || e.mask != 0xffffffffu || e.width != 4)
        continue;
      bool all = true;
      for (int l = 0; l < 32; ++l) all = all && e.addr[l] == addr_of(e.warp * 32 + l);
      n += all;
    }
    return n;
  };
  using bankcheck::model::Op;
  EXPECT_EQ(requests(Op::Load, [](int) { return u64{20}; }), 6);  // %r31, %rd50, %rd51
  EXPECT_EQ(requests(Op::Load, [](int) { return u64{28}; }), 2);
  EXPECT_EQ(requests(Op::Load, [](int) { return u64{24}; }), 2);
  EXPECT_EQ(requests(Op::Load, [](int t) { return u64{4} * static_cast<u64>(63 - t); }), 4);
  EXPECT_EQ(requests(Op::Store, [](int t) { return u64{4} * static_cast<u64>(t); }), 2);
  EXPECT_EQ(requests(Op::Load, [](int t) { return u64{4} * static_cast<u64>(t); }), 4);
  EXPECT_EQ(requests(Op::Store, [](int) { return u64{220}; }), 2);
  EXPECT_EQ(requests(Op::Load,
                     [](int t) {
                       return (t & 1) ? u64{4} * static_cast<u64>(t)
                                      : 256 + u64{4} * static_cast<u64>((t >> 1) & 15);
                     }),
            2);
}

// mul.wide.s32 and cvt.s64.s32 take the unsigned vector forms when no lane's low word is
// negative: both forms against the reference, a warp with one negative lane (warp 1, at
// thread 40) and one without, a negative immediate, idle lanes under a guard, and the
// a register loaded with sign extension.
TEST(EmuFastPath, WideningSignedWithoutNegativeLanes) {
  FastPathCase c;
  c.code(
      "  mul.wide.s32 %rd10, %r3, %r4;\n  mul.wide.s32 %rd11, %r3, 32768;\n"
      "  mul.wide.s32 %rd12, %r3, -4;\n  cvt.s64.s32 %rd13, %r3;\n  mov.u64 %rd14, 77;\n"
      "  @%p1 mul.wide.s32 %rd14, %r4, %r5;\n");
  auto s = [](u32 v) { return i64{static_cast<i32>(v)}; };
  auto lo = [](i64 v) { return static_cast<u32>(static_cast<u64>(v)); };
  auto hi = [](i64 v) { return static_cast<u32>(static_cast<u64>(v) >> 32); };
  const std::pair<const char*, std::function<i64(int, u32, u32, u32)>> wide[] = {
      {"%rd10", [=](int, u32 x, u32 y, u32) { return s(x) * s(y); }},
      {"%rd11", [=](int, u32 x, u32, u32) { return s(x) * 32768; }},
      {"%rd12", [=](int, u32 x, u32, u32) { return s(x) * -4; }},
      {"%rd13", [=](int, u32 x, u32, u32) { return s(x); }},
      {"%rd14", [=](int t, u32, u32 y, u32 z) { return (t & 1) ? s(y) * s(z) : i64{77}; }},
  };
  int n = 0;
  for (const auto& [reg, f] : wide) {
    const std::string r = std::to_string(60 + n++);
    const std::string r2 = std::to_string(60 + n++);
    c.code("  cvt.u32.u64 %r" + r + ", " + reg + ";\n  shr.u64 %rd40, " + reg +
           ", 32;\n  cvt.u32.u64 %r" + r2 + ", %rd40;\n");
    c.out("%r" + r, [=, f = f](int t, u32 x, u32 y, u32 z) { return lo(f(t, x, y, z)); });
    c.out("%r" + r2, [=, f = f](int t, u32 x, u32 y, u32 z) { return hi(f(t, x, y, z)); });
  }
  // A 32-bit register loaded with sign extension (thread 40 below: its slot's upper half
  // all ones) multiplies by its low word.
  c.code(
      "  mov.u32 %r20, sh;\n  shl.b32 %r21, %r2, 2;\n  add.s32 %r22, %r20, %r21;\n"
      "  st.shared.u32 [%r22], %r3;\n  ld.shared.s32 %r23, [%r22];\n"
      "  mul.wide.s32 %rd15, %r23, 3;\n  shr.u64 %rd41, %rd15, 32;\n  cvt.u32.u64 %r24, %rd41;\n");
  c.out("%r24", [=](int, u32 x, u32, u32) { return hi(s(x) * 3); });
  std::vector<u32> in = fastpath_inputs(304);
  for (auto& v : in) v &= 0x7fffffffu;
  c.check(in);
  in[40] |= 0x80000000u;      // thread 40's x
  in[64 + 3] |= 0x80000000u;  // thread 3's y
  c.check(in);
}

// Shared addresses are 32 bits: a base register below the window plus a positive offset
// wraps back into it (nvcc's [%r4+68] with %r4 = 0xFFFFFFD0), on every path that takes an
// address: ld/st (the micro-ops and the reference), vectors, a 64-bit base register, atom,
// cp.async's shared destination and ldmatrix.
TEST(EmuFastPath, SharedAddressesWrapIn32Bits) {
  FastPathCase c;
  const std::vector<u32> in = fastpath_inputs(29);
  c.code("  shl.b32 %r20, %r2, 2;\n  add.s32 %r21, %r20, -48;\n");  // 4t - 48: below 0 for t < 12
  c.code("  st.shared.u32 [%r21+48], %r3;\n  ld.shared.u32 %r22, [%r21+48];\n");
  c.out("%r22", [](int, u32 x, u32, u32) { return x; });
  // A pair: lanes 2i and 2i + 1 read words 2i and 2i + 1 after both are stored.
  c.code(
      "  bar.sync 0;\n  and.b32 %r23, %r20, 248;\n  add.s32 %r24, %r23, -1000;\n"
      "  ld.shared.v2.u32 {%r25, %r26}, [%r24+1000];\n");
  c.out("%r25", [&](int t, u32, u32, u32) { return in[static_cast<size_t>(t & ~1)]; });
  c.out("%r26", [&](int t, u32, u32, u32) { return in[static_cast<size_t>(t | 1)]; });
  c.code("  cvt.u64.u32 %rd10, %r21;\n  ld.shared.u32 %r27, [%rd10+48];\n");
  c.out("%r27", [](int, u32 x, u32, u32) { return x; });
  c.code("  atom.shared.add.u32 %r28, [%r21+48], 1;\n  ld.shared.u32 %r29, [%r21+48];\n");
  c.out("%r28", [](int, u32 x, u32, u32) { return x; });
  c.out("%r29", [](int, u32 x, u32, u32) { return x + 1; });
  c.code(
      "  cp.async.ca.shared.global [%r21+48], [%rd5+256], 4;\n  cp.async.wait_all;\n"
      "  ld.shared.u32 %r30, [%r21+48];\n");
  c.out("%r30", [](int, u32, u32 y, u32) { return y; });
  // ldmatrix .x1: lane l gives row l % 8 (16 bytes) and receives word l of the 8x8 b16 tile.
  c.code(
      "  bar.sync 0;\n  and.b32 %r31, %r2, 7;\n  shl.b32 %r32, %r31, 4;\n"
      "  add.s32 %r33, %r32, -4096;\n"
      "  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r34}, [%r33+4096];\n");
  c.out("%r34", [&](int t, u32, u32, u32) { return in[64 + static_cast<size_t>(t % 32)]; });
  c.check(in);
}

// movmatrix.sync.aligned.m8n8.trans.b16: each warp's 8x8 matrix of b16, element (r, c) in
// lane 4r + c/2 (half c % 2, the low half for even c), comes back transposed: lane l
// receives elements (2(l%4), l/4) and (2(l%4)+1, l/4) (the PTX ISA's fragment layout).
TEST(EmuFastPath, MovmatrixTransposes) {
  FastPathCase c;
  const std::vector<u32> in = fastpath_inputs(31);
  c.code("  movmatrix.sync.aligned.m8n8.trans.b16 %r40, %r3;\n");
  c.out("%r40", [&](int t, u32, u32, u32) {
    const int base = t - t % 32, l = t % 32;
    const auto element = [&](int r, int col) {
      return (in[static_cast<size_t>(base + 4 * r + col / 2)] >> (16 * (col % 2))) & 0xFFFFu;
    };
    return element(2 * (l % 4), l / 4) | (element(2 * (l % 4) + 1, l / 4) << 16);
  });
  c.check(in);
}

// Named barriers with register operands: warp 1 stores its values and arrives at barrier 1
// (bar.arrive %r41, %r42: 64 threads) without waiting; warp 0 waits there (bar.sync %r41,
// %r42), then reads what warp 1 stored. barrier.sync 2, 64 and bar.sync 0 still meet.
TEST(EmuFastPath, NamedBarriersWithRegisterOperands) {
  FastPathCase c;
  const std::vector<u32> in = fastpath_inputs(37);
  c.code(R"(  shr.u32 %r43, %r2, 5;
  setp.eq.u32 %p10, %r43, 1;
  and.b32 %r44, %r2, 31;
  shl.b32 %r45, %r44, 2;
  mov.u32 %r41, 1;
  mov.u32 %r42, 64;
  mov.u32 %r46, 7;
  @!%p10 bra $WAIT;
  st.shared.u32 [%r45], %r3;
  bar.arrive %r41, %r42;
  bra $DONE;
$WAIT:
  bar.sync %r41, %r42;
  ld.shared.u32 %r46, [%r45];
$DONE:
  barrier.sync.aligned 2, 64;
  bar.sync 0;
)");
  c.out("%r46",
        [&](int t, u32, u32, u32) { return t < 32 ? in[static_cast<size_t>(t + 32)] : 7u; });
  c.check(in);
}

// A barrier whose thread count is never reached is a deadlock, not a release.
TEST(EmuFastPath, NamedBarrierShortOfItsCountDeadlocks) {
  FastPathCase c;
  c.code("  bar.sync 3, 96;\n");
  c.out("%r3", [](int, u32 x, u32, u32) { return x; });
  try {
    c.check(fastpath_inputs(41));
    ADD_FAILURE() << "a barrier waiting for 96 threads of 64 was released";
  } catch (const emu::EmuError& e) {
    EXPECT_EQ(e.kind, emu::EmuError::Kind::Barrier);
    EXPECT_NE(std::string(e.what()).find("barrier 3 for 96 threads"), std::string::npos)
        << e.what();
  }
}

// atom/red .add.noftz on f16, f16x2, bf16, bf16x2 (shared and global): each 16-bit half
// rounded to nearest even on its own, subnormals kept (.noftz). Values by hand:
// - bf16x2: 64 lanes add (hi 0.5, lo 1.0) to (hi 1.0, lo 2.0): lane t sees hi 1 + t/2,
//   lo 2 + t (exact in bf16), and the word ends as (33.0, 66.0) = 0x4204_4284.
// - f16 at 2048 (ulp 2): + 1.0 is a tie, stays 2048 (0x6800, even); + 3.0 is a tie between
//   2050 and 2052, goes to 2052 (0x6802, even). Subnormal 0x0001 + 0x0001 = 0x0002.
// - f16x2 on global: (1.0, 2.0) + (1.0, 2.0) = (2.0, 4.0) = 0x4000_4400.
TEST(EmuFastPath, HalfPrecisionAtomicsNoftz) {
  FastPathCase c;
  const std::vector<u32> in = fastpath_inputs(43);
  const auto bf16 = [](float f) { return std::bit_cast<u32>(f) >> 16; };
  c.code(R"(  mov.b32 %r50, 0x3F804000;
  mov.b32 %r58, 0x3F003F80;
  setp.eq.u32 %p11, %r2, 0;
  @%p11 st.shared.u32 [sh+16], %r50;
  bar.sync 0;
  atom.shared.add.noftz.bf16x2 %r51, [sh+16], %r58;
  bar.sync 0;
  ld.shared.u32 %r52, [sh+16];
  mov.b16 %rs1, 0x6800;
  mov.b16 %rs2, 0x3C00;
  mov.b16 %rs3, 0x4200;
  mov.b16 %rs4, 0x0001;
  mov.b16 %rs5, 0x3F80;
  @%p11 st.shared.u16 [sh+32], %rs1;
  @%p11 st.shared.u16 [sh+40], %rs1;
  @%p11 st.shared.u16 [sh+34], %rs4;
  @%p11 st.shared.u16 [sh+36], 0;
  @%p11 atom.shared.add.noftz.f16 %rs6, [sh+32], %rs2;
  @%p11 red.shared.add.noftz.f16 [sh+40], %rs3;
  @%p11 red.shared.add.noftz.f16 [sh+34], %rs4;
  @%p11 atom.shared.add.noftz.bf16 %rs7, [sh+36], %rs5;
  bar.sync 0;
  ld.shared.u16 %r53, [sh+32];
  ld.shared.u16 %r54, [sh+40];
  ld.shared.u16 %r55, [sh+34];
  ld.shared.u16 %r56, [sh+36];
)");
  c.out("%r51", [&](int t, u32, u32, u32) {
    return (bf16(1.0f + 0.5f * static_cast<float>(t)) << 16) | bf16(2.0f + static_cast<float>(t));
  });
  c.out("%r52", [](int, u32, u32, u32) { return 0x42044284u; });
  c.out("%r53", [](int, u32, u32, u32) { return 0x6800u; });
  c.out("%r54", [](int, u32, u32, u32) { return 0x6802u; });
  c.out("%r55", [](int, u32, u32, u32) { return 0x0002u; });
  c.out("%r56", [](int, u32, u32, u32) { return 0x3F80u; });     // 0 + 1.0
  const std::string slot = std::to_string(256 * c.want.size());  // the next result's, reused
  std::string global = "  mov.b32 %r59, 0x3C004000;\n  st.global.u32 [%rd3+";
  global += slot;
  global += "], %r59;\n  red.global.add.noftz.f16x2 [%rd3+";
  global += slot;
  global += "], %r59;\n  ld.global.u32 %r57, [%rd3+";
  global += slot;
  global += "];\n";
  c.code(global);
  c.out("%r57", [](int, u32, u32, u32) { return 0x40004400u; });
  c.check(in);
}

// The whole-warp shared path stops with the same errors as the lane-by-lane one: an
// offset past the window, a broadcast address one word past it, one lane past it, a
// misaligned offset, and the same for stores.
TEST(EmuFastPath, SharedWordErrors) {
  auto kind_of = [](const std::string& body) {
    try {
      run_fastpaths(
          "  mov.u32 %r20, sh;\n  shl.b32 %r21, %r2, 2;\n  add.s32 %r22, %r20, %r21;\n" + body,
          std::vector<u32>(192, 0), 1);
    } catch (const emu::EmuError& e) {
      return static_cast<int>(e.kind);
    }
    return -1;
  };
  const int oob = static_cast<int>(emu::EmuError::Kind::OutOfBounds);
  const int mis = static_cast<int>(emu::EmuError::Kind::Misaligned);
  EXPECT_EQ(kind_of("  ld.shared.u32 %r30, [%r20+320];\n"), oob);
  EXPECT_EQ(kind_of("  add.s32 %r23, %r20, 320;\n  ld.shared.u32 %r30, [%r23];\n"), oob);
  EXPECT_EQ(kind_of("  ld.shared.u32 %r30, [%r22+68];\n"), oob);  // thread 63: byte 320
  EXPECT_EQ(kind_of("  ld.shared.u32 %r30, [%r22+64];\n"), -1);   // thread 63: byte 316
  EXPECT_EQ(kind_of("  ld.shared.u32 %r30, [%r20+-4];\n"), oob);
  // A 32-bit base below the window plus an offset back into it: the address is computed
  // in 32 bits and wraps, as on the GPU (nvcc's [%r4+68] tile addressing).
  EXPECT_EQ(kind_of("  sub.s32 %r23, %r22, 68;\n  ld.shared.u32 %r30, [%r23+68];\n"), -1);
  EXPECT_EQ(kind_of("  sub.s32 %r23, %r22, 68;\n  st.shared.u32 [%r23+68], %r2;\n"), -1);
  EXPECT_EQ(kind_of("  ld.shared.u32 %r30, [%r22+2];\n"), mis);
  EXPECT_EQ(kind_of("  ld.shared.u32 %r30, [%r20+2];\n"), mis);
  EXPECT_EQ(kind_of("  st.shared.u32 [%r22+68], %r2;\n"), oob);
  EXPECT_EQ(kind_of("  st.shared.u32 [%r20+320], %r2;\n"), oob);
  EXPECT_EQ(kind_of("  st.shared.u32 [%r22+1], %r2;\n"), mis);
}

TEST(EmuFastPath, FmaFormsAreFused) {
  // Both forms behind fma_f32_lanes against the host's fmaf on random and hard operands.
  std::mt19937_64 rng(11);
  int hardware_checked = 0;
  for (int round = 0; round < 4000; ++round) {
    u64 a[32], b[32], c[32], p[32], h[32];
    for (int l = 0; l < 32; ++l) {
      const u64 r = rng();
      const u32 x = static_cast<u32>(r), y = static_cast<u32>(r >> 32);
      if (round % 2 == 0) {  // products that nearly cancel the addend
        const float fx = std::bit_cast<float>((x & 0x807fffffu) | 0x3f000000u);
        const float fy = std::bit_cast<float>((y & 0x807fffffu) | 0x3f000000u);
        a[l] = std::bit_cast<u32>(fx);
        b[l] = std::bit_cast<u32>(fy);
        const float prod = fx * fy;
        c[l] = std::bit_cast<u32>(-prod + (l % 3 == 0 ? std::ldexp(prod, -25) : 0.0f));
      } else {  // any bit patterns: NaNs, infinities, subnormals; the high halves ignored
        a[l] = x | (r << 32);
        b[l] = y | (r & ~u64{0xffffffff});
        c[l] = rng();
      }
    }
    emu::detail::fma_f32_lanes_portable(p, a, b, c);
    const bool hw = emu::detail::fma_f32_lanes_hardware(h, a, b, c);
    hardware_checked += hw;
    for (int l = 0; l < 32; ++l) {
      const u64 want =
          gpu_bits(std::fma(f32_of(static_cast<u32>(a[l])), f32_of(static_cast<u32>(b[l])),
                            f32_of(static_cast<u32>(c[l]))));
      ASSERT_EQ(p[l], want) << "portable fma of " << hex(static_cast<u32>(a[l])) << " "
                            << hex(static_cast<u32>(b[l])) << " " << hex(static_cast<u32>(c[l]));
      if (hw) {
        ASSERT_EQ(h[l], want) << "hardware fma";
      }
    }
  }
  // The operands may be the output.
  u64 x[32], y[32];
  for (int l = 0; l < 32; ++l) x[l] = y[l] = std::bit_cast<u32>(1.5f + static_cast<float>(l));
  emu::fma_f32_lanes(x, x, x, x);
  for (int l = 0; l < 32; ++l) {
    const float v = f32_of(static_cast<u32>(y[l]));
    EXPECT_EQ(x[l], gpu_bits(std::fma(v, v, v)));
  }
  RecordProperty("hardware_fma_rounds", hardware_checked);
}

// ---------------------------------------------------------------- tensor cores
// tests/data/emu/tensor.cu: ldmatrix/stmatrix data movement (exact), mma.sync against a
// float64 reference, cp.async copies with zero fill (exact).

namespace {

float tc_half(u16 h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const float v = e == 0 ? std::ldexp(static_cast<float>(m), -24)
                         : std::ldexp(static_cast<float>(m | 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}
float tc_bf16(u16 h) {
  const u32 b = static_cast<u32>(h) << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
// Random f16 (or bf16) patterns of magnitude 2^-3 .. 2^2, either sign.
std::vector<u16> tc_values(std::size_t n, std::uint64_t seed, bool bf16) {
  std::mt19937_64 rng(seed);
  std::vector<u16> v(n);
  for (auto& x : v) {
    const u32 r = static_cast<u32>(rng());
    if (bf16)
      x = static_cast<u16>(((r & 1) << 15) | ((124 + (r >> 1) % 6) << 7) | ((r >> 8) & 127));
    else
      x = static_cast<u16>(((r & 1) << 15) | ((12 + (r >> 1) % 6) << 10) | ((r >> 8) & 1023));
  }
  return v;
}
// |got - want| within 2^-20 of the sum of the terms' magnitudes: the H100 keeps fewer
// bits than float64 inside the sum, the emulator rounds once; both are within this.
void tc_expect_close(float got, double want, double scale, const std::string& what) {
  EXPECT_LE(std::fabs(static_cast<double>(got) - want), std::ldexp(scale, -20) + 1e-30)
      << what << ": got " << got << ", want " << want;
}

}  // namespace

TEST(EmuTensor, LdmatrixStmatrixMoveTheIsaFragments) {
  REQUIRE_NVCC();
  const auto in = random_ints<u16>(256, 901);
  Launch L;
  L.args = {{"in", file_arg(in)}, {"out", zeros(4 * 11 * 32)}, {"back", zeros(2 * 512)}};
  const Result r = run_k("tensor.cu", "ldmatrix_ops", L);
  const auto out = r.get<u32>("out", 11 * 32);
  const auto back = r.get<u16>("back", 512);
  // Matrix m's row r is tile row (r * 5 + 3) % 8 of matrix m.
  const auto M = [&](int m, int row, int col) {
    return in[m * 64 + ((row * 5 + 3) % 8) * 8 + col];
  };
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    const auto frag = [&](int m, bool trans) {
      return trans
                 ? static_cast<u32>(M(m, 2 * t, g)) | (static_cast<u32>(M(m, 2 * t + 1, g)) << 16)
                 : static_cast<u32>(M(m, g, 2 * t)) | (static_cast<u32>(M(m, g, 2 * t + 1)) << 16);
    };
    const u32 want[11] = {frag(0, false), frag(0, false), frag(1, false), frag(0, false),
                          frag(1, false), frag(2, false), frag(3, false), frag(0, true),
                          frag(1, true),  frag(2, true),  frag(3, true)};
    for (int k = 0; k < 11; ++k)
      EXPECT_EQ(out[static_cast<size_t>(k * 32 + l)], want[k]) << "register " << k << " lane " << l;
  }
  // stmatrix writes the registers back where ldmatrix read them from (rows in lane
  // order here); .trans writes each matrix transposed.
  for (int m = 0; m < 4; ++m)
    for (int row = 0; row < 8; ++row)
      for (int col = 0; col < 8; ++col) {
        EXPECT_EQ(back[static_cast<size_t>(m * 64 + row * 8 + col)], M(m, row, col));
        EXPECT_EQ(back[static_cast<size_t>(256 + m * 64 + row * 8 + col)], M(m, col, row));
      }
  // One Matrix event per instruction: four loads and two stores.
  EXPECT_EQ(r.run.report.sites.size() >= 6, true);
}

TEST(EmuTensor, MmaM16n8k16F16AndBf16WithF32) {
  REQUIRE_NVCC();
  for (const bool bf16 : {false, true}) {
    const auto A = tc_values(256, 910 + bf16, bf16), Bt = tc_values(128, 920 + bf16, bf16);
    std::vector<float> C(128);
    std::mt19937_64 rng(930);
    for (auto& c : C) c = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 64.0f;
    Launch L;
    L.args = {{"A", file_arg(A)}, {"Bt", file_arg(Bt)}, {"C", file_arg(C)}, {"D", zeros(4 * 128)}};
    const Result r = run_k("tensor.cu", bf16 ? "mma_bf16_f32" : "mma_f16_f32", L);
    const auto D = r.get<float>("D", 128);
    const auto val = [&](u16 h) { return bf16 ? tc_bf16(h) : tc_half(h); };
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) {
        double s = C[static_cast<size_t>(i * 8 + j)], mag = std::fabs(s);
        for (int k = 0; k < 16; ++k) {
          const double p = static_cast<double>(val(A[static_cast<size_t>(i * 16 + k)])) *
                           val(Bt[static_cast<size_t>(j * 16 + k)]);
          s += p;
          mag += std::fabs(p);
        }
        tc_expect_close(D[static_cast<size_t>(i * 8 + j)], s, mag,
                        (bf16 ? "bf16 " : "f16 ") + std::to_string(i) + "," + std::to_string(j));
      }
  }
}

TEST(EmuTensor, MmaF16AccumulatorsAndK8) {
  REQUIRE_NVCC();
  const auto A = tc_values(256, 940, false), Bt = tc_values(128, 941, false),
             C = tc_values(128, 942, false);
  Launch L;
  L.args = {{"A", file_arg(A)},
            {"Bt", file_arg(Bt)},
            {"C", file_arg(C)},
            {"D", zeros(2 * 128)},
            {"D8", zeros(4 * 128)}};
  const Result r = run_k("tensor.cu", "mma_f16_f16", L);
  const auto D = r.get<u16>("D", 128);
  const auto D8 = r.get<float>("D8", 128);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double s = tc_half(C[static_cast<size_t>(i * 8 + j)]), s8 = 0, mag = std::fabs(s), mag8 = 0;
      for (int k = 0; k < 16; ++k) {
        const double p = static_cast<double>(tc_half(A[static_cast<size_t>(i * 16 + k)])) *
                         tc_half(Bt[static_cast<size_t>(j * 16 + k)]);
        s += p;
        mag += std::fabs(p);
        if (k < 8) {
          s8 += p;
          mag8 += std::fabs(p);
        }
      }
      // f16 results: within half an f16 ulp of the value, plus the sum's slack.
      const double got = tc_half(D[static_cast<size_t>(i * 8 + j)]);
      EXPECT_LE(std::fabs(got - s), std::ldexp(std::fabs(s), -11) + std::ldexp(mag, -20) + 1e-7)
          << "f16 " << i << "," << j;
      tc_expect_close(D8[static_cast<size_t>(i * 8 + j)], s8, mag8, "k8");
    }
}

TEST(EmuTensor, MmaTf32DropsTheLow13Bits) {
  REQUIRE_NVCC();
  std::mt19937_64 rng(950);
  std::vector<float> A(128), Bt(64);
  for (auto& x : A) x = std::ldexp(static_cast<float>(rng() % 2000001) - 1e6f, -18);
  for (auto& x : Bt) x = std::ldexp(static_cast<float>(rng() % 2000001) - 1e6f, -18);
  Launch L;
  L.args = {
      {"A", file_arg(A)}, {"Bt", file_arg(Bt)}, {"D", zeros(4 * 128)}, {"D4", zeros(4 * 128)}};
  const Result r = run_k("tensor.cu", "mma_tf32", L);
  const auto D = r.get<float>("D", 128), D4 = r.get<float>("D4", 128);
  const auto tf32 = [](float f) {
    u32 b;
    std::memcpy(&b, &f, 4);
    b &= 0xFFFFE000u;
    std::memcpy(&f, &b, 4);
    return static_cast<double>(f);
  };
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double s = 0, s4 = 0, mag = 0, mag4 = 0;
      for (int k = 0; k < 8; ++k) {
        const double p =
            tf32(A[static_cast<size_t>(i * 8 + k)]) * tf32(Bt[static_cast<size_t>(j * 8 + k)]);
        s += p;
        mag += std::fabs(p);
        if (k < 4) {
          s4 += p;
          mag4 += std::fabs(p);
        }
      }
      tc_expect_close(D[static_cast<size_t>(i * 8 + j)], s, mag, "tf32 k8");
      tc_expect_close(D4[static_cast<size_t>(i * 8 + j)], s4, mag4, "tf32 k4");
    }
}

TEST(EmuTensor, MmaS8U8IsExact) {
  REQUIRE_NVCC();
  const auto A = random_ints<u32>(128, 960), Bt = random_ints<u32>(64, 961);
  const auto C = random_ints<u32>(128, 962);
  Launch L;
  L.args = {{"A", file_arg(A)}, {"Bt", file_arg(Bt)}, {"C", file_arg(C)}, {"D", zeros(4 * 128)}};
  const Result r = run_k("tensor.cu", "mma_s8", L);
  const auto D = r.get<u32>("D", 128);
  const auto byte = [](const std::vector<u32>& v, int i) {
    return static_cast<u8>(v[static_cast<size_t>(i / 4)] >> (8 * (i % 4)));
  };
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      u32 s = C[static_cast<size_t>(i * 8 + j)];  // wraps, as the s32 accumulator does
      for (int k = 0; k < 32; ++k)
        s += static_cast<u32>(static_cast<int>(static_cast<std::int8_t>(byte(A, i * 32 + k))) *
                              static_cast<int>(byte(Bt, j * 32 + k)));
      EXPECT_EQ(D[static_cast<size_t>(i * 8 + j)], s) << i << "," << j;
    }
}

TEST(EmuTensor, CpAsyncCopiesAndZeroFills) {
  REQUIRE_NVCC();
  const auto src = random_ints<u8>(4096, 970);
  Launch L;
  L.block = {64, 1, 1};
  L.args = {{"src", file_arg(src)}, {"out", zeros(4096)}};
  const Result r = run_k("tensor.cu", "cp_async_ops", L);
  const auto out = r.get<u8>("out", 4096);
  for (int t = 0; t < 64; ++t) {
    for (int b = 0; b < 4; ++b) EXPECT_EQ(out[t * 4 + b], src[t * 4 + b]);
    for (int b = 0; b < 8; ++b)
      EXPECT_EQ(out[1024 + t * 8 + b], b < t % 9 ? src[1024 + t * 8 + b] : 0) << t << " " << b;
    for (int b = 0; b < 16; ++b) {
      EXPECT_EQ(out[2048 + t * 16 + b], src[2048 + t * 16 + b]);
      EXPECT_EQ(out[3072 + t * 16 + b], b < t % 17 ? src[3072 + t * 16 + b] : 0) << t << " " << b;
    }
  }
}

// ---------------------------------------------------------------- shared memory never written

namespace unwritten {

// The source lines (main file) whose loads read shared bytes no thread had written, from a
// run with the fast tier and one by the reference semantics alone, which must agree; and the
// notes of the fast run must name each line once.
std::vector<int> lines(const std::string& kernel, const Launch& L) {
  const Result r = run_k("unwritten.cu", kernel, L);
  std::vector<int> fast;
  for (const auto& u : r.run.report.unwritten_shared_reads) {
    EXPECT_EQ(u.file, r.loaded->program.main_file);
    fast.push_back(u.line);
  }
  std::vector<int> noted;
  for (const auto& n : r.run.report.notes)
    if (n.message.find("no thread of the CTA wrote before") != std::string::npos)
      noted.push_back(n.line);
  EXPECT_EQ(noted, fast) << kernel << ": one note per line";
  emu::Emulator::Options o;
  o.fast = false;
  const Result ref = run_k("unwritten.cu", kernel, L, o);
  std::vector<int> slow;
  for (const auto& u : ref.run.report.unwritten_shared_reads) slow.push_back(u.line);
  EXPECT_EQ(fast, slow) << kernel << ": the tiers disagree";
  return fast;
}

int at(const std::string& marker) { return line_of("unwritten.cu", marker); }

}  // namespace unwritten

TEST(EmuUnwritten, KernelsThatWriteFirstAreNotReported) {
  REQUIRE_NVCC();
  const auto in = random_ints<i32>(128, 990);
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(512)}, {"in", file_arg(in)}};
  EXPECT_EQ(unwritten::lines("writes_first", L), std::vector<int>{});
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(256)}, {"in", file_arg(in)}, {"g", zeros(256)}};
  EXPECT_EQ(unwritten::lines("generic_written", L), std::vector<int>{});
  L.block = {32, 1, 1};
  L.args = {{"out", zeros(128)}, {"in", file_arg(random_ints<u32>(128, 991))}};
  EXPECT_EQ(unwritten::lines("async_copied", L), std::vector<int>{});
}

TEST(EmuUnwritten, ReadsOfBytesNeverWrittenAreReportedOncePerLine) {
  REQUIRE_NVCC();
  const auto in = random_ints<i32>(128, 992);
  Launch L;
  L.block = {128, 1, 1};
  L.args = {{"out", zeros(512)}, {"in", file_arg(in)}};
  // Half the block reads words only the other half's ... no thread wrote.
  EXPECT_EQ(unwritten::lines("half_written", L), std::vector<int>{unwritten::at("MARK_HALF")});
  // A byte written, its word read.
  L.block = {32, 1, 1};
  L.args = {{"out", zeros(128)}, {"in", file_arg(random_ints<i8>(32, 993))}};
  EXPECT_EQ(unwritten::lines("partial_word", L), std::vector<int>{unwritten::at("MARK_PARTIAL")});
  // Four loads of an unrolled loop on one line, three of them unwritten: one line.
  L.block = {64, 1, 1};
  L.args = {{"out", zeros(256)}, {"in", file_arg(random_floats(64, 994))}};
  EXPECT_EQ(unwritten::lines("unrolled", L), std::vector<int>{unwritten::at("MARK_UNROLLED")});
  // Dynamic shared memory: the written half read back is clean, the word after it is not.
  const int n = 512;
  L.block = {64, 1, 1};
  L.smem = 4 * n;
  L.args = {{"out", zeros(4 * n)}, {"in", file_arg(random_floats(n, 995))}, {"n", "512"}};
  EXPECT_EQ(unwritten::lines("dynamic", L), std::vector<int>{unwritten::at("MARK_DYN_BAD")});
}

TEST(EmuUnwritten, AtomicsOnBinsNeverZeroedReadThem) {
  REQUIRE_NVCC();
  const auto data = random_ints<u8>(2 * 256, 996);
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {256, 1, 1};
  L.args = {{"out", zeros(4 * 512)}, {"data", file_arg(data)}, {"zero_first", "0"}};
  // The atomics read bins never written; the final read of the bins a CTA's data never hit
  // reads them too.
  const auto lines = unwritten::lines("histogram", L);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), unwritten::at("MARK_ATOMIC"));
  for (int l : lines)
    EXPECT_TRUE(l == unwritten::at("MARK_ATOMIC") || l == unwritten::at("MARK_BINS"));
  L.args.back().second = "1";
  EXPECT_EQ(unwritten::lines("histogram", L), std::vector<int>{});
}

TEST(EmuUnwritten, EachCtaStartsUnwritten) {
  REQUIRE_NVCC();
  const auto in = random_ints<i32>(64, 997);
  Launch L;
  L.block = {64, 1, 1};
  L.threads = 1;  // one emulator runs every CTA, CTA 0 first
  L.args = {{"out", zeros(4 * 64 * 3)}, {"in", file_arg(in)}};
  EXPECT_EQ(unwritten::lines("first_cta_writes", L), std::vector<int>{});  // CTA 0 alone
  L.grid = {3, 1, 1};
  EXPECT_EQ(unwritten::lines("first_cta_writes", L),
            std::vector<int>{unwritten::at("MARK_FIRST_CTA")});
}

// Device printf's text: each conversion as the host's printf formats it, its argument at the
// next multiple of its size in the buffer nvcc packs (ints and chars 4 bytes, long longs,
// pointers and doubles 8; floats promoted), and the number of arguments read returned.
TEST(DevicePrintf, FormatsEachConversionFromTheAlignedBuffer) {
  std::vector<std::uint8_t> buf(64, 0);
  const auto put = [&](std::size_t at, auto v) { std::memcpy(buf.data() + at, &v, sizeof v); };
  put(0, std::int32_t{-3});
  put(4, std::uint32_t{0xbeef});
  put(8, 1.5);                               // a float argument, promoted
  put(16, std::uint64_t{0x1000});            // %s: a device address
  put(24, std::int32_t{'z'});
  put(32, std::int64_t{-1234567890123LL});  // %lld after an int: aligned to 8
  put(40, std::int32_t{6});                  // %*d: the width
  put(44, std::int32_t{42});
  std::vector<std::pair<std::uint64_t, unsigned>> reads;
  const emu::PrintfArguments args{
      [&](std::uint64_t offset, unsigned size) {
        reads.emplace_back(offset, size);
        std::uint64_t v = 0;
        std::memcpy(&v, buf.data() + offset, size);
        return v;
      },
      [](std::uint64_t address) { return address == 0x1000 ? std::string("lit") : std::string(); }};
  std::string out;
  const int n = emu::format_device_printf(
      "a %d %#010x %.3f [%-5s] %c %lld |%*d| 100%%\n", args, out);
  EXPECT_EQ(out, "a -3 0x0000beef 1.500 [lit  ] z -1234567890123 |    42| 100%\n");
  EXPECT_EQ(n, 8);
  EXPECT_EQ(reads, (std::vector<std::pair<std::uint64_t, unsigned>>{
                       {0, 4}, {4, 4}, {8, 8}, {16, 8}, {24, 4}, {32, 8}, {40, 4}, {44, 4}}));
  // No argument: the text as written; what is no conversion stays as written, and so does a
  // specification the format cuts short.
  out.clear();
  reads.clear();
  EXPECT_EQ(emu::format_device_printf("plain %y end %", args, out), 0);
  EXPECT_EQ(out, "plain %y end %");
  EXPECT_TRUE(reads.empty());
  // A null %s, short and char lengths, and widths past any buffer's reach are bounded.
  put(0, std::uint64_t{0});
  put(8, std::int32_t{70000});
  put(12, std::int32_t{-129});
  out.clear();
  emu::format_device_printf("%s %hd %hhd", args, out);
  EXPECT_EQ(out, "(null) 4464 127");
  out.clear();
  emu::format_device_printf("%999999999d", args, out);
  EXPECT_EQ(out.size(), std::size_t{1} << 16);
}
