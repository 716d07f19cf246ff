// wgmma.mma_async in the emulator, against a CPU matrix multiply: every type family (f16 and
// bf16 with f32 or f16 accumulators, tf32, e4m3/e5m2, s8/u8 with .satfinite), N from 8 to
// 256, A from registers or from shared memory, K-major and MN-major operands, every
// swizzle mode of the descriptors (none, 32, 64, 128 bytes) with their leading and stride
// byte offsets, scale-d, imm-scale-a/b. The shared images are built here from the
// layouts a kernel would write (rows of the swizzle's width, the core matrices without
// one), and the descriptors point into them; the operands' access events must name
// exactly the 16-byte rows the operand occupies. Both tiers run each launch.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/analysis/site_stats.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/model/arch.hpp"
#include "emu_differential.hpp"

namespace analysis = bankcheck::analysis;
namespace drv = bankcheck::driver;
namespace emu = bankcheck::emu;
namespace model = bankcheck::model;
namespace ptx = bankcheck::ptx;
namespace fs = std::filesystem;

namespace {

struct Config {
  std::string a = ".f16", b = ".f16", d = ".f32";
  unsigned n = 64;
  unsigned swizzle_a = 128, swizzle_b = 128;  // bytes; 0: none
  bool trans_a = false, trans_b = false;
  bool a_regs = false;
  bool accumulate = true;
  bool neg_a = false, neg_b = false;
  bool satfinite = false;
  std::string name() const {
    return fmt::format("m64n{}{}{}{} A{}{} B{}{}{}{}", n, d, a, b,
                       a_regs ? "regs" : fmt::format("sw{}", swizzle_a), trans_a ? "T" : "",
                       fmt::format("sw{}", swizzle_b), trans_b ? "T" : "", accumulate ? " acc" : "",
                       satfinite ? " sat" : "");
  }
};

unsigned elem_bytes(const std::string& t) {
  if (t == ".f16" || t == ".bf16") return 2;
  if (t == ".tf32") return 4;
  return 1;
}

// Bits of a small exactly representable value in each format (normals and zero only).
std::uint32_t encode_float(double v, int ebits, int mbits, int bias) {
  if (v == 0) return 0;
  const std::uint32_t sign = v < 0 ? 1u : 0u;
  double m = std::fabs(v);
  int e = 0;
  while (m >= 2) m /= 2, ++e;
  while (m < 1) m *= 2, --e;
  const auto frac = static_cast<std::uint32_t>(std::lround((m - 1) * (1 << mbits)));
  return (sign << (ebits + mbits)) | (static_cast<std::uint32_t>(e + bias) << mbits) | frac;
}
std::uint32_t encode(const std::string& t, double v) {
  if (t == ".f16") return encode_float(v, 5, 10, 15);
  if (t == ".bf16") return encode_float(v, 8, 7, 127);
  if (t == ".tf32") return encode_float(v, 8, 23, 127);  // an f32 pattern, low 13 bits zero
  if (t == ".e4m3") return encode_float(v, 4, 3, 7);
  if (t == ".e5m2") return encode_float(v, 5, 2, 15);
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(v)) & 0xFFu;  // s8, u8
}
double decode_f32(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
double decode_f16(std::uint32_t h) {
  const int e = static_cast<int>((h >> 10) & 31), m = static_cast<int>(h & 1023);
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

// A random value of the type: small, exact, its products and sums exact in f32.
double random_value(const std::string& t, std::mt19937& g) {
  std::uniform_int_distribution<int> d(-8, 8);
  if (t == ".u8") return std::uniform_int_distribution<int>(0, 255)(g);
  if (t == ".s8") return std::uniform_int_distribution<int>(-128, 127)(g);
  if (t == ".e4m3" || t == ".e5m2") {  // values both formats hold; sums exact in f16
    static const double kSet[] = {0, 0.5, 1, 1.5, 2, -0.5, -1, -1.5, -2};
    return kSet[std::uniform_int_distribution<int>(0, 8)(g)];
  }
  return d(g) / 4.0;
}

// The shared image of an operand (rows mn by k, K-major or MN-major) at `base`, in the
// layout a kernel writes for the descriptor's swizzle, and the descriptor itself.
struct Placed {
  std::uint64_t descriptor = 0;
  std::map<std::pair<unsigned, unsigned>, std::uint64_t> at;  // (mn, k) -> byte offset
};

std::uint64_t swizzled(std::uint64_t a, unsigned width) {
  const unsigned bits = width == 128 ? 3 : width == 64 ? 2 : width == 32 ? 1 : 0;
  const std::uint64_t mask = (1u << bits) - 1;
  return a ^ (((a >> 7) & mask) << 4);
}

Placed place(unsigned rows, unsigned K, unsigned es, unsigned width, bool mn_major,
             std::uint64_t base) {
  Placed p;
  const unsigned t = 16 / es;
  std::uint64_t start = base, lbo = 16, sbo = 128;
  // K-major rows of a swizzle's width hold several k-blocks of 32 bytes: this operand's is
  // the second when there is one (the descriptor starts 32 bytes into the row).
  const unsigned kb = !mn_major && width >= 64 ? 1 : 0;
  for (unsigned mn = 0; mn < rows; ++mn)
    for (unsigned k = 0; k < K; ++k) {
      std::uint64_t off;
      if (!mn_major && width) {
        off = swizzled(base + mn * width + kb * 32 + k * es, width);
      } else if (!mn_major) {
        lbo = (rows / 8) * 128;
        off = base + (k / t) * lbo + (mn / 8) * 128 + (mn % 8) * 16 + (k % t) * es;
      } else if (width) {
        lbo = 2 * 8 * width;  // two 8-row k blocks per column of atoms
        const unsigned per = width / es;
        off = swizzled(
            base + (mn / per) * lbo + (k / 8) * (8 * width) + (k % 8) * width + (mn % per) * es,
            width);
      } else {
        lbo = (rows / t) * 128;
        off = base + (mn / t) * 128 + (k / 8) * lbo + (k % 8) * 16 + (mn % t) * es;
      }
      p.at[{mn, k}] = off;
    }
  if (!mn_major && width) {
    start = base + kb * 32;
    sbo = 8 * width;
  } else if (mn_major && width) {
    sbo = 8 * width;
  }
  const std::uint64_t layout = width == 128 ? 1 : width == 64 ? 2 : width == 32 ? 3 : 0;
  p.descriptor = ((start >> 4) & 0x3FFF) | (((lbo >> 4) & 0x3FFF) << 16) |
                 (((sbo >> 4) & 0x3FFF) << 32) | (layout << 62);
  return p;
}

std::string ptx_text(const Config& c, unsigned nd, std::uint64_t smem_bytes) {
  const bool f16d = c.d == ".f16", s32 = c.d == ".s32";
  const std::string dreg = f16d ? ".b32" : s32 ? ".s32" : ".f32";
  const std::string dld = f16d ? ".u32" : s32 ? ".s32" : ".f32";
  const unsigned K = 32 / elem_bytes(c.a);
  std::string s = fmt::format(R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry wg(.param .u64 p_out, .param .u64 p_img, .param .u64 p_cin, .param .u64 p_areg,
    .param .u64 p_da, .param .u64 p_db, .param .u32 p_words)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .reg {} %d<{}>;
  .reg .b32 %a<4>;
  .shared .align 1024 .b8 smem[{}];
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [p_img];
  ld.param.u32 %r2, [p_words];
  mov.u32 %r3, smem;
  mov.u32 %r4, %r1;
$L_copy:
  setp.ge.u32 %p1, %r4, %r2;
  @%p1 bra $L_done;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r5, [%rd3];
  shl.b32 %r6, %r4, 2;
  add.s32 %r7, %r3, %r6;
  st.shared.u32 [%r7], %r5;
  add.s32 %r4, %r4, 128;
  bra $L_copy;
$L_done:
  bar.sync 0;
  mul.wide.u32 %rd4, %r1, {};
  ld.param.u64 %rd5, [p_cin];
  add.s64 %rd6, %rd5, %rd4;
)",
                              dreg, nd, smem_bytes, nd * 4);
  for (unsigned i = 0; i < nd; ++i)
    s += fmt::format("  ld.global{} %d{}, [%rd6+{}];\n", dld, i, 4 * i);
  s += "  ld.param.u64 %rd7, [p_areg];\n  mul.wide.u32 %rd8, %r1, 16;\n  add.s64 %rd9, %rd7, "
       "%rd8;\n";
  for (unsigned i = 0; i < 4; ++i) s += fmt::format("  ld.global.u32 %a{}, [%rd9+{}];\n", i, 4 * i);
  s += "  ld.param.u64 %rd10, [p_da];\n  ld.param.u64 %rd11, [p_db];\n";
  s += c.accumulate ? "  setp.eq.u32 %p2, %r1, %r1;\n" : "  setp.ne.u32 %p2, %r1, %r1;\n";
  std::string d = "{";
  for (unsigned i = 0; i < nd; ++i) d += fmt::format("{}%d{}", i ? ", " : "", i);
  d += "}";
  const bool i8 = c.d == ".s32";
  const bool f16in = c.a == ".f16" || c.a == ".bf16";
  std::string tail;
  if (!i8) tail += fmt::format(", {}, {}", c.neg_a ? -1 : 1, c.neg_b ? -1 : 1);
  if (f16in) {
    if (!c.a_regs) tail += fmt::format(", {}", c.trans_a ? 1 : 0);
    tail += fmt::format(", {}", c.trans_b ? 1 : 0);
  }
  s += "  wgmma.fence.sync.aligned;\n";
  s += fmt::format("  wgmma.mma_async.sync.aligned.m64n{}k{}{}{}{}{} {}, {}, %rd11, %p2{};\n", c.n,
                   K, c.satfinite ? ".satfinite" : "", c.d, c.a, c.b, d,
                   c.a_regs ? "{%a0, %a1, %a2, %a3}" : "%rd10", tail);
  s += "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n";
  s += "  ld.param.u64 %rd12, [p_out];\n  add.s64 %rd13, %rd12, %rd4;\n";
  for (unsigned i = 0; i < nd; ++i)
    s += fmt::format("  st.global{} [%rd13+{}], %d{};\n", dld, 4 * i, i);
  s += "  ret;\n}\n";
  return s;
}

struct Run {
  emu::GlobalMemory mem;
  std::uint64_t out = 0;
  std::vector<emu::AccessEvent> events;
};

struct Capture : emu::Listener {
  std::vector<emu::AccessEvent>* to;
  void on_access(const emu::AccessEvent& e) override {
    if (e.kind == emu::AccessKind::Wgmma) to->push_back(e);
  }
};

// Runs one configuration and checks its results and its operands' events.
void check(const Config& c, unsigned seed) {
  SCOPED_TRACE(c.name());
  std::mt19937 g(seed);
  const unsigned es = elem_bytes(c.a), K = 32 / es, N = c.n;
  const bool f16d = c.d == ".f16", s32 = c.d == ".s32";
  const unsigned nd = f16d ? N / 4 : N / 2;
  std::vector<double> A(64 * K), B(std::size_t{N} * K), C(std::size_t{64} * N);
  for (double& x : A) x = random_value(c.a, g);
  for (double& x : B) x = random_value(c.b, g);
  for (double& x : C)
    x = !s32          ? random_value(".f16", g)
        : c.satfinite ? 2147483647.0 - std::uniform_int_distribution<int>(0, 1000)(g)
                      : std::uniform_int_distribution<int>(-1000, 1000)(g);
  // The shared image: A at 0 (unless from registers), B after it, 1024-aligned.
  const std::uint64_t a_bytes = c.a_regs ? 0 : (64 * K * es * 4 + 1023) / 1024 * 1024 + 1024;
  const Placed pa = c.a_regs ? Placed{} : place(64, K, es, c.swizzle_a, c.trans_a, 0);
  const Placed pb = place(N, K, es, c.swizzle_b, c.trans_b, a_bytes);
  std::uint64_t top = 0;
  for (const auto& [_, off] : pb.at) top = std::max(top, off + es);
  for (const auto& [_, off] : pa.at) top = std::max(top, off + es);
  const std::uint64_t smem = (top + 1023) / 1024 * 1024;
  std::vector<std::uint8_t> img(smem);
  for (auto& b : img) b = static_cast<std::uint8_t>(g());  // garbage where nothing is placed
  auto put = [&](const Placed& p, const std::vector<double>& m, const std::string& t) {
    for (const auto& [pos, off] : p.at) {
      const std::uint32_t bits = encode(t, m[std::size_t{pos.first} * K + pos.second]);
      std::memcpy(img.data() + off, &bits, es);
    }
  };
  if (!c.a_regs) put(pa, A, c.a);
  put(pb, B, c.b);
  // A in registers, C in D's fragment, both per thread.
  std::vector<std::uint32_t> areg(128 * 4, 0), cin(128 * nd, 0);
  const auto d_pos = [&](unsigned tid, unsigned e) {  // element e of the f32 fragment
    const unsigned q = tid / 32, l = tid % 32, gg = l / 4, t = l % 4, j = e / 4, i = e % 4;
    return std::pair<unsigned, unsigned>{16 * q + gg + 8 * (i / 2), 8 * j + 2 * t + (i % 2)};
  };
  for (unsigned tid = 0; tid < 128; ++tid) {
    const unsigned q = tid / 32, l = tid % 32, gg = l / 4, t = l % 4;
    for (unsigned i = 0; i < 4; ++i) {
      std::uint32_t reg = 0;
      const unsigned row = 16 * q + gg + 8 * (i & 1);
      if (es == 4) {
        reg = encode(c.a, A[row * K + t + 4 * (i >> 1)]);
      } else if (es == 2) {
        for (unsigned j = 0; j < 2; ++j)
          reg |= encode(c.a, A[row * K + 2 * t + j + 8 * (i >> 1)]) << (16 * j);
      } else {
        for (unsigned j = 0; j < 4; ++j)
          reg |= encode(c.a, A[row * K + 4 * t + j + 16 * (i >> 1)]) << (8 * j);
      }
      areg[tid * 4 + i] = reg;
    }
    for (unsigned e = 0; e < N / 2; ++e) {
      const auto [row, col] = d_pos(tid, e);
      const double v = C[row * N + col];
      std::uint32_t bits;
      if (s32) {
        bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
      } else if (f16d) {
        bits = encode(".f16", v) << (16 * (e % 2));
      } else {
        const float f = static_cast<float>(v);
        std::memcpy(&bits, &f, 4);
      }
      if (f16d)
        cin[tid * nd + e / 2] |= bits;
      else
        cin[tid * nd + e] = bits;
    }
  }
  const fs::path file =
      fs::temp_directory_path() / fmt::format("bankcheck-wgmma-{}-{}.ptx", ::getpid(), seed);
  std::ofstream(file) << ptx_text(c, nd, smem);
  drv::CheckOptions o;
  o.input = file.string();
  const drv::Loaded loaded = drv::load(o);
  fs::remove(file);
  ASSERT_EQ(loaded.program.kernels.size(), 1u)
      << (loaded.program.unsupported.empty() ? "" : loaded.program.unsupported[0].reason);
  const ptx::Kernel& k = loaded.program.kernels[0];
  auto run = [&](const emu::Emulator::Options& eo) {
    auto r = std::make_unique<Run>();
    emu::Launch launch;
    launch.block = {128, 1, 1};
    launch.params.assign(static_cast<std::size_t>(k.param_bytes), 0);
    auto buffer = [&](std::size_t param, const void* data, std::size_t bytes) {
      const std::uint64_t base = r->mem.add(k.params[param].name, std::max<std::size_t>(bytes, 4));
      if (data) std::memcpy(r->mem.find(base, 1)->data(), data, bytes);
      std::memcpy(launch.params.data() + k.params[param].offset, &base, 8);
      return base;
    };
    r->out = buffer(0, nullptr, cin.size() * 4);
    buffer(1, img.data(), img.size());
    buffer(2, cin.data(), cin.size() * 4);
    buffer(3, areg.data(), areg.size() * 4);
    std::memcpy(launch.params.data() + k.params[4].offset, &pa.descriptor, 8);
    std::memcpy(launch.params.data() + k.params[5].offset, &pb.descriptor, 8);
    const auto words = static_cast<std::uint32_t>(img.size() / 4);
    std::memcpy(launch.params.data() + k.params[6].offset, &words, 4);
    Capture cap;
    cap.to = &r->events;
    emu::Emulator e(loaded.program, k, r->mem, eo);
    e.add_listener(&cap);
    e.run_cta(launch, {0, 0, 0});
    return r;
  };
  using P = std::unique_ptr<Run>;
  P r = emu::testing::run_both_tiers<P>(c.name(), run,
                                        [](P& x) -> emu::GlobalMemory& { return x->mem; });
  std::vector<std::uint32_t> out(cin.size());
  std::memcpy(out.data(), r->mem.find(r->out, 1)->data(), out.size() * 4);
  const double sa = c.neg_a ? -1 : 1, sb = c.neg_b ? -1 : 1;
  int bad = 0;
  for (unsigned tid = 0; tid < 128 && bad < 5; ++tid)
    for (unsigned e = 0; e < N / 2; ++e) {
      const auto [row, col] = d_pos(tid, e);
      double want = c.accumulate ? C[row * N + col] : 0;
      for (unsigned kk = 0; kk < K; ++kk)
        want += sa * A[row * K + kk] * sb * B[std::size_t{col} * K + kk];
      double got;
      if (s32) {
        if (c.satfinite) want = std::clamp(want, -2147483648.0, 2147483647.0);
        got = static_cast<std::int32_t>(out[tid * nd + e]);
        want =
            static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::int64_t>(want)));
      } else if (f16d) {
        got = decode_f16((out[tid * nd + e / 2] >> (16 * (e % 2))) & 0xFFFF);
      } else {
        got = decode_f32(out[tid * nd + e]);
      }
      if (got != want && ++bad <= 5)
        ADD_FAILURE() << "D(" << row << ", " << col << ") = " << got << ", want " << want
                      << " (thread " << tid << ", element " << e << ")";
    }
  // Events: A's rows once per warp (from shared), B's once, by warp 0; each names the
  // 16-byte rows of the operand, every one of them exactly.
  std::set<std::uint64_t> want_a, want_b, got_a, got_b;
  for (const auto& [pos, off] : pa.at) want_a.insert(off & ~std::uint64_t{15});
  for (const auto& [pos, off] : pb.at) want_b.insert(off & ~std::uint64_t{15});
  std::map<int, int> a_events_per_warp;
  for (const emu::AccessEvent& e : r->events) {
    EXPECT_EQ(e.space, ptx::Space::Shared);
    EXPECT_EQ(e.width, 16);
    for (int l = 0; l < 32; ++l)
      if ((e.mask >> l) & 1u) (e.operand == 0 ? got_a : got_b).insert(e.addr[l]);
    if (e.operand == 0) ++a_events_per_warp[e.warp];
    if (e.operand == 1) {
      EXPECT_EQ(e.warp, 0);
    }
  }
  if (!c.a_regs) {
    EXPECT_EQ(got_a, want_a);
    EXPECT_EQ(a_events_per_warp.size(), 4u);
  } else {
    EXPECT_TRUE(got_a.empty());
  }
  EXPECT_EQ(got_b, want_b);
  // Counted as the H200 counts it (model::wgmma_request): 4 executions, (A bytes + B bytes) /
  // 128 wavefronts for the warpgroup, ideal the same, whatever the layout.
  analysis::SiteStatsListener stats(*model::find_arch("sm_90"), k.sites.size());
  for (const emu::AccessEvent& e : r->events) stats.on_access(e);
  std::uint64_t requests = 0, wavefronts = 0, ideal = 0;
  for (const analysis::SiteStats& s : stats.sites()) {
    requests += s.requests;
    wavefronts += s.wavefronts;
    ideal += s.ideal_wavefronts;
  }
  const std::uint64_t bytes = (c.a_regs ? 0 : 64 * 32) + std::uint64_t{N} * 32;
  EXPECT_EQ(requests, 4u);
  EXPECT_EQ(wavefronts, bytes / 128);
  EXPECT_EQ(ideal, bytes / 128);
}

}  // namespace

TEST(EmuWgmma, F16WithF32AccumulatorsEverySwizzleAndMajor) {
  unsigned seed = 1;
  for (unsigned sw : {0u, 32u, 64u, 128u})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        Config c;
        c.swizzle_a = c.swizzle_b = sw;
        c.trans_a = ta;
        c.trans_b = tb;
        c.n = 64;
        check(c, seed++);
      }
}

TEST(EmuWgmma, EveryNFromEightTo256) {
  unsigned seed = 100;
  for (unsigned n = 8; n <= 256; n += n < 64 ? 8 : 40) {
    Config c;
    c.n = n;
    c.swizzle_b = n % 16 ? 32 : 128;
    check(c, seed++);
  }
  Config c;
  c.n = 256;
  check(c, seed);
}

TEST(EmuWgmma, AFromRegistersScaleAndNegate) {
  Config c;
  c.a_regs = true;
  c.n = 128;
  c.neg_b = true;
  check(c, 200);
  c.a_regs = false;
  c.neg_a = true;
  c.neg_b = false;
  c.accumulate = false;
  check(c, 201);
}

TEST(EmuWgmma, Bf16AndF16Accumulators) {
  Config c;
  c.a = c.b = ".bf16";
  c.swizzle_a = 64;
  c.trans_b = true;
  check(c, 300);
  c.a = c.b = ".f16";
  c.d = ".f16";
  c.n = 32;
  c.swizzle_b = 0;
  check(c, 301);
  c.a_regs = true;
  check(c, 302);
}

TEST(EmuWgmma, Tf32) {
  Config c;
  c.a = c.b = ".tf32";
  for (unsigned sw : {0u, 32u, 128u}) {
    c.swizzle_a = c.swizzle_b = sw;
    c.n = sw ? 128 : 24;
    check(c, 400 + sw);
  }
  c.a_regs = true;
  check(c, 499);
}

TEST(EmuWgmma, Fp8) {
  Config c;
  c.a = ".e4m3";
  c.b = ".e5m2";
  c.n = 16;
  check(c, 500);
  c.a = c.b = ".e4m3";
  c.d = ".f16";
  c.n = 64;
  c.swizzle_a = 0;
  check(c, 501);
  c.a_regs = true;
  c.a = ".e5m2";
  check(c, 502);
}

TEST(EmuWgmma, Integers) {
  Config c;
  c.d = ".s32";
  for (const char* a : {".s8", ".u8"})
    for (const char* b : {".s8", ".u8"}) {
      c.a = a;
      c.b = b;
      c.n = 48;
      check(c, 600);
    }
  c.a = c.b = ".u8";
  c.n = 8;
  c.satfinite = true;
  c.swizzle_a = c.swizzle_b = 0;
  check(c, 601);
  c.a_regs = true;
  c.n = 256;
  c.satfinite = false;
  check(c, 602);
}

// The decoder names what it refuses: shapes the ISA does not define, sparse wgmma.
TEST(EmuWgmma, UndefinedFormsAreRefusedByName) {
  const auto refusal = [](const std::string& instr) {
    const fs::path file =
        fs::temp_directory_path() / fmt::format("bankcheck-wgmma-bad-{}.ptx", ::getpid());
    std::ofstream(file) << ".version 8.0\n.target sm_90a\n.address_size 64\n"
                           ".visible .entry k()\n{\n  .reg .f32 %d<8>;\n  .reg .b64 %rd<4>;\n"
                           "  .reg .pred %p<2>;\n  "
                        << instr << "\n  ret;\n}\n";
    drv::CheckOptions o;
    o.input = file.string();
    std::string why;
    try {
      const drv::Loaded l = drv::load(o);
      if (!l.program.unsupported.empty()) why = l.program.unsupported[0].reason;
    } catch (const std::exception& e) {
      why = e.what();
    }
    fs::remove(file);
    return why;
  };
  EXPECT_NE(refusal("wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%d0, %d1, %d2, %d3, "
                    "%d4, %d5}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
                .find("m64n12k16"),
            std::string::npos);
  EXPECT_NE(refusal("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1}, %rd1, %rd2, "
                    "%p1, 1, 1, 0, 0;")
                .find("takes 4 d registers"),
            std::string::npos);
  EXPECT_NE(refusal("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%d0, %d1, %d2, %d3}, "
                    "%rd1, %rd2, %rd3, 0, %p1, 1, 1, 0, 0;")
                .find("sparsity"),
            std::string::npos);
}
