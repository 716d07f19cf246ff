// Buffer fills: `random` on every core, one chunk of a million elements at a time, each
// element written at its own type (a 1 GiB buffer of bytes took five seconds through a
// memcpy per element), and `iota`.
#include "fills.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "splitmix.hpp"
#include "workers.hpp"

namespace bankcheck::driver {
namespace {

template <typename T>
void fill_integers(std::uint8_t* data, std::uint64_t from, std::uint64_t to, SplitMix64& gen) {
  auto* p = reinterpret_cast<T*>(data);  // calloc'd: aligned for any element type
  for (std::uint64_t i = from; i < to; ++i) p[i] = static_cast<T>(below(gen(), 1000));
}

}  // namespace

void fill_random(std::uint8_t* data, std::uint64_t bytes, int es, bool is_float, std::uint64_t seed,
                 unsigned threads, Progress* progress) {
  const std::uint64_t n = bytes / static_cast<std::uint64_t>(es);
  constexpr std::uint64_t kChunk = 1u << 20;
  const std::uint64_t chunks = (n + kChunk - 1) / kChunk;
  if (progress) {
    progress->fill_done = 0;
    progress->fill_total = n * static_cast<std::uint64_t>(es);
  }
  std::atomic<std::uint64_t> next_chunk{0};
  auto fill = [&]() {
    for (std::uint64_t c; (c = next_chunk.fetch_add(1)) < chunks;) {
      SplitMix64 gen{seed ^ (c * 0xD1B54A32D192ED03ull)};
      const std::uint64_t from = c * kChunk, to = std::min(n, from + kChunk);
      if (is_float && es == 4) {
        auto* p = reinterpret_cast<float*>(data);
        for (std::uint64_t i = from; i < to; ++i)
          p[i] = static_cast<float>(below(gen(), 2000001)) / 1000.0f - 1000.0f;
      } else if (is_float && es == 8) {
        auto* p = reinterpret_cast<double*>(data);
        for (std::uint64_t i = from; i < to; ++i)
          p[i] = static_cast<double>(below(gen(), 2000001)) / 1000.0 - 1000.0;
      } else if (es == 1) {
        fill_integers<std::uint8_t>(data, from, to, gen);
      } else if (es == 2) {
        fill_integers<std::uint16_t>(data, from, to, gen);
      } else if (es == 4) {
        fill_integers<std::uint32_t>(data, from, to, gen);
      } else if (es == 8) {
        fill_integers<std::uint64_t>(data, from, to, gen);
      } else {
        for (std::uint64_t i = from; i < to; ++i) {
          const std::uint64_t r = below(gen(), 1000);
          std::memcpy(data + i * static_cast<std::uint64_t>(es), &r,
                      static_cast<size_t>(std::min(es, 8)));
        }
      }
      if (progress)
        progress->fill_done.fetch_add((to - from) * static_cast<std::uint64_t>(es),
                                      std::memory_order_relaxed);
    }
  };
  const unsigned fillers = static_cast<unsigned>(std::min<std::uint64_t>(
      chunks, std::max(1u, threads ? threads : std::thread::hardware_concurrency())));
  run_parts(fillers, [&](unsigned) { fill(); });
  if (progress) progress->fill_total = 0;
}

void fill_iota(std::uint8_t* data, std::uint64_t bytes, int es, bool is_float) {
  std::uint64_t idx = 0;
  for (std::uint64_t off = 0; off + static_cast<std::uint64_t>(es) <= bytes;
       off += static_cast<std::uint64_t>(es), ++idx) {
    if (is_float && es == 4) {
      const float f = static_cast<float>(idx);
      std::memcpy(data + off, &f, 4);
    } else {
      std::memcpy(data + off, &idx, static_cast<size_t>(std::min(es, 8)));
    }
  }
}

}  // namespace bankcheck::driver
