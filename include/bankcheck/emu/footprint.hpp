// The global memory one execution of a kernel read and wrote: what the rule that a repeated
// launch need not run (driver/repeats.hpp) needs to know of that execution. Every global
// access of every tier marks the 4-byte granules it touches as read, written or both (an
// atomic), from whichever thread runs the CTA.
//
// Per buffer, two bitmaps of one bit per granule (bit g % 64 of word g / 64), made on the
// buffer's first mark:
//
//   byte offset  0..3  4..7  ...  252..255 | 256 ...
//   granule      0     1          63       | 64
//   word         [0] ......................| [1]
//
// A granule is marked when any of its bytes is accessed, so the record covers every byte
// the execution accessed (and possibly a few around them): what it read, what it wrote.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "bankcheck/emu/emulator.hpp"

namespace bankcheck::emu {

class Footprint {
 public:
  static constexpr unsigned kGranule = 4;
  enum class Access : std::uint8_t { Read, Write, ReadWrite };
  // [begin, end) addresses.
  struct Range {
    std::uint64_t begin = 0, end = 0;
    bool operator==(const Range&) const = default;
  };

  // A record of an execution in `memory`: numbers its buffers (Buffer::footprint). No buffer
  // may be added or removed until the execution ends.
  explicit Footprint(GlobalMemory& memory);
  ~Footprint();
  Footprint(const Footprint&) = delete;
  Footprint& operator=(const Footprint&) = delete;

  // [offset, offset + bytes) of `b` accessed. Thread-safe.
  void mark(GlobalMemory::Buffer& b, std::uint64_t offset, std::uint64_t bytes, Access a);
  // The executing lanes of a warp request of `width` bytes each at absolute addresses
  // `addrs`, all inside `b`. Thread-safe.
  void mark_lanes(GlobalMemory::Buffer& b, const std::uint64_t* addrs, std::uint32_t exec,
                  unsigned width, Access a);
  // A warp's requests at one instruction, held back while each advances every lane by the
  // same number of bytes (a loop along a row, one lane per row): marked when the pattern
  // breaks or flush() is called, one bitmap word at a time for the whole run, instead of
  // up to 32 words per request. The same granules as mark_lanes of each request. One per
  // (instruction, warp) of the thread that runs them: not thread-safe.
  struct Run {
    GlobalMemory::Buffer* buffer = nullptr;
    std::uint32_t exec = 0;  // 0: empty
    unsigned width = 0;
    Access access = Access::Read;
    std::uint32_t requests = 0;
    std::uint64_t step = 0;  // what every lane added per request (wrapping), from the second on
    std::uint64_t first[32] = {};  // the first request's addresses
  };
  // mark_lanes through `run` (the request's instruction's and warp's): extends it, or
  // marks it and starts a new one. A whole warp of consecutive lanes is marked at once.
  void mark_lanes(Run& run, GlobalMemory::Buffer& b, const std::uint64_t* addrs, std::uint32_t exec,
                  unsigned width, Access a);
  // Marks what `run` holds and empties it. Thread-safe as mark() (for different runs).
  void flush(Run& run);

  // An access the record cannot place (a buffer it does not know): the record is then
  // incomplete. Thread-safe.
  void lost() { lost_.store(true, std::memory_order_relaxed); }

  // After the execution: whether the record covers every access; whether some granule was
  // both read and written; every granule read or written, as ascending, merged ranges.
  bool complete() const { return !lost_.load(std::memory_order_relaxed); }
  bool reads_what_it_writes() const;
  std::vector<Range> touched() const;
  // The buffers some granule of which was written.
  std::vector<GlobalMemory::Buffer*> written_buffers() const;

 private:
  struct Marks;
  Marks& marks(GlobalMemory::Buffer& b);
  std::vector<std::unique_ptr<Marks>> marks_;  // by Buffer::footprint
  std::mutex mutex_;                           // making a buffer's bitmaps
  std::atomic<bool> lost_{false};
};

}  // namespace bankcheck::emu
