// What native code (native.hpp) and the warp loop hand each other: compiled into the
// generated source as this very text, so it includes only the standard library.
#pragma once

#include <cstdint>

namespace bankcheck::emu::detail {

// A span of memory that native code reads and writes in place: [lo, lo + size) of the
// emulated addresses at `data` (null: none yet); `owner`, the emulator's record of it.
struct NativeWindow {
  std::uint64_t lo = 0;
  std::uint64_t size = 0;
  std::uint8_t* data = nullptr;
  void* owner = nullptr;
};

struct NativeCtx {
  std::uint64_t n = 0;       // the warp instructions counted; native code adds its own
  std::uint64_t budget = 0;  // which no pass through a run may pass (the warp loop's budget)
  std::int64_t rpc = -1;     // where the running stack entry reconverges: a run stops there
  void* env = nullptr;       // the warp loop's, for `memory`
  // Runs the load or store at instruction `pc` for the lanes `exec`, as the warp loop does
  // (its faults included), `n` warp instructions counted with it.
  void (*memory)(void* env, std::int32_t pc, std::uint32_t exec, std::uint64_t n) = nullptr;
  // Loads and stores may run in place (no listener, footprint or bookkeeping wants them):
  // a global one in the buffer its instruction used last (windows[pc], kept by the warp
  // loop's memory path), a shared one in the CTA's shared memory; a lane outside or
  // misaligned sends the instruction to `memory`.
  bool plain = false;
  const NativeWindow* windows = nullptr;
  NativeWindow shared;
};

// A run for a warp: R its register file (slots x 32 lanes), P its predicates, `active` the
// lanes running, F the run's fixed operands (immediates, CTA constants, forwarded
// parameters: 32 lanes each). Returns the instruction the warp loop goes on at; ctx->n then
// counts what the run ran.
using NativeFn = std::int32_t (*)(std::uint64_t* R, std::uint32_t* P, std::uint32_t active,
                                  const std::uint64_t* const* F, NativeCtx* ctx);

}  // namespace bankcheck::emu::detail
