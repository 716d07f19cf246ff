// Resource limits, checked before anything is allocated: the memory budget that buffers,
// the CTA plan and the emulators' per-CTA state share, and the worker-thread count.
// docs/limits.md lists them with the flags that change them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck::ptx {
struct Kernel;
}
namespace bankcheck::emu {
struct Launch;
}

namespace bankcheck::driver {

// The default memory budget (--max-memory): 3 GiB, so that a run fits a 4 GiB address
// space with the program, the PTX and the report beside it.
inline constexpr std::uint64_t kDefaultMaxMemory = 3ull << 30;
// Worker threads (--threads): more than this only adds emulators that wait.
inline constexpr unsigned kMaxThreads = 256;
// The size of a pointer parameter given no size: lazily zeroed, only touched pages cost.
inline constexpr std::uint64_t kDefaultBufferBytes = 1ull << 30;

// Sizes for each buffer: explicit ones (nonzero in `asked`) are checked against the
// budget; the defaulted ones (zero) get kDefaultBufferBytes each when that fits, else an
// equal share of what is left (at least 1 MiB, whole MiB). Throws DriverError naming the
// buffers and the flags that change them.
std::vector<std::uint64_t> buffer_sizes(const std::vector<std::string>& names,
                                        const std::vector<std::uint64_t>& asked,
                                        std::uint64_t budget, const std::string& kernel);

// The bytes one emulator holds while it runs a CTA of `block` threads: local memory,
// registers, shared memory.
std::uint64_t cta_state_bytes(const ptx::Kernel& k, const emu::Launch& launch);

// A buffer held within the budget: its name and size.
struct BufferUse {
  std::string name;
  std::uint64_t bytes = 0;
};

// `workers` emulators at once, and a plan of `planned` CTAs (8 bytes each), within what
// `buffers` (bankcheck's own, as `check` allocates them; a running program's are none of the
// budget's) left of the budget. Throws DriverError naming the buffers and their sizes.
void check_run_memory(const ptx::Kernel& k, const emu::Launch& launch, unsigned workers,
                      std::uint64_t planned, const std::vector<BufferUse>& buffers,
                      std::uint64_t budget, const std::string& kernel);

// --threads: at most kMaxThreads.
void check_threads(unsigned threads);

}  // namespace bankcheck::driver
