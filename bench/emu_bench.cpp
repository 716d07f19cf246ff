// Emulator throughput in warp instructions per second on one core (target: at least 50
// million) for seed 004's shared-memory transpose and the tiled matrix multiply, with
// and without the bank analysis listening, and mma.sync's own throughput (BM_MmaSync:
// m16n8k16 f16 multiply-accumulates per second). BM_Grid*: the whole grid of one kernel
// as `check --blocks all --threads 1` runs it after nvcc (KernelAnalysis: the emulator,
// the SASS requests where ptxas could be run at set-up, the bank analysis), in seconds. The
// PTX under bench/data was made by nvcc 13.0 (-arch=sm_90 -lineinfo) from
// examples/transpose.cu, examples/matmul.cu and bench/data/mma.cu.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>

#include "bankcheck/analysis/site_stats.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"

namespace {

using namespace bankcheck;

struct Setup {
  driver::Loaded loaded;
  const ptx::Kernel* kernel = nullptr;
  emu::GlobalMemory memory;
  emu::Launch launch;
};

std::unique_ptr<Setup> make(const char* ptx, const char* kernel, emu::Dim3 grid, emu::Dim3 block,
                            std::vector<std::uint64_t> buffers) {
  auto s = std::make_unique<Setup>();
  driver::CheckOptions o;
  o.input = std::string(BANKCHECK_SOURCE_DIR) + "/bench/data/" + ptx;
  s->loaded = driver::load(o);
  for (const auto& k : s->loaded.program.kernels)
    if (driver::base_name(driver::demangle(k.name)) == kernel) s->kernel = &k;
  for (const auto& g : s->loaded.program.globals) s->memory.add(g.name, g.bytes, g.address);
  s->launch.grid = grid;
  s->launch.block = block;
  s->launch.params.assign(static_cast<size_t>(s->kernel->param_bytes), 0);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i]) continue;
    std::string name = "p";
    name += std::to_string(i);
    const std::uint64_t base = s->memory.add(name, buffers[i]);
    std::memcpy(s->launch.params.data() + s->kernel->params[i].offset, &base, 8);
  }
  return s;
}

void run(benchmark::State& state, Setup& s, bool analyse) {
  emu::Emulator e(s.loaded.program, *s.kernel, s.memory);
  analysis::SiteStatsListener stats(model::kDefaultArch, s.kernel->sites.size());
  analysis::VerdictMemo memo(model::kDefaultArch);
  stats.set_memo(&memo);  // as run_ctas gives each thread's listeners
  if (analyse) e.add_listener(&stats);
  std::uint32_t cta = 0;
  for (auto _ : state) {
    e.run_cta(s.launch, {cta % s.launch.grid.x, (cta / s.launch.grid.x) % s.launch.grid.y, 0});
    ++cta;
  }
  state.counters["warp_instructions_per_s"] =
      benchmark::Counter(static_cast<double>(e.executed()), benchmark::Counter::kIsRate);
  // For instruction counts under callgrind: host instructions / (CTAs * this).
  state.counters["warp_instructions_per_cta"] =
      static_cast<double>(e.executed()) / static_cast<double>(std::max<std::uint32_t>(cta, 1));
  state.SetLabel("target >= 50M/s");
}

void BM_TransposeShared(benchmark::State& state) {
  static auto s = make("transpose.ptx", "transposeShared", {256, 256, 1}, {32, 32, 1}, {});
  run(state, *s, state.range(0) != 0);
}

void BM_MatmulTiled(benchmark::State& state) {
  static auto s =
      make("matmul.ptx", "matmul_tiled", {32, 32, 1}, {32, 32, 1}, {4 << 20, 4 << 20, 4 << 20, 0});
  // n = 1024 (parameter 3)
  const int n = 1024;
  std::memcpy(s->launch.params.data() + s->kernel->params[3].offset, &n, 4);
  run(state, *s, state.range(0) != 0);
}

// The whole grid on one thread, every CTA counted: one launch of the kernel's analysis.
void grid(benchmark::State& state, Setup& s) {
  driver::CheckOptions o;
  o.threads = 1;
  driver::KernelLaunch launch;
  launch.kernel = s.kernel;
  launch.launch = s.launch;
  launch.blocks = "all";
  launch.memory = &s.memory;
  std::uint64_t instructions = 0;
  for (auto _ : state) {
    driver::KernelAnalysis a(s.loaded, *s.kernel, model::kDefaultArch, o);
    a.run(launch);
    instructions += a.report().warp_instructions;
  }
  state.counters["warp_instructions_per_s"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
  state.SetLabel(s.loaded.sass ? "SASS requests" : "PTX requests (no ptxas at set-up)");
}

void BM_GridTransposeShared(benchmark::State& state) {
  static auto s = make("transpose.ptx", "transposeShared", {256, 256, 1}, {32, 32, 1}, {});
  grid(state, *s);
}

void BM_GridMatmulTiled(benchmark::State& state) {
  static auto s =
      make("matmul.ptx", "matmul_tiled", {32, 32, 1}, {32, 32, 1}, {4 << 20, 4 << 20, 4 << 20, 0});
  const int n = 1024;
  std::memcpy(s->launch.params.data() + s->kernel->params[3].offset, &n, 4);
  grid(state, *s);
}

// Target: a default `check` of a 4096^3 HGEMM (70 CTAs of 4 warps, 64 K-tiles of 32
// mma each: 573,440 mma) within 2 s on 2 cores, nvcc included, needs about 1M mma/s a core.
void BM_MmaSync(benchmark::State& state) {
  static auto s = make("mma.ptx", "mma_loop", {64, 1, 1}, {128, 1, 1}, {64 * 128 * 24, 64 * 128 * 4});
  // Fragments of random f16 (finite: exponent bits never all ones).
  static const bool filled = [] {
    for (auto& b : s->memory.buffers()) {
      if (b->name != "p0") continue;
      std::uint32_t x = 12345;
      for (std::uint64_t i = 0; i + 1 < b->size; i += 2) {
        x = x * 1664525u + 1013904223u;
        const auto h = static_cast<std::uint16_t>((x >> 16) & 0xBBFF);
        b->data()[i] = static_cast<std::uint8_t>(h);
        b->data()[i + 1] = static_cast<std::uint8_t>(h >> 8);
      }
    }
    return true;
  }();
  (void)filled;
  emu::Emulator e(s->loaded.program, *s->kernel, s->memory);
  std::uint32_t cta = 0;
  for (auto _ : state) e.run_cta(s->launch, {cta++ % s->launch.grid.x, 0, 0});
  // 4 warps a CTA, 256 iterations of 8 mma each.
  const double mma = static_cast<double>(cta) * 4 * 256 * 8;
  state.counters["mma_per_s"] = benchmark::Counter(mma, benchmark::Counter::kIsRate);
  state.SetLabel("target >= 1M mma/s");
}

}  // namespace

// Arg 1: with the bank analysis listening (as `check` runs); 0: the interpreter alone.
BENCHMARK(BM_TransposeShared)->Arg(0)->Arg(1);
BENCHMARK(BM_MatmulTiled)->Arg(0)->Arg(1);
BENCHMARK(BM_MmaSync);
BENCHMARK(BM_GridTransposeShared)->Unit(benchmark::kSecond)->MinTime(2);
BENCHMARK(BM_GridMatmulTiled)->Unit(benchmark::kSecond)->MinTime(2);

BENCHMARK_MAIN();
