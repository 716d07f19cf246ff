// analyze() throughput on random 32-, 64- and 128-bit requests (target: at least 20 million
// 32-bit requests per second on one core), against a naive std::set reference of the same
// rule measured in the same run.
#include <benchmark/benchmark.h>

#include <random>
#include <set>
#include <vector>

#include "bankcheck/model/analyze.hpp"

namespace {

using namespace bankcheck::model;

std::vector<WarpAccess> random_requests(Op op, int width, std::uint32_t region, int count) {
  std::mt19937 rng(static_cast<unsigned>(width * 7919 + region));
  std::vector<WarpAccess> out(count);
  for (auto& a : out) {
    a.op = op;
    a.width = static_cast<std::uint8_t>(width);
    for (auto& addr : a.addr) addr = (rng() % region) / width * width;
  }
  return out;
}

// The rule written the obvious way: per phase, a std::set of words per bank.
std::uint32_t naive_wavefronts(const WarpAccess& a) {
  const int phase = a.width <= 4 ? 32 : (a.width == 8 ? 16 : 8);
  std::uint32_t total = 0;
  for (int first = 0; first < 32; first += phase) {
    std::set<std::uint32_t> banks[32];
    for (int l = first; l < first + phase; ++l)
      for (int k = 0; k < std::max(1, a.width / 4); ++k) {
        const std::uint32_t word = a.addr[l] / 4 + k;
        banks[word % 32].insert(word);
      }
    std::size_t worst = 0;
    for (auto& b : banks) worst = std::max(worst, b.size());
    total += static_cast<std::uint32_t>(worst);
  }
  return total;
}

void report(benchmark::State& state, std::size_t per_iter, const char* target) {
  state.counters["requests_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * per_iter), benchmark::Counter::kIsRate);
  state.SetLabel(target);
}

template <int Width>
void BM_Analyze(benchmark::State& state) {
  const auto reqs =
      random_requests(Op::Load, Width, static_cast<std::uint32_t>(state.range(0)), 4096);
  for (auto _ : state)
    for (const auto& a : reqs) benchmark::DoNotOptimize(analyze(a).wavefronts);
  report(state, reqs.size(), Width == 4 ? "target >= 20M/s" : "");
}

template <int Width>
void BM_NaiveBaseline(benchmark::State& state) {
  const auto reqs =
      random_requests(Op::Load, Width, static_cast<std::uint32_t>(state.range(0)), 4096);
  for (auto _ : state)
    for (const auto& a : reqs) benchmark::DoNotOptimize(naive_wavefronts(a));
  report(state, reqs.size(), "baseline: std::set per bank");
}

void BM_AnalyzeWithSchedule(benchmark::State& state) {
  const auto reqs = random_requests(Op::Load, 4, 49152, 1024);
  Schedule s;
  for (auto _ : state)
    for (const auto& a : reqs) benchmark::DoNotOptimize(analyze(a, kDefaultArch, &s).wavefronts);
  report(state, reqs.size(), "explanations (not on the hot path)");
}

}  // namespace

// Region 49152: random over 48 KiB (mostly 2-4-way); 128: many lanes share words.
BENCHMARK(BM_Analyze<4>)->Arg(49152)->Arg(128);
BENCHMARK(BM_Analyze<8>)->Arg(49152)->Arg(256);
BENCHMARK(BM_Analyze<16>)->Arg(49152)->Arg(512);
BENCHMARK(BM_NaiveBaseline<4>)->Arg(49152);
BENCHMARK(BM_NaiveBaseline<8>)->Arg(49152);
BENCHMARK(BM_NaiveBaseline<16>)->Arg(49152);
BENCHMARK(BM_AnalyzeWithSchedule);

BENCHMARK_MAIN();
