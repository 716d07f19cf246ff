// The bundled examples (examples/*.cu) compute the right thing on the emulator: every
// kernel runs with its `// bankcheck:` launch comment (CTAs sampled where the grid is
// large), and its output buffers are compared with a CPU reference computed from the
// inputs read back from the run's memory, mirroring the checks of the examples' main().
// Needs nvcc; skips without.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/model/analyze.hpp"
#include "bankcheck/model/arch.hpp"

namespace drv = bankcheck::driver;
namespace ptx = bankcheck::ptx;

namespace {

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

std::string example(const std::string& file) {
  return std::string(BANKCHECK_SOURCE_DIR) + "/examples/" + file;
}

drv::CheckOptions options_for(const std::string& file) {
  drv::CheckOptions o;
  o.input = example(file);
  o.arch = "sm_90";
  return o;
}

// One compiled example, and its kernels with their launch comments' settings.
struct Example {
  drv::Loaded loaded;
  std::vector<std::pair<const ptx::Kernel*, drv::LaunchSettings>> kernels;
};
Example& load(const std::string& file) {
  static std::map<std::string, std::unique_ptr<Example>> cache;
  auto& slot = cache[file];
  if (!slot) {
    auto e = std::make_unique<Example>();
    e->loaded = drv::load(options_for(file));
    e->kernels = drv::select_kernels(e->loaded, options_for(file));
    slot = std::move(e);
  }
  return *slot;
}

// A finished run of one kernel: its buffers by parameter name.
struct KRun {
  drv::KernelRun run;
  drv::LaunchSettings settings;
  std::vector<std::uint64_t> ctas;  // linear indices of the CTAs analysed

  const std::uint8_t* buffer(const std::string& name, std::uint64_t* bytes = nullptr) const {
    for (std::size_t i = 0; i < run.report.args.size(); ++i)
      if (run.report.args[i].name == name) {
        auto* b = run.memory->find(run.arg_buffers[i], 1);
        if (bytes) *bytes = b->size;
        return b->data();
      }
    ADD_FAILURE() << "no buffer " << name;
    return nullptr;
  }
  template <typename T>
  const T* as(const std::string& name) const {
    return reinterpret_cast<const T*>(buffer(name));
  }
  // A module variable (__device__ array) by name.
  template <typename T>
  const T* global(const drv::Loaded& l, const std::string& name) const {
    for (const auto& g : l.program.globals)
      if (g.name == name) return reinterpret_cast<const T*>(run.memory->find(g.address, 1)->data());
    ADD_FAILURE() << "no module variable " << name;
    return nullptr;
  }
  drv::Dim3 cta_xyz(std::uint64_t cta) const {
    const auto& g = *settings.grid;
    return {static_cast<std::uint32_t>(cta % g.x), static_cast<std::uint32_t>((cta / g.x) % g.y),
            static_cast<std::uint32_t>(cta / (std::uint64_t{g.x} * g.y))};
  }
};

// The CTAs run_kernel analyses for an explicit --blocks N: the first, the last and evenly
// spaced between (driver/check.cpp).
std::vector<std::uint64_t> sampled(std::uint64_t total, std::uint64_t n) {
  std::vector<std::uint64_t> v;
  n = std::min(n, total);
  for (std::uint64_t i = 0; i < n; ++i)
    v.push_back(n == 1 ? 0
                       : static_cast<std::uint64_t>(static_cast<long double>(i) *
                                                    static_cast<long double>(total - 1) /
                                                    static_cast<long double>(n - 1)));
  return v;
}

// Runs `kernel` of `file` with its launch comment; `blocks` "all" or a count; extra
// argument overrides as NAME=VALUE.
KRun run_ex(const std::string& file, const std::string& kernel, const std::string& blocks,
            const std::vector<std::pair<std::string, std::string>>& override_args = {}) {
  Example& e = load(file);
  for (auto& [k, s] : e.kernels) {
    if (!drv::kernel_matches(k->name, kernel)) continue;
    KRun r;
    r.settings = s;
    r.settings.blocks = blocks;
    for (const auto& [name, value] : override_args)
      for (auto& a : r.settings.args)
        if (a.first == name) a.second = value;
    r.run = drv::run_kernel(e.loaded, *k, r.settings, *bankcheck::model::find_arch("sm_90"),
                            options_for(file));
    const std::uint64_t total =
        std::uint64_t{r.settings.grid->x} * r.settings.grid->y * r.settings.grid->z;
    if (blocks == "all") {
      for (std::uint64_t c = 0; c < total; ++c) r.ctas.push_back(c);
    } else {
      r.ctas = sampled(total, std::stoull(blocks));
    }
    EXPECT_EQ(r.run.report.ctas_analysed, r.ctas.size()) << kernel;
    return r;
  }
  throw std::runtime_error("no kernel " + kernel + " with a launch comment in " + file);
}

std::uint64_t count_kernels(const std::string& file) { return load(file).kernels.size(); }

}  // namespace

// ---------------------------------------------------------------- transpose.cu

TEST(Examples, Transposes) {
  REQUIRE_NVCC();
  Example& e = load("transpose.cu");
  ASSERT_EQ(e.kernels.size(), 4u);
  // The kernels read the __device__ array idata: give it contents (distinct bit patterns)
  // through the module variable's initializer.
  const int N = 8192;
  ptx::GlobalVar* idata = nullptr;
  for (auto& g : e.loaded.program.globals)
    if (g.name == "idata") idata = &g;
  ASSERT_NE(idata, nullptr);
  ASSERT_EQ(idata->bytes, std::uint64_t{4} * N * N);
  auto value = [](std::uint64_t i) {
    return static_cast<std::uint32_t>((i * 2654435761u) ^ (i >> 7)) | 1u;
  };
  idata->init.resize(idata->bytes);
  {
    auto* p = reinterpret_cast<std::uint32_t*>(idata->init.data());
    for (std::uint64_t i = 0; i < std::uint64_t{N} * N; ++i) p[i] = value(i);
  }
  for (const char* k : {"transposeNaive", "transposeShared", "transposeSharedNobankconf",
                        "transposeSharedNobankconf_nopading"}) {
    SCOPED_TRACE(k);
    const KRun r = run_ex("transpose.cu", k, "12");
    const auto* out = r.global<std::uint32_t>(e.loaded, "odata");
    std::set<std::pair<int, int>> tiles;
    for (std::uint64_t cta : r.ctas) {
      const auto id = r.cta_xyz(cta);
      tiles.insert({static_cast<int>(id.x), static_cast<int>(id.y)});
      int bad = 0;
      // The CTA (bx, by) writes odata rows bx*32.., columns by*32..: idata transposed.
      for (int i = 0; i < 32; ++i)
        for (int j = 0; j < 32; ++j) {
          const std::uint64_t row = id.x * 32u + static_cast<std::uint32_t>(i);
          const std::uint64_t col = id.y * 32u + static_cast<std::uint32_t>(j);
          if (out[row * N + col] != value(col * N + row) && bad++ < 3)
            ADD_FAILURE() << "CTA (" << id.x << "," << id.y << "): odata[" << row << "][" << col
                          << "]";
        }
    }
    // Tiles of CTAs that did not run stay zero.
    for (int t = 0; t < 8; ++t) {
      const int bx = (t * 37 + 5) % 256, by = (t * 91 + 3) % 256;
      if (tiles.count({bx, by})) continue;
      EXPECT_EQ(out[static_cast<std::uint64_t>(bx) * 32 * N + by * 32], 0u) << bx << "," << by;
    }
  }
  idata->init.clear();
  idata->init.shrink_to_fit();
}

// ---------------------------------------------------------------- seed001.cu

TEST(Examples, Seed001) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("seed001.cu"), 2u);
  for (const char* k : {"bank_conflict_test", "bank_conflict_test_fixed"}) {
    SCOPED_TRACE(k);
    const KRun r = run_ex("seed001.cu", k, "all");
    const float* a = r.as<float>("a");
    const float* b = r.as<float>("b");
    const float* c = r.as<float>("c");
    const bool conflict = std::string(k) == "bank_conflict_test";
    for (int tid = 0; tid < 256; ++tid) {
      const int idx = conflict ? (tid % 32) * 32 + tid / 32 : tid;
      const float want = idx < 256 ? b[idx] + c[tid] : b[tid] + c[tid];
      EXPECT_EQ(a[tid], want) << "a[" << tid << "]";
    }
    EXPECT_NE(b[0], 0.0f);  // the inputs were filled
  }
}

// ---------------------------------------------------------------- stride.cu

TEST(Examples, Strides) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("stride.cu"), 4u);
  for (const char* k : {"stride1", "stride2", "stride3", "stride32"}) {
    SCOPED_TRACE(k);
    const KRun r = run_ex("stride.cu", k, "all");
    const int* in = r.as<int>("in");
    const int* out = r.as<int>("out");
    int bad = 0;
    for (int b = 0; b < 64; ++b)
      for (int t = 0; t < 128; ++t)
        if (out[b * 128 + t] != in[b * 128 + 127 - t] && bad++ < 3)
          ADD_FAILURE() << "out[" << b * 128 + t << "]";
    EXPECT_EQ(bad, 0);
  }
}

// ---------------------------------------------------------------- narrow.cu

TEST(Examples, Narrow) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("narrow.cu"), 4u);
  struct Case {
    const char* name;
    int esize, per_block, step;
  } cases[] = {{"char_unit", 1, 1024, 1},
               {"char_stride4", 1, 1024, 4},
               {"short_unit", 2, 512, 1},
               {"short_stride2", 2, 512, 2}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const KRun r = run_ex("narrow.cu", c.name, "all");
    const std::uint8_t* in = r.buffer("in");
    const std::uint8_t* out = r.buffer("out");
    int bad = 0;
    for (int b = 0; b < 64; ++b)
      for (int t = 0; t < 256; ++t) {
        const std::size_t o = static_cast<std::size_t>(b * 256 + t) * c.esize;
        const std::size_t i = static_cast<std::size_t>(b * c.per_block + c.step * t) * c.esize;
        if (std::memcmp(out + o, in + i, static_cast<std::size_t>(c.esize)) != 0 && bad++ < 3)
          ADD_FAILURE() << "out[" << b * 256 + t << "]";
      }
    EXPECT_EQ(bad, 0);
  }
}

// ---------------------------------------------------------------- structs.cu

TEST(Examples, Structs) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("structs.cu"), 2u);
  {
    const KRun r = run_ex("structs.cu", "read_struct3", "all");
    const float* in = r.as<float>("in");
    const float* out[3] = {r.as<float>("out_x"), r.as<float>("out_y"), r.as<float>("out_z")};
    for (int f = 0; f < 3; ++f)
      for (int i = 0; i < 64 * 256; ++i)
        ASSERT_EQ(out[f][i], in[i * 3 + f]) << "field " << f << " [" << i << "]";
  }
  {
    const KRun r = run_ex("structs.cu", "read_struct2", "all");
    const float* in = r.as<float>("in");
    const float* out[2] = {r.as<float>("out_x"), r.as<float>("out_y")};
    for (int f = 0; f < 2; ++f)
      for (int i = 0; i < 64 * 256; ++i)
        ASSERT_EQ(out[f][i], in[i * 2 + f]) << "field " << f << " [" << i << "]";
  }
}

// ---------------------------------------------------------------- wide.cu

TEST(Examples, Wide) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("wide.cu"), 6u);
  struct Case {
    const char* name;
    int esize, step;
  } unit[] = {{"double_unit", 8, 1},
              {"double_stride2", 8, 2},
              {"float4_unit", 16, 1},
              {"float4_stride2", 16, 2}};
  for (const auto& c : unit) {
    SCOPED_TRACE(c.name);
    const KRun r = run_ex("wide.cu", c.name, "all");
    const std::uint8_t* in = r.buffer("in");
    const std::uint8_t* out = r.buffer("out");
    int bad = 0;
    for (int b = 0; b < 64; ++b)
      for (int t = 0; t < 256; ++t) {
        const std::size_t o = static_cast<std::size_t>(b * 256 + t) * c.esize;
        const std::size_t i = static_cast<std::size_t>(b * 512 + c.step * t) * c.esize;
        if (std::memcmp(out + o, in + i, static_cast<std::size_t>(c.esize)) != 0 && bad++ < 3)
          ADD_FAILURE() << "out[" << b * 256 + t << "]";
      }
    EXPECT_EQ(bad, 0);
    EXPECT_NE(std::memcmp(in, in + c.esize, static_cast<std::size_t>(c.esize)),
              0);  // random inputs
  }
  for (const auto& [name, esize] :
       std::vector<std::pair<const char*, int>>{{"double_column", 8}, {"float4_column", 16}}) {
    SCOPED_TRACE(name);
    const KRun r = run_ex("wide.cu", name, "all");
    const std::uint8_t* in = r.buffer("in");
    const std::uint8_t* out = r.buffer("out");
    const int W = 512;
    int bad = 0;
    for (int row = 0; row < W; ++row)
      for (int col = 0; col < W; ++col)
        if (std::memcmp(out + static_cast<std::size_t>(row * W + col) * esize,
                        in + static_cast<std::size_t>(col * W + row) * esize,
                        static_cast<std::size_t>(esize)) != 0 &&
            bad++ < 3)
          ADD_FAILURE() << "out[" << row << "][" << col << "]";
    EXPECT_EQ(bad, 0);
  }
}

// ---------------------------------------------------------------- reduction.cu

TEST(Examples, Reductions) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("reduction.cu"), 3u);
  for (const char* k : {"reduce_interleaved", "reduce_interleaved_strided", "reduce_sequential"}) {
    SCOPED_TRACE(k);
    const KRun r = run_ex("reduction.cu", k, "512");
    const float* in = r.as<float>("g_idata");
    const float* out = r.as<float>("g_odata");
    const bool sequential = std::string(k) == "reduce_sequential";
    for (std::uint64_t b : r.ctas) {
      const float* x = in + b * 256;
      double want = 0, mag = 0;
      for (int t = 0; t < 256; ++t) {
        want += x[t];
        mag += std::fabs(x[t]);
      }
      // The kernel's own tree, in float: the emulator must give exactly this.
      float s[256];
      std::memcpy(s, x, sizeof s);
      if (sequential) {
        for (int st = 128; st > 0; st >>= 1)
          for (int t = 0; t < st; ++t) s[t] += s[t + st];
      } else {
        for (int st = 1; st < 256; st *= 2)
          for (int t = 0; t + st < 256; t += 2 * st) s[t] += s[t + st];
      }
      EXPECT_EQ(out[b], s[0]) << "block " << b;
      EXPECT_NEAR(out[b], want, 1e-5 * mag + 1e-3) << "block " << b;
    }
  }
}

// ---------------------------------------------------------------- scan.cu

namespace {

// Blelloch's exclusive scan of one block as the kernels compute it, in float.
std::vector<float> blelloch(const float* x, int n) {
  std::vector<float> t(x, x + n);
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    for (int th = 0; th < d; ++th) t[offset * (2 * th + 2) - 1] += t[offset * (2 * th + 1) - 1];
    offset *= 2;
  }
  t[n - 1] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    for (int th = 0; th < d; ++th) {
      const int ai = offset * (2 * th + 1) - 1, bi = offset * (2 * th + 2) - 1;
      const float v = t[ai];
      t[ai] = t[bi];
      t[bi] += v;
    }
  }
  return t;
}

std::string write_temp(const std::vector<float>& v, const std::string& name) {
  const std::string path = testing::TempDir() + "/bankcheck-functional-" + name;
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()),
          static_cast<std::streamsize>(v.size() * sizeof(float)));
  return path;
}

}  // namespace

TEST(Examples, Scans) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("scan.cu"), 2u);
  const int n = 1024;
  // Integer-valued inputs: every partial sum is exact in float, so the exclusive prefix
  // sums must be exact.
  std::vector<float> ints(static_cast<std::size_t>(n) * 1024);
  for (std::size_t i = 0; i < ints.size(); ++i)
    ints[i] = static_cast<float>(static_cast<int>((i * 7919) % 201) - 100);
  const std::string ints_file = "@" + write_temp(ints, "scan-ints.bin");
  for (const char* k : {"prescan", "prescan_padded"}) {
    SCOPED_TRACE(k);
    {
      const KRun r = run_ex("scan.cu", k, "10");  // the comment's random inputs
      const float* in = r.as<float>("g_idata");
      const float* out = r.as<float>("g_odata");
      for (std::uint64_t b : r.ctas) {
        const float* x = in + b * n;
        const auto exact = blelloch(x, n);
        double sum = 0, mag = 0;
        int bad = 0;
        for (int i = 0; i < n; ++i) {
          const float g = out[b * n + i];
          if (g != exact[static_cast<std::size_t>(i)] && bad++ < 3)
            ADD_FAILURE() << "block " << b << " [" << i << "]: got " << g << ", want "
                          << exact[static_cast<std::size_t>(i)];
          EXPECT_NEAR(g, sum, 1e-5 * mag + 1e-2) << "block " << b << " [" << i << "]";
          sum += x[i];
          mag += std::fabs(x[i]);
        }
      }
    }
    {
      const KRun r = run_ex("scan.cu", k, "6", {{"g_idata", ints_file}});
      const float* out = r.as<float>("g_odata");
      for (std::uint64_t b : r.ctas) {
        float sum = 0;
        int bad = 0;
        for (int i = 0; i < n; ++i) {
          if (out[b * n + i] != sum && bad++ < 3)
            ADD_FAILURE() << "block " << b << " [" << i << "]: got " << out[b * n + i] << ", want "
                          << sum;
          sum += ints[b * n + static_cast<std::size_t>(i)];
        }
      }
    }
  }
}

// ---------------------------------------------------------------- matmul.cu

TEST(Examples, Matmul) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("matmul.cu"), 2u);
  const int n = 1024;
  for (const char* k : {"matmul_tiled", "matmul_tiled_transposed"}) {
    SCOPED_TRACE(k);
    const KRun r = run_ex("matmul.cu", k, "3");
    const float* A = r.as<float>("A");
    const float* B = r.as<float>("B");
    const float* C = r.as<float>("C");
    for (std::uint64_t cta : r.ctas) {
      const auto id = r.cta_xyz(cta);
      int bad = 0, inexact = 0;
      for (int ty = 0; ty < 32; ++ty)
        for (int tx = 0; tx < 32; ++tx) {
          const int row = static_cast<int>(id.y) * 32 + ty, col = static_cast<int>(id.x) * 32 + tx;
          double want = 0, mag = 0;
          float acc = 0;  // the kernel's order: tiles, then k; a*b+acc fused
          for (int i = 0; i < n; ++i) {
            const float a = A[static_cast<std::size_t>(row) * n + i],
                        b = B[static_cast<std::size_t>(i) * n + col];
            want += static_cast<double>(a) * b;
            mag += std::fabs(static_cast<double>(a) * b);
            acc = std::fma(a, b, acc);
          }
          const float got = C[static_cast<std::size_t>(row) * n + col];
          if (!(std::fabs(got - want) <= 1e-4 * mag) && bad++ < 3)
            ADD_FAILURE() << "C[" << row << "][" << col << "]: got " << got << ", want " << want;
          if (got != acc) ++inexact;
        }
      EXPECT_EQ(bad, 0) << "CTA " << cta;
      EXPECT_EQ(inexact, 0) << "CTA " << cta
                            << ": results that differ from the fused, in-order sum";
    }
  }
}

// ---------------------------------------------------------------- alignment.cu

TEST(Examples, Alignment) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("alignment.cu"), 7u);
  const int n = 256 * 256;
  {
    const KRun r = run_ex("alignment.cu", "aos_float3", "all");
    const float* v = r.as<float>("v");
    const float* out = r.as<float>("out");
    for (int i = 0; i < n; ++i) {
      const float want = v[3 * i] + v[3 * i + 1] + v[3 * i + 2];
      ASSERT_TRUE(out[i] == want || (std::isnan(out[i]) && std::isnan(want))) << i;
    }
  }
  {
    const KRun r = run_ex("alignment.cu", "aos_float3_aligned", "all");
    const float* v = r.as<float>("v");
    const float* out = r.as<float>("out");
    for (int i = 0; i < n; ++i) {
      const float want = v[4 * i] + v[4 * i + 1] + v[4 * i + 2];
      ASSERT_TRUE(out[i] == want || (std::isnan(out[i]) && std::isnan(want))) << i;
    }
  }
  {
    const KRun r = run_ex("alignment.cu", "soa_float3", "all");
    const float *x = r.as<float>("x"), *y = r.as<float>("y"), *z = r.as<float>("z"),
                *out = r.as<float>("out");
    for (int i = 0; i < n; ++i) {
      const float want = x[i] + y[i] + z[i];
      ASSERT_TRUE(out[i] == want || (std::isnan(out[i]) && std::isnan(want))) << i;
    }
  }
  {
    const KRun r = run_ex("alignment.cu", "pixels", "all");
    const auto* p = r.as<std::uint8_t>("p");
    const auto* gray = r.as<std::uint8_t>("gray");
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(gray[i], static_cast<std::uint8_t>((p[3 * i] + p[3 * i + 1] + p[3 * i + 2]) / 3))
          << i;
  }
  for (const char* kernel : {"rows_unpadded", "rows_pitched"}) {
    const KRun r = run_ex("alignment.cu", kernel, "all");
    const int pitch = std::string(kernel) == "rows_pitched" ? 4096 : 4004;
    const auto* in = r.as<std::uint8_t>("in");
    const auto* out = r.as<std::uint8_t>("out");
    for (int row = 0; row < 256; ++row)
      for (int x = 0; x < 1001; ++x) {
        float a, b;
        std::memcpy(&a, in + row * pitch + x * 4, 4);
        std::memcpy(&b, out + row * pitch + x * 4, 4);
        ASSERT_TRUE(b == 2.0f * a || (std::isnan(a) && std::isnan(b)))
            << kernel << " row " << row << " x " << x;
      }
  }
  {
    const KRun r = run_ex("alignment.cu", "offset_by_one", "all");
    const auto* in = r.as<std::uint32_t>("in");
    const auto* out = r.as<std::uint32_t>("out");
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i + 1]) << i;  // a bit copy
  }
}

// ---------------------------------------------------------------- occupancy.cu

TEST(Examples, OccupancyTile64) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("occupancy.cu"), 1u);
  const int n = 8192, tile = 64, rows = 2;
  const KRun r = run_ex("occupancy.cu", "transposeTile64", "5");
  const float* in = r.as<float>("in");
  const float* out = r.as<float>("out");
  const float* scale = r.as<float>("scale");
  EXPECT_EQ(scale[5], 5.0f);  // iota
  for (std::uint64_t cta : r.ctas) {
    const auto id = r.cta_xyz(cta);
    int bad = 0;
    for (int ty = 0; ty < rows; ++ty)
      for (int tx = 0; tx < tile; ++tx) {
        const float f = scale[(ty * tile + tx + static_cast<int>(id.x)) % (tile * rows)];
        for (int j = 0; j < tile; j += rows) {
          const std::size_t o =
              static_cast<std::size_t>(id.x * tile + ty + j) * n + id.y * tile + tx;
          const std::size_t i =
              static_cast<std::size_t>(id.y * tile + tx) * n + id.x * tile + ty + j;
          if (out[o] != in[i] * f && bad++ < 3)
            ADD_FAILURE() << "out[" << o << "]: got " << out[o] << ", want " << in[i] * f;
        }
      }
    EXPECT_EQ(bad, 0) << "CTA " << cta;
  }
}

// ---------------------------------------------------------------- sgemm.cu

TEST(Examples, Sgemm) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("sgemm.cu"), 5u);
  const int n = 512;
  // Inputs in [0, 1), as main() draws them (the comments' random bits would hold NaNs).
  std::vector<float> a(static_cast<std::size_t>(n) * n), b(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f;
    b[i] = static_cast<float>((i * 104729 + 17) % 997) / 997.0f;
  }
  const std::string a_file = "@" + write_temp(a, "sgemm-a.bin");
  const std::string b_file = "@" + write_temp(b, "sgemm-b.bin");
  struct Case {
    const char* name;
    int tile;  // the block tile is tile x tile outputs
  } cases[] = {{"sgemm_1d_blocktiling", 64},
               {"sgemm_2d_blocktiling", 128},
               {"sgemm_vectorized", 128},
               {"sgemm_warptiling", 128},
               {"sgemm_double_buffering", 128}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const KRun r = run_ex("sgemm.cu", c.name, "2", {{"A", a_file}, {"B", b_file}});
    const float* C = r.as<float>("C");
    for (std::uint64_t cta : r.ctas) {
      const auto id = r.cta_xyz(cta);
      int bad = 0;
      for (int i = 0; i < c.tile; ++i)
        for (int j = 0; j < c.tile; ++j) {
          const int row = static_cast<int>(id.y) * c.tile + i;
          const int col = static_cast<int>(id.x) * c.tile + j;
          // Every kernel accumulates one output in k order with fused multiply-adds.
          float acc = 0;
          for (int k = 0; k < n; ++k)
            acc = std::fma(a[static_cast<std::size_t>(row) * n + k],
                           b[static_cast<std::size_t>(k) * n + col], acc);
          const float got = C[static_cast<std::size_t>(row) * n + col];
          if (got != acc && bad++ < 3)
            ADD_FAILURE() << "C[" << row << "][" << col << "]: got " << got << ", want " << acc;
        }
      EXPECT_EQ(bad, 0) << "CTA " << cta;
    }
  }
}

// ---------------------------------------------------------------- histogram.cu

TEST(Examples, Histogram) {
  REQUIRE_NVCC();
  ASSERT_EQ(count_kernels("histogram.cu"), 3u);
  for (const char* k : {"histogram_shared", "histogram_per_warp", "histogram_warp_aggregated"}) {
    SCOPED_TRACE(k);
    const KRun r = run_ex("histogram.cu", k, "all");
    std::uint64_t bytes = 0;
    const std::uint8_t* data = r.buffer("data", &bytes);
    ASSERT_EQ(bytes, 1u << 20);
    std::vector<std::uint32_t> want(256, 0);
    for (std::uint64_t i = 0; i < bytes; ++i) ++want[data[i]];
    const auto* hist = r.as<std::uint32_t>("hist");
    for (int bin = 0; bin < 256; ++bin) EXPECT_EQ(hist[bin], want[bin]) << "bin " << bin;
    // Random bytes, not a constant fill: every bin is drawn about 4096 times.
    EXPECT_EQ(std::count(want.begin(), want.end(), 0u), 0);
  }
}

// ---------------------------------------------------------------- tensor/*.cu (bf16, redux)

namespace {

float bf16_value(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

// bf16 values uniform in [-2, 2] as the examples' main() draws them (round to nearest even).
std::string bf16_file(std::size_t n, std::uint64_t seed, const std::string& name) {
  std::vector<std::uint16_t> v(n);
  std::uint64_t s = seed;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const float f = static_cast<float>((s >> 40) & 0xffffff) / 16777216.0f * 4.0f - 2.0f;
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    x = static_cast<std::uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
  }
  const std::string path = testing::TempDir() + "/bankcheck-functional-" + name;
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 2));
  return "@" + path;
}

// ‖got − want‖ / ‖want‖ over the rows of the analysed CTAs; every output finite.
double relative_error(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(std::isfinite(got[i])) << i;
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

TEST(Examples, TensorLayernormBf16) {
  REQUIRE_NVCC();
  const KRun r = run_ex("tensor/layernorm.cu", "layernorm_bf16", "24",
                        {{"x", bf16_file(2048 * 1024, 11, "ln_x")},
                         {"gamma", bf16_file(1024, 12, "ln_g")},
                         {"beta", bf16_file(1024, 13, "ln_b")}});
  const auto* x = r.as<std::uint16_t>("x");
  const auto* g = r.as<std::uint16_t>("gamma");
  const auto* b = r.as<std::uint16_t>("beta");
  const auto* y = r.as<std::uint16_t>("y");
  std::vector<double> got, want;
  for (std::uint64_t row : r.ctas) {
    double mean = 0, var = 0;
    for (int c = 0; c < 1024; ++c) mean += bf16_value(x[row * 1024 + c]);
    mean /= 1024;
    for (int c = 0; c < 1024; ++c) var += std::pow(bf16_value(x[row * 1024 + c]) - mean, 2);
    const double rstd = 1.0 / std::sqrt(var / 1024 + 1e-5);
    for (int c = 0; c < 1024; ++c) {
      want.push_back((bf16_value(x[row * 1024 + c]) - mean) * rstd * bf16_value(g[c]) +
                     bf16_value(b[c]));
      got.push_back(bf16_value(y[row * 1024 + c]));
    }
  }
  EXPECT_LT(relative_error(got, want), 1e-2);
}

TEST(Examples, TensorSoftmaxBf16) {
  REQUIRE_NVCC();
  const KRun r = run_ex("tensor/softmax.cu", "softmax_bf16", "24",
                        {{"x", bf16_file(2048 * 1024, 21, "sm_x")}});
  const auto* x = r.as<std::uint16_t>("x");
  const auto* y = r.as<std::uint16_t>("y");
  std::vector<double> got, want;
  for (std::uint64_t row : r.ctas) {
    double m = -INFINITY, sum = 0;
    for (int c = 0; c < 1024; ++c) m = std::max<double>(m, bf16_value(x[row * 1024 + c]));
    for (int c = 0; c < 1024; ++c) sum += std::exp(bf16_value(x[row * 1024 + c]) - m);
    for (int c = 0; c < 1024; ++c) {
      want.push_back(std::exp(bf16_value(x[row * 1024 + c]) - m) / sum);
      got.push_back(bf16_value(y[row * 1024 + c]));
    }
  }
  EXPECT_LT(relative_error(got, want), 1e-2);
}

TEST(Examples, TensorWarpReduce) {
  REQUIRE_NVCC();
  for (const char* k : {"block_sum_redux", "block_sum_cg"}) {
    SCOPED_TRACE(k);
    const KRun r = run_ex("tensor/warp_reduce.cu", k, "all");
    const auto* in = r.as<std::uint32_t>("in");
    const auto* out = r.as<std::uint32_t>("out");
    for (std::uint64_t b : r.ctas) {
      std::uint32_t want = 0;
      for (int t = 0; t < 256; ++t) want += in[b * 256 + t];
      EXPECT_EQ(out[b], want) << "block " << b;
    }
  }
}

// f16 values k/64 for k in [-64, 64): exact in f16, so the reference's products are exact.
std::string f16_file(std::size_t n, std::uint64_t seed, const std::string& name) {
  std::vector<std::uint16_t> v(n);
  std::uint64_t s = seed;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const int k = static_cast<int>((s >> 40) % 128) - 64;
    if (k == 0) {
      x = 0;
      continue;
    }
    const std::uint32_t u = std::bit_cast<std::uint32_t>(static_cast<float>(k) / 64.0f);
    const std::uint32_t exp = ((u >> 23) & 0xff) - 127 + 15;
    x = static_cast<std::uint16_t>(((u >> 16) & 0x8000) | (exp << 10) | ((u >> 13) & 0x3ff));
  }
  const std::string path = testing::TempDir() + "/bankcheck-functional-" + name;
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 2));
  return "@" + path;
}

double f16_value(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double v = e ? std::ldexp(1024 + m, e - 25) : std::ldexp(m, -24);
  return (h & 0x8000) ? -v : v;
}

// The tensor-core GEMM, both layouts: C of the analysed CTAs' 64x64 tiles against a
// double-precision product of the same f16 inputs (cp.async, ldmatrix and mma.sync
// emulated together).
TEST(Examples, TensorHgemm) {
  REQUIRE_NVCC();
  const std::string a = f16_file(1024 * 1024, 31, "hg_a"), b = f16_file(1024 * 1024, 32, "hg_b");
  for (const char* k : {"hgemm_rowmajor", "hgemm_swizzled"}) {
    SCOPED_TRACE(k);
    const KRun r = run_ex("tensor/hgemm.cu", k, "3", {{"A", a}, {"B", b}});
    const auto* A = r.as<std::uint16_t>("A");
    const auto* B = r.as<std::uint16_t>("B");
    const auto* C = r.as<float>("C");
    std::vector<double> got, want;
    for (std::uint64_t cta : r.ctas) {
      const drv::Dim3 xyz = r.cta_xyz(cta);
      for (int i = 0; i < 64; ++i)
        for (int j = 0; j < 64; ++j) {
          const std::size_t row = xyz.y * 64 + i, col = xyz.x * 64 + j;
          double sum = 0;
          for (int kk = 0; kk < 1024; ++kk)
            sum += f16_value(A[row * 1024 + kk]) * f16_value(B[col * 1024 + kk]);
          want.push_back(sum);
          got.push_back(C[row * 1024 + col]);
        }
    }
    EXPECT_EQ(got.size(), 3u * 64 * 64);
    EXPECT_LT(relative_error(got, want), 1e-6);
  }
}

// The wmma GEMM, padded and unpadded tiles: C of the analysed CTAs' 64x64 tiles against a
// double-precision product of the same f16 inputs (wmma.load from shared, wmma.mma,
// wmma.store to shared, emulated together).
TEST(Examples, TensorWmmaGemm) {
  REQUIRE_NVCC();
  const std::string a = f16_file(512 * 512, 41, "wg_a"), b = f16_file(512 * 512, 42, "wg_b");
  for (const char* k : {"wmma_gemm_unpadded", "wmma_gemm_padded"}) {
    SCOPED_TRACE(k);
    const KRun r = run_ex("tensor/wmma_gemm.cu", k, "3", {{"A", a}, {"B", b}});
    const auto* A = r.as<std::uint16_t>("A");
    const auto* B = r.as<std::uint16_t>("B");
    const auto* C = r.as<float>("C");
    std::vector<double> got, want;
    for (std::uint64_t cta : r.ctas) {
      const drv::Dim3 xyz = r.cta_xyz(cta);
      for (int i = 0; i < 64; ++i)
        for (int j = 0; j < 64; ++j) {
          const std::size_t row = xyz.y * 64 + i, col = xyz.x * 64 + j;
          double sum = 0;
          for (int kk = 0; kk < 512; ++kk)
            sum += f16_value(A[row * 512 + kk]) * f16_value(B[kk * 512 + col]);
          want.push_back(sum);
          got.push_back(C[row * 512 + col]);
        }
    }
    EXPECT_EQ(got.size(), 3u * 64 * 64);
    EXPECT_LT(relative_error(got, want), 1e-6);
  }
}

// One row of a per-line truth file (bench/check/lines.py's *.lines.tsv): Nsight Compute's
// shared-memory figures for one kernel and source line.
struct LineTruth {
  std::string file, kernel, sass;
  int line = 0;
  std::uint64_t executed = 0, wavefronts = 0, ideal = 0;
};

// The rows of bench/check/<rel> (header skipped); nullopt when the file cannot be read.
std::optional<std::vector<LineTruth>> read_lines_tsv(const std::string& rel) {
  std::ifstream tsv(std::string(BANKCHECK_SOURCE_DIR) + "/bench/check/" + rel);
  if (!tsv) return std::nullopt;
  std::vector<LineTruth> rows;
  std::string row;
  std::getline(tsv, row);  // header
  while (std::getline(tsv, row)) {
    std::istringstream in(row);
    std::string line, executed, wf, ideal;
    LineTruth t;
    for (std::string* f : {&t.file, &line, &t.kernel, &t.sass, &executed, &wf, &ideal})
      std::getline(in, *f, '\t');
    t.line = std::stoi(line);
    t.executed = std::stoull(executed);
    t.wavefronts = std::stoull(wf);
    t.ideal = std::stoull(ideal);
    rows.push_back(std::move(t));
  }
  return rows;
}

// Every shared line of the wmma GEMM, over the whole grid, equals the H100's per-line
// counters (bench/check/measured/h100_run_new/tensor/wmma_gemm.lines.tsv): wavefronts and ideal
// wavefronts, and the wmma lines' executed instructions. The wmma loads and stores count on
// <mma.h>'s lines in mma.hpp (their innermost frame, where Nsight lists them all); not
// compared, the kernel's lines that call them (74, 75, 83), where Nsight lists some of them
// or none.
TEST(Examples, TensorWmmaLinesEqualH100) {
  REQUIRE_NVCC();
  const auto rows = read_lines_tsv("measured/h100_run_new/tensor/wmma_gemm.lines.tsv");
  ASSERT_TRUE(rows);
  std::map<std::tuple<std::string, std::string, int>, std::vector<std::uint64_t>> truth;
  for (const LineTruth& t : *rows)
    truth[{t.kernel, t.file.substr(t.file.rfind('/') + 1), t.line}] = {t.executed, t.wavefronts,
                                                                       t.ideal};
  const std::set<int> callers = {74, 75, 83};
  std::size_t compared = 0;
  for (const char* k : {"wmma_gemm_unpadded", "wmma_gemm_padded"}) {
    const KRun r = run_ex("tensor/wmma_gemm.cu", k, "all");
    std::map<std::tuple<std::string, std::string, int>, std::vector<std::uint64_t>> got;
    const auto& files = load("tensor/wmma_gemm.cu").loaded.program.files;
    for (const auto& s : r.run.report.sites) {
      if (s.stats.space != ptx::Space::Shared) continue;
      int file = s.file, line = s.line;
      if (!s.inlined.empty()) {  // the innermost frame: <mma.h>'s line
        file = s.inlined.front().file;
        line = s.inlined.front().line;
      } else if (callers.count(line)) {
        ADD_FAILURE() << "line " << line << " has a shared access of its own";
      }
      const std::string path = files[static_cast<std::size_t>(file)];
      auto& g = got[{k, path.substr(path.rfind('/') + 1), line}];
      g.resize(3);
      g[0] += s.stats.requests;
      g[1] += s.stats.wavefronts;
      g[2] += s.stats.ideal_wavefronts;
    }
    for (const auto& [key, v] : got) {
      SCOPED_TRACE(std::get<0>(key) + " " + std::get<1>(key) + ":" +
                   std::to_string(std::get<2>(key)));
      const auto it = truth.find(key);
      ASSERT_NE(it, truth.end());
      EXPECT_EQ(v[1], it->second[1]);
      EXPECT_EQ(v[2], it->second[2]);
      // The tile copies' loops run through ptxas's unrolled code, whose predicated-off
      // copies count as executed: their instructions are not comparable.
      if (std::get<1>(key) == "mma.hpp") {
        EXPECT_EQ(v[0], it->second[0]);
      }
      ++compared;
    }
  }
  // Every line the H100 lists but the callers' is compared: 7 a kernel.
  std::size_t listed = 0;
  for (const auto& [key, v] : truth)
    if (!(std::get<1>(key) == "wmma_gemm.cu" && callers.count(std::get<2>(key)))) ++listed;
  EXPECT_EQ(compared, listed);
  EXPECT_EQ(compared, 12u);
}

// The tensor-core kernels' shared lines where their ldmatrix and cp.async (and bulk_stage's
// cp.async.bulk) are written (the helpers' lines: Nsight Compute lists every LDSM and
// LDGSTS there), over the whole
// grid, equal the H100's wavefronts and ideal wavefronts (bench/check/measured/h100_run_new/tensor).
// Not compared: executed instructions (the H100 rows also count the `@!PT LDS RZ, [RZ]`
// that ptxas puts before each LDGSTS, which execute with no lane and no wavefront), and
// the callers' lines, where Nsight lists only some of the inlined instructions.
TEST(Examples, TensorCoreLinesEqualH100) {
  REQUIRE_NVCC();
  const struct {
    const char* file;
    const char* kernel;
    std::vector<int> lines;
  } cases[] = {{"hgemm", "hgemm_rowmajor", {41, 54}},
               {"hgemm", "hgemm_swizzled", {41, 54}},
               {"attention", "flash_attention_fwd", {38, 50, 57}},
               // cp.async.bulk's UBLKCP: the TMA unit, no LSU wavefront; the reads after it.
               {"bulk_stage", "row_sums_conflicted", {46, 82}},
               {"bulk_stage", "row_sums_rotated", {46, 82}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.kernel);
    const auto rows = read_lines_tsv(std::string("measured/h100_run_new/tensor/") + c.file + ".lines.tsv");
    ASSERT_TRUE(rows);
    std::map<int, std::pair<std::uint64_t, std::uint64_t>> truth;
    for (const LineTruth& t : *rows)
      if (t.kernel == c.kernel && t.file.find(c.file) != std::string::npos)
        truth[t.line] = {t.wavefronts, t.ideal};
    const KRun r = run_ex(std::string("tensor/") + c.file + ".cu", c.kernel, "all");
    for (int line : c.lines) {
      SCOPED_TRACE(line);
      ASSERT_TRUE(truth.count(line));
      std::uint64_t wf = 0, ideal = 0;
      for (const auto& l : r.run.report.lines)
        if (l.space == ptx::Space::Shared && static_cast<int>(l.line) == line) {
          wf += l.wavefronts;
          ideal += l.ideal_wavefronts;
        }
      EXPECT_EQ(wf, truth[line].first);
      EXPECT_EQ(ideal, truth[line].second);
    }
  }
}

// tuned/async.cu's hist_u64: atomicAdd on a shared unsigned long long is an LDS.64 +
// ATOMS.CAST.SPIN.64 loop. Check counts, on the line, what the model gives each warp's
// loop on the kernel's own addresses (iota keys hashed into 64 words): every pass's ATOMS
// (atomic64_spin) and LDS.64, the ideal as Nsight forms it (each pass's ATOMS
// conflict-free, each LDS.64 its own ideal). The H100 counts more (the line's committed
// Nsight figures): the CTA's eight warps update the same 64 words at once, so a warp's CAS
// also fails where another warp stored between its LDS.64 and its ATOMS, and it retries.
// The emulator runs each warp's update whole, so only the retries within a warp are here.
TEST(Examples, HistU64LoopCountsEachWarpsPasses) {
  REQUIRE_NVCC();
  const auto rows = read_lines_tsv("measured/h100_run_new/tuned/async.lines.tsv");
  ASSERT_TRUE(rows);
  std::uint64_t h100_executed = 0, h100_wf = 0, h100_ideal = 0;
  for (const LineTruth& t : *rows)
    if (t.kernel == "hist_u64" && t.line == 169 && t.file.find("async.cu") != std::string::npos) {
      h100_executed = t.executed;
      h100_wf = t.wavefronts;
      h100_ideal = t.ideal;
    }
  ASSERT_GT(h100_wf, 0u);

  namespace model = bankcheck::model;
  std::uint64_t wf = 0, ideal = 0, executed = 0;
  for (std::uint32_t i0 = 0; i0 < (1u << 20); i0 += 32) {  // each warp's iteration
    model::SpinAccess a;
    a.active = ~0u;
    for (std::uint32_t l = 0; l < 32; ++l) a.addr[l] = ((i0 + l) * 2654435761u >> 26) * 8;
    for (std::uint64_t& x : a.operand) x = 1;
    model::SpinLoads loads;
    const model::Verdict v = model::atomic64_spin(a, &loads);
    wf += v.wavefronts;
    ideal += v.wavefronts;
    executed += v.ways + static_cast<std::uint64_t>(loads.count);
    model::WarpAccess ld;
    ld.op = model::Op::Load;
    ld.width = 8;
    std::copy(std::begin(a.addr), std::end(a.addr), std::begin(ld.addr));
    for (int p = 0; p < loads.count; ++p) {
      ld.active = loads.lanes[p];
      const model::Verdict lv = model::analyze(ld);
      wf += lv.wavefronts;
      ideal += lv.ideal_wavefronts;
    }
  }
  const KRun r = run_ex("tuned/async.cu", "hist_u64", "all");
  std::uint64_t got_wf = 0, got_ideal = 0;
  for (const auto& l : r.run.report.lines)
    if (l.space == ptx::Space::Shared && l.line == 169) {
      EXPECT_EQ(l.sass, "LDS.64,ATOMS.CAST.SPIN.64");
      got_wf += l.wavefronts;
      got_ideal += l.ideal_wavefronts;
    }
  EXPECT_EQ(got_wf, wf);
  EXPECT_EQ(got_ideal, ideal);
  EXPECT_LT(executed, h100_executed);
  EXPECT_LT(wf, h100_wf);
  EXPECT_LT(ideal, h100_ideal);
  // Every bin once: the 64 words hold the 2^20 adds.
  const auto* bins = r.as<unsigned long long>("bins");
  std::uint64_t total = 0;
  for (int b = 0; b < 64; ++b) total += bins[b];
  EXPECT_EQ(total, 1u << 20);
}

// Every shared line of the bf16 and redux examples, over the whole grid, equals the H100's
// per-line counters (Nsight Compute, bench/check/measured/h100_run_new/tensor/*.lines.tsv):
// executed instructions, wavefronts and ideal wavefronts.
TEST(Examples, TensorSharedLinesEqualH100) {
  REQUIRE_NVCC();
  const std::pair<const char*, std::vector<const char*>> files[] = {
      {"layernorm", {"layernorm_bf16"}},
      {"softmax", {"softmax_bf16"}},
      {"warp_reduce", {"block_sum_redux", "block_sum_cg"}}};
  for (const auto& [name, kernels] : files) {
    const auto rows = read_lines_tsv(std::string("measured/h100_run_new/tensor/") + name + ".lines.tsv");
    ASSERT_TRUE(rows) << name;
    std::map<std::pair<std::string, int>, std::vector<std::uint64_t>> truth;
    for (const LineTruth& t : *rows) truth[{t.kernel, t.line}] = {t.executed, t.wavefronts, t.ideal};
    std::size_t compared = 0;
    for (const char* k : kernels) {
      const KRun r = run_ex(std::string("tensor/") + name + ".cu", k, "all");
      for (const auto& l : r.run.report.lines) {
        if (l.space != ptx::Space::Shared) continue;
        const auto it = truth.find({k, l.line});
        ASSERT_NE(it, truth.end()) << name << " " << k << " line " << l.line;
        EXPECT_EQ(l.requests, it->second[0]) << k << " line " << l.line;
        EXPECT_EQ(l.wavefronts, it->second[1]) << k << " line " << l.line;
        EXPECT_EQ(l.ideal_wavefronts, it->second[2]) << k << " line " << l.line;
        ++compared;
      }
    }
    EXPECT_EQ(compared, truth.size()) << name;
  }
}

// tensor/bulk_stage.cu: tiles staged by cp.async.bulk on two mbarriers (double buffered,
// phase parity). Every row sum of every CTA equals the CPU's (inputs k/8: the sums are
// exact), and the rows' reads cost what the example's comment says: 8-way in row order,
// conflict-free rotated; the bulk copy's shared side is charged nothing (docs/model.md).
TEST(Examples, TensorBulkStage) {
  REQUIRE_NVCC();
  std::vector<float> in(64 * 8 * 128 * 32);
  std::uint64_t s = 7;
  for (float& x : in) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<int>((s >> 40) % 257) - 128) / 8.f;
  }
  const std::string path =
      testing::TempDir() + "/bankcheck-functional-bulk-" + std::to_string(::getpid());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(in.data()),
             static_cast<std::streamsize>(in.size() * sizeof(float)));
  for (const char* k : {"row_sums_conflicted", "row_sums_rotated"}) {
    SCOPED_TRACE(k);
    const KRun r = run_ex("tensor/bulk_stage.cu", k, "all", {{"in", "@" + path}});
    const auto* out = r.as<float>("out");
    for (std::size_t row = 0; row < in.size() / 32; ++row) {
      float want = 0.f;
      for (std::size_t c = 0; c < 32; c += 4)
        want += (in[row * 32 + c] + in[row * 32 + c + 1]) +
                (in[row * 32 + c + 2] + in[row * 32 + c + 3]);
      ASSERT_EQ(out[row], want) << "row " << row;
    }
    bool bulk = false, reads = false;
    for (const auto& site : r.run.report.sites) {
      if (site.stats.space != ptx::Space::Shared) continue;
      if (site.ptx.find("cp.async.bulk") != std::string::npos) {
        bulk = true;
        EXPECT_EQ(site.stats.wavefronts, 0u);
      } else if (site.stats.op == bankcheck::model::Op::Load) {
        reads = true;
        EXPECT_EQ(site.stats.ways, std::string(k) == "row_sums_rotated" ? 1u : 8u);
      }
    }
    EXPECT_TRUE(bulk && reads);
  }
}
