// Resource limits checked before allocating: buffers, the CTA plan and the emulators'
// per-CTA state against one memory budget, and the worker-thread count. Each message
// says which flag changes the limit (docs/limits.md).
#include "bankcheck/driver/limits.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bankcheck/driver/error.hpp"
#include "bankcheck/emu/emulator.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::driver {
namespace {

std::string human(std::uint64_t bytes) {
  if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes >= (1ull << 20))
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
  return fmt::format("{} bytes", bytes);
}

// a + b, saturating: sizes come from the command line and may be near 2^64.
std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

}  // namespace

std::vector<std::uint64_t> buffer_sizes(const std::vector<std::string>& names,
                                        const std::vector<std::uint64_t>& asked,
                                        std::uint64_t budget, const std::string& kernel) {
  std::uint64_t explicit_bytes = 0;
  std::size_t defaulted = 0;
  for (std::size_t i = 0; i < asked.size(); ++i) {
    if (asked[i] == 0) ++defaulted;
    explicit_bytes = add(explicit_bytes, asked[i]);
    if (asked[i] > budget)
      throw DriverError(fmt::format(
          "kernel {}: buffer {} of {} bytes is larger than the memory budget ({}); give a "
          "smaller size (--arg {}=zeros:BYTES) or raise --max-memory",
          kernel, names[i], asked[i], human(budget), names[i]));
  }
  if (explicit_bytes > budget)
    throw DriverError(fmt::format(
        "kernel {}: its buffers need {} bytes, more than the memory budget ({}); give smaller "
        "sizes with --arg NAME=zeros:BYTES or raise --max-memory",
        kernel, explicit_bytes, human(budget)));
  std::vector<std::uint64_t> out = asked;
  if (defaulted == 0) return out;
  // A sixth of the budget stays for the CTA plan and the emulators (check_run_memory).
  const std::uint64_t room = budget - budget / 6;
  const std::uint64_t left = room > explicit_bytes ? room - explicit_bytes : 0;
  std::uint64_t share = std::min(kDefaultBufferBytes, left / defaulted);
  share &= ~((1ull << 20) - 1);  // whole MiB
  if (share == 0)
    throw DriverError(fmt::format(
        "kernel {}: {} pointer parameters without a size leave less than 1 MiB each within "
        "the memory budget ({}); give sizes with --arg NAME=zeros:BYTES or raise --max-memory",
        kernel, defaulted, human(budget)));
  for (auto& b : out)
    if (b == 0) b = share;
  return out;
}

std::uint64_t cta_state_bytes(const ptx::Kernel& k, const emu::Launch& launch) {
  const std::uint64_t threads = launch.block.count();
  const std::uint64_t lanes = (threads + 31) / 32 * 32;
  const std::uint64_t local = mul(lanes, k.local_bytes);
  const std::uint64_t regs = mul(lanes, mul(k.num_regs, 8));
  const std::uint64_t shared =
      add(add(k.dynamic_shared_offset, launch.dynamic_smem), k.static_shared_bytes);
  return add(add(local, regs), shared);
}

// "the buffers a (2.0 GiB) and b (1.3 GiB) take 3.3 GiB", "the buffer a takes 2.0 GiB".
std::string buffers_phrase(const std::vector<BufferUse>& buffers, std::uint64_t total) {
  if (buffers.size() == 1)
    return fmt::format("the buffer {} takes {}", buffers[0].name, human(buffers[0].bytes));
  std::string list;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (i > 0) list += i + 1 == buffers.size() ? " and " : ", ";
    list += fmt::format("{} ({})", buffers[i].name, human(buffers[i].bytes));
  }
  return fmt::format("the buffers {} take {}", list, human(total));
}

void check_run_memory(const ptx::Kernel& k, const emu::Launch& launch, unsigned workers,
                      std::uint64_t planned, const std::vector<BufferUse>& buffers,
                      std::uint64_t budget, const std::string& kernel) {
  std::uint64_t buffer_bytes = 0;
  for (const BufferUse& b : buffers) buffer_bytes = add(buffer_bytes, b.bytes);
  const std::uint64_t left = budget > buffer_bytes ? budget - buffer_bytes : 0;
  // What the buffers took of the budget, when they took anything.
  const std::string taken = buffers.empty()
                                ? ""
                                : fmt::format(" ({} of it, leaving {})",
                                              buffers_phrase(buffers, buffer_bytes), human(left));
  const std::uint64_t plan_bytes = mul(planned, 8);
  if (plan_bytes > left / 2)
    throw DriverError(fmt::format(
        "kernel {}: {} CTAs to run need {} for the plan, more than half of what the memory "
        "budget ({}) has for it{}; give --blocks COUNT (a sample){} or raise --max-memory",
        kernel, planned, human(plan_bytes), human(budget), taken,
        buffers.empty() ? "" : ", smaller buffers"));
  const std::uint64_t per_cta = cta_state_bytes(k, launch);
  const std::uint64_t state = mul(per_cta, std::max(1u, workers));
  if (state > left - plan_bytes) {
    const std::uint64_t fit = per_cta ? (left - plan_bytes) / per_cta : 0;
    throw DriverError(fmt::format(
        "kernel {}: one CTA needs {} of emulator state ({} bytes of local memory per thread, "
        "{} threads); {} worker threads need {}, more than the memory budget ({}) has for "
        "them{}; {}",
        kernel, human(per_cta), k.local_bytes, launch.block.count(), std::max(1u, workers),
        human(state), human(budget), taken,
        fit >= 1 ? fmt::format("give --threads {} or raise --max-memory", fit)
                 : std::string("raise --max-memory, or shrink the kernel's local arrays or the "
                               "block")));
  }
}

void check_threads(unsigned threads) {
  if (threads > kMaxThreads)
    throw DriverError(fmt::format(
        "--threads: {} is more than {} (each worker thread holds an emulator; the default is "
        "one per core)",
        threads, kMaxThreads));
}

}  // namespace bankcheck::driver
