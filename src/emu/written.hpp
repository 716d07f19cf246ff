// Which bytes of a CTA's shared window some thread has written: stores, atomics, the shared
// side of cp.async and stmatrix mark them; loads, atomics and ldmatrix test them, so that a
// read of shared memory no thread of the CTA wrote before can be reported (the emulator reads
// it as zero; the GPU reads whatever the SM held).
//
// One bit per byte, bit a % 64 of word a / 64:
//
//   byte   63 ........ 4 3 2 1 0 | 127 ....... 64 | ...
//   word   [0]                     [1]
//
// The cost is paid on shared accesses only. Most kernels write every byte of their shared
// arrays before a barrier and read them after it (tiles): at each barrier, until it holds,
// the bitmap checks whether every bit is set (bits past the window's end are set from the
// start), and from then on a test or a mark is one compare. Before that a warp's test first
// tries the range its lanes span (the AND and the OR of their addresses bound every one of
// them: a word or two for a row of a tile), then goes lane by lane; a warp that stores a
// contiguous row marks it as one range.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace bankcheck::emu::detail {

class WrittenBytes {
 public:
  // `bytes` of shared memory, none written.
  void reset(std::uint64_t bytes) {
    words_.assign((bytes + 63) / 64, 0);
    if (bytes % 64) words_.back() = ~0ull << (bytes % 64);
    full_ = words_.empty();
  }
  bool all() const { return full_; }
  // At a barrier: whether every byte is written by now (once true, it stays true).
  void settle() {
    if (full_) return;
    std::uint64_t a = ~0ull;
    for (const std::uint64_t w : words_) a &= w;
    full_ = a == ~0ull;
  }

  // [a, a + n), within the window.
  void mark(std::uint64_t a, std::uint64_t n) {
    while (n) {
      const unsigned bit = static_cast<unsigned>(a & 63);
      const std::uint64_t k = std::min<std::uint64_t>(n, 64 - bit);
      set(a >> 6, (k == 64 ? ~0ull : ((std::uint64_t{1} << k) - 1)) << bit);
      a += k;
      n -= k;
    }
  }
  bool test(std::uint64_t a, std::uint64_t n) const {
    while (n) {
      const unsigned bit = static_cast<unsigned>(a & 63);
      const std::uint64_t k = std::min<std::uint64_t>(n, 64 - bit);
      const std::uint64_t m = (k == 64 ? ~0ull : ((std::uint64_t{1} << k) - 1)) << bit;
      if ((words_[a >> 6] & m) != m) return false;
      a += k;
      n -= k;
    }
    return true;
  }

  // A warp's request: the lanes in `exec` access [addrs[l] + off, + width), width 1 to 16
  // and each address a multiple of it (the callers checked), so one lane's bytes lie in one
  // word.
  void mark(const std::uint64_t* addrs, std::uint64_t off, std::uint32_t exec, unsigned width) {
    if (!full_) mark_lanes(addrs, off, exec, width);
  }
  bool test(const std::uint64_t* addrs, std::uint64_t off, std::uint32_t exec,
            unsigned width) const {
    return full_ || test_lanes(addrs, off, exec, width);
  }

 private:
  // Out of line: the warp loop that inlines mark() and test() stays as small as it was.
  [[gnu::noinline]] void mark_lanes(const std::uint64_t* addrs, std::uint64_t off,
                                    std::uint32_t exec, unsigned width) {
    if (exec == 0xFFFFFFFFu) {
      std::uint64_t apart = 0;  // zero when lane l accesses addrs[0] + l * width
      for (int l = 1; l < 32; ++l) apart |= addrs[l] - addrs[0] - static_cast<std::uint64_t>(l) * width;
      if (apart == 0) return mark(addrs[0] + off, 32 * std::uint64_t{width});
    }
    const std::uint64_t m = (std::uint64_t{1} << width) - 1;
    for (std::uint32_t e = exec; e; e &= e - 1) {
      const std::uint64_t a = addrs[std::countr_zero(e)] + off;
      set(a >> 6, m << (a & 63));
    }
  }
  [[gnu::noinline]] bool test_lanes(const std::uint64_t* addrs, std::uint64_t off,
                                    std::uint32_t exec, unsigned width) const {
    if (exec == 0xFFFFFFFFu) {
      std::uint64_t lo = ~0ull, hi = 0;
      for (int l = 0; l < 32; ++l) {
        lo &= addrs[l];
        hi |= addrs[l];
      }
      if (hi - lo <= kRangeBytes && test(lo + off, hi - lo + width)) return true;
    }
    const std::uint64_t m = (std::uint64_t{1} << width) - 1;
    std::uint64_t missing = 0;
    for (std::uint32_t e = exec; e; e &= e - 1) {
      const std::uint64_t a = addrs[std::countr_zero(e)] + off;
      missing |= ~(words_[a >> 6] >> (a & 63)) & m;
    }
    return missing == 0;
  }

  // Past this span the lanes are tested one by one (a column of a tile spans kilobytes).
  static constexpr std::uint64_t kRangeBytes = 512;

  void set(std::uint64_t w, std::uint64_t m) { words_[w] |= m; }

  std::vector<std::uint64_t> words_;
  bool full_ = false;  // every bit set (at the last barrier)
};

}  // namespace bankcheck::emu::detail
