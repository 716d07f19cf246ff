// The narrow float types (f16, bf16, their packed pairs, tf32, e4m3, e5m2) against CPU
// references: the kernels of tests/data/emu/half.cu run on random bit patterns (fixed
// seeds, specials mixed in), element by element. Correctly rounded operations are
// bit-exact against a reference written here with integers alone: the exact result as an
// integer times a power of two, rounded into the format by the mode (see round_exact).
// NaN results are the canonical 0x7fff (f16, bf16) and 0x7f (e4m3, e5m2). The approximate
// functions are checked to two units in the last place of the format. Every launch runs
// with the fast tier on and off (emu_differential.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/model/arch.hpp"
#include "emu_differential.hpp"
#include "require_nvcc.hpp"

namespace drv = bankcheck::driver;
namespace emu = bankcheck::emu;

using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
__extension__ typedef unsigned __int128 u128;

namespace {

drv::CheckOptions options() {
  drv::CheckOptions o;
  o.input = std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/emu/half.cu";
  o.arch = "sm_90";
  return o;
}
const drv::Loaded& loaded() {
  static std::unique_ptr<drv::Loaded> l;
  if (!l) l = std::make_unique<drv::Loaded>(drv::load(options()));
  return *l;
}

// A buffer argument from raw bytes, written to a temporary file. CTest runs each test in
// its own process, several at once: the name carries the process id, so that two tests
// never write one file.
int file_count = 0;  // one counter for every element type
template <typename T>
std::string file_arg(const std::vector<T>& v) {
  int& n = file_count;
  const std::string p = ::testing::TempDir() + "/bankcheck-half-" + std::to_string(::getpid()) +
                        "-" + std::to_string(n++) + ".bin";
  FILE* f = std::fopen(p.c_str(), "wb");
  std::fwrite(v.data(), sizeof(T), v.size(), f);
  std::fclose(f);
  return "@" + p;
}

// With BANKCHECK_EMU_DUMP=DIR, each launch is also written there for
// tests/data/emu/gpu_replay.cpp (the format emu_test writes): DIR/hNN.launch, the
// buffers' initial bytes and the emulator's output (hNN.p0.emu).
void dump_for_gpu(const bankcheck::ptx::Kernel& k, unsigned threads,
                  const std::vector<std::pair<std::string, std::string>>& args,
                  const std::vector<u32>& out) {
  const char* dir = std::getenv("BANKCHECK_EMU_DUMP");
  if (!dir || !*dir) return;
  static int counter = 0;
  static bool ptx_written = false;
  if (!ptx_written) {
    drv::NvccOptions n;
    n.input = options().input;
    n.arch = "sm_90";
    std::ofstream(std::string(dir) + "/half.ptx") << drv::compile_to_ptx(n);
    ptx_written = true;
  }
  const std::string id = "h" + std::to_string(counter++);
  std::ofstream m(std::string(dir) + "/" + id + ".launch");
  m << "ptx half.ptx\nkernel " << k.name << "\ngrid 1 1 1\nblock " << threads
    << " 1 1\nsmem 0\n";
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string base = std::string(dir) + "/" + id + ".p" + std::to_string(i);
    std::vector<char> init(i == 0 ? out.size() * 4 : 0, 0);
    if (i > 0) {
      std::ifstream in(args[i].second.substr(1), std::ios::binary);
      init.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    std::ofstream(base + ".in", std::ios::binary)
        .write(init.data(), static_cast<std::streamsize>(init.size()));
    if (i == 0)
      std::ofstream(base + ".emu", std::ios::binary)
          .write(reinterpret_cast<const char*>(out.data()),
                 static_cast<std::streamsize>(out.size() * 4));
    m << "buffer " << i << " " << id << ".p" << i << ".in\n";
  }
}

// Runs `kernel` on one block of `threads` with the arguments, both tiers; returns the
// first argument's words.
std::vector<u32> run(const std::string& kernel, unsigned threads, u64 out_words,
                     std::vector<std::pair<std::string, std::string>> args) {
  const drv::Loaded& l = loaded();
  const bankcheck::ptx::Kernel* k = nullptr;
  for (const auto& x : l.program.kernels)
    if (drv::kernel_matches(x.name, kernel)) k = &x;
  if (!k) throw std::runtime_error("no kernel " + kernel);
  drv::LaunchSettings s;
  s.grid = drv::Dim3{1, 1, 1};
  s.block = drv::Dim3{threads, 1, 1};
  args.insert(args.begin(), {"out", "zeros:" + std::to_string(out_words * 4)});
  s.args = args;
  s.blocks = "all";
  drv::CheckOptions o = options();
  o.threads = 1;
  drv::KernelRun r = emu::testing::run_both_tiers<drv::KernelRun>(
      "half.cu " + kernel,
      [&](const emu::Emulator::Options& eo) {
        o.emulator = eo;
        return drv::run_kernel(l, *k, s, *bankcheck::model::find_arch("sm_90"), o);
      },
      [](drv::KernelRun& x) -> emu::GlobalMemory& { return *x.memory; });
  std::vector<u32> out(out_words);
  std::memcpy(out.data(), r.memory->find(r.arg_buffers[0], 1)->data(), out_words * 4);
  dump_for_gpu(*k, threads, args, out);
  return out;
}

// ---------------------------------------------------------------- the reference

struct Fmt {
  int ebits, mbits, bias;
  bool ieee;  // inf and NaN in the top exponent (else e4m3: only S.1111.111 is NaN)
  u32 nan;
};
constexpr Fmt F16{5, 10, 15, true, 0x7fff}, BF16{8, 7, 127, true, 0x7fff},
    E4M3{4, 3, 7, false, 0x7f}, E5M2{5, 2, 15, true, 0x7f}, TF32{8, 10, 127, true, 0x7ffff};

// A finite value as (-1)^neg * mag * 2^exp, exactly.
struct Exact {
  bool neg = false;
  u128 mag = 0;
  int exp = 0;
};
enum class Kind { Finite, Inf, NaN };

Kind decode(const Fmt& f, u32 code, Exact& x) {
  const u32 e = (code >> f.mbits) & ((1u << f.ebits) - 1), m = code & ((1u << f.mbits) - 1);
  x.neg = (code >> (f.ebits + f.mbits)) & 1;
  const u32 top = (1u << f.ebits) - 1;
  if (f.ieee && e == top) return m ? Kind::NaN : Kind::Inf;
  if (!f.ieee && e == top && m == (1u << f.mbits) - 1) return Kind::NaN;
  x.mag = e ? (m | (1u << f.mbits)) : m;
  x.exp = (e ? static_cast<int>(e) : 1) - f.bias - f.mbits;
  return Kind::Finite;
}
Kind decode_f32(u32 b, Exact& x) { return decode({8, 23, 127, true, 0}, b, x); }
Kind decode_f64(u64 b, Exact& x) {
  const u64 e = (b >> 52) & 0x7ff, m = b & ((1ull << 52) - 1);
  x.neg = b >> 63;
  if (e == 0x7ff) return m ? Kind::NaN : Kind::Inf;
  x.mag = e ? (m | (1ull << 52)) : m;
  x.exp = (e ? static_cast<int>(e) : 1) - 1023 - 52;
  return Kind::Finite;
}

enum class Mode { Rn, Rz, Rm, Rp, Rna };

// The exact value rounded into the format: the kept bits and the remainder compared as
// integers. Overflow: infinity when rounding to nearest or away from zero, else the largest
// finite value; always the largest finite value when `satfinite` or the format has no
// infinity. A zero keeps its sign.
u32 round_exact(const Fmt& f, const Exact& x, Mode mode, bool satfinite = false) {
  const u32 sign = x.neg ? (1u << (f.ebits + f.mbits)) : 0;
  const u32 inf = ((1u << f.ebits) - 1) << f.mbits;
  const u32 maxc = f.ieee ? inf - 1 : (1u << (f.ebits + f.mbits)) - 2;
  if (x.mag == 0) return sign;
  int msb = 127;
  while (!((x.mag >> msb) & 1)) --msb;
  const int emin = 1 - f.bias;
  const int E = std::max(msb + x.exp, emin);
  const int shift = E - f.mbits - x.exp;  // bits of mag below the last kept place
  u128 kept, rem = 0, half = 0;
  if (shift <= 0) {
    kept = x.mag << -shift;
  } else if (shift >= 127) {
    kept = 0;
    rem = x.mag;
    half = shift == 127 ? (u128{1} << 126) : 0;  // a remainder far below half
    if (shift > 127) half = ~u128{0};
  } else {
    kept = x.mag >> shift;
    rem = x.mag & ((u128{1} << shift) - 1);
    half = u128{1} << (shift - 1);
  }
  bool up = false;
  switch (mode) {
    case Mode::Rn:
      up = rem > half || (rem == half && rem != 0 && (kept & 1));
      break;
    case Mode::Rna:
      up = rem != 0 && rem >= half;
      break;
    case Mode::Rz:
      break;
    case Mode::Rm:
      up = rem != 0 && x.neg;
      break;
    case Mode::Rp:
      up = rem != 0 && !x.neg;
      break;
  }
  kept += up;
  const u128 code = (static_cast<u128>(E - emin) << f.mbits) + kept;
  if (code > maxc) {
    const bool away = mode == Mode::Rn || mode == Mode::Rna || (mode == Mode::Rp && !x.neg) ||
                      (mode == Mode::Rm && x.neg);
    return sign | ((away && !satfinite && f.ieee) ? inf : maxc);
  }
  return sign | static_cast<u32>(code);
}

Exact mul(const Exact& a, const Exact& b) { return {a.neg != b.neg, a.mag * b.mag, a.exp + b.exp}; }
Exact add(Exact a, Exact b) {
  if (a.mag == 0) return b.mag == 0 ? Exact{a.neg && b.neg, 0, 0} : b;
  if (b.mag == 0) return a;
  if (a.exp < b.exp) std::swap(a, b);  // a has the larger exponent
  // A term more than 90 places below the other only decides the rounding as a sticky bit:
  // it is replaced by the smallest one of its sign far below every rounding place.
  if (a.exp - b.exp > 90) b = {b.neg, 1, a.exp - 90};
  const u128 am = a.mag << (a.exp - b.exp);
  if (a.neg == b.neg) return {a.neg, am + b.mag, b.exp};
  if (am >= b.mag) return {a.neg, am - b.mag, b.exp};
  return {b.neg, b.mag - am, b.exp};
}
Exact neg(Exact a) {
  a.neg = !a.neg;
  return a;
}

// Non-finite cases of add/mul/fma by the IEEE rules, with the canonical NaN; nullopt when
// every operand is finite and the result is too.
double value(const Fmt& f, u32 code) {
  Exact x;
  const Kind k = decode(f, code, x);
  if (k == Kind::NaN) return NAN;
  if (k == Kind::Inf) return x.neg ? -INFINITY : INFINITY;
  return (x.neg ? -1.0 : 1.0) * std::ldexp(static_cast<double>(x.mag), x.exp);
}

// add, sub, mul or fma of the format, round to nearest; with .sat (clamp to [0, 1], NaN to
// 0) or .relu (negative to 0, NaN stays).
enum class Op { Add, Sub, Mul, Fma };
u32 ref_arith(const Fmt& f, Op op, u32 a, u32 b, u32 c, bool sat = false, bool relu = false) {
  const double x = value(f, a), y = value(f, b), z = value(f, c);
  // Non-finite operands: the host's double arithmetic gives the right inf or NaN.
  if (!std::isfinite(x) || !std::isfinite(y) || (op == Op::Fma && !std::isfinite(z))) {
    const double r = op == Op::Add   ? x + y
                     : op == Op::Sub ? x - y
                     : op == Op::Mul ? x * y
                                     : x * y + z;
    if (std::isnan(r)) return sat ? 0 : f.nan;
    if (sat) return r > 0 ? (r >= 1 ? round_exact(f, {false, 1, 0}, Mode::Rn) : 0) : 0;
    if (relu && r < 0) return 0;
    return (r < 0 ? (1u << (f.ebits + f.mbits)) : 0) | (((1u << f.ebits) - 1) << f.mbits);
  }
  Exact ea, eb, ec, r;
  decode(f, a, ea);
  decode(f, b, eb);
  decode(f, c, ec);
  switch (op) {
    case Op::Add:
      r = add(ea, eb);
      break;
    case Op::Sub:
      r = add(ea, neg(eb));
      break;
    case Op::Mul:
      r = mul(ea, eb);
      break;
    case Op::Fma:
      r = add(mul(ea, eb), ec);
      break;
  }
  // An exact zero sum of terms of opposite signs is +0 when rounding to nearest.
  if (r.mag == 0 && op != Op::Mul) {
    const bool both_neg = op == Op::Add   ? (ea.neg && eb.neg && ea.mag == 0 && eb.mag == 0)
                          : op == Op::Sub ? (ea.neg && !eb.neg && ea.mag == 0 && eb.mag == 0)
                                          : ((ea.neg != eb.neg) && ec.neg &&
                                             (ea.mag == 0 || eb.mag == 0) && ec.mag == 0);
    r.neg = both_neg;
  }
  if (sat) {
    if (r.neg || r.mag == 0) return 0;
    const u32 one = round_exact(f, {false, 1, 0}, Mode::Rn);
    const u32 v = round_exact(f, r, Mode::Rn);
    return v > one ? one : v;
  }
  if (relu && r.neg) return 0;
  return round_exact(f, r, Mode::Rn);
}

// min/max: a NaN gives the other operand, two give the canonical NaN (.NaN: any NaN
// gives it); -0 is below +0.
u32 ref_minmax(const Fmt& f, bool max, bool nan, u32 a, u32 b) {
  const double x = value(f, a), y = value(f, b);
  if (std::isnan(x) || std::isnan(y)) {
    if (nan || (std::isnan(x) && std::isnan(y))) return f.nan;
    return std::isnan(x) ? b : a;
  }
  if (x == y && x == 0) return (std::signbit(x) != max) ? a : b;
  return (max ? x > y : x < y) ? a : b;
}

// ---------------------------------------------------------------- inputs

// Random 16-bit patterns, specials first; every other b is a's neighbour (same exponent
// range, so sums cancel and round).
std::vector<u16> patterns(std::size_t n, u64 seed, const std::vector<u16>& specials) {
  std::mt19937_64 rng(seed);
  std::vector<u16> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = i < specials.size() ? specials[i] : static_cast<u16>(rng());
  return v;
}
const std::vector<u16> kHalfSpecials = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x03ff,
                                        0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x3555, 0x7f80,
                                        0xff80, 0x7fc0, 0x0080, 0x007f, 0x3f80, 0xbf80};

void neighbours(std::vector<u16>& b, const std::vector<u16>& a, u64 seed, u16 mask) {
  std::mt19937_64 rng(seed);
  for (std::size_t i = kHalfSpecials.size(); i < b.size(); i += 2)
    b[i] = static_cast<u16>(a[i] ^ (rng() & mask));
}

constexpr unsigned kThreads = 256;

TEST(EmuHalf, ScalarArithmeticBitExact) {
  REQUIRE_NVCC();
  auto a = patterns(kThreads, 301, kHalfSpecials);
  auto b = patterns(kThreads, 302, {0x3c00, 0x3c00, 0x3c00, 0x7c00, 0x3c00, 0x8001, 0x0001,
                                    0x83ff, 0xbc00, 0x3c00, 0x0001, 0x7bff, 0x3555, 0xff80,
                                    0x7f80, 0x3f80, 0x8080, 0x0001, 0xbf80, 0x3f80});
  auto c = patterns(kThreads, 303, {});
  neighbours(b, a, 304, 0x83ff);
  const auto out = run("half_arith", kThreads, kThreads * 20,
                       {{"a", file_arg(a)}, {"b", file_arg(b)}, {"c", file_arg(c)}});
  for (unsigned t = 0; t < kThreads; ++t) {
    const u32 x = a[t], y = b[t], z = c[t];
    const u32* o = &out[t * 20];
    const auto at = [&](int k) {
      return ::testing::Message() << "thread " << t << " output " << k << " a=" << std::hex << x
                                  << " b=" << y << " c=" << z;
    };
    EXPECT_EQ(o[0], ref_arith(F16, Op::Add, x, y, 0)) << at(0);
    EXPECT_EQ(o[1], ref_arith(F16, Op::Sub, x, y, 0)) << at(1);
    EXPECT_EQ(o[2], ref_arith(F16, Op::Mul, x, y, 0)) << at(2);
    EXPECT_EQ(o[3], ref_arith(F16, Op::Fma, x, y, z)) << at(3);
    EXPECT_EQ(o[4], ref_arith(F16, Op::Add, x, y, 0, true)) << at(4);
    EXPECT_EQ(o[5], ref_arith(F16, Op::Fma, x, y, z, false, true)) << at(5);
    EXPECT_EQ(o[6], ref_minmax(F16, false, false, x, y)) << at(6);
    EXPECT_EQ(o[7], ref_minmax(F16, true, false, x, y)) << at(7);
    EXPECT_EQ(o[8], ref_minmax(F16, false, true, x, y)) << at(8);
    EXPECT_EQ(o[9], x ^ 0x8000) << at(9);
    EXPECT_EQ(o[10], x & 0x7fff) << at(10);
    EXPECT_EQ(o[11], ref_arith(BF16, Op::Add, x, y, 0)) << at(11);
    EXPECT_EQ(o[12], ref_arith(BF16, Op::Sub, x, y, 0)) << at(12);
    EXPECT_EQ(o[13], ref_arith(BF16, Op::Mul, x, y, 0)) << at(13);
    EXPECT_EQ(o[14], ref_arith(BF16, Op::Fma, x, y, z)) << at(14);
    EXPECT_EQ(o[15], ref_minmax(BF16, true, false, x, y)) << at(15);
    EXPECT_EQ(o[16], ref_minmax(BF16, true, true, x, y)) << at(16);
    EXPECT_EQ(o[17], x ^ 0x8000) << at(17);
    const double hx = value(F16, x), hy = value(F16, y), bx = value(BF16, x), by = value(BF16, y);
    const bool un = std::isnan(hx) || std::isnan(hy), bun = std::isnan(bx) || std::isnan(by);
    const u32 flags = (!un && hx < hy ? 1u : 0u) | (un || hx >= hy ? 2u : 0u) |
                      (!bun && bx != by ? 4u : 0u) | (bun || bx == by ? 8u : 0u) |
                      (std::isnan(hx) ? 16u : 0u);
    EXPECT_EQ(o[18], flags) << at(18);
    EXPECT_EQ(o[19], ref_arith(BF16, Op::Fma, x, y, z, false, true)) << at(19);
  }
}

TEST(EmuHalf, PackedArithmeticBitExact) {
  REQUIRE_NVCC();
  std::mt19937_64 rng(311);
  std::vector<u32> a(kThreads), b(kThreads), c(kThreads);
  for (unsigned t = 0; t < kThreads; ++t) {
    a[t] = static_cast<u32>(rng());
    b[t] = t % 2 ? static_cast<u32>(rng()) : a[t] ^ static_cast<u32>(rng() & 0x83ff83ffu);
    c[t] = static_cast<u32>(rng());
  }
  const auto out = run("half2_arith", kThreads, kThreads * 8,
                       {{"a", file_arg(a)}, {"b", file_arg(b)}, {"c", file_arg(c)}});
  for (unsigned t = 0; t < kThreads; ++t) {
    const u32* o = &out[t * 8];
    u32 want[7] = {};
    bool gt_both = true, eq_both = true;
    for (int h = 0; h < 2; ++h) {
      const u32 x = (a[t] >> (16 * h)) & 0xffff, y = (b[t] >> (16 * h)) & 0xffff,
                z = (c[t] >> (16 * h)) & 0xffff;
      want[0] |= ref_arith(F16, Op::Add, x, y, 0) << (16 * h);
      want[1] |= ref_arith(F16, Op::Fma, x, y, z) << (16 * h);
      want[2] |= ref_minmax(F16, true, false, x, y) << (16 * h);
      want[3] |= (value(F16, x) < value(F16, y) ? 0x3c00u : 0u) << (16 * h);
      want[4] |= ref_arith(BF16, Op::Mul, x, y, 0) << (16 * h);
      want[5] |= ref_arith(BF16, Op::Fma, x, y, z) << (16 * h);
      want[6] |= ref_minmax(BF16, false, false, x, y) << (16 * h);
      gt_both = gt_both && value(F16, x) > value(F16, y);
      eq_both = eq_both && value(BF16, x) == value(BF16, y);
    }
    for (int k = 0; k < 7; ++k)
      EXPECT_EQ(o[k], want[k]) << "thread " << t << " output " << k << std::hex << " a=" << a[t]
                               << " b=" << b[t] << " c=" << c[t];
    EXPECT_EQ(o[7], (gt_both ? 1u : 0u) | (eq_both ? 2u : 0u)) << t;
  }
}

u32 f32_bits(float f) {
  u32 b;
  std::memcpy(&b, &f, 4);
  return b;
}

// f32 (or f64) bit pattern rounded into the format; NaN gives the format's NaN.
u32 ref_cvt(const Fmt& f, u64 bits, bool f64, Mode m, bool satfinite = false) {
  Exact x;
  const Kind k = f64 ? decode_f64(bits, x) : decode_f32(static_cast<u32>(bits), x);
  const u32 sign = x.neg ? (1u << (f.ebits + f.mbits)) : 0;
  if (k == Kind::NaN) return f.nan;
  if (k == Kind::Inf)
    return sign | ((satfinite || !f.ieee) ? (f.ieee ? (((1u << f.ebits) - 1) << f.mbits) - 1
                                                    : (1u << (f.ebits + f.mbits)) - 2)
                                          : ((1u << f.ebits) - 1) << f.mbits);
  return round_exact(f, x, m, satfinite);
}

// Float to integer by mode: NaN 0, saturated to the type's range.
long long ref_to_int(double v, Mode m, long long lo, long long hi) {
  if (std::isnan(v)) return 0;
  const double r = m == Mode::Rn   ? std::nearbyint(v)
                   : m == Mode::Rz ? std::trunc(v)
                   : m == Mode::Rm ? std::floor(v)
                                   : std::ceil(v);
  if (r <= static_cast<double>(lo)) return lo;
  if (r >= static_cast<double>(hi)) return hi;
  return static_cast<long long>(r);
}

TEST(EmuHalf, ConversionsBitExact) {
  REQUIRE_NVCC();
  std::mt19937_64 rng(321);
  std::vector<float> f(kThreads);
  std::vector<double> d(kThreads);
  std::vector<u16> h = patterns(kThreads, 322, kHalfSpecials);
  const std::vector<u32> specials = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                                     0x477fe000, 0x477ff000, 0x477fefff, 0x47800000, 0x33800000,
                                     0x33000000, 0x33000001, 0x387fc000, 0x38800000, 0x3f808000,
                                     0x3f818000, 0x7f7fffff, 0x00000001, 0x43e00000, 0x43e80000};
  for (unsigned t = 0; t < kThreads; ++t) {
    u32 bits;
    if (t < specials.size())
      bits = specials[t];
    else if (t % 2)  // around the f16 range
      bits = (static_cast<u32>(rng()) & 0x87ffffffu) | 0x30000000u;
    else
      bits = static_cast<u32>(rng());
    std::memcpy(&f[t], &bits, 4);
    const u64 db = (static_cast<u64>(bits & 0x80000000u) << 32) |
                   ((static_cast<u64>((bits >> 23) & 0xff) + 1023 - 127) << 52) |
                   (static_cast<u64>(rng()) & ((1ull << 52) - 1));
    std::memcpy(&d[t], &db, 8);
  }
  const auto out = run("half_convert", kThreads, kThreads * 24,
                       {{"f", file_arg(f)}, {"d", file_arg(d)}, {"h", file_arg(h)}});
  for (unsigned t = 0; t < kThreads; ++t) {
    const u32* o = &out[t * 24];
    const u32 x = f32_bits(f[t]);
    u64 dx;
    std::memcpy(&dx, &d[t], 8);
    const auto at = [&](int k) {
      return ::testing::Message() << "thread " << t << " output " << k << std::hex << " f=" << x
                                  << " h=" << h[t];
    };
    EXPECT_EQ(o[0], ref_cvt(F16, x, false, Mode::Rn)) << at(0);
    EXPECT_EQ(o[1], ref_cvt(F16, x, false, Mode::Rz)) << at(1);
    EXPECT_EQ(o[2], ref_cvt(F16, x, false, Mode::Rm)) << at(2);
    EXPECT_EQ(o[3], ref_cvt(F16, x, false, Mode::Rp)) << at(3);
    EXPECT_EQ(o[4], ref_cvt(BF16, x, false, Mode::Rn)) << at(4);
    EXPECT_EQ(o[5], ref_cvt(BF16, x, false, Mode::Rz)) << at(5);
    EXPECT_EQ(o[6], ref_cvt(BF16, x, false, Mode::Rm)) << at(6);
    EXPECT_EQ(o[7], ref_cvt(BF16, x, false, Mode::Rp)) << at(7);
    EXPECT_EQ(o[8], ref_cvt(F16, dx, true, Mode::Rn)) << at(8);
    EXPECT_EQ(o[9], ref_cvt(BF16, dx, true, Mode::Rn)) << at(9);
    // bf16 and f16 to f32: exact (a NaN becomes the canonical f32 NaN).
    const double bv = value(BF16, h[t]), hv = value(F16, h[t]);
    EXPECT_EQ(o[10], std::isnan(bv) ? 0x7fffffffu : f32_bits(static_cast<float>(bv))) << at(10);
    EXPECT_EQ(o[11], std::isnan(hv) ? 0x7fffffffu : f32_bits(static_cast<float>(hv))) << at(11);
    EXPECT_EQ(o[12], static_cast<u32>(ref_to_int(bv, Mode::Rn, INT32_MIN, INT32_MAX))) << at(12);
    EXPECT_EQ(o[13], static_cast<u32>(ref_to_int(bv, Mode::Rz, INT32_MIN, INT32_MAX))) << at(13);
    EXPECT_EQ(o[14], static_cast<u32>(ref_to_int(hv, Mode::Rm, INT32_MIN, INT32_MAX))) << at(14);
    EXPECT_EQ(o[15], static_cast<u32>(ref_to_int(hv, Mode::Rp, 0, UINT32_MAX))) << at(15);
    // int to bf16 (rn) and f16 (rz): the integer is exact.
    const auto from_int = [](const Fmt& fm, long long i, Mode m) {
      Exact e{i < 0, static_cast<u128>(i < 0 ? -i : i), 0};
      return round_exact(fm, e, m);
    };
    const long long i16 = std::isnan(f[t]) ? 0 : ref_to_int(f[t], Mode::Rz, INT32_MIN, INT32_MAX);
    EXPECT_EQ(o[16], from_int(BF16, i16, Mode::Rn)) << at(16);
    const float k1000 = f[t] * 1000.0f;
    const long long i17 = std::isnan(k1000) ? 0 : ref_to_int(k1000, Mode::Rz, INT32_MIN, INT32_MAX);
    EXPECT_EQ(o[17], from_int(F16, i17, Mode::Rz)) << at(17);
    // Pairs: a to the high half, b to the low one (__floats2bfloat162_rn(x, y) puts x low).
    const float half_neg = -f[t] * 0.5f, three = f[t] * 3.0f;
    EXPECT_EQ(o[18], ref_cvt(BF16, x, false, Mode::Rn) |
                         (ref_cvt(BF16, f32_bits(half_neg), false, Mode::Rn) << 16))
        << at(18);
    EXPECT_EQ(o[19], ref_cvt(F16, f32_bits(three), false, Mode::Rn) |
                         (ref_cvt(F16, x, false, Mode::Rn) << 16))
        << at(19);
    // f16 -> f32 -> bf16 and bf16 -> f32 -> f16, round to nearest.
    const float hf = static_cast<float>(hv), bf = static_cast<float>(bv);
    EXPECT_EQ(o[20], ref_cvt(BF16, std::isnan(hf) ? 0x7fffffffu : f32_bits(hf), false, Mode::Rn))
        << at(20);
    EXPECT_EQ(o[21], ref_cvt(F16, std::isnan(bf) ? 0x7fffffffu : f32_bits(bf), false, Mode::Rn))
        << at(21);
    // tf32: 10 mantissa bits, to nearest with ties away, in an f32 pattern.
    EXPECT_EQ(o[22], std::isnan(f[t]) ? 0x7fffffffu : ref_cvt(TF32, x, false, Mode::Rna) << 13)
        << at(22);
    EXPECT_EQ(o[23], static_cast<u32>(ref_to_int(hv, Mode::Rn, INT16_MIN, INT16_MAX)) & 0xffffu)
        << at(23);
  }
}

TEST(EmuHalf, Fp8ConversionsBitExact) {
  REQUIRE_NVCC();
  std::mt19937_64 rng(331);
  std::vector<float> f(2 * kThreads);
  const std::vector<float> specials = {
      0.0f,  -0.0f,    448.0f,    464.0f, 480.0f,       -1e9f,         57344.0f, 61440.0f,
      1e-9f, INFINITY, -INFINITY, NAN,    0.001953125f, 0.0009765625f, 1.0625f,  1.1875f};
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (i < specials.size()) {
      f[i] = specials[i];
      continue;
    }
    const u32 bits =
        (static_cast<u32>(rng()) & 0x83ffffffu) | ((static_cast<u32>(rng() % 40) + 100) << 23);
    std::memcpy(&f[i], &bits, 4);
  }
  const auto out = run("fp8_convert", kThreads, kThreads * 4, {{"f", file_arg(f)}});
  for (unsigned t = 0; t < kThreads; ++t) {
    const u32* o = &out[t * 4];
    const u32 lo = f32_bits(f[2 * t]), hi = f32_bits(f[2 * t + 1]);
    // __nv_cvt_float2_to_fp8x2(v): v.x in the low byte.
    const u32 e4 =
        ref_cvt(E4M3, lo, false, Mode::Rn, true) | (ref_cvt(E4M3, hi, false, Mode::Rn, true) << 8);
    const u32 e5 =
        ref_cvt(E5M2, lo, false, Mode::Rn, true) | (ref_cvt(E5M2, hi, false, Mode::Rn, true) << 8);
    EXPECT_EQ(o[0], e4) << t << " " << f[2 * t] << " " << f[2 * t + 1];
    EXPECT_EQ(o[1], e5) << t << " " << f[2 * t] << " " << f[2 * t + 1];
    // Back to f16x2: exact, byte i to half i; a NaN is the f16 canonical NaN.
    auto widen = [](const Fmt& fm, u32 pair) {
      u32 r = 0;
      for (int i = 0; i < 2; ++i) {
        Exact x;
        const u32 code = (pair >> (8 * i)) & 0xff;
        const Kind k = decode(fm, code, x);
        const u32 h = k == Kind::NaN   ? F16.nan
                      : k == Kind::Inf ? (x.neg ? 0xfc00u : 0x7c00u)
                                       : round_exact(F16, x, Mode::Rn);
        r |= h << (16 * i);
      }
      return r;
    };
    EXPECT_EQ(o[2], widen(E4M3, e4)) << t;
    EXPECT_EQ(o[3], widen(E5M2, e5)) << t;
  }
}

// The approximate functions: within two units in the last place of the exact function
// (the ISA bounds ex2.approx.f16's relative error by about 2^-9.9; the emulator rounds the
// exact function to nearest).
TEST(EmuHalf, ApproximateWithinTwoUlp) {
  REQUIRE_NVCC();
  std::mt19937_64 rng(341);
  std::vector<u16> a(kThreads);
  for (auto& x : a)
    x = static_cast<u16>((rng() & 0x83ff) | ((rng() % 8 + 12) << 10));  // |x| in [2^-3, 16)
  const auto out = run("half_approx", kThreads, kThreads * 3, {{"a", file_arg(a)}});
  for (unsigned t = 0; t < kThreads; ++t) {
    const double x = value(F16, a[t]), xb = value(BF16, a[t]);
    const struct {
      const Fmt& f;
      double want;
      u32 got;
    } cases[] = {{F16, std::exp2(x), out[t * 3]},
                 {BF16, std::exp2(xb), out[t * 3 + 1]},
                 {F16, std::tanh(x), out[t * 3 + 2]}};
    for (const auto& c : cases) {
      const double largest = value(c.f, ((((1u << c.f.ebits) - 1) << c.f.mbits) - 1));
      if (!(std::fabs(c.want) <= largest)) continue;  // overflows the format
      Exact e;
      ASSERT_EQ(decode(c.f, c.got, e), Kind::Finite) << t;
      const double got = value(c.f, c.got);
      int ex;
      std::frexp(c.want, &ex);
      const double ulp = std::ldexp(1.0, std::max(ex - 1, 1 - c.f.bias) - c.f.mbits);
      EXPECT_LE(std::fabs(got - c.want), 2 * ulp)
          << t << " x=" << x << " got " << got << " want " << c.want;
    }
  }
}

}  // namespace
