// The record of what one execution read and wrote of global memory (footprint.hpp).
#include "bankcheck/emu/footprint.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace bankcheck::emu {

// A buffer's two bitmaps, zeroed pages from calloc (a large buffer costs only the pages of
// the granules marked), set through atomic_ref from any thread.
struct Footprint::Marks {
  GlobalMemory::Buffer* buffer = nullptr;
  std::atomic<bool> ready{false};
  std::uint64_t words = 0;
  std::uint64_t* read = nullptr;
  std::uint64_t* written = nullptr;
  ~Marks() {
    std::free(read);
    std::free(written);
  }
};

namespace {

// ORs `mask` into word `w` unless every bit of it is set already (the usual case for a
// granule marked before: no write to the shared line).
inline void set_bits(std::uint64_t* words, std::uint64_t w, std::uint64_t mask) {
  std::atomic_ref<std::uint64_t> word(words[w]);
  if ((word.load(std::memory_order_relaxed) & mask) != mask)
    word.fetch_or(mask, std::memory_order_relaxed);
}

// Two lanes' addresses: the loops below in 16-byte vectors (SSE2), which the compiler does
// not make of them by itself.
using V2 = std::uint64_t __attribute__((vector_size(16)));
inline V2 load2(const std::uint64_t* p) {
  V2 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Whether addrs[l] == addrs[0] + l * width for every lane.
bool consecutive(const std::uint64_t* addrs, std::uint64_t width) {
  const V2 two = {2 * width, 2 * width};
  V2 expect = {addrs[0], addrs[0] + width}, apart = {0, 0};
  for (int l = 0; l < 32; l += 2, expect += two) apart |= load2(addrs + l) ^ expect;
  return (apart[0] | apart[1]) == 0;
}

// Whether addrs[l] == first[l] + ahead for every lane of `exec`.
bool ahead_of(const std::uint64_t* addrs, const std::uint64_t* first, std::uint32_t exec,
              std::uint64_t ahead) {
  if (exec == 0xFFFFFFFFu) {
    const V2 by = {ahead, ahead};
    V2 differ = {0, 0};
    for (int l = 0; l < 32; l += 2) differ |= (load2(addrs + l) - load2(first + l)) ^ by;
    return (differ[0] | differ[1]) == 0;
  }
  for (std::uint32_t e = exec; e; e &= e - 1) {
    const int l = std::countr_zero(e);
    if (addrs[l] - first[l] != ahead) return false;
  }
  return true;
}

// Marks granules [g0, g1] in `words`.
void set_range(std::uint64_t* words, std::uint64_t g0, std::uint64_t g1) {
  for (std::uint64_t w = g0 / 64; w <= g1 / 64; ++w) {
    const std::uint64_t lo = w == g0 / 64 ? g0 % 64 : 0;
    const std::uint64_t hi = w == g1 / 64 ? g1 % 64 : 63;
    const std::uint64_t mask = (hi == 63 ? ~0ull : (2ull << hi) - 1) & (~0ull << lo);
    set_bits(words, w, mask);
  }
}

}  // namespace

Footprint::Footprint(GlobalMemory& memory) {
  auto& buffers = memory.buffers();
  marks_.reserve(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    buffers[i]->footprint = static_cast<std::uint32_t>(i);
    marks_.push_back(std::make_unique<Marks>());
    marks_.back()->buffer = buffers[i].get();
  }
}

Footprint::~Footprint() = default;

Footprint::Marks& Footprint::marks(GlobalMemory::Buffer& b) {
  static Marks none;  // a buffer this record never numbered: marks go nowhere
  if (b.footprint >= marks_.size() || marks_[b.footprint]->buffer != &b) {
    lost();
    return none;
  }
  Marks& m = *marks_[b.footprint];
  if (!m.ready.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!m.ready.load(std::memory_order_relaxed)) {
      m.words = (b.size + kGranule * 64 - 1) / (kGranule * 64);
      m.read = static_cast<std::uint64_t*>(std::calloc(m.words, sizeof(std::uint64_t)));
      m.written = static_cast<std::uint64_t*>(std::calloc(m.words, sizeof(std::uint64_t)));
      if (!m.read || !m.written) {
        lost();
        return none;
      }
      m.ready.store(true, std::memory_order_release);
    }
  }
  return m;
}

void Footprint::mark(GlobalMemory::Buffer& b, std::uint64_t offset, std::uint64_t bytes, Access a) {
  if (bytes == 0) return;
  Marks& m = marks(b);
  if (!m.read) return;
  const std::uint64_t g0 = offset / kGranule, g1 = (offset + bytes - 1) / kGranule;
  if (a != Access::Write) set_range(m.read, g0, g1);
  if (a != Access::Read) set_range(m.written, g0, g1);
}

void Footprint::mark_lanes(GlobalMemory::Buffer& b, const std::uint64_t* addrs, std::uint32_t exec,
                           unsigned width, Access a) {
  if (!exec) return;
  if (exec == 0xFFFFFFFFu) {  // lane l at addrs[0] + l * width: one range
    std::uint64_t apart = 0;
    for (int l = 1; l < 32; ++l)
      apart |= addrs[l] - addrs[0] - static_cast<std::uint64_t>(l) * width;
    if (apart == 0) return mark(b, addrs[0] - b.base, 32 * std::uint64_t{width}, a);
  }
  Marks& m = marks(b);
  if (!m.read) return;
  // Lanes' granules gathered word by word: a coalesced request sets one or two words.
  auto mark_into = [&](std::uint64_t* words) {
    std::uint64_t word = ~0ull, mask = 0;
    for (std::uint32_t e = exec; e; e &= e - 1) {
      const std::uint64_t off = addrs[std::countr_zero(e)] - b.base;
      const std::uint64_t g1 = (off + width - 1) / kGranule;
      for (std::uint64_t g = off / kGranule; g <= g1; ++g) {
        if (g / 64 != word) {
          if (mask) set_bits(words, word, mask);
          word = g / 64;
          mask = 0;
        }
        mask |= 1ull << (g % 64);
      }
    }
    if (mask) set_bits(words, word, mask);
  };
  if (a != Access::Write) mark_into(m.read);
  if (a != Access::Read) mark_into(m.written);
}

void Footprint::mark_lanes(Run& run, GlobalMemory::Buffer& b, const std::uint64_t* addrs,
                           std::uint32_t exec, unsigned width, Access a) {
  if (!exec) return;
  // Lane l at addrs[0] + l * width: one range, marked now.
  if (exec == 0xFFFFFFFFu && addrs[1] - addrs[0] == width && consecutive(addrs, width))
    return mark(b, addrs[0] - b.base, 32 * std::uint64_t{width}, a);
  constexpr std::uint32_t kLongest = 1u << 20;  // requests a run holds at most
  if (run.exec == exec && run.buffer == &b && run.width == width && run.access == a &&
      run.requests < kLongest) {
    // Request n of the run (from 0) is the first one's addresses plus n steps.
    const int l0 = std::countr_zero(exec);
    const std::uint64_t step = run.requests == 1 ? addrs[l0] - run.first[l0] : run.step;
    if (ahead_of(addrs, run.first, exec, step * run.requests)) {
      run.step = step;
      ++run.requests;
      return;
    }
  }
  flush(run);
  run.buffer = &b;
  run.exec = exec;
  run.width = width;
  run.access = a;
  run.requests = 1;
  run.step = 0;
  std::copy(addrs, addrs + 32, run.first);
}

void Footprint::flush(Run& run) {
  if (!run.exec) return;
  GlobalMemory::Buffer& b = *run.buffer;
  const std::uint32_t exec = run.exec;
  run.exec = 0;
  const std::uint64_t width = run.width, step = run.step;
  // One request, the same addresses again, or each lane along consecutive bytes: one range
  // a lane.
  const bool same = run.requests == 1 || step == 0;
  if (same || step == width) {
    const std::uint64_t bytes = same ? width : width * run.requests;
    for (std::uint32_t e = exec; e; e &= e - 1) {
      const int l = std::countr_zero(e);
      mark(b, run.first[l] - b.base, bytes, run.access);
    }
    return;
  }
  Marks& m = marks(b);
  if (!m.read) return;
  // One lane's requests set bits of words that depend only on its first address's offset
  // in its word (a word covers kWordBytes): as (word from the first one's, bits) pairs, made
  // once for the lanes whose first addresses share that offset (a column walk: every lane).
  // A step backwards (wrapping) goes lane by lane.
  constexpr std::uint64_t kWordBytes = 64 * kGranule;
  const bool forward = step < (std::uint64_t{1} << 62);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pattern;
  std::uint64_t pattern_of = ~std::uint64_t{0};
  auto gather = [&](std::uint64_t off, auto&& emit) {
    std::uint64_t word = ~0ull, mask = 0;
    for (std::uint32_t r = 0; r < run.requests; ++r, off += step) {
      const std::uint64_t g1 = (off + width - 1) / kGranule;
      for (std::uint64_t g = off / kGranule; g <= g1; ++g) {
        if (g / 64 != word) {
          if (mask) emit(word, mask);
          word = g / 64;
          mask = 0;
        }
        mask |= 1ull << (g % 64);
      }
    }
    if (mask) emit(word, mask);
  };
  const bool reads = run.access != Access::Write, writes = run.access != Access::Read;
  auto set = [&](std::uint64_t word, std::uint64_t mask) {
    if (reads) set_bits(m.read, word, mask);
    if (writes) set_bits(m.written, word, mask);
  };
  for (std::uint32_t e = exec; e; e &= e - 1) {
    const std::uint64_t off = run.first[std::countr_zero(e)] - b.base;
    if (!forward) {
      gather(off, set);
      continue;
    }
    if (off % kWordBytes != pattern_of) {
      pattern_of = off % kWordBytes;
      pattern.clear();
      gather(pattern_of,
             [&](std::uint64_t word, std::uint64_t mask) { pattern.emplace_back(word, mask); });
    }
    const std::uint64_t first_word = off / kWordBytes;
    for (const auto& [word, mask] : pattern) set(first_word + word, mask);
  }
}

bool Footprint::reads_what_it_writes() const {
  for (const auto& m : marks_) {
    if (!m->read) continue;
    for (std::uint64_t w = 0; w < m->words; ++w)
      if (m->read[w] & m->written[w]) return true;
  }
  return false;
}

std::vector<GlobalMemory::Buffer*> Footprint::written_buffers() const {
  std::vector<GlobalMemory::Buffer*> out;
  for (const auto& m : marks_) {
    if (!m->written) continue;
    for (std::uint64_t w = 0; w < m->words; ++w)
      if (m->written[w]) {
        out.push_back(m->buffer);
        break;
      }
  }
  return out;
}

std::vector<Footprint::Range> Footprint::touched() const {
  std::vector<Range> out;
  std::vector<const Marks*> order;
  for (const auto& m : marks_)
    if (m->read) order.push_back(m.get());
  std::sort(order.begin(), order.end(),
            [](const Marks* a, const Marks* b) { return a->buffer->base < b->buffer->base; });
  for (const Marks* m : order) {
    const GlobalMemory::Buffer& b = *m->buffer;
    std::uint64_t start = 0;  // granule where the current run began
    bool in_run = false;
    for (std::uint64_t w = 0; w < m->words; ++w) {
      const std::uint64_t bits = m->read[w] | m->written[w];
      if (bits == (in_run ? ~0ull : 0)) continue;  // the run goes on, or no run
      for (unsigned i = 0; i < 64; ++i) {
        const bool set = (bits >> i) & 1u;
        if (set == in_run) continue;
        const std::uint64_t g = w * 64 + i;
        if (set) {
          start = g;
        } else {
          out.push_back({b.base + start * kGranule, b.base + std::min(g * kGranule, b.size)});
        }
        in_run = set;
      }
    }
    if (in_run)
      out.push_back(
          {b.base + start * kGranule, b.base + std::min(m->words * 64 * kGranule, b.size)});
  }
  return out;
}

}  // namespace bankcheck::emu
